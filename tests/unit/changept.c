/* Unit driver for lib/history/qe_changept.c. */
#include <string.h>

#include "harness.h"
#include "history/qe_changept.h"

/* "minseg pen | y ...": the change points, or "none". */
static void
pelt(const char *in, size_t n, struct qe_buf *out)
{
	const char *bar = strchr(in, '|');
	double p[2], y[128];
	int cps[128], k, ny;

	(void)n;
	if (bar == NULL || unit_numbers(in, p, 2) != 2) {
		qe_buf_adds(out, "bad case");
		return;
	}
	ny = unit_numbers(bar + 1, y, 128);
	k = qe_changept_pelt(y, ny, (int)p[0], p[1], cps);
	for (int i = 0; i < k; i++)
		qe_buf_addf(out, "%s%d", i ? " " : "", cps[i]);
	if (k == 0)
		qe_buf_adds(out, "none");
}

/* "k | x ...": the clipped values (%g). */
static void
clip5(const char *in, size_t n, struct qe_buf *out)
{
	const char *bar = strchr(in, '|');
	double k, x[128], y[128];
	int nx;

	(void)n;
	if (bar == NULL || unit_numbers(in, &k, 1) != 1) {
		qe_buf_adds(out, "bad case");
		return;
	}
	nx = unit_numbers(bar + 1, x, 128);
	qe_changept_clip5(x, nx, k, y);
	for (int i = 0; i < nx; i++)
		qe_buf_addf(out, "%s%g", i ? " " : "", y[i]);
}

static const struct unit_fn fns[] = {
	{ "pelt", pelt },
	{ "clip5", clip5 },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
