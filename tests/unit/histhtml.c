/*
 * Unit driver for lib/history/qe_html.c (the HTML escaper), lib/history/qe_histhtml.c
 * (axis bounds, which lectures get a chart, the page's escaping) and
 * lib/history/qe_histmd.c (sparklines, flagged lectures, the trend table).
 * Record inputs are NDJSON lines ('\n' in the case's input).
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "history/qe_histhtml.h"
#include "history/qe_histmd.h"
#include "history/qe_html.h"

static void
html(const char *in, size_t n, struct qe_buf *out)
{
	(void)n;
	qe_html_text(out, in, 0);
}

static void
html5(const char *in, size_t n, struct qe_buf *out)
{
	(void)n;
	qe_html_text(out, in, 5);
}

static void
nice(const char *in, size_t n, struct qe_buf *out)
{
	double v[1];

	(void)n;
	if (unit_numbers(in, v, 1) == 1)
		unit_add_double(out, qe_histhtml_nice(v[0]));
}

static void
spark(const char *in, size_t n, struct qe_buf *out)
{
	double v[64];
	int k = unit_numbers(in, v, 64);

	(void)n;
	qe_histmd_spark(out, v, k > 0 ? (size_t)k : 0);
}

/* the records of `in`, one a line, into h (a bad line is skipped) */
static void
load(struct qe_histhtml *h, const char *in)
{
	char *copy = qe_xstrdup(in), *line, *save = NULL;
	cJSON *r;

	qe_histhtml_init(h);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if ((r = cJSON_Parse(line)) != NULL)
			qe_histhtml_add(h, r);
	free(copy);
}

static void
lectures(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_histhtml h;
	cJSON *docs;

	(void)n;
	load(&h, in);
	h.max_charts = 3;
	docs = qe_histhtml_lectures(&h);
	unit_add_json(out, docs);
	cJSON_Delete(docs);
	qe_histhtml_free(&h);
}

/* which markup and which escaped text the page holds */
static void
page(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_histhtml h;
	struct qe_buf b = { 0 };
	const char *want[] = { "<script", "<b>", "<img", "&lt;script", "&lt;b&gt;x&lt;/b&gt;",
		"&lt;img onerror=x&gt;", NULL };
	int i;

	(void)n;
	load(&h, in);
	qe_histhtml_write(&h, &b);
	for (i = 0; want[i]; i++)
		qe_buf_addf(out, "%s%s:%d", i ? " " : "", want[i], strstr(b.data, want[i]) != NULL);
	qe_buf_free(&b);
	qe_histhtml_free(&h);
}

static void
flag(const char *in, size_t n, struct qe_buf *out)
{
	char *copy = qe_xstrdup(in), *line, *save = NULL;
	cJSON *docs = cJSON_CreateArray(), *r;

	(void)n;
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if ((r = cJSON_Parse(line)) != NULL) {
			qe_histmd_flag(docs, r);
			cJSON_Delete(r);
		}
	unit_add_json(out, docs);
	cJSON_Delete(docs);
	free(copy);
}

/* the trend rows of every lecture named in a {"docs":[...]} line */
static void
trends(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_histhtml h;
	const char *d = strstr(in, "{\"docs\"");
	cJSON *j = d ? cJSON_Parse(d) : NULL;
	struct qe_buf b = { 0 };
	char *row;

	(void)n;
	load(&h, in);
	qe_histmd_trends(&b, &h, cJSON_GetObjectItemCaseSensitive(j, "docs"), 4, 1);
	for (row = b.data; row && (row = strstr(row, "\n| `")) != NULL; row++) {
		size_t len = strcspn(row + 1, "\n");
		qe_buf_add(out, row + 1, len);
		qe_buf_adds(out, "\n");
	}
	if (out->len)
		out->data[--out->len] = '\0';
	qe_buf_free(&b);
	cJSON_Delete(j);
	qe_histhtml_free(&h);
}

static const struct unit_fn fns[] = {
	{ "html", html }, { "html5", html5 }, { "nice", nice }, { "spark", spark },
	{ "lectures", lectures }, { "page", page }, { "flag", flag }, { "trends", trends },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
