/* Medians and the Mann-Whitney U test (qe_stats.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qe.h"
#include "qe_stats.h"

static int
dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double
qe_median(double *v, int n)
{
	if (n == 0)
		return NAN;
	qsort(v, (size_t)n, sizeof *v, dcmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* U of x against y (a tie counts one half). */
static double
u_statistic(const double *x, int n1, const double *y, int n2)
{
	double u = 0;

	for (int i = 0; i < n1; i++)
		for (int j = 0; j < n2; j++)
			u += x[i] > y[j] ? 1 : x[i] == y[j] ? 0.5 : 0;
	return u;
}

/* The sum of t^3 - t over the groups of t tied values of x and y together. */
static double
tie_sum(const double *x, int n1, const double *y, int n2)
{
	int N = n1 + n2;
	double *all = qe_xmalloc(sizeof(double) * (size_t)N), sum = 0;

	memcpy(all, x, sizeof(double) * (size_t)n1);
	memcpy(all + n1, y, sizeof(double) * (size_t)n2);
	qsort(all, (size_t)N, sizeof *all, dcmp);
	for (int i = 0; i < N;) {
		int j = i;

		while (j < N && all[j] == all[i])
			j++;
		if (j - i > 1) {
			double t = j - i;

			sum += t * t * t - t;
		}
		i = j;
	}
	free(all);
	return sum;
}

/* The exact two-sided p of U = u for sample sizes m and n, without ties. */
static double
exact_p(double u, int m, int n)
{
	int top = m * n;
	double *f = qe_xcalloc((size_t)top + 1, sizeof *f), lo = 0, hi = 0, tot = 0, p;

	/* coefficients of [m+n choose m]_q */
	f[0] = 1;
	for (int i = 1; i <= m; i++) {
		int deg = (i - 1) * n;	/* degree before this step */

		for (int k = deg + n + i; k >= n + i; k--)	/* * (1 - q^(n+i)) */
			if (k <= top)
				f[k] -= f[k - (n + i)];
		for (int k = i; k <= top; k++)	/* / (1 - q^i) */
			f[k] += f[k - i];
	}
	for (int k = 0; k <= top; k++) {
		tot += f[k];
		if (k <= u)
			lo += f[k];
		if (k >= u)
			hi += f[k];
	}
	free(f);
	p = 2 * fmin(lo, hi) / tot;
	return p > 1 ? 1 : p;
}

double
qe_mann_whitney(const double *x, int n1, const double *y, int n2)
{
	double u = u_statistic(x, n1, y, n2), tiesum = tie_sum(x, n1, y, n2);
	int N = n1 + n2;

	if (tiesum == 0 && N <= 40)
		return exact_p(u, n1, n2);

	double mu = n1 * (double)n2 / 2;
	double var = n1 * (double)n2 / 12 * ((N + 1) - tiesum / ((double)N * (N - 1)));

	if (var <= 0)
		return 1;
	double z = (fabs(u - mu) - 0.5) / sqrt(var);

	if (z < 0)
		z = 0;
	return erfc(z / sqrt(2));
}
