/* Medians and the Mann-Whitney U test (qe_stats.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qe_mem.h"
#include "qe_stats.h"

static int
dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double
qe_stats_median(double *v, int n)
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

/* x[0..n1) and y[0..n2) together, sorted (the caller frees it). */
static double *
pooled_sorted(const double *x, int n1, const double *y, int n2)
{
	double *all = qe_xmalloc(sizeof(double) * (size_t)(n1 + n2));

	memcpy(all, x, sizeof(double) * (size_t)n1);
	memcpy(all + n1, y, sizeof(double) * (size_t)n2);
	qsort(all, (size_t)(n1 + n2), sizeof *all, dcmp);
	return all;
}

/* The sum of t^3 - t over the runs of t tied values of the sorted all[0..N). */
static double
tie_sum(const double *all, int N)
{
	double sum = 0;

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

/* The first of the sorted v[0..n) equal to key (key is one of them). */
static const double *
bsearch_first(const double *v, int n, double key)
{
	int lo = 0, hi = n;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (v[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return v + lo;
}

/*
 * The exact two-sided p of x[0..n1) against the rest of the sorted pooled
 * values all[0..N) when values are tied: the null distribution of U over
 * every split of the pooled values into n1 and N - n1,
 * counted by the sum of twice the midranks of the first group (integers,
 * so the counts are exact). With midranks U = R1 - n1 (n1 + 1) / 2, the
 * same U as u_statistic's half-counted ties.
 */
static double
exact_tied_p(const double *x, int n1, const double *all, int N)
{
	int top = N * (N + 1), obs = 0;
	double lo = 0, hi = 0, tot = 0, p;
	int *rank2 = qe_xmalloc(sizeof(int) * (size_t)N);
	double *cnt = qe_xcalloc((size_t)(n1 + 1) * (size_t)(top + 1), sizeof *cnt);

	for (int i = 0; i < N;) {	/* twice the midrank of a run i..j-1 of equal values: i + j + 1 */
		int j = i;

		while (j < N && all[j] == all[i])
			j++;
		for (int k = i; k < j; k++)
			rank2[k] = i + j + 1;
		i = j;
	}
	for (int i = 0; i < n1; i++) {	/* x[i]'s run starts at its first place in the sorted values */
		const double *at = bsearch_first(all, N, x[i]);

		obs += rank2[at - all];
	}
	cnt[0] = 1;	/* cnt[k * (top + 1) + s]: ways to pick k of the values so far with rank2 sum s */
	for (int i = 0, reach = 0; i < N; i++) {
		reach += rank2[i];	/* no pick of the first i + 1 values sums higher */
		for (int k = i + 1 < n1 ? i + 1 : n1; k >= 1; k--)
			for (int s = reach; s >= rank2[i]; s--)
				cnt[k * (top + 1) + s] += cnt[(k - 1) * (top + 1) + s - rank2[i]];
	}
	for (int s = 0; s <= top; s++) {
		double c = cnt[n1 * (top + 1) + s];

		tot += c;
		lo += s <= obs ? c : 0;
		hi += s >= obs ? c : 0;
	}
	free(rank2);
	free(cnt);
	p = 2 * fmin(lo, hi) / tot;
	return p > 1 ? 1 : p;
}

double
qe_stats_mann_whitney(const double *x, int n1, const double *y, int n2)
{
	int N = n1 + n2;
	double *all = pooled_sorted(x, n1, y, n2);
	double u = u_statistic(x, n1, y, n2), tiesum = tie_sum(all, N), p = -1;

	if (N <= 40)
		p = tiesum == 0 ? exact_p(u, n1, n2) : exact_tied_p(x, n1, all, N);
	free(all);
	if (p >= 0)
		return p;

	double mu = n1 * (double)n2 / 2;
	double var = n1 * (double)n2 / 12 * ((N + 1) - tiesum / ((double)N * (N - 1)));

	if (var <= 0)
		return 1;
	double z = (fabs(u - mu) - 0.5) / sqrt(var);

	if (z < 0)
		z = 0;
	return erfc(z / sqrt(2));
}
