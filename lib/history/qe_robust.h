/*
 * qe_robust.h - robust statistics for qe-history: medians, the noise of a
 * series (MAD of consecutive log-ratios), the Hodges-Lehmann shift with its
 * distribution-free interval, and the log of a duration with its floor.
 *
 * Invariants:
 *  - pure and deterministic: no randomness, inputs are never modified
 *    (functions sort private copies); nothing prints.
 *  - NAN stands for "no answer" (no values, interval not reachable).
 */
#ifndef QE_ROBUST_H
#define QE_ROBUST_H

#include <stddef.h>

/* Durations below this many seconds are taken as this much in logs: the
 * absolute floor that keeps milliseconds from making huge ratios. */
#define QE_ROBUST_FLOOR_S 0.05

/* The median of v[0..n) (mean of the middle two for even n); NAN if n == 0. */
double qe_robust_median(const double *v, size_t n);

/* log(max(x, QE_ROBUST_FLOOR_S)). */
double qe_robust_floorlog(double x);

/*
 * Build-to-build noise of a series of durations: 1.4826 x the median
 * absolute deviation (from their median) of the consecutive log-ratios
 * qe_robust_floorlog(v[i]) - qe_robust_floorlog(v[i-1]). NAN for n < 3.
 */
double qe_robust_noise(const double *v, size_t n);

/* 1.4826 x MAD of consecutive differences v[i] - v[i-1]; NAN for n < 3. */
double qe_robust_abs_noise(const double *v, size_t n);

/*
 * Hodges-Lehmann: the median of all differences log(a[j]) - log(b[i]) as a
 * ratio exp(.) of a over b, with the 95% interval from the Mann-Whitney
 * statistic's normal approximation (the k-th smallest and largest
 * differences). *lo and *hi are NAN when the sizes are too small for it.
 * Returns NAN when either side is empty or holds a value <= 0.
 */
double qe_robust_hl_ratio(const double *b, size_t nb, const double *a, size_t na, double *lo, double *hi);

#endif /* QE_ROBUST_H */
