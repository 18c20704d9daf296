/* Unit driver for lib/history/qe_changept.c. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"
#include "history/qe_changept.h"

/* "minseg pen | y ...": the change points, or "none". */
static void
pelt(const char *in, size_t n, struct qe_buf *out)
{
	const char *bar = strchr(in, '|');
	double p[2], y[128];
	int cps[128], k, ny;

	(void)n;
	if (bar == NULL || unit_numbers(in, p, 2) != 2) {
		qe_buf_adds(out, "bad case");
		return;
	}
	ny = unit_numbers(bar + 1, y, 128);
	k = qe_changept_pelt(y, ny, (int)p[0], p[1], cps);
	for (int i = 0; i < k; i++)
		qe_buf_addf(out, "%s%d", i ? " " : "", cps[i]);
	if (k == 0)
		qe_buf_adds(out, "none");
}

/* The optimum by the plain recursion over every admissible last change (no pruning), into cps. */
static int
pelt_plain(const double *y, int n, int minseg, double pen, int *cps)
{
	double *S = calloc((size_t)n + 1, sizeof *S), *Q = calloc((size_t)n + 1, sizeof *Q);
	double *F = calloc((size_t)n + 1, sizeof *F);
	int *last = calloc((size_t)n + 1, sizeof *last), k = 0;

	for (int i = 0; i < n; i++)
		S[i + 1] = S[i] + y[i], Q[i + 1] = Q[i] + y[i] * y[i];
	F[0] = -pen;
	for (int t = minseg; t <= n; t++) {
		int arg = -1;

		for (int s = 0; s <= t - minseg; s = s == 0 ? minseg : s + 1) {
			double sum = S[t] - S[s], f = F[s] + Q[t] - Q[s] - sum * sum / (t - s) + pen;

			if (arg < 0 || f < F[t])
				F[t] = f, arg = s;
		}
		last[t] = arg;
	}
	for (int t = n >= 2 * minseg ? last[n] : 0; t > 0; t = last[t])
		cps[k++] = t;
	for (int i = 0; i < k / 2; i++) {
		int x = cps[i];

		cps[i] = cps[k - 1 - i], cps[k - 1 - i] = x;
	}
	free(S), free(Q), free(F), free(last);
	return k;
}

static double
uniform(uint64_t *st)
{
	*st = *st * 6364136223846793005ULL + 1442695040888963407ULL;
	return ((double)(*st >> 11) + 0.5) / 9007199254740992.0;
}

/*
 * "seed n minseg pen steps round": n values of N(0, 1) noise plus `steps`
 * random steps of 1-4, rounded to multiples of `round` when > 0 (ties and
 * constant runs); "same K" when qe_changept_pelt gives the plain
 * recursion's K change points, else both.
 */
static void
pelt_vs_plain(const char *in, size_t len, struct qe_buf *out)
{
	double p[6], *y;
	int n, *a, *b, ka, kb, same;
	uint64_t st;

	(void)len;
	if (unit_numbers(in, p, 6) != 6 || p[1] < 1 || p[1] > 100000 || p[2] < 1) {
		qe_buf_adds(out, "bad case");
		return;
	}
	st = (uint64_t)p[0];
	n = (int)p[1];
	y = calloc((size_t)n, sizeof *y);
	a = calloc((size_t)n + 1, sizeof *a);
	b = calloc((size_t)n + 1, sizeof *b);
	for (int i = 0; i < n; i++)
		y[i] = sqrt(-2 * log(uniform(&st))) * cos(6.283185307179586 * uniform(&st));
	for (int j = 0; j < (int)p[4]; j++) {
		int at = (int)(uniform(&st) * n);
		double h = (1 + 3 * uniform(&st)) * (uniform(&st) < 0.5 ? -1 : 1);

		for (int i = at; i < n; i++)
			y[i] += h;
	}
	if (p[5] > 0)
		for (int i = 0; i < n; i++)
			y[i] = p[5] * round(y[i] / p[5]);
	ka = qe_changept_pelt(y, n, (int)p[2], p[3], a);
	kb = pelt_plain(y, n, (int)p[2], p[3], b);
	same = ka == kb && memcmp(a, b, (size_t)ka * sizeof *a) == 0;
	if (same)
		qe_buf_addf(out, "same %d", ka);
	else {
		qe_buf_addf(out, "pelt %d:", ka);
		for (int i = 0; i < ka; i++)
			qe_buf_addf(out, " %d", a[i]);
		qe_buf_addf(out, "; plain %d:", kb);
		for (int i = 0; i < kb; i++)
			qe_buf_addf(out, " %d", b[i]);
	}
	free(y), free(a), free(b);
}

