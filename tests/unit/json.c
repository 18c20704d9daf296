/* Unit driver for lib/qe_json.c: record header, nesting and range checks. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "qe_jw.h"

/* A new record of the input's kind, printed. */
static void
record(const char *in, size_t n, struct qe_buf *out)
{
	cJSON *o = qe_json_record_new(in);

	(void)n;
	unit_add_json(out, o);
	cJSON_Delete(o);
}

/* Offset of the bracket nested too deep, or -1. Input "D:TEXT" repeats TEXT D times. */
static void
too_deep(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_buf s = { 0 };
	char *colon = memchr(in, ':', n);
	long times = colon ? strtol(in, NULL, 10) : 1;
	const char *text = colon ? colon + 1 : in;

	for (long i = 0; i < times; i++)
		qe_buf_adds(&s, text);
	qe_buf_addf(out, "%ld", qe_json_too_deep(s.data ? s.data : "", s.len));
	qe_buf_free(&s);
}

/* 1 when the parsed JSON holds a number beyond a double's range. */
static void
nonfinite(const char *in, size_t n, struct qe_buf *out)
{
	cJSON *v = cJSON_ParseWithLength(in, n);

	if (v == NULL)
		qe_buf_adds(out, "invalid JSON");
	else
		qe_buf_addf(out, "%d", qe_json_nonfinite(v));
	cJSON_Delete(v);
}

/* The number's text: qe_jw_numtext of strtod(input). */
static void
numfmt(const char *in, size_t n, struct qe_buf *out)
{
	char buf[32];

	(void)n;
	qe_jw_numtext(buf, strtod(in, NULL));
	qe_buf_adds(out, buf);
}

/* A parsed value printed by qe_json_print (numbers in numfmt's form). */
static void
print(const char *in, size_t n, struct qe_buf *out)
{
	cJSON *v = cJSON_ParseWithLength(in, n);
	char *s = qe_json_print(v);

	qe_buf_adds(out, s);
	cJSON_free(s);
	cJSON_Delete(v);
}

/* Offset of a raw control character or \u0000 in a string, and which. */
static void
bad_char(const char *in, size_t n, struct qe_buf *out)
{
	int nul;
	long at = qe_json_bad_char(in, n, &nul);

	qe_buf_addf(out, "%ld %d", at, nul);
}

/* The text with \\u0000 escapes rewritten, and how many after " / ". */
static void
nul_to_fffd(const char *in, size_t n, struct qe_buf *out)
{
	char *s = qe_xstrndup(in, n);
	size_t k = qe_json_nul_to_fffd(s, n);

	qe_buf_addf(out, "%s / %zu", s, k);
	free(s);
}

static const struct unit_fn fns[] = {
	{ "nul_to_fffd", nul_to_fffd },
	{ "numfmt", numfmt },
	{ "print", print },
	{ "bad_char", bad_char },
	{ "record", record },
	{ "too_deep", too_deep },
	{ "nonfinite", nonfinite },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
