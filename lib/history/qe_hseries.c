/* qe-history slowest and series (qe_hquery.h). */
#include <err.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qe.h"
#include "qe_mem.h"
#include "qe_json.h"
#include "qe_hload.h"
#include "qe_hout.h"
#include "qe_hquery.h"

/* A slowest row before ranking. */
struct srow {
	char *doc, *key, *label, *first_line, *name;
	int idx;		/* -1: a lecture */
	double s, lecture_cells;
};

struct slowest {
	int newest;
	struct srow *r;
	size_t n, cap;
	double total;
};

static void
push(struct slowest *sl, const char *doc, const struct qe_hcell *c, double s, double lc)
{
	struct srow *r;

	sl->r = qe_mem_grow(sl->r, sl->n, &sl->cap, sizeof *sl->r, 256);
	r = &sl->r[sl->n++];
	r->doc = qe_xstrdup(doc);
	r->key = c ? qe_xstrdup(c->key) : NULL;
	r->label = c && c->label ? qe_xstrdup(c->label) : NULL;
	r->first_line = c && c->first_line ? qe_xstrdup(c->first_line) : NULL;
	r->name = c && c->name ? qe_xstrdup(c->name) : NULL;
	r->idx = c ? c->idx : -1;
	r->s = s;
	r->lecture_cells = lc;
}

/* The newest build's lecture and timed cells of one document (qe_hdoc_fn). */
static int
slowest_doc(const struct qe_hdoc *d, void *ctx)
{
	struct slowest *sl = ctx;
	const struct qe_hdocb *in = &d->in[d->n - 1];
	double cells = 0;

	if (in->pos != sl->newest || isnan(in->lecture_s))
		return 0;
	for (int j = 0; j < in->ncells; j++)
		if (!isnan(in->cells[j].dur))
			cells += in->cells[j].dur;
	push(sl, d->name, NULL, in->lecture_s, cells);
	sl->total += in->lecture_s;
	for (int j = 0; j < in->ncells; j++)
		if (!isnan(in->cells[j].dur))
			push(sl, d->name, &in->cells[j], in->cells[j].dur, cells);
	return 0;
}