/* The least CPU seconds of 3 runs of qe_changept_pelt on y[0..n) (minseg 3), its change count into *k. */
static double
pelt_cpu(const double *y, int n, double pen, int *cps, int *k)
{
	double best = INFINITY;

	for (int r = 0; r < 3; r++) {
		clock_t t0 = clock();

		*k = qe_changept_pelt(y, n, 3, pen, cps);
		best = fmin(best, (double)(clock() - t0) / CLOCKS_PER_SEC);
	}
	return best;
}

/*
 * "seed n pen": qe_changept_pelt on n and on 16n values of N(0, 1) noise,
 * no change (minseg 3, the penalty pen x log n): "near-linear: K and K
 * changes" when 16 times the data costs under 64 times the CPU (a ratio,
 * so a slow or instrumented build passes too; the first time taken as 1
 * ms at least), else the times. Without the envelope every candidate
 * stays: some 200 times at n = 4000 (QE_UNIT_TIMES set: the times).
 */
static void
pelt_large(const char *in, size_t len, struct qe_buf *out)
{
	double p[3], *y, t1, t4;
	int n, *cps, k1, k4;
	uint64_t st;

	(void)len;
	if (unit_numbers(in, p, 3) != 3 || p[1] < 1 || p[1] > 1e6) {
		qe_buf_adds(out, "bad case");
		return;
	}
	st = (uint64_t)p[0];
	n = (int)p[1];
	y = calloc(16 * (size_t)n, sizeof *y);
	cps = calloc(16 * (size_t)n + 1, sizeof *cps);
	for (int i = 0; i < 16 * n; i++)
		y[i] = sqrt(-2 * log(uniform(&st))) * cos(6.283185307179586 * uniform(&st));
	t1 = pelt_cpu(y, n, p[2] * log((double)n), cps, &k1);
	t4 = pelt_cpu(y, 16 * n, p[2] * log(16.0 * n), cps, &k4);
	if (getenv("QE_UNIT_TIMES") == NULL && t4 < 64 * fmax(t1, 1e-3))
		qe_buf_addf(out, "near-linear: %d and %d changes", k1, k4);
	else
		qe_buf_addf(out, "%d changes in %.3f s, %d in %.3f s", k1, t1, k4, t4);
	free(y), free(cps);
}

/* "k | x ...": the clipped values (%g). */
static void
clip5(const char *in, size_t n, struct qe_buf *out)
{
	const char *bar = strchr(in, '|');
	double k, x[128], y[128];
	int nx;

	(void)n;
	if (bar == NULL || unit_numbers(in, &k, 1) != 1) {
		qe_buf_adds(out, "bad case");
		return;
	}
	nx = unit_numbers(bar + 1, x, 128);
	qe_changept_clip5(x, nx, k, y);
	for (int i = 0; i < nx; i++)
		qe_buf_addf(out, "%s%g", i ? " " : "", y[i]);
}

static const struct unit_fn fns[] = {
	{ "pelt", pelt },
	{ "pelt-vs-plain", pelt_vs_plain },
	{ "pelt-large", pelt_large },
	{ "clip5", clip5 },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
