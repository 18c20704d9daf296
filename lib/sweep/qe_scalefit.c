/*
 * qe_scalefit.c - exponents, crossovers and Amdahl's bound (qe_scalefit.h).
 */
#include <math.h>

#include "qe_scalefit.h"
#include "qe_record.h"

void
qe_scalefit_loglog(const double *x, const double *y, int n, struct qe_scalefit *f)
{
	double mx = 0, my = 0, sxx = 0, sxy = 0, ssr = 0;
	int i;

	f->n = n;
	f->slope = f->se = f->intercept = NAN;
	if (n < 2)
		return;
	for (i = 0; i < n; i++) {
		mx += log10(x[i]) / n;
		my += log10(y[i]) / n;
	}
	for (i = 0; i < n; i++) {
		sxx += (log10(x[i]) - mx) * (log10(x[i]) - mx);
		sxy += (log10(x[i]) - mx) * (log10(y[i]) - my);
	}
	if (sxx <= 0)
		return;
	f->slope = sxy / sxx;
	f->intercept = my - f->slope * mx;
	if (n < 3)
		return;
	for (i = 0; i < n; i++) {
		double r = log10(y[i]) - f->intercept - f->slope * log10(x[i]);
		ssr += r * r;
	}
	f->se = sqrt(ssr / (n - 2) / sxx);
}

/* +1 when the head wins at p (speedup above 1), else -1. */
static int
side(const struct qe_scalefit_point *p)
{
	return p->speedup > 1 ? 1 : -1;
}

/* log x where the log speedup between a and b is 0. */
static double
cross_between(const struct qe_scalefit_point *a, const struct qe_scalefit_point *b)
{
	double la = log10(a->speedup), lb = log10(b->speedup);
	double t = la == lb ? 0.5 : la / (la - lb);

	return pow(10, log10(a->x) + t * (log10(b->x) - log10(a->x)));
}

void
qe_scalefit_crossover(const struct qe_scalefit_point *p, int n, struct qe_scalefit_cross *c)
{
	int i, changes = 0, first = -1, small;

	c->at = c->lo = c->hi = NAN;
	if (n < 2) {
		c->state = qe_vocab_name(&qe_vocab_crossovers, QE_CX_TOO_FEW);
		return;
	}
	for (i = 1; i < n; i++)
		if (side(&p[i]) != side(&p[i - 1]) && changes++ == 0)
			first = i;
	small = side(&p[0]);
	if (changes == 0) {
		c->state = qe_vocab_name(&qe_vocab_crossovers, small > 0 ? QE_CX_WINS_THROUGHOUT : QE_CX_LOSES_THROUGHOUT);
		return;
	}
	c->state = qe_vocab_name(&qe_vocab_crossovers,
	    changes > 1 ? QE_CX_REPEATEDLY : small < 0 ? QE_CX_WINS_ABOVE : QE_CX_LOSES_ABOVE);
	c->at = cross_between(&p[first - 1], &p[first]);
	/* the bracket: the last clear size on the small side, the first clear beyond */
	for (i = first - 1; i >= 0 && isnan(c->lo); i--)
		if (p[i].clear == small)
			c->lo = p[i].x;
	for (i = first; i < n && isnan(c->hi); i++)
		if (p[i].clear == -small)
			c->hi = p[i].x;
}

double
qe_scalefit_at(const struct qe_scalefit_point *p, int n, double x)
{
	int i;

	for (i = 0; i < n; i++)
		if (p[i].x == x)
			return p[i].speedup;
	for (i = 1; i < n; i++)
		if (p[i - 1].x < x && x < p[i].x) {
			double t = (log10(x) - log10(p[i - 1].x)) / (log10(p[i].x) - log10(p[i - 1].x));

			return pow(10, log10(p[i - 1].speedup) + t * (log10(p[i].speedup) - log10(p[i - 1].speedup)));
		}
	return NAN;
}

double
qe_scalefit_amdahl(double share, double factor)
{
	if (!(share >= 0 && share <= 1) || !(factor > 0))
		return NAN;
	return 1 / ((1 - share) + (isinf(factor) ? 0 : share / factor));
}