/* Lectures first, then slowest first, then document and index. */
static int
cmp_srow(const void *a, const void *b)
{
	const struct srow *x = a, *y = b;
	int c;

	if ((x->idx < 0) != (y->idx < 0))
		return x->idx < 0 ? -1 : 1;
	if (x->s != y->s)
		return x->s > y->s ? -1 : 1;
	if ((c = strcmp(x->doc, y->doc)) != 0)
		return c;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

static const struct qe_hcol slowest_cols[] = {
	{ "level", "level", QE_HF_TEXT }, { "rank", "#", QE_HF_NUM },
	{ "document", "document", QE_HF_CODE }, { "code_cell", "code cell", QE_HF_NUM },
	{ "name", "cell", QE_HF_TEXT }, { "seconds", "time", QE_HF_DUR },
	{ "share_lecture", "of lecture", QE_HF_PCT }, { "share_build", "of build", QE_HF_PCT },
	{ NULL, NULL, 0 }
};

static cJSON *
slowest_rec(const struct qe_hbuild_row *b, const struct srow *r, int rank, double total)
{
	cJSON *o = qe_json_record_new("history-slowest");

	cJSON_AddStringToObject(o, "build", b->build);
	qe_json_add_str_or_null(o, "commit", b->commit);
	cJSON_AddStringToObject(o, "started_at", b->started_at);
	cJSON_AddStringToObject(o, "level", r->idx < 0 ? "lecture" : "cell");
	cJSON_AddNumberToObject(o, "rank", rank);
	cJSON_AddStringToObject(o, "document", r->doc);
	qe_json_add_str_or_null(o, "cell", r->key);
	qe_json_add_num_or_null(o, "index", r->idx >= 0, r->idx);
	qe_json_add_str_or_null(o, "label", r->label);
	qe_json_add_str_or_null(o, "first_line", r->first_line);
	qe_json_add_str_or_null(o, "name", r->name);
	qe_json_add_num_or_null(o, "code_cell", r->idx >= 0, r->idx + 1);
	cJSON_AddNumberToObject(o, "seconds", r->s);
	qe_json_add_num_or_null(o, "share_lecture", r->idx >= 0 && r->lecture_cells > 0,
	    r->s / r->lecture_cells);
	cJSON_AddNumberToObject(o, "share_build", total > 0 ? r->s / total : 0);
	return o;
}

static void
slowest_free(struct slowest *sl)
{
	for (size_t i = 0; i < sl->n; i++) {
		free(sl->r[i].doc);
		free(sl->r[i].key);
		free(sl->r[i].label);
		free(sl->r[i].first_line);
		free(sl->r[i].name);
	}
	free(sl->r);
}

int
qe_hq_slowest(const struct qe_hq *q)
{
	struct qe_hbuilds bs;
	struct slowest sl = { 0 };
	struct qe_hout o;
	int rc, rank = 0;

	if (qe_hbuilds_load(q->db, q->path, &bs) < 0)
		return QE_EXIT_TROUBLE;
	if (bs.n == 0) {
		warnx("%s: no main builds", q->path);
		qe_hbuilds_free(&bs);
		return QE_EXIT_TROUBLE;
	}
	sl.newest = bs.n - 1;
	rc = qe_hdocs_each(q->db, q->path, &bs, NULL, slowest_doc, &sl);
	if (sl.n > 1) /* no rows: sl.r is NULL, which qsort may not take */
		qsort(sl.r, sl.n, sizeof *sl.r, cmp_srow);
	qe_hout_begin(&o, q->md, q->sink, slowest_cols);
	for (size_t i = 0; rc == 0 && i < sl.n; i++) {
		rank = i > 0 && (sl.r[i].idx < 0) != (sl.r[i - 1].idx < 0) ? 1 : rank + 1;
		if (rank <= q->top)
			qe_hout_row(&o, slowest_rec(&bs.b[sl.newest], &sl.r[i], rank, sl.total));
	}
	qe_hout_end(&o);
	slowest_free(&sl);
	qe_hbuilds_free(&bs);
	return rc == 0 ? QE_EXIT_OK : QE_EXIT_TROUBLE;
}

/* The series query's state. */
struct series {
	const struct qe_hq *q;
	const struct qe_hbuilds *bs;
	char *key;		/* the cell's key, once found */
	int found;		/* the document has main builds */
	int trouble;
	struct qe_hout o;
};

/*
 * How well cell c answers to the user's name for it: 4 by what names one
 * cell (its key, its label, 8 or more hex digits of its digest, its
 * code-cell number: index + 1), 3 by its display name, whole (unique in
 * its lecture since names take ordinals: "N = 100 (2nd)"), 2 by its first
 * line, whole (first lines repeat), 1 in part (the block its name opens:
 * "solution ar1p_ex1" of "solution ar1p_ex1: ..."; the start of its first
 * line, 4 characters or more), 0 not.
 */
static int
names(const struct qe_hcell *c, const char *want)
{
	size_t n = strlen(want);

	if (strcmp(c->key, want) == 0 || (c->label && strcmp(c->label, want) == 0))
		return 4;
	if (n > 0 && n <= 6 && strspn(want, "0123456789") == n)
		return atol(want) == (long)c->idx + 1 ? 4 : 0;
	if (c->name && strcmp(c->name, want) == 0)
		return 3;
	if (c->first_line && strcmp(c->first_line, want) == 0)
		return 2;
	if (c->name && strncmp(c->name, want, n) == 0 && c->name[n] == ':')
		return 1;
	if (c->first_line && n >= 4 && strncmp(c->first_line, want, n) == 0)
		return 1;
	if (n < 8 || n > 64 || strspn(want, "0123456789abcdef") != n)
		return 0;
	return strncmp(c->sha, want, n) == 0 ? 4 : 0;
}

/*
 * The key of the cell `want` names in the newest build where one answers
 * to it, the best answers only (names); NULL (said) when none does or
 * when several do: first lines repeat in a lecture ("N = 100" three
 * times), as do the names of builds extracted before names were unique,
 * and picking one would show the wrong cell's history.
 */
static char *
find_key(const struct series *s, const struct qe_hdoc *d, const char *want)
{
	for (int i = d->n - 1; i >= 0; i--) {
		const struct qe_hdocb *in = &d->in[i];
		int best = 0, n = 0, first = -1;

		for (int j = 0; j < in->ncells; j++)
			best = names(&in->cells[j], want) > best ? names(&in->cells[j], want) : best;
		if (best == 0)
			continue;
		for (int j = 0; j < in->ncells; j++)
			if (names(&in->cells[j], want) == best && n++ == 0)
				first = j;
		if (n == 1)
			return qe_xstrdup(in->cells[first].key);
		warnx("%s: document %s: %s names %d cells; ask for one by its code-cell number, label"
		    " or key:", s->q->path, d->name, want, n);
		for (int j = 0; j < in->ncells; j++)
			if (names(&in->cells[j], want) == best)
				warnx("  code cell %d: %s (%s)", in->cells[j].idx + 1, in->cells[j].name ?
				    in->cells[j].name : in->cells[j].first_line ? in->cells[j].first_line : "",
				    in->cells[j].key);
		return NULL;
	}
	warnx("%s: document %s has no cell named %s (a label, a code-cell number from 1, its"
	    " name, a first line or its start, a cell key, or 8 or more hex digits of a source"
	    " digest)", s->q->path, d->name, want);
	return NULL;
}

static cJSON *
point(const struct series *s, const struct qe_hdoc *d, const struct qe_hdocb *in,
    const struct qe_hcell *c)
{
	const struct qe_hbuild_row *b = &s->bs->b[in->pos];
	cJSON *o = qe_json_record_new("history-point");
	double v = c ? c->dur : in->lecture_s;

	cJSON_AddStringToObject(o, "level", c ? "cell" : "lecture");
	cJSON_AddStringToObject(o, "document", d->name);
	qe_json_add_str_or_null(o, "cell", c ? c->key : NULL);
	cJSON_AddStringToObject(o, "build", b->build);
	qe_json_add_str_or_null(o, "commit", b->commit);
	cJSON_AddStringToObject(o, "started_at", b->started_at);
	qe_json_add_str_or_null(o, "runner_class", b->runner_class);
	qe_json_add_str_or_null(o, "fingerprint", b->fingerprint);
	qe_json_add_num_or_null(o, "seconds", !isnan(v), v);
	qe_json_add_num_or_null(o, "index", c != NULL, c ? c->idx : 0);
	qe_json_add_str_or_null(o, "source_sha256", c ? c->sha : NULL);
	qe_json_add_str_or_null(o, "label", c ? c->label : NULL);
	qe_json_add_str_or_null(o, "name", c ? c->name : NULL);
	qe_json_add_num_or_null(o, "code_cell", c != NULL, c ? c->idx + 1 : 0);
	return o;
}

static int
series_doc(const struct qe_hdoc *d, void *ctx)
{
	struct series *s = ctx;

	s->found = 1;
	if (s->q->cell && (s->key = find_key(s, d, s->q->cell)) == NULL) {
		s->trouble = 1;
		return 0;
	}
	for (int i = 0; i < d->n; i++) {
		const struct qe_hcell *c = s->key ? qe_hdoc_cell(&d->in[i], s->key) : NULL;

		if (s->key == NULL || c != NULL)
			qe_hout_row(&s->o, point(s, d, &d->in[i], c));
	}
	return 0;
}

static const struct qe_hcol series_cols[] = {
	{ "started_at", "started", QE_HF_TEXT }, { "commit", "commit", QE_HF_SHORT },
	{ "runner_class", "runner class", QE_HF_TEXT }, { "name", "cell", QE_HF_TEXT },
	{ "code_cell", "code cell", QE_HF_NUM }, { "seconds", "time", QE_HF_DUR },
	{ NULL, NULL, 0 }
};

int
qe_hq_series(const struct qe_hq *q)
{
	struct qe_hbuilds bs;
	struct series s = { .q = q, .bs = &bs };
	int rc;

	if (qe_hbuilds_load(q->db, q->path, &bs) < 0)
		return QE_EXIT_TROUBLE;
	qe_hout_begin(&s.o, q->md, q->sink, series_cols);
	rc = qe_hdocs_each(q->db, q->path, &bs, q->doc, series_doc, &s);
	if (rc == 0 && !s.found) {
		warnx("%s: no main build has document %s", q->path, q->doc);
		s.trouble = 1;
	}
	qe_hout_end(&s.o);
	free(s.key);
	qe_hbuilds_free(&bs);
	return rc == 0 && !s.trouble ? QE_EXIT_OK : QE_EXIT_TROUBLE;
}
