/* Unit driver for lib/sweep/qe_scalefit.c and qe_gfm_magnitude. */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "qe_gfm.h"
#include "sweep/qe_scalefit.h"

/* "x ... | y ...": exponent and standard error (%.4f, "nan"). */
static void
loglog(const char *in, size_t n, struct qe_buf *out)
{
	const char *bar = strchr(in, '|');
	double x[64], y[64];
	struct qe_scalefit f;
	int nx;

	(void)n;
	if (bar == NULL) {
		qe_buf_adds(out, "bad case");
		return;
	}
	nx = unit_numbers(in, x, 64);
	if (unit_numbers(bar + 1, y, 64) != nx) {
		qe_buf_adds(out, "bad case");
		return;
	}
	qe_scalefit_loglog(x, y, nx, &f);
	qe_buf_addf(out, "%.4f %.4f", f.slope, f.se);
}

/* "x speedup clear | ...": state at lo hi (%g). */
static void
crossover(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_scalefit_point p[32];
	struct qe_scalefit_cross c;
	double v[96];
	int k = 0, nv;

	(void)n;
	for (const char *s = in; s != NULL; s = strchr(s, '|'), s = s ? s + 1 : NULL) {
		if ((nv = unit_numbers(s, v, 3)) != 3) {
			qe_buf_adds(out, "bad case");
			return;
		}
		p[k++] = (struct qe_scalefit_point){ v[0], v[1], (int)v[2] };
	}
	qe_scalefit_crossover(p, k, &c);
	qe_buf_addf(out, "%s %.4g %g %g", c.state, c.at, c.lo, c.hi);
}

/* "x | x speedup | ...": the speedup at x (%.4g). */
static void
at(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_scalefit_point p[32];
	double x, v[2];
	int k = 0;

	(void)n;
	unit_numbers(in, &x, 1);
	for (const char *s = strchr(in, '|'); s != NULL; s = strchr(s + 1, '|')) {
		unit_numbers(s + 1, v, 2);
		p[k++] = (struct qe_scalefit_point){ v[0], v[1], 0 };
	}
	qe_buf_addf(out, "%.4g", qe_scalefit_at(p, k, x));
}

/* "share factor" ("inf" for the limit): Amdahl's speedup (%.4f). */
static void
amdahl(const char *in, size_t n, struct qe_buf *out)
{
	double v[2];

	(void)n;
	if (strstr(in, "inf") != NULL) {
		unit_numbers(in, v, 1);
		v[1] = INFINITY;
	} else {
		unit_numbers(in, v, 2);
	}
	qe_buf_addf(out, "%.4f", qe_scalefit_amdahl(v[0], v[1]));
}

/* "x": qe_gfm_magnitude. */
static void
magnitude(const char *in, size_t n, struct qe_buf *out)
{
	double x;

	(void)n;
	if (strcmp(in, "nan") == 0)
		x = NAN;
	else
		unit_numbers(in, &x, 1);
	qe_gfm_magnitude(out, x);
}

static const struct unit_fn fns[] = {
	{ "loglog", loglog },
	{ "crossover", crossover },
	{ "at", at },
	{ "amdahl", amdahl },
	{ "magnitude", magnitude },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
