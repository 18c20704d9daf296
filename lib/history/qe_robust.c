/* Robust statistics for qe-history (qe_robust.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qe_mem.h"
#include "qe_robust.h"

/*
 * Rearrange v[lo..hi] so that v[k] is the value a sort would put there,
 * nothing before it larger and nothing after it smaller (Wirth's
 * selection): a sort's order statistics in linear time, for the medians
 * and the interval of the HL ratio's nb x na differences.
 */
static void
select_k(double *v, size_t lo0, size_t hi0, size_t k0)
{
	long lo = (long)lo0, hi = (long)hi0, k = (long)k0;

	while (lo < hi) {
		double x = v[k], t;
		long i = lo, j = hi;

		do {
			while (v[i] < x)
				i++;
			while (x < v[j])
				j--;
			if (i <= j) {
				t = v[i], v[i] = v[j], v[j] = t;
				i++;
				j--;
			}
		} while (i <= j);
		if (j < k)
			lo = i;
		if (k < i)
			hi = j;
	}
}

/* The median of v[0..n), rearranged in place (v[n / 2] holds the upper middle). */
static double
median_inplace(double *v, size_t n)
{
	double low;

	if (n == 0)
		return NAN;
	select_k(v, 0, n - 1, n / 2);
	if (n % 2)
		return v[n / 2];
	low = v[0];
	for (size_t i = 1; i < n / 2; i++)
		low = v[i] > low ? v[i] : low;
	return (low + v[n / 2]) / 2;
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
	d = qe_xmalloc((m + nb + na) * sizeof *d);
	for (size_t i = 0; i < nb; i++)
		d[m + i] = log(b[i]);
	for (size_t j = 0; j < na; j++)
		d[m + nb + j] = log(a[j]);
	for (size_t i = 0; i < nb; i++)
		for (size_t j = 0; j < na; j++)
			d[i * na + j] = d[m + nb + j] - d[m + i];
	est = exp(median_inplace(d, m));
	half = (double)m / 2 - z * sqrt((double)m * (double)(nb + na + 1) / 12);
	if (half >= 0) {
		/* the k-th smallest and largest: below and above the middle the selection left */
		k = (size_t)floor(half);
		if (k < m / 2)
			select_k(d, 0, m / 2 - 1, k);
		if (m - 1 - k > m / 2)
			select_k(d, m / 2 + 1, m - 1, m - 1 - k);
		*lo = exp(d[k]);
		*hi = exp(d[m - 1 - k]);
	}
	free(d);
	return est;
}
