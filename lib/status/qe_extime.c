/* The printed forms of a measured duration (qe_extime.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qe_extime.h"

#define NBSP "\xc2\xa0"

/* Indexed by QE_EXTIME_*: the name, what goes before "%". */
static const struct {
	const char *name, *pct;
} styles[] = { { "si", NBSP }, { "en", "" } };

int
qe_extime_style(const char *name)
{
	for (size_t i = 0; name && i < sizeof styles / sizeof styles[0]; i++)
		if (strcmp(name, styles[i].name) == 0)
			return (int)i;
	return -1;
}

const char *
qe_extime_styles(void)
{
	return "en, si";
}

/* d printed to `digits` decimals and read back: Python's round(d, digits). */
static double
at(double d, int digits)
{
	char s[512];

	snprintf(s, sizeof s, "%.*f", digits, d);
	return strtod(s, NULL);
}

/* "H h M min" or "H h" for a whole number of minutes. */
static void
hours(struct qe_buf *b, double minutes)
{
	double h = floor(minutes / 60), m = minutes - 60 * h;

	if (m > 0)
		qe_buf_addf(b, "%.0f" NBSP "h" NBSP "%.0f" NBSP "min", h, m);
	else
		qe_buf_addf(b, "%.0f" NBSP "h", h);
}

void
qe_extime_human(struct qe_buf *b, double d)
{
	double s;

	if (!(d >= 0.005)) {
		qe_buf_adds(b, "<" NBSP "0.01" NBSP "s");
		return;
	}
	if (at(d, 2) < 10) {
		qe_buf_addf(b, "%.2f" NBSP "s", d);
		return;
	}
	if (at(d, 1) < 60) {
		qe_buf_addf(b, "%.1f" NBSP "s", d);
		return;
	}
	s = floor(d + 0.5);
	if (s < 3600) {
		double m = floor(s / 60);

		s -= 60 * m;
		if (s > 0)
			qe_buf_addf(b, "%.0f" NBSP "min" NBSP "%.0f" NBSP "s", m, s);
		else
			qe_buf_addf(b, "%.0f" NBSP "min", m);
		return;
	}
	hours(b, floor(d / 60 + 0.5));
}

void
qe_extime_seconds(struct qe_buf *b, double d, int digits)
{
	qe_buf_addf(b, "%.*f" NBSP "s", digits, d);
}

void
qe_extime_rounded(struct qe_buf *b, double d)
{
	double s, m;

	if (!(d >= 0.05)) {
		qe_buf_adds(b, "<" NBSP "0.1" NBSP "s");
		return;
	}
	if (at(d, 1) < 1) {
		qe_buf_addf(b, "%.1f" NBSP "s", d);
		return;
	}
	s = floor(d + 0.5);
	if (s < 60) {
		qe_buf_addf(b, "%.0f" NBSP "s", s);
		return;
	}
	m = floor(d / 60 + 0.5);
	if (m < 60)
		qe_buf_addf(b, "%.0f" NBSP "min", m);
	else
		hours(b, m);
}

void
qe_extime_share(struct qe_buf *b, double d, double total, int style)
{
	double p = 100.0 * d / total;
	const char *pct = styles[style == QE_EXTIME_EN ? QE_EXTIME_EN : QE_EXTIME_SI].pct;

	if (p < 0.5)
		qe_buf_addf(b, "<" NBSP "1%s%%", pct);
	else
		qe_buf_addf(b, "%.0f%s%%", floor(p + 0.5), pct);
}
