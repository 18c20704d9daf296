/* The job summary of one build (qe_buildsum.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qe_record.h"
#include "qe_mem.h"
#include "qe_json.h"
#include "qe_buildsum.h"
#include "qe_diffread.h"
#include "qe_gfm.h"
#include "qe_mdtable.h"

#define CAP_STATUS	20
#define CAP_NAME	60
#define CAP_ERROR	120

static void
nb_release(void *p)
{
	struct qe_buildsum_nb *n = p;

	free(n->doc);
	free(n->status);
	free(n->error);
}

static void
cell_release(void *p)
{
	struct qe_buildsum_cell *c = p;

	free(c->doc);
	free(c->name);
}

static double
nb_key(const void *p)
{
	return ((const struct qe_buildsum_nb *)p)->key;
}

static double
cell_key(const void *p)
{
	return ((const struct qe_buildsum_cell *)p)->dur_s;
}

/*
 * Keep `elem` among the QE_BUILDSUM_TOP largest of arr[0..*n) (each `size`
 * bytes, largest first, ties in arrival order), or release it.
 */
static void
keep_top(void *arr, int *n, size_t size, void *elem, double (*key)(const void *),
    void (*release)(void *))
{
	char *a = arr;
	int p = 0;

	while (p < *n && key(a + (size_t)p * size) >= key(elem))
		p++;
	if (p == QE_BUILDSUM_TOP) {
		release(elem);
		return;
	}
	if (*n == QE_BUILDSUM_TOP)
		release(a + (size_t)(--*n) * size);
	memmove(a + (size_t)(p + 1) * size, a + (size_t)p * size, (size_t)(*n - p) * size);
	memcpy(a + (size_t)p * size, elem, size);
	++*n;
}

static void
add_notebook(struct qe_buildsum *s, const cJSON *rec)
{
	struct qe_buildsum_nb n = {
		.doc = qe_json_strdup(rec, "document"),
		.status = qe_json_strdup(rec, "status"),
		.exec_s = qe_json_num(rec, "execution_seconds"),
		.cells_s = qe_json_num(rec, "cells_seconds"),
	};
	const cJSON *origin = cJSON_GetObjectItemCaseSensitive(rec, "origin");

	n.key = isnan(n.exec_s) ? 0 : n.exec_s;
	s->nnbs++;
	s->exec_s += n.key;
	if (origin && !cJSON_IsNull(origin)) {
		s->n_origin++;
		s->n_executed += qe_vocab_lookup(&qe_vocab_origins, cJSON_GetStringValue(origin)) ==
		    QE_ORIGIN_EXECUTED;
		s->n_inherited += qe_vocab_lookup(&qe_vocab_origins, cJSON_GetStringValue(origin)) ==
		    QE_ORIGIN_INHERITED;
	}
	if (qe_vocab_lookup(&qe_vocab_nb_statuses, n.status) == QE_NB_FAILED) {
		s->failed = qe_mem_grow(s->failed, (size_t)s->nfailed, &s->capfailed, sizeof *s->failed, 8);
		s->failed[s->nfailed++] = (struct qe_buildsum_nb){ .doc = qe_json_strdup(rec, "document"),
		    .error = qe_json_strdup(rec, "error") };
	}
	keep_top(s->top_nbs, &s->ntop_nbs, sizeof n, &n, nb_key, nb_release);
}

static void
add_cell(struct qe_buildsum *s, const cJSON *rec)
{
	struct qe_buildsum_cell c = { .dur_s = qe_json_num(rec, "duration_s") };

	s->ncells++;
	if (isnan(c.dur_s))
		return;
	s->ntimed++;
	s->timed_s += c.dur_s;
	c.doc = qe_json_strdup(rec, "document");
	c.name = qe_xstrdup(qe_record_name_of(rec, ""));
	c.index = qe_diffread_count(rec, "index");
	keep_top(s->top_cells, &s->ntop_cells, sizeof c, &c, cell_key, cell_release);
}

int
qe_buildsum_record(cJSON *rec, const char *file, long line, void *sum)
{
	const char *kind = qe_json_str(rec, "kind");

	(void)file;
	(void)line;
	if (kind == NULL || cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(rec, "current")))
		return 0;
	if (strcmp(kind, "notebook") == 0)
		add_notebook(sum, rec);
	else if (strcmp(kind, "cell") == 0)
		add_cell(sum, rec);
	return 0;
}

void
qe_buildsum_free(struct qe_buildsum *s)
{
	for (int i = 0; i < s->ntop_nbs; i++)
		nb_release(&s->top_nbs[i]);
	for (int i = 0; i < s->ntop_cells; i++)
		cell_release(&s->top_cells[i]);
	for (long i = 0; i < s->nfailed; i++)
		nb_release(&s->failed[i]);
	free(s->failed);
	memset(s, 0, sizeof *s);
}

