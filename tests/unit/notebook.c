/*
 * Unit driver for lib/notebook/qe_notebook.c and lib/notebook/qe_nbscan.c: a cell's source
 * as it is digested, its first line, the output digest, which code cells a
 * kernel is sent, and a notebook read: its records, or why it is refused.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "notebook/qe_nbrecord.h"
#include "notebook/qe_nbscan.h"
#include "notebook/qe_notebook.h"

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

/* Source text (already joined): what it says (qe_nb_says), or "(none)". */
static void
says(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_buf b = { 0 };
	char *s;

	qe_buf_add(&b, in, n);
	qe_nb_normalise(&b);
	s = qe_nb_says(&b);
	qe_buf_adds(out, s ? s : "(none)");
	free(s);
	qe_buf_free(&b);
}

/*
 * Call qe_nbrecord_notebook() on a copy of in[0..n) (t.ipynb) with its
 * messages caught: each onto said without the program's name, then " | ".
 * Its return.
 */
static int
records(const char *in, size_t n, struct qe_buf *recs, struct qe_buf *said, int *problems)
{
	struct qe_nbctx nb = { .where = "t.ipynb", .document = "t", .input = "ipynb", .pk = -1,
	    .current = -1, .execution_seconds = NAN, .stale_margin_us = 5000000 };
	char *text = NULL, *line, *colon;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len), *old = stderr;
	int r;

	if (mem == NULL)
		qe_mem_oom();
	stderr = mem;		/* warnx() writes to whatever stderr is */
	r = qe_nbrecord_notebook(&nb, memcpy(qe_xmalloc(n + 1), in, n), n, free, recs);
	stderr = old;
	fclose(mem);
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
		qe_buf_addf(said, "%s | ", (colon = strstr(line, ": ")) ? colon + 2 : line);
	free(text);
	*problems = nb.problems;
	return r;
}

/* The notebook head + in + tail read (qe_nbscan_read) into d: 0, or -1 (its words on stderr). */
static int
doc_of(const char *head, const char *in, size_t n, const char *tail, struct qe_nb_doc *d)
{
	struct qe_buf t = { 0 };
	int problems = 0;

	qe_buf_adds(&t, head);
	qe_buf_add(&t, in, n);
	qe_buf_adds(&t, tail);
	return qe_nbscan_read("t.ipynb", t.data, t.len, free, &problems, d);
}

/* An "outputs" value (JSON) of a code cell: its digest as read, and the first error's text. */
static void
digest(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_nb_doc d;
	struct qe_nb_codes c = { 0 };
	const cJSON *cells;

	if (doc_of("{\"nbformat\": 4, \"cells\": [{\"cell_type\": \"code\", \"source\": \"\", "
	    "\"outputs\": ", in, n, "}]}", &d) < 0) {
		qe_buf_adds(out, "refused");
		return;
	}
	cells = cJSON_GetObjectItemCaseSensitive(d.doc, "cells");
	qe_nb_codes_read(cells, (const char (*)[QE_SHA256_HEX])d.odig, &c);
	qe_buf_add(out, c.v[0].output_sha256, QE_SHA256_HEX - 1);
	if (c.v[0].errout != NULL) {
		char *e = qe_nb_error_text(c.v[0].errout);

		qe_buf_addf(out, " %s", e);
		free(e);
	}
	qe_nb_codes_free(&c);
	qe_nbscan_doc_free(&d);
}

/*
 * A "cells" array (JSON) of a notebook: per code cell "sent" (the kernel
 * is sent it), "blank", "skip" or "bad", with the first 8 digits of its
 * source digest.
 */
