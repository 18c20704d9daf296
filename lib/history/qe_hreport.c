/* qe_hreport.c - qe-history report (see qe_hreport.h). */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "qe.h"
#include "qe_mem.h"
#include "qe_json.h"
#include "qe_ndjson.h"
#include "qe_record.h"
#include "qe_histhtml.h"
#include "qe_histmd.h"
#include "qe_hload.h"
#include "qe_hout.h"
#include "qe_hquery.h"
#include "qe_hreport.h"

typedef int (*query_fn)(const struct qe_hq *);

/*
 * A query's row into the page's model as the query would print it: the
 * record printed and read back (a non-finite number is null, a number the
 * double its text reads back to), so the page shows what the query prints.
 */
static void
take_row(cJSON *rec, void *ctx)
{
	char *text = qe_json_print(rec);
	cJSON *back = cJSON_Parse(text);

	cJSON_free(text);
	cJSON_Delete(rec);
	if (back != NULL)
		qe_histhtml_add(ctx, back);
}

/* Run fn(q) with its rows handed to h (qe_hout's sink). Returns fn's status. */
static int
capture(const struct qe_hq *q0, query_fn fn, struct qe_histhtml *h)
{
	struct qe_hsink sink = { take_row, h };
	struct qe_hq q = *q0;

	q.sink = &sink;
	return fn(&q);
}

static int
has_str(const cJSON *arr, const char *s)
{
	const cJSON *d;

	cJSON_ArrayForEach(d, arr)
		if (strcmp(d->valuestring, s) == 0)
			return 1;
	return 0;
}

/*
 * The documents of the lecture rows of slowest and of the changes; `all`
 * 0 (the page): only those it may chart, the stepped lectures and the
 * slowest few (a series query each is most of the page's time).
 */
static cJSON *
lecture_names(const struct qe_histhtml *h, int all)
{
	cJSON *docs = qe_json_check(cJSON_CreateArray());
	const cJSON *lists[] = { h->changes, h->slowest }, *r;
	const char *d, *lv;
	size_t i;

	for (i = 0; i < 2; i++)
		cJSON_ArrayForEach(r, lists[i]) {
			d = qe_json_str(r, "document");
			lv = qe_json_str(r, "level");
			if (!all && i == 1 && qe_json_num(r, "rank") > QE_HISTHTML_UNSTEPPED)
				continue;
			if (d && lv && strcmp(lv, "cell") != 0 && !has_str(docs, d))
				cJSON_AddItemToArray(docs, qe_json_check(cJSON_CreateString(d)));
		}
	return docs;
}

/* slowest rows beyond the first `top` of their level are dropped */
static void
trim_slowest(struct qe_histhtml *h, long top)
{
	cJSON *r = h->slowest ? h->slowest->child : NULL, *next;

	for (; r; r = next) {
		next = r->next;
		if (qe_json_num(r, "rank") > (double)top)
			cJSON_Delete(cJSON_DetachItemViaPointer(h->slowest, r));
	}
}

/* How many main builds the store holds, or -1 after saying why. */
static int
main_builds(const struct qe_hq *q)
{
	struct qe_hbuilds bs;
	int n;

	if (qe_hbuilds_load(q->db, q->path, &bs) < 0)
		return -1;
	n = bs.n;
	qe_hbuilds_free(&bs);
	return n;
}

/*
 * slowest (every lecture), changes, then each lecture's series (all: any
 * it may show); none without a main build (a store of sweeps only is no
 * trouble: the page says so and shows the curves).
 */
