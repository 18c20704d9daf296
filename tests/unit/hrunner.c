/* Unit driver for lib/history/qe_hrunner.c: a runner change's factor. */
#include <string.h>

#include "harness.h"
#include "history/qe_hrunner.h"

/* "nd nb lo at hi | v ..." (row by row, nan: none): the factor (%.6g). */
static void
factor(const char *in, size_t n, struct qe_buf *out)
{
	const char *bar = strchr(in, '|');
	double p[5], v[256];

	(void)n;
	if (bar == NULL || unit_numbers(in, p, 5) != 5) {
		qe_buf_adds(out, "bad case");
		return;
	}
	if (unit_numbers(bar + 1, v, 256) != (int)(p[0] * p[1])) {
		qe_buf_adds(out, "bad case");
		return;
	}
	qe_buf_addf(out, "%.6g", qe_hrunner_factor(v, (int)p[0], (int)p[1], (int)p[2], (int)p[3], (int)p[4]));
}

static const struct unit_fn fns[] = {
	{ "factor", factor },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
