/* Unit driver for lib/history/qe_robust.c (values %.9g). */
#include <string.h>

#include "harness.h"
#include "history/qe_robust.h"

static void
median(const char *in, size_t n, struct qe_buf *out)
{
	double v[64];
	int k = unit_numbers(in, v, 64);

	(void)n;
	qe_buf_addf(out, "%.9g", qe_robust_median(v, (size_t)k));
}

static void
noise(const char *in, size_t n, struct qe_buf *out)
{
	double v[64];
	int k = unit_numbers(in, v, 64);

	(void)n;
	qe_buf_addf(out, "%.9g %.9g", qe_robust_noise(v, (size_t)k), qe_robust_abs_noise(v, (size_t)k));
}

/* "before ... | after ...": ratio low high. */
static void
hl(const char *in, size_t n, struct qe_buf *out)
{
	const char *bar = strchr(in, '|');
	double b[64], a[64], lo, hi, r;
	int nb, na;

	(void)n;
	if (bar == NULL) {
		qe_buf_adds(out, "bad case");
		return;
	}
	nb = unit_numbers(in, b, 64);
	na = unit_numbers(bar + 1, a, 64);
	r = qe_robust_hl_ratio(b, (size_t)nb, a, (size_t)na, &lo, &hi);
	qe_buf_addf(out, "%.9g %.9g %.9g", r, lo, hi);
}

static const struct unit_fn fns[] = {
	{ "median", median },
	{ "noise", noise },
	{ "hl", hl },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