/* ---- the document ------------------------------------------------------- */

static void
totals(struct qe_buf *b, const struct qe_buildsum *s)
{
	qe_buf_addf(b, "%ld %s", s->nnbs, qe_gfm_plural(s->nnbs, "notebook", "notebooks"));
	if (s->n_origin > 0)
		qe_buf_addf(b, " (%ld executed by this build, %ld inherited from the cache)",
		    s->n_executed, s->n_inherited);
	qe_buf_addf(b, ", %ld failed; %ld of %ld code cells timed, ", s->nfailed, s->ntimed,
	    s->ncells);
	qe_gfm_dur(b, s->timed_s);
	qe_buf_adds(b, " in timed cells, ");
	qe_gfm_dur(b, s->exec_s);
	qe_buf_adds(b, " of notebook execution.\n\n");
}

/* "| notebook": the first cell of a row. */
static void
row_start(struct qe_buf *b, const char *doc)
{
	qe_buf_adds(b, "| ");
	qe_mdtable_doc(b, doc ? doc : "");
}

/* " | 6m 34s": a duration, written as every comment writes one. */
static void
dur_cell(struct qe_buf *b, double s)
{
	qe_buf_adds(b, " | ");
	qe_gfm_dur(b, s);
}

static void
nb_row(struct qe_buf *b, const struct qe_buildsum *s, long i)
{
	const struct qe_buildsum_nb *n = &s->top_nbs[i];

	row_start(b, n->doc);
	dur_cell(b, n->exec_s);
	dur_cell(b, n->cells_s);
	qe_buf_adds(b, " | ");
	if (n->status == NULL || qe_gfm_text(b, n->status, CAP_STATUS) == 0)
		qe_buf_adds(b, QE_GFM_NONE);
	qe_buf_adds(b, " |\n");
}

static void
cell_row(struct qe_buf *b, const struct qe_buildsum *s, long i)
{
	const struct qe_buildsum_cell *c = &s->top_cells[i];

	row_start(b, c->doc);
	if (c->index >= 0)	/* counted from 1, as every table counts code cells */
		qe_buf_addf(b, " | %ld | ", c->index + 1);
	else
		qe_buf_adds(b, " | " QE_GFM_NONE " | ");
	qe_gfm_text(b, c->name, CAP_NAME);
	dur_cell(b, c->dur_s);
	qe_buf_adds(b, " |\n");
}

static void
failed_row(struct qe_buf *b, const struct qe_buildsum *s, long i)
{
	const struct qe_buildsum_nb *n = &s->failed[i];

	qe_buf_adds(b, "- ");
	qe_mdtable_doc(b, n->doc ? n->doc : "");
	qe_buf_adds(b, ": ");
	if (qe_gfm_text(b, n->error ? n->error : "failed", CAP_ERROR) == 0)
		qe_buf_adds(b, "failed");
	qe_buf_adds(b, "\n");
}

/* A section: its heading, then rows while they fit in `limit`. */
struct section {
	const char *head;
	long n;
	void (*row)(struct qe_buf *, const struct qe_buildsum *, long);
};

static void
add_section(struct qe_buf *out, const struct qe_buildsum *s, const struct section *t,
    size_t limit)
{
	static const size_t room = 120;		/* the note, the blank lines */
	struct qe_buf r = { 0 };
	long shown = 0;

	if (t->n == 0 || out->len + strlen(t->head) + room > limit)
		return;
	qe_buf_adds(out, t->head);
	for (; shown < t->n; shown++) {
		qe_buf_reset(&r);
		t->row(&r, s, shown);
		if (out->len + r.len + room > limit)
			break;
		qe_buf_add(out, r.data, r.len);
	}
	qe_buf_free(&r);
	if (shown < t->n)
		qe_buf_addf(out, "\n*%ld more not listed, to stay within the size limit.*\n",
		    t->n - shown);
	qe_buf_adds(out, "\n");
}

void
qe_buildsum_render(struct qe_buf *out, const struct qe_buildsum *s, size_t limit)
{
	const struct section sections[] = {
		{ "### Slowest notebooks\n\n| notebook | execution | timed cells | status |\n"
		  "|---|--:|--:|---|\n", s->ntop_nbs, nb_row },
		{ "### Slowest cells\n\n| notebook | code cell | name | time |\n"
		  "|---|--:|---|--:|\n", s->ntop_cells, cell_row },
		{ "### Failed notebooks\n\n", s->nfailed, failed_row },
	};

	qe_buf_adds(out, "## Lecture execution times (this build)\n\n");
	totals(out, s);
	for (size_t i = 0; i < sizeof sections / sizeof *sections; i++)
		add_section(out, s, &sections[i], limit);
	if (out->len + 1 <= limit)
		qe_buf_adds(out, "\n");
}
