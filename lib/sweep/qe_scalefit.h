/*
 * qe_scalefit.h - the rules of a scaling sweep: the scaling exponent (a
 * least-squares line through log time against log size), the crossover of
 * two versions' curves and where it lies, the speedup at a size between the
 * sizes swept, and Amdahl's bound.
 *
 * Invariants: pure functions of their arguments; nothing is printed or
 * kept. Sizes and times are positive (the caller drops the rest); a value
 * that cannot be had is NAN, never a guess.
 */
#ifndef QE_SCALEFIT_H
#define QE_SCALEFIT_H

/* The line log10 y = intercept + slope log10 x through n points. */
struct qe_scalefit {
	int n;           /* points used */
	double slope;    /* the exponent; NAN below 2 points or one size only */
	double se;       /* its standard error; NAN below 3 points */
	double intercept;
};

/* Fit x[0..n), y[0..n) (both > 0) into *f. */
void qe_scalefit_loglog(const double *x, const double *y, int n, struct qe_scalefit *f);

/*
 * One size of a sweep: speedup is base time / head time (medians: above 1
 * the head, the new version, is faster); clear is +1 when every head run was
 * faster than every base run, -1 when every one was slower, else 0.
 */
struct qe_scalefit_point {
	double x;
	double speedup;
	int clear;
};

/*
 * Where the curves cross, over points sorted by x:
 *   state "head-wins-above"  the head loses at the smallest size, wins at
 *                            the largest, one change of side between;
 *         "head-loses-above" the reverse;
 *         "head-wins-throughout", "head-loses-throughout": no change;
 *         "crosses-repeatedly": more than one change (at: the first);
 *         "too-few-sizes": fewer than 2 points.
 *   at    the size where the medians' speedup is 1, interpolated between
 *         the two sizes around the change in log size against log speedup;
 *   lo,hi where it may lie: the largest size below `at` where every run
 *         was on the small sizes' side (clear), the smallest above it where
 *         every run was on the other side; NAN when no size is that clear
 *         (below the smallest, above the largest size swept).
 * Speedup exactly 1 counts as losing.
 */
struct qe_scalefit_cross {
	const char *state;
	double at, lo, hi;
};

void qe_scalefit_crossover(const struct qe_scalefit_point *p, int n, struct qe_scalefit_cross *c);

/*
 * The speedup at size x: a point's own at a size swept, else interpolated
 * in log-log between the two sizes around x; NAN outside the sizes swept.
 */
double qe_scalefit_at(const struct qe_scalefit_point *p, int n, double x);

/*
 * Amdahl's law: the whole's speedup when a part taking `share` (0..1) of
 * the time gets `factor` times faster; factor INFINITY gives the limit.
 */
double qe_scalefit_amdahl(double share, double factor);

#endif /* QE_SCALEFIT_H */
