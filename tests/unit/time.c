/* Unit driver for lib/qe_time.c: parsing, formatting and differences. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "qe_time.h"

/* The timestamp in RFC 3339 UTC with microseconds, zone and digits; or "error". */
static void
parse(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_time t;
	char buf[QE_TIME_BUFSZ];

	(void)n;
	if (qe_time_parse(in, &t) != 0) {
		qe_buf_adds(out, "error");
		return;
	}
	qe_buf_addf(out, "%s zone=%d offset=%d digits=%d", qe_time_format(&t, buf), t.zone,
	    t.offset, t.frac_digits);
}

/* "A B": B - A in microseconds. */
static void
diff(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_time a, b;
	const char *sp = strstr(in, " | ");	/* a timestamp may hold a space */
	char *first;

	(void)n;
	if (sp == NULL) {
		qe_buf_adds(out, "bad case");
		return;
	}
	first = qe_xstrndup(in, (size_t)(sp - in));
	if (qe_time_parse(first, &a) != 0 || qe_time_parse(sp + 3, &b) != 0)
		qe_buf_adds(out, "error");
	else
		qe_buf_addf(out, "%lld", (long long)qe_time_diff_us(&a, &b));
	free(first);
}

static const struct unit_fn fns[] = {
	{ "parse", parse },
	{ "diff", diff },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
