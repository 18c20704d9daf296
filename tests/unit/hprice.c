/* Unit driver for lib/history/qe_hprice.c. */
#include <math.h>
#include <stdlib.h>

#include "harness.h"
#include "history/qe_hprice.h"

static void
dflt(const char *in, size_t n, struct qe_buf *out)
{
	double v = qe_hprice_default(in);

	(void)n;
	if (isnan(v))
		qe_buf_adds(out, "none");
	else
		qe_buf_addf(out, "%g", v);
}

/* A price file line: "class=CLASS usd=USD", "skip", or "error: why". */
static void
line(const char *in, size_t n, struct qe_buf *out)
{
	char *cls = NULL;
	double usd;
	const char *why = NULL;
	int r = qe_hprice_line(in, &cls, &usd, &why);

	(void)n;
	if (r > 0)
		qe_buf_addf(out, "class=%s usd=%g", cls, usd);
	else if (r == 0)
		qe_buf_adds(out, "skip");
	else
		qe_buf_addf(out, "error: %s", why);
	free(cls);
}

static const struct unit_fn fns[] = {
	{ "default", dflt },
	{ "line", line },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
