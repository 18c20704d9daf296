/* PELT change points and the spike clipping (qe_changept.h). */
#include <stdlib.h>

#include "qe_mem.h"
#include "qe_changept.h"

/* Squared-error cost of y[s..t) from prefix sums S (of y) and Q (of y^2). */
static double
cost(const double *S, const double *Q, int s, int t)
{
	double sum = S[t] - S[s], len = t - s;

	return Q[t] - Q[s] - sum * sum / len;
}

/* PELT's work arrays. */
struct pelt {
	double *S, *Q, *F;
	int *last, *cand;
};

static void
pelt_init(struct pelt *p, const double *y, int n)
{
	p->S = qe_xcalloc((size_t)n + 1, sizeof *p->S);
	p->Q = qe_xcalloc((size_t)n + 1, sizeof *p->Q);
	p->F = qe_xcalloc((size_t)n + 1, sizeof *p->F);
	p->last = qe_xcalloc((size_t)n + 1, sizeof *p->last);
	p->cand = qe_xcalloc((size_t)n + 1, sizeof *p->cand);
	for (int i = 0; i < n; i++) {
		p->S[i + 1] = p->S[i] + y[i];
		p->Q[i + 1] = p->Q[i] + y[i] * y[i];
	}
}

static void
pelt_free(struct pelt *p)
{
	free(p->S);
	free(p->Q);
	free(p->F);
	free(p->last);
	free(p->cand);
}

/* PELT's minimisation: p->F and p->last for every t up to n. */
static void
pelt_run(struct pelt *p, int n, int minseg, double pen)
{
	int nc = 1, keep;

	p->cand[0] = 0;
	p->F[0] = -pen;
	for (int t = minseg; t <= n; t++) {
		double best = 0;
		int arg = -1;

		if (t - minseg >= minseg)	/* s = t - minseg can now end a segment */
			p->cand[nc++] = t - minseg;
		for (int i = 0; i < nc; i++) {
			int s = p->cand[i];
			double f = p->F[s] + cost(p->S, p->Q, s, t) + pen;

			if (arg < 0 || f < best)
				best = f, arg = s;
		}
		p->F[t] = best;
		p->last[t] = arg;
		keep = 0;
		for (int i = 0; i < nc; i++)	/* pruning: never optimal again */
			if (p->F[p->cand[i]] + cost(p->S, p->Q, p->cand[i], t) <= best)
				p->cand[keep++] = p->cand[i];
		nc = keep;
	}
}

int
qe_changept_pelt(const double *y, int n, int minseg, double pen, int *cps)
{
	struct pelt p;
	int k = 0;

	if (minseg < 1 || n < 2 * minseg)
		return 0;
	pelt_init(&p, y, n);
	pelt_run(&p, n, minseg, pen);
	for (int t = p.last[n]; t > 0; t = p.last[t])
		cps[k++] = t;
	for (int i = 0; i < k / 2; i++) {
		int tmp = cps[i];

		cps[i] = cps[k - 1 - i];
		cps[k - 1 - i] = tmp;
	}
	pelt_free(&p);
	return k;
}

void
qe_changept_clip5(const double *x, int n, double k, double *out)
{
	for (int i = 0; i < n; i++) {
		double w[5], m;
		int a = i - 2 < 0 ? 0 : i - 2, z = i + 3 > n ? n : i + 3, len = z - a;

		for (int j = 0; j < len; j++) {	/* insertion sort of at most 5 */
			int at = j;

			for (; at > 0 && w[at - 1] > x[a + j]; at--)
				w[at] = w[at - 1];
			w[at] = x[a + j];
		}
		m = len % 2 ? w[len / 2] : (w[len / 2 - 1] + w[len / 2]) / 2;
		out[i] = x[i] > m + k ? m + k : x[i] < m - k ? m - k : x[i];
	}
}