static int
gather_trends(const struct qe_hq *q0, struct qe_histhtml *h, int all)
{
	struct qe_hq q = *q0;
	cJSON *docs;
	const cJSON *d;
	int status = QE_EXIT_OK, n = main_builds(q0);

	if (n <= 0)
		return n < 0 ? QE_EXIT_TROUBLE : QE_EXIT_OK;
	q.md = 0;
	q.top = all ? 100000 : (q0->top > 0 ? q0->top : QE_HQ_TOP);	/* the page ranks only its first rows */
	if (capture(&q, qe_hq_slowest, h) != QE_EXIT_OK)
		status = QE_EXIT_TROUBLE;
	if (capture(&q, qe_hq_changes, h) != QE_EXIT_OK)
		status = QE_EXIT_TROUBLE;
	docs = lecture_names(h, all);
	q.cell = NULL;
	cJSON_ArrayForEach(d, docs) {
		q.doc = d->valuestring;
		if (capture(&q, qe_hq_series, h) != QE_EXIT_OK)
			status = QE_EXIT_TROUBLE;
	}
	cJSON_Delete(docs);
	docs = qe_histhtml_cells(h);
	cJSON_ArrayForEach(d, docs) {	/* each charted cell's series, by its key */
		q.doc = cJSON_GetArrayItem(d, 0)->valuestring;
		q.cell = cJSON_GetArrayItem(d, 1)->valuestring;
		if (capture(&q, qe_hq_series, h) != QE_EXIT_OK)
			status = QE_EXIT_TROUBLE;
	}
	cJSON_Delete(docs);
	trim_slowest(h, q0->top > 0 ? q0->top : QE_HQ_TOP);
	return status;
}

/* compare without --by: every environment change, what moved at each, machine changes */
static int
gather_compare(const struct qe_hq *q0, struct qe_histhtml *h)
{
	struct qe_hq q = *q0;
	int n = main_builds(q0);

	if (n <= 0)	/* nothing to compare; no message for a store of sweeps only */
		return n < 0 ? QE_EXIT_TROUBLE : QE_EXIT_OK;
	q.md = 0;
	q.by = -1;
	q.package = NULL;
	q.all = 0;
	return capture(&q, qe_hq_compare, h);
}

static int
write_page(const struct qe_histhtml *h, const char *dir)
{
	struct qe_buf b = { 0 }, path = { 0 };
	FILE *f;
	int status = QE_EXIT_OK;

	if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
		warn("report: %s", dir);
		return QE_EXIT_TROUBLE;
	}
	qe_buf_addf(&path, "%s/index.html", dir);
	qe_histhtml_write(h, &b);
	if ((f = fopen(path.data, "w")) == NULL || fwrite(b.data, 1, b.len, f) != b.len ||
	    fclose(f) == EOF) {
		warn("report: %s", path.data);
		status = QE_EXIT_TROUBLE;
	}
	qe_buf_free(&b);
	qe_buf_free(&path);
	return status;
}

int
qe_hreport_html(const struct qe_hq *q, const char *dir)
{
	struct qe_histhtml h;
	struct qe_hq c = *q;
	int status;

	qe_histhtml_init(&h);
	status = gather_trends(q, &h, 0);
	if (gather_compare(q, &h) != QE_EXIT_OK)
		status = QE_EXIT_TROUBLE;
	c.md = 0;
	c.prices = q->prices;
	if (capture(&c, qe_hq_cost, &h) != QE_EXIT_OK)
		status = QE_EXIT_TROUBLE;
	c.doc = c.cell = NULL;
	if (capture(&c, qe_hq_sweeps, &h) != QE_EXIT_OK)
		status = QE_EXIT_TROUBLE;
	if (write_page(&h, dir) != QE_EXIT_OK)
		status = QE_EXIT_TROUBLE;
	qe_histhtml_free(&h);
	return status;
}

static int
flag_one(cJSON *rec, const char *file, long line, void *ctx)
{
	(void)file;
	(void)line;
	qe_histmd_flag(ctx, rec);
	return 0;
}

int
qe_hreport_md(const struct qe_hq *q, const char *diff)
{
	struct qe_histhtml h;
	struct qe_buf b = { 0 };
	cJSON *docs = NULL;
	char *argv[] = { (char *)diff, NULL };
	int status;

	qe_histhtml_init(&h);
	status = gather_trends(q, &h, 1);
	if (diff != NULL) {
		docs = qe_json_check(cJSON_CreateArray());
		if (qe_ndjson_each(1, argv, flag_one, docs) != 0)
			status = QE_EXIT_TROUBLE;
	} else {
		h.max_charts = 10;
		docs = qe_histhtml_lectures(&h);
	}
	qe_histmd_trends(&b, &h, docs, 16, diff != NULL);
	if (b.len)
		qe_json_emit_bytes(b.data, b.len);
	qe_buf_free(&b);
	cJSON_Delete(docs);
	qe_histhtml_free(&h);
	return status;
}
