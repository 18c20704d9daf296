/* Unit driver for lib/qe_utf8.c. */
#include "harness.h"
#include "qe_utf8.h"

/* Offset of the first bad byte, or "valid". */
static void
valid(const char *in, size_t n, struct qe_buf *out)
{
	size_t i = qe_utf8_valid(in, n);

	if (i == n)
		qe_buf_adds(out, "valid");
	else
		qe_buf_addf(out, "bad at %zu", i);
}

/* Each code point as U+XXXX (or "bad" for an invalid byte), re-encoded after "=". */
static void
decode(const char *in, size_t n, struct qe_buf *out)
{
	const unsigned char *s = (const unsigned char *)in;
	struct qe_buf again = { 0 };
	size_t i = 0;
	long cp;

	while (i < n) {
		i += qe_utf8_next(s + i, n - i, &cp);
		if (cp < 0)
			qe_buf_adds(out, "bad ");
		else {
			qe_buf_addf(out, "U+%04lX ", cp);
			qe_utf8_put(&again, cp);
		}
	}
	qe_buf_adds(out, "= ");
	qe_buf_add(out, again.data ? again.data : "", again.len);
	qe_buf_free(&again);
}

/* The repaired text, then the count of replacements after " / ". */
static void
repair(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_buf b = { 0 };
	size_t bad = qe_utf8_repair(&b, in, n);

	qe_buf_add(out, b.data ? b.data : "", b.len);
	qe_buf_addf(out, " / %zu", bad);
	qe_buf_free(&b);
}

static const struct unit_fn fns[] = {
	{ "valid", valid },
	{ "repair", repair },
	{ "decode", decode },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
