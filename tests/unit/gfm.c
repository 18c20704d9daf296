/*
 * Unit driver for lib/qe_gfm.c: the escaper (inline text and code spans)
 * and the pieces of report text. Inputs are single strings; `text8` and
 * `code8` cut at 8 code points, the others at 200.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "qe_gfm.h"

static void
text(const char *in, size_t n, struct qe_buf *out)
{
	(void)n;
	qe_gfm_text(out, in, 200);
}

static void
text8(const char *in, size_t n, struct qe_buf *out)
{
	(void)n;
	qe_gfm_text(out, in, 8);
}

/* How many code points qe_gfm_text shows (blanks at the ends dropped). */
static void
shown(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_buf t = { 0 };

	(void)n;
	qe_buf_addf(out, "%zu", qe_gfm_text(&t, in, 200));
	qe_buf_free(&t);
}

static void
code(const char *in, size_t n, struct qe_buf *out)
{
	(void)n;
	qe_gfm_code(out, in, 200, 0);
}

static void
code8(const char *in, size_t n, struct qe_buf *out)
{
	(void)n;
	qe_gfm_code(out, in, 8, 0);
}

/* A code span in a table cell. */
static void
tcode(const char *in, size_t n, struct qe_buf *out)
{
	(void)n;
	qe_gfm_code(out, in, 200, 1);
}

/* "XXXX" (hex) -> the visible stand-in, as U+XXXX. */
static void
visible(const char *in, size_t n, struct qe_buf *out)
{
	(void)n;
	qe_buf_addf(out, "U+%04lX", qe_gfm_visible(strtol(in, NULL, 16)));
}

static void
count(const char *in, size_t n, struct qe_buf *out)
{
	(void)n;
	qe_gfm_count(out, strtol(in, NULL, 10));
}

/* Numbers in, each formatted, separated by " / ". */
static void
each(const char *in, struct qe_buf *out, void (*fn)(struct qe_buf *, double))
{
	double v[16];
	int k = unit_numbers(in, v, 16);

	for (int i = 0; i < k; i++) {
		if (i > 0)
			qe_buf_adds(out, " / ");
		fn(out, v[i]);
	}
}

static void
dur(const char *in, size_t n, struct qe_buf *out)
{
	(void)n;
	each(in, out, qe_gfm_dur);
}

static void
delta(const char *in, size_t n, struct qe_buf *out)
{
	(void)n;
	each(in, out, qe_gfm_delta);
}

static void
bytes_delta(const char *in, size_t n, struct qe_buf *out)
{
	(void)n;
	each(in, out, qe_gfm_bytes_delta);
}

static void
bytes(const char *in, size_t n, struct qe_buf *out)
{
	(void)n;
	each(in, out, qe_gfm_bytes);
}

static void
ratio(const char *in, size_t n, struct qe_buf *out)
{
	(void)n;
	each(in, out, qe_gfm_ratio);
}

static void
pct(const char *in, size_t n, struct qe_buf *out)
{
	(void)n;
	each(in, out, qe_gfm_pct);
}

static void
decimal2(struct qe_buf *out, double v)
{
	qe_gfm_decimal(out, v, 2);
}

static void
decimal3(struct qe_buf *out, double v)
{
	qe_gfm_decimal(out, v, 3);
}

/* Seconds as jq printed them in the build summary: rounded to 0.01, 0.001. */
static void
secs(const char *in, size_t n, struct qe_buf *out)
{
	(void)n;
	each(in, out, decimal2);
}

static void
msecs(const char *in, size_t n, struct qe_buf *out)
{
	(void)n;
	each(in, out, decimal3);
}

static void
plural(const char *in, size_t n, struct qe_buf *out)
{
	(void)n;
	qe_buf_adds(out, qe_gfm_plural(strtol(in, NULL, 10), "lecture", "lectures"));
}

/* qe_gfm_addf's cap: the length of "%s" of the input repeated 100 times. */
static void
addf_cap(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_buf t = { 0 }, s = { 0 };

	for (int i = 0; i < 100; i++)
		qe_buf_add(&s, in, n);
	qe_gfm_addf(&t, "%s", s.data);
	qe_buf_addf(out, "%zu", t.len);
	qe_buf_free(&t);
	qe_buf_free(&s);
}

static const struct unit_fn fns[] = {
	{ "text", text },
	{ "text8", text8 },
	{ "shown", shown },
	{ "code", code },
	{ "code8", code8 },
	{ "tcode", tcode },
	{ "visible", visible },
	{ "count", count },
	{ "dur", dur },
	{ "delta", delta },
	{ "bytes-delta", bytes_delta },
	{ "bytes", bytes },
	{ "ratio", ratio },
	{ "pct", pct },
	{ "secs", secs },
	{ "msecs", msecs },
	{ "plural", plural },
	{ "addf_cap", addf_cap },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
