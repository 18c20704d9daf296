/* Unit driver for lib/qe_opt.c: option values that are numbers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "qe_opt.h"

/* "MIN ABOVE MAX TEXT": the number, or "invalid". */
static void
number(const char *in, size_t n, struct qe_buf *out)
{
	double min, max, v;
	int above, used = 0;

	(void)n;
	if (sscanf(in, "%lf %d %lf %n", &min, &above, &max, &used) != 3) {
		qe_buf_adds(out, "bad case");
		return;
	}
	if (qe_opt_number("-x", in + used, min, above, max, &v) < 0)
		qe_buf_adds(out, "invalid");
	else
		unit_add_double(out, v);
}

/* "MIN MAX TEXT": the count, or "invalid". */
static void
count(const char *in, size_t n, struct qe_buf *out)
{
	long min, max, v;
	int used = 0;

	(void)n;
	if (sscanf(in, "%ld %ld %n", &min, &max, &used) != 2) {
		qe_buf_adds(out, "bad case");
		return;
	}
	if (qe_opt_count("-x", in + used, min, max, &v) < 0)
		qe_buf_adds(out, "invalid");
	else
		qe_buf_addf(out, "%ld", v);
}

static const struct unit_fn fns[] = {
	{ "number", number },
	{ "count", count },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
