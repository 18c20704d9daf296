/*
 * Unit driver for lib/status/qe_extime.c: the printed forms of a duration
 * ({exec-time}), a no-break space shown as "~" so cases read plainly.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "status/qe_extime.h"

/* b with each U+00A0 written "~", onto out. */
static void
shown(struct qe_buf *out, const struct qe_buf *b)
{
	for (size_t i = 0; i < b->len; i++) {
		if (i + 1 < b->len && (unsigned char)b->data[i] == 0xc2 && (unsigned char)b->data[i + 1] == 0xa0) {
			qe_buf_addc(out, '~');
			i++;
		} else
			qe_buf_addc(out, b->data[i]);
	}
}

/* "D": "human | seconds (2 digits) | rounded". */
static void
forms(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_buf b = { 0 };
	double d;

	(void)n;
	if (unit_numbers(in, &d, 1) != 1) {
		qe_buf_adds(out, "bad case");
		return;
	}
	qe_extime_human(&b, d);
	qe_buf_adds(&b, " | ");
	qe_extime_seconds(&b, d, QE_EXTIME_DIGITS);
	qe_buf_adds(&b, " | ");
	qe_extime_rounded(&b, d);
	shown(out, &b);
	qe_buf_free(&b);
}

/* "D DIGITS": the seconds form to DIGITS decimals. */
static void
seconds(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_buf b = { 0 };
	double v[2];

	(void)n;
	if (unit_numbers(in, v, 2) != 2) {
		qe_buf_adds(out, "bad case");
		return;
	}
	qe_extime_seconds(&b, v[0], (int)v[1]);
	shown(out, &b);
	qe_buf_free(&b);
}

/* "STYLE D TOTAL": the share; an unknown style is "-1". */
static void
share(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_buf b = { 0 };
	const char *sp = memchr(in, ' ', n);
	char *name = qe_xstrndup(in, sp ? (size_t)(sp - in) : n);
	int style = qe_extime_style(name);
	double v[2];

	free(name);
	if (style < 0 || sp == NULL || unit_numbers(sp + 1, v, 2) != 2) {
		qe_buf_addf(out, "%d", style);
		return;
	}
	qe_extime_share(&b, v[0], v[1], style);
	shown(out, &b);
	qe_buf_free(&b);
}

static const struct unit_fn fns[] = {
	{ "forms", forms },
	{ "seconds", seconds },
	{ "share", share },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
