/*
 * Unit driver for lib/provenance/qe_splice.c: "RECORD || VALUE" -> the line written,
 * byte for byte, or "refused" for a record that already holds the key.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "provenance/qe_splice.h"

static void
run(const char *in, size_t n, struct qe_buf *out, int replace, int raw)
{
	const char *sep = strstr(in, " || "), *line;
	struct qe_splice sp;
	char *text;
	cJSON *rec;
	size_t len;

	(void)n;
	if (sep == NULL) {
		qe_buf_adds(out, "bad case");
		return;
	}
	text = qe_xstrndup(in, (size_t)(sep - in));
	rec = cJSON_Parse(text);
	qe_splice_init(&sp, "provenance", sep + 4, replace);
	if (rec == NULL)
		qe_buf_adds(out, "bad record");
	else if ((line = raw ? qe_splice_raw(&sp, rec, text, strlen(text), &len) :
	    qe_splice_record(&sp, rec, &len)) == NULL)
		qe_buf_adds(out, "refused");
	else
		qe_buf_add(out, line, len);
	qe_splice_free(&sp);
	cJSON_Delete(rec);
	free(text);
}

static void
splice(const char *in, size_t n, struct qe_buf *out)
{
	run(in, n, out, 0, 0);
}

/* qe_splice_raw: the record's own bytes kept (qe-stamp's way). */
static void
splice_raw(const char *in, size_t n, struct qe_buf *out)
{
	run(in, n, out, 0, 1);
}

static void
splice_replace(const char *in, size_t n, struct qe_buf *out)
{
	run(in, n, out, 1, 0);
}

static const struct unit_fn fns[] = {
	{ "splice", splice },
	{ "splice-R", splice_replace },
	{ "splice-raw", splice_raw },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
