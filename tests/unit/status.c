/*
 * Unit driver for lib/status/qe_status.c: the newest-record rule, and what a
 * stream of records becomes (the lookup of qe-exec-status -t, the status
 * document's documents and totals).
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "status/qe_extime.h"
#include "status/qe_status.h"

/* "A | B": 1 when notebook record A replaces B as the newest, else 0. */
static void
newer(const char *in, size_t n, struct qe_buf *out)
{
	const char *bar = strstr(in, " | ");
	cJSON *a = bar ? cJSON_ParseWithLength(in, (size_t)(bar - in)) : NULL;
	cJSON *b = bar ? cJSON_ParseWithLength(bar + 3, n - (size_t)(bar + 3 - in)) : NULL;

	if (a == NULL || b == NULL)
		qe_buf_adds(out, "bad case");
	else
		qe_buf_addf(out, "%d", qe_status_newer(a, b));
	cJSON_Delete(a);
	cJSON_Delete(b);
}

/*
 * Records, one a line ("FILE: JSON": FILE names the file the line is read
 * from), into a struct qe_status with times; its rejections count in "!N".
 */
static void
fill(struct qe_status *s, const char *in, size_t n, struct qe_buf *out)
{
	const char *p = in, *end = in + n;
	long line = 0, bad = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end;
		const char *colon = memchr(p, ':', (size_t)(e - p));
		char *file = qe_xstrndup(p, colon ? (size_t)(colon - p) : 0);
		cJSON *rec = colon ? cJSON_ParseWithLength(colon + 1, (size_t)(e - colon - 1)) : NULL;

		line++;
		if (rec == NULL || qe_status_record(rec, file, line, s) < 0)
			bad++;
		cJSON_Delete(rec);
		free(file);
		p = e + 1;
	}
	if (bad)
		qe_buf_addf(out, "!%ld ", bad);
}

/*
 * The lookup's documents (compact), printed with digits and style `f`;
 * with `text` 0 without the printed forms, else the printed forms alone
 * ({document: [text, {label: text}]}).
 */
static void
lookup(const char *in, size_t n, struct qe_buf *out, const struct qe_status_form *f, int text)
{
	struct qe_status s = { .times = 1 };
	struct qe_buf doc = { 0 };
	cJSON *v, *d, *c, *forms = cJSON_CreateObject();

	fill(&s, in, n, out);
	qe_status_times(&doc, &s, NULL, f);
	v = cJSON_Parse(doc.data);
	cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(v, "documents")) {
		cJSON *pair = cJSON_AddArrayToObject(forms, d->string), *cells = cJSON_CreateObject();

		cJSON_AddItemToArray(pair, cJSON_DetachItemFromObjectCaseSensitive(d, "text"));
		cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(d, "cells"))
			cJSON_AddItemToObject(cells, c->string, cJSON_DetachItemFromObjectCaseSensitive(c, "text"));
		cJSON_AddItemToArray(pair, cells);
	}
	unit_add_json(out, text ? forms : cJSON_GetObjectItemCaseSensitive(v, "documents"));
	cJSON_Delete(forms);
	cJSON_Delete(v);
	qe_buf_free(&doc);
	qe_status_free(&s);
}

static void
times(const char *in, size_t n, struct qe_buf *out)
{
	const struct qe_status_form f = { QE_EXTIME_DIGITS, QE_EXTIME_SI };

	lookup(in, n, out, &f, 0);
}

/* The printed forms of the lookup: si style, 2 digits; en style, 3 digits. */
static void
texts_si(const char *in, size_t n, struct qe_buf *out)
{
	const struct qe_status_form f = { QE_EXTIME_DIGITS, QE_EXTIME_SI };

	lookup(in, n, out, &f, 1);
}

static void
texts_en3(const char *in, size_t n, struct qe_buf *out)
{
	const struct qe_status_form f = { 3, QE_EXTIME_EN };

	lookup(in, n, out, &f, 1);
}

/* The status document's totals, then its documents' names. */
static void
status(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_status s = { 0 };
	struct qe_status_build b = { "qe-exec-status 0", NULL, NULL, NULL, 0, NULL, NULL };
	struct qe_buf doc = { 0 };
	const cJSON *d;
	cJSON *v;

	fill(&s, in, n, out);
	qe_status_document(&doc, &s, &b);
	v = cJSON_Parse(doc.data);
	unit_add_json(out, cJSON_GetObjectItemCaseSensitive(v, "totals"));
	cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(v, "documents"))
		qe_buf_addf(out, " %s", qe_json_str(d, "document"));
	cJSON_Delete(v);
	qe_buf_free(&doc);
	qe_status_free(&s);
}

static const struct unit_fn fns[] = {
	{ "newer", newer },
	{ "times", times },
	{ "texts-si", texts_si },
	{ "texts-en3", texts_en3 },
	{ "status", status },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
