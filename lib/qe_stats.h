/*
 * qe_stats.h - the statistics of the diff: medians and the two-sided
 * Mann-Whitney U test of replicate samples.
 *
 * Invariants: pure functions of their arguments; nothing is printed or
 * kept. The caller owns every array; qe_stats_median() sorts the one it is given
 * (copy it first to keep the order). NAN samples are the caller's to drop.
 */
#ifndef QE_STATS_H
#define QE_STATS_H

/* The median of v[0..n) (the mean of the middle two when n is even), or NAN when n is 0. Sorts v. */
double qe_stats_median(double *v, int n);

/*
 * The p value of the two-sided Mann-Whitney U test of x[0..n1) against
 * y[0..n2) (n1, n2 >= 1). With n1 + n2 <= 40 it is exact: twice the
 * smaller tail of the null distribution of U over every split of the
 * pooled values, at most 1 (without ties the coefficients of the Gaussian
 * binomial [n1+n2 choose n1]_q; with ties counted over the midranks, so
 * two timings equal to the microsecond do not change the method). Above
 * 40 the normal approximation with the tie correction of the variance and
 * a continuity correction of 0.5; 1 when the variance is 0 (every value
 * tied).
 */
double qe_stats_mann_whitney(const double *x, int n1, const double *y, int n2);

#endif /* QE_STATS_H */
