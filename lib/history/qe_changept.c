/* PELT change points and the spike clipping (qe_changept.h). */
#include <math.h>
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

/* A piece of the envelope: over [lo, hi] candidate `own` may be the least. */
struct piece {
	double lo, hi;
	int own;
};

/*
 * PELT's work arrays. The envelope (functional pruning, as FPOP, Maidstone
 * et al. 2017): a candidate s's cost at t as a function of the last
 * segment's mean mu is F[s] + pen + sum of (y[i] - mu)^2 over [s, t), and
 * every candidate adds the same terms from then on, so which one is least
 * at a mu never changes once both are in: g_s(mu) = F[s] - Q[s] + 2 S[s]
 * mu - s mu^2 decides it (the common terms left out). The pieces cover
 * [ymin, ymax], where every segment's mean lies; a candidate that owns no
 * piece is never again the least (as inequality pruning's, whose losers
 * are never optimal either, so they may still own pieces). On a series
 * without changes the inequality keeps every candidate (quadratic); the
 * envelope keeps a few.
 */
struct pelt {
	double *S, *Q, *F;
	int *last, *cand;
	struct piece *pc, *tmp;	/* the envelope, by lo; the scratch for its next */
	int npc, cap;
	int *owns;		/* owns[s]: pieces candidate s owns */
	double ymin, ymax;
};

static void
pelt_init(struct pelt *p, const double *y, int n)
{
	p->S = qe_xcalloc((size_t)n + 1, sizeof *p->S);
	p->Q = qe_xcalloc((size_t)n + 1, sizeof *p->Q);
	p->F = qe_xcalloc((size_t)n + 1, sizeof *p->F);
	p->last = qe_xcalloc((size_t)n + 1, sizeof *p->last);
	p->cand = qe_xcalloc((size_t)n + 1, sizeof *p->cand);
	p->owns = qe_xcalloc((size_t)n + 1, sizeof *p->owns);
	p->cap = 16;
	p->pc = qe_xcalloc((size_t)p->cap, sizeof *p->pc);
	p->tmp = qe_xcalloc((size_t)p->cap, sizeof *p->tmp);
	p->ymin = p->ymax = n > 0 ? y[0] : 0;
	for (int i = 0; i < n; i++) {
		p->S[i + 1] = p->S[i] + y[i];
		p->Q[i + 1] = p->Q[i] + y[i] * y[i];
		p->ymin = fmin(p->ymin, y[i]);
		p->ymax = fmax(p->ymax, y[i]);
	}
	p->pc[0] = (struct piece){ p->ymin, p->ymax, 0 };	/* candidate 0 alone */
	p->npc = 1;
	p->owns[0] = 1;
}

static void
pelt_free(struct pelt *p)
{
	free(p->S);
	free(p->Q);
	free(p->F);
	free(p->last);
	free(p->cand);
	free(p->owns);
	free(p->pc);
	free(p->tmp);
}

/* Append piece [lo, hi] of owner `own` to the scratch list, merged with the one before if the same. */
static void
put(struct pelt *p, int *m, double lo, double hi, int own)
{
	if (*m > 0 && p->tmp[*m - 1].own == own) {
		p->tmp[*m - 1].hi = hi;
		return;
	}
	p->tmp[(*m)++] = (struct piece){ lo, hi, own };
}

/*
 * Candidate c enters the envelope: on each piece it takes where it is
 * clearly less than the owner (by a margin, so near-ties stay with the
 * earlier candidate, as the minimisation's own ties do). Updates owns[].
 */
static void
envelope_add(struct pelt *p, int c)
{
	int m = 0;

	if (p->cap < 3 * p->npc + 1) {
		p->cap = 3 * p->npc + 1;
		p->tmp = qe_xrealloc(p->tmp, (size_t)p->cap * sizeof *p->tmp);
		p->pc = qe_xrealloc(p->pc, (size_t)p->cap * sizeof *p->pc);
	}
	for (int i = 0; i < p->npc; i++) {
		const struct piece *e = &p->pc[i];
		int j = e->own;
		/* g_c - g_j = A + B mu - C mu^2; c clearly less where C mu^2 - B mu - (A + eps) > 0 */
		double A = (p->F[c] - p->Q[c]) - (p->F[j] - p->Q[j]), B = 2 * (p->S[c] - p->S[j]);
		double C = c - j, eps = 1e-9 * (1 + fabs(p->F[c]) + p->Q[c] + fabs(p->F[j]) + p->Q[j]);
		double disc = B * B + 4 * C * (A + eps), r, a, b;

		if (disc <= 0) {
			put(p, &m, e->lo, e->hi, c);
			continue;
		}
		r = sqrt(disc);
		a = fmax(e->lo, (B - r) / (2 * C));
		b = fmin(e->hi, (B + r) / (2 * C));
		if (a > b) {
			put(p, &m, e->lo, e->hi, c);
			continue;
		}
		if (e->lo < a)
			put(p, &m, e->lo, a, c);
		put(p, &m, a, b, j);
		if (b < e->hi)
			put(p, &m, b, e->hi, c);
	}
	for (int i = 0; i < p->npc; i++)
		p->owns[p->pc[i].own] = 0;
	p->owns[c] = 0;
	for (int i = 0; i < m; i++)
		p->owns[p->tmp[i].own]++;
	{
		struct piece *t = p->pc;

		p->pc = p->tmp;
		p->tmp = t;
	}
	p->npc = m;
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

		if (t - minseg >= minseg) {	/* s = t - minseg can now end a segment */
			p->cand[nc++] = t - minseg;
			envelope_add(p, t - minseg);
			keep = 0;
			for (int i = 0; i < nc; i++)	/* functional pruning: never the least again */
				if (p->owns[p->cand[i]] > 0)
					p->cand[keep++] = p->cand[i];
			nc = keep;
		}
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
