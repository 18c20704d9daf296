/* Unit driver for lib/qe_json.c: record header, nesting and range checks. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* A new record of the input's kind, printed. */
static void
record(const char *in, size_t n, struct qe_buf *out)
{
	cJSON *o = qe_record_new(in);

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

static const struct unit_fn fns[] = {
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