static void
codes(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_nb_doc d;
	struct qe_nb_codes c = { 0 };

	if (doc_of("{\"nbformat\": 4, \"cells\": ", in, n, "}", &d) < 0) {
		qe_buf_adds(out, "refused");
		return;
	}
	qe_nb_codes_read(cJSON_GetObjectItemCaseSensitive(d.doc, "cells"),
	    (const char (*)[QE_SHA256_HEX])d.odig, &c);
	for (size_t i = 0; i < c.n; i++)
		qe_buf_addf(out, "%s%.8s:%s", i ? " " : "", c.v[i].source_sha256,
		    c.v[i].bad_source ? "bad" : qe_nb_code_is_sent(&c.v[i]) ? "sent" :
		    c.v[i].skip ? "skip" : "blank");
	if (c.n == 0)
		qe_buf_adds(out, "(none)");
	qe_nb_codes_free(&c);
	qe_nbscan_doc_free(&d);
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

/* The cell records' output digests: 8 digits and the status of each. */
static void
digests(const struct qe_buf *recs, struct qe_buf *out)
{
	const char *p = recs->data ? recs->data : "", *q;

	while ((q = strstr(p, "\"output_sha256\":\"")) != NULL) {
		const char *st = strstr(q, "\"status\":\"");

		qe_buf_addf(out, " %.8s", q + 17);
		if (st)
			qe_buf_addf(out, ":%.*s", (int)strcspn(st + 10, "\""), st + 10);
		p = q + 17;
	}
}

/*
 * A notebook read (qe_nbrecord_notebook): what it said, each message then
 * " | " (t.ipynb: ...), then "read" and its cells' output digests and
 * statuses, or "refused" (nothing written, nothing counted but the words).
 */
static void
nbread(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_buf recs = { 0 };
	int problems, r = records(in, n, &recs, out, &problems);

	if (r < 0)
		qe_buf_adds(out, recs.len ? "refused, yet records" : "refused");
	else {
		qe_buf_adds(out, "read");
		digests(&recs, out);
	}
	qe_buf_free(&recs);
}

/*
 * "N": nbread() of a notebook whose code cell has a stream of N lines, then
 * a display_data of N lines of text/plain beside an image: past 32,768
 * lines an output holds more pieces than qe_nbscan keeps (two a line,
 * the text and its "\n"), and its values are walked again.
 */
static void
read_lines(const char *in, size_t n, struct qe_buf *out)
{
	long lines = strtol(in, NULL, 10);
	struct qe_buf nb = { 0 };

	(void)n;
	qe_buf_adds(&nb, "{\"cells\": [{\"cell_type\": \"code\", \"execution_count\": 1, \"metadata\": {}, "
	    "\"source\": \"x = 1\", \"outputs\": [{\"name\": \"stdout\", \"output_type\": \"stream\", \"text\": [");
	for (long i = 0; i < lines; i++)
		qe_buf_addf(&nb, "%s\"line %ld \\u00e9 In [3] at 0x7ffdeadbeef\\n\"", i ? ", " : "", i);
	qe_buf_adds(&nb, "]}, {\"data\": {\"text/plain\": [");
	for (long i = 0; i < lines; i++)
		qe_buf_addf(&nb, "%s\"row %ld\\t\\\"%ld\\\"\\n\"", i ? ", " : "", i, i * i);
	qe_buf_adds(&nb, "], \"image/png\": \"iVBORw0KGgo=\\n\"}, \"metadata\": {}, \"output_type\": \"display_data\"}]}], "
	    "\"metadata\": {}, \"nbformat\": 4, \"nbformat_minor\": 5}");
	nbread(nb.data, nb.len, out);
	qe_buf_free(&nb);
}

/*
 * A notebook's records (the pull reader's way): "same" when every line is
 * the bytes qe_json_print() gives for its own parse (the records are
 * written without it), then each cell's execution_count as written.
 */
static void
reprint(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_buf a = { 0 }, said = { 0 };
	const char *p, *nl, *c;
	int problems, same = records(in, n, &a, &said, &problems) == 0 && said.len == 0;

	for (p = a.data ? a.data : ""; same && (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
		cJSON *v = cJSON_ParseWithLength(p, (size_t)(nl - p));
		char *s = v ? qe_json_print(v) : NULL;

		same = s && strlen(s) == (size_t)(nl - p) && memcmp(s, p, strlen(s)) == 0;
		cJSON_free(s);
		cJSON_Delete(v);
	}
	qe_buf_adds(out, same ? "same" : "differ");
	for (p = a.data ? a.data : ""; (c = strstr(p, "\"execution_count\":")) != NULL; p = c + 1)
		qe_buf_addf(out, " %.*s", (int)strcspn(c + 18, ","), c + 18);
	qe_buf_free(&a);
	qe_buf_free(&said);
}

/*
 * "MAXLEN": every rule's text (and near misses that are no rule) at every
 * position of a line of '.' of up to MAXLEN bytes, normalised, against the
 * line with that text replaced as the rule says: "N agree", or the first
 * case that does not. Exercises the 16-byte steps of the scan for where a
 * rule starts, and their edges.
 */
static void
rule_positions(const char *in, size_t n, struct qe_buf *out)
{
	static const char *const rules[][2] = {
		{ "\033[0;32m", "" }, { "In [12]", "In [#]" }, { "In[3]", "In[#]" }, { "Out[7]", "Out[#]" },
		{ "0xdeadbeef", "0x#" }, { "0x7fc9f57156a0", "0x#" }, { "0x1f", "0x1f" }, { "Ix", "Ix" },
		{ "Ou", "Ou" }, { "0y", "0y" }, { "I", "I" }, { "0", "0" }, { "\033", "\033" },
	};
	long max = strtol(in, NULL, 10), count = 0;
	struct qe_buf line = { 0 }, want = { 0 }, got = { 0 };

	(void)n;
	for (long len = 0; len <= max; len++)
		for (long k = 0; k <= len; k++)
			for (size_t r = 0; r < sizeof rules / sizeof *rules; r++) {
				qe_buf_reset(&line), qe_buf_reset(&want), qe_buf_reset(&got);
				for (long i = 0; i < k; i++)
					qe_buf_addc(&line, '.'), qe_buf_addc(&want, '.');
				qe_buf_adds(&line, rules[r][0]);
				qe_buf_adds(&want, rules[r][1]);
				for (long i = k; i < len; i++)
					qe_buf_addc(&line, '.'), qe_buf_addc(&want, '.');
				qe_nb_normalise_text(line.data, line.len, &got);
				if (strcmp(got.data ? got.data : "", want.data) != 0) {
					qe_buf_addf(out, "length %ld, at %ld, '%s': got '%s'", len, k, rules[r][1],
					    got.data ? got.data : "");
					goto done;
				}
				count++;
			}
	qe_buf_addf(out, "%ld agree", count);
done:
	qe_buf_free(&line);
	qe_buf_free(&want);
	qe_buf_free(&got);
}

static const struct unit_fn fns[] = {
	{ "rule-positions", rule_positions },
	{ "read", nbread },
	{ "read-lines", read_lines },
	{ "reprint", reprint },
	{ "normalise", normalise },
	{ "source", source },
	{ "first_line", first_line },
	{ "says", says },
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
