/*
 * Unit driver for lib/qe_notebook.c: a cell's source as it is digested,
 * its first line, the output digest, and which code cells a kernel is sent.
 */
#include <stdlib.h>

#include "harness.h"
#include "qe_notebook.h"

/* A "source" value (JSON): the normalised text, or "error". */
static void
source(const char *in, size_t n, struct qe_buf *out)
{
	cJSON *v = cJSON_ParseWithLength(in, n);
	struct qe_buf b = { 0 };

	if (qe_nb_join_text(v, &b) < 0)
		qe_buf_adds(out, "error");
	else {
		qe_nb_normalise(&b);
		qe_buf_add(out, b.data ? b.data : "", b.len);
	}
	qe_buf_free(&b);
	cJSON_Delete(v);
}

/* Source text (already joined): its first line, or "(none)". */
static void
first_line(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_buf b = { 0 };
	char *s;

	qe_buf_add(&b, in, n);
	qe_nb_normalise(&b);
	s = qe_nb_first_line(&b);
	qe_buf_adds(out, s ? s : "(none)");
	free(s);
	qe_buf_free(&b);
}

/* An "outputs" value (JSON): its digest, and the first error's text. */
static void
digest(const char *in, size_t n, struct qe_buf *out)
{
	cJSON *v = cJSON_ParseWithLength(in, n);
	char hex[QE_SHA256_HEX];
	const cJSON *err;

	qe_nb_output_digest(v, hex, &err);
	qe_buf_adds(out, hex);
	if (err != NULL) {
		char *e = qe_nb_error_text(err);

		qe_buf_addf(out, " %s", e);
		free(e);
	}
	cJSON_Delete(v);
}

/*
 * A "cells" array (JSON): per code cell "sent" (the kernel is sent it),
 * "blank", "skip" or "bad", with the first 8 digits of its source digest.
 */
static void
codes(const char *in, size_t n, struct qe_buf *out)
{
	cJSON *v = cJSON_ParseWithLength(in, n);
	struct qe_nb_codes c = { 0 };

	qe_nb_codes_read(v, NULL, &c);
	for (size_t i = 0; i < c.n; i++)
		qe_buf_addf(out, "%s%.8s:%s", i ? " " : "", c.v[i].source_sha256,
		    c.v[i].bad_source ? "bad" : qe_nb_code_is_sent(&c.v[i]) ? "sent" :
		    c.v[i].skip ? "skip" : "blank");
	if (c.n == 0)
		qe_buf_adds(out, "(none)");
	qe_nb_codes_free(&c);
	cJSON_Delete(v);
}

/* Cell metadata (JSON): its label, or "(none)". */
static void
label(const char *in, size_t n, struct qe_buf *out)
{
	cJSON *v = cJSON_ParseWithLength(in, n);
	const char *s = qe_nb_label(v);

	qe_buf_adds(out, s ? s : "(none)");
	cJSON_Delete(v);
}

/* Text: the output text as the digest sees it. */
static void
normalise(const char *in, size_t n, struct qe_buf *out)
{
	qe_nb_normalise_text(in, n, out);
}

static const struct unit_fn fns[] = {
	{ "normalise", normalise },
	{ "source", source },
	{ "first_line", first_line },
	{ "digest", digest },
	{ "codes", codes },
	{ "label", label },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
