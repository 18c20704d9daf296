/* Robust statistics for qe-history (qe_robust.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qe_mem.h"
#include "qe_robust.h"

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of v[0..n), sorted in place. */
static double
median_inplace(double *v, size_t n)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double
qe_robust_median(const double *v, size_t n)
{
	double *c, m;

	if (n == 0)
		return NAN;
	c = qe_xmalloc(n * sizeof *c);
	memcpy(c, v, n * sizeof *c);
	m = median_inplace(c, n);
	free(c);
	return m;
}

double
qe_robust_floorlog(double x)
{
	return log(x > QE_ROBUST_FLOOR_S ? x : QE_ROBUST_FLOOR_S);
}

/* 1.4826 x the MAD of d[0..n) (sorted and overwritten). */
static double
mad_inplace(double *d, size_t n)
{
	double m = median_inplace(d, n);

	for (size_t i = 0; i < n; i++)
		d[i] = fabs(d[i] - m);
	return 1.4826 * median_inplace(d, n);
}

/* The MAD of consecutive differences, of the floored logs or of the values. */
static double
consecutive_mad(const double *v, size_t n, int in_logs)
{
	double *d, s;

	if (n < 3)
		return NAN;
	d = qe_xmalloc((n - 1) * sizeof *d);
	for (size_t i = 1; i < n; i++)
		d[i - 1] = in_logs ? qe_robust_floorlog(v[i]) - qe_robust_floorlog(v[i - 1])
				   : v[i] - v[i - 1];
	s = mad_inplace(d, n - 1);
	free(d);
	return s;
}

double
qe_robust_noise(const double *v, size_t n)
{
	return consecutive_mad(v, n, 1);
}

double
qe_robust_abs_noise(const double *v, size_t n)
{
	return consecutive_mad(v, n, 0);
}

double
qe_robust_hl_ratio(const double *b, size_t nb, const double *a, size_t na, double *lo, double *hi)
{
	size_t m = nb * na, k;
	double *d, est, z = 1.959963984540054, half;

	*lo = *hi = NAN;
	if (nb == 0 || na == 0)
		return NAN;
	for (size_t i = 0; i < nb; i++)
		if (!(b[i] > 0))
			return NAN;
	for (size_t j = 0; j < na; j++)
		if (!(a[j] > 0))
			return NAN;
	d = qe_xmalloc(m * sizeof *d);
	for (size_t i = 0; i < nb; i++)
		for (size_t j = 0; j < na; j++)
			d[i * na + j] = log(a[j]) - log(b[i]);
	est = exp(median_inplace(d, m));
	half = (double)m / 2 - z * sqrt((double)m * (double)(nb + na + 1) / 12);
	if (half >= 0) {
		k = (size_t)floor(half);
		*lo = exp(d[k]);
		*hi = exp(d[m - 1 - k]);
	}
	free(d);
	return est;
}
