/*
 * Unit driver for lib/qe_stats.c. The Mann-Whitney p values of
 * tests/unit/stats.test were computed by tests/unit/stats-reference.py
 * (python3, stdlib only: the exact p by enumerating every split of the
 * pooled samples, tied or not, up to 40 values; above 40, the normal
 * approximation) and agree with the published tables' critical values.
 */
#include <string.h>

#include "harness.h"
#include "qe_stats.h"

/* "1 2 3": the median (%.9g). */
static void
median(const char *in, size_t n, struct qe_buf *out)
{
	double v[64];
	int k = unit_numbers(in, v, 64);

	(void)n;
	qe_buf_addf(out, "%.9g", qe_stats_median(v, k));
}

/* "x ... | y ...": the two-sided p (%.9g). */
static void
mw(const char *in, size_t n, struct qe_buf *out)
{
	const char *bar = strchr(in, '|');
	double x[64], y[64];
	int nx, ny;

	(void)n;
	if (bar == NULL) {
		qe_buf_adds(out, "bad case");
		return;
	}
	nx = unit_numbers(in, x, 64);
	ny = unit_numbers(bar + 1, y, 64);
	qe_buf_addf(out, "%.9g", qe_stats_mann_whitney(x, nx, y, ny));
}

static const struct unit_fn fns[] = {
	{ "median", median },
	{ "mw", mw },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
