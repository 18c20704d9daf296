/* Adding one stamped report as one build, in one transaction (qe_hadd.h). */
#include <stdio.h>
#include <err.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qe.h"
#include "qe_json.h"
#include "qe_ndjson.h"
#include "qe_sha.h"
#include "qe_record.h"
#include "qe_hadd.h"
#include "qe_hbuild.h"
#include "qe_hcells.h"
#include "qe_hrelayout.h"
#include "qe_recscan.h"

/*
 * The members of one record that add reads, from its line (qe_recscan): a
 * string is NULL unless the member is a string, a number NAN unless it is
 * a finite number.
 */
struct hrec {
	const cJSON *prov;	/* "provenance" as an object, else NULL */
	const cJSON *kenv;	/* "kernel_env" as an object, else NULL */
	const char *kind, *doc, *origin, *status, *src, *label, *first_line, *name;
	int not_current;	/* "current": false */
	double ix, ex, cs, dur, cc;	/* index, execution_seconds, cells_seconds, duration_s, code_cells */
};

/* One document of the report: its notebook record and its cells, packed. */
struct pend {
	char *doc;
	int has_nb;
	char *status;		/* NULL: no notebook record */
	double ex, cs;		/* execution_seconds, cells_seconds (NAN: null) */
	long code_cells;	/* -1: null */
	char *kenv;		/* kernel_env as JSON text, else NULL */
	struct qe_buf blob;	/* qe_hcells.h */
	long ncells, last_idx;
	double sum;		/* of cell durations */
	int timed;
};

/* A sweep record of the report, parsed, without its provenance. */
struct psweep {
	cJSON *rec;
	long line;
};

/* The state of one report's ingest. */
struct add {
	struct qe_hstore *s;
	const char *file, *main_ref;
	struct qe_hbuild b;
	struct qe_sha256 sha;
	int started;		/* the first record named the build */
	int present;		/* the build was stored before: read, compare, write nothing */
	int replace;		/* --replace: a stored build of this name is replaced */
	int replaced;		/* it was: its rows deleted in this transaction */
	int failed;		/* said why; the transaction is rolled back */
	int in_tx;
	sqlite3_int64 id;	/* the build's row */
	char *stored_sha;	/* present: its stored content digest */
	char *stored_file, *stored_prov, *stored_at;	/* ... its file, provenance, start */
	char *prov_text;	/* this report's provenance as stored */
	long stored_nbs, stored_cells;
	char *first_id;		/* the first record's run.build_id, else NULL */
	struct pend *pend;	/* the report's documents, written at its end */
	size_t npend, cap;
	size_t last;		/* the pend of the last record */
	long nbs, cells;
	int build_started;	/* a notebook or cell record came: the build's row is written or found */
	struct psweep *sw;	/* the report's sweep records, written at its end */
	size_t nsw, swcap;
	long sw_added, sw_replaced;	/* sweeps inserted, and of them replacing a stored one */
	struct qe_recscan scan;	/* the pull reader of lines, its last provenance */
};

/* Say "prog: file:line: what" and fail the report. */
static int
fail(struct add *a, long line, const char *what)
{
	if (line > 0)
		warnx("%s:%ld: not added: %s", a->file, line, what);
	else
		warnx("%s: not added: %s", a->file, what);
	a->failed = 1;
	return 0;
}

static int
sqlfail(struct add *a, long line)
{
	char msg[512];

	snprintf(msg, sizeof msg, "database: %s", sqlite3_errmsg(a->s->db));
	return fail(a, line, msg);
}

static void
bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

static void
bind_num(sqlite3_stmt *st, int i, double v)
{
	if (isnan(v))
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_double(st, i, v);
}

/* Run a bound statement that returns no row; 0 or -1. */
static int
step_done(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* The build's row if it is stored (its digest into a->stored_sha): 1, 0, or -1. */
static int
find_build(struct add *a)
{
	sqlite3_stmt *st = a->s->find_build;
	int rc;

	bind_text(st, 1, a->b.build);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		a->id = sqlite3_column_int64(st, 0);
		a->stored_sha = qe_xstrdup((const char *)sqlite3_column_text(st, 1));
		a->stored_file = qe_xstrdup((const char *)sqlite3_column_text(st, 2));
		a->stored_nbs = (long)sqlite3_column_int64(st, 3);
		a->stored_cells = (long)sqlite3_column_int64(st, 4);
		a->stored_prov = qe_xstrdup((const char *)sqlite3_column_text(st, 5));
		a->stored_at = qe_xstrdup((const char *)sqlite3_column_text(st, 6));
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* --replace: the stored build's rows go, inside this report's transaction. */
static int
unstore(struct add *a)
{
	sqlite3_bind_int64(a->s->del_nbs, 1, a->id);
	if (step_done(a->s->del_nbs) < 0)
		return -1;
	sqlite3_bind_int64(a->s->del_build, 1, a->id);
	if (step_done(a->s->del_build) < 0)
		return -1;
	a->replaced = 1;
	return 0;
}

/* The first record: name the build from its provenance. */
static int
start(struct add *a, const cJSON *prov, long line)
{
	const char *why;

	a->started = 1;
	if (qe_hbuild_from(&a->b, prov, a->main_ref, &why) < 0)
		return fail(a, line, why);
	if ((why = qe_json_str(cJSON_GetObjectItemCaseSensitive(prov, "run"), "build_id")) != NULL)
		a->first_id = qe_xstrdup(why);
	a->prov_text = qe_json_print(prov);
	return 0;
}

/* The first notebook or cell record: find the build's row or open its transaction and write it. */
static int
start_build(struct add *a, long line)
{
	char *text;
	sqlite3_stmt *st = a->s->ins_build;
	int rc;

	a->build_started = 1;
	if ((rc = find_build(a)) < 0)
		return sqlfail(a, line);
	if (rc > 0 && !a->replace) {
		a->present = 1;
		return 0;
	}
	if (sqlite3_exec(a->s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return sqlfail(a, line);
	a->in_tx = 1;
	if (rc > 0 && unstore(a) < 0)
		return sqlfail(a, line);
	text = a->prov_text;
	bind_text(st, 1, a->b.build);
	bind_text(st, 2, qe_vocab_name(&qe_vocab_series_words, a->b.series));
	bind_text(st, 3, a->b.commit);
	bind_text(st, 4, a->b.started_at);
	sqlite3_bind_int64(st, 5, a->b.run_number);
	bind_text(st, 6, a->b.runner_class);
	bind_text(st, 7, a->b.fingerprint);
	bind_text(st, 8, text);
	bind_text(st, 9, a->file);
	if (step_done(st) < 0)
		return sqlfail(a, line);
	a->id = sqlite3_last_insert_rowid(a->s->db);
	return 0;
}

/* The same qe-stamp run as the first record? */
static int
same_build(const struct add *a, const cJSON *prov)
{
	const char *d = qe_json_str(prov, "descriptor_sha256");
	const char *fp = qe_json_str(prov, "fingerprint");
	const char *id = qe_json_str(cJSON_GetObjectItemCaseSensitive(prov, "run"), "build_id");
	const char *c = qe_json_str(cJSON_GetObjectItemCaseSensitive(prov, "source"), "commit");

	if (!cJSON_IsObject(prov))
		return 0;
	if ((d == NULL) != (a->b.descriptor == NULL) || (d && strcmp(d, a->b.descriptor) != 0))
		return 0;
	if ((fp == NULL) != (a->b.fingerprint == NULL) || (fp && strcmp(fp, a->b.fingerprint) != 0))
		return 0;
	if ((id == NULL) != (a->first_id == NULL) || (id && strcmp(id, a->first_id) != 0))
		return 0;
	return (c == NULL) == (a->b.commit == NULL) && (c == NULL || strcmp(c, a->b.commit) == 0);
}

/* The row of document `name`, made when new; -1 on a database error. */
static sqlite3_int64
doc_id(struct add *a, const char *name)
{
	sqlite3_stmt *st = a->s->find_doc;
	sqlite3_int64 id = -1;

	bind_text(st, 1, name);
	if (sqlite3_step(st) == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (id < 0) {
		bind_text(a->s->ins_doc, 1, name);
		if (step_done(a->s->ins_doc) < 0)
			return -1;
		id = sqlite3_last_insert_rowid(a->s->db);
	}
	return id;
}

/* The pending document `name` (made when new). */
static struct pend *
pend_of(struct add *a, const char *name)
{
	struct pend *p;

	if (a->npend > 0 && strcmp(a->pend[a->last].doc, name) == 0)
		return &a->pend[a->last];
	for (a->last = 0; a->last < a->npend; a->last++)
		if (strcmp(a->pend[a->last].doc, name) == 0)
			return &a->pend[a->last];
	a->pend = qe_mem_grow(a->pend, a->npend, &a->cap, sizeof *a->pend, 64);
	p = &a->pend[a->npend++];
	p->doc = qe_xstrdup(name);
	p->ex = p->cs = NAN;
	p->code_cells = -1;
	p->last_idx = -1;
	return p;
}

/* Not this build's measurement: an older record or one inherited. */
static int
not_ours(const struct hrec *r)
{
	return r->not_current || (r->origin && strcmp(r->origin, "inherited") == 0);
}

static int
add_notebook(struct add *a, const struct hrec *r, struct pend *p, long line)
{
	if (p->has_nb)
		return fail(a, line, "a document appears twice in one report");
	p->has_nb = 1;
	p->status = qe_xstrdup(r->status ? r->status : "ok");
	p->ex = r->ex;
	p->cs = r->cs;
	if (!isnan(r->cc))
		p->code_cells = (long)r->cc;
	if (r->kenv)
		p->kenv = qe_json_print(r->kenv);
	a->nbs++;
	return 0;
}

static int
add_cell(struct add *a, const struct hrec *r, struct pend *p, long line)
{
	const char *src = r->src;
	struct qe_hcellrec c;

	if (src == NULL || strlen(src) != 64 || qe_sha_unhex(src, 32, c.sha) < 0 || isnan(r->ix) ||
	    r->ix < 0 || r->ix > 1e9 || r->ix != (double)(long)r->ix)
		return fail(a, line, "a cell record without index or source_sha256");
	c.idx = (long)r->ix;
	if (c.idx <= p->last_idx)
		return fail(a, line, c.idx == p->last_idx ? "a cell appears twice in one report" :
		    "a document's cells out of index order");
	p->last_idx = c.idx;
	c.status = qe_vocab_lookup(&qe_vocab_cell_statuses, r->status);
	c.dur = r->dur;
	c.label = r->label;
	c.first_line = r->first_line;
	c.name = r->name;
	qe_hcells_put(&p->blob, &c);
	p->ncells++;
	if (!isnan(c.dur))
		p->sum += c.dur, p->timed = 1;
	a->cells++;
	return 0;
}

/* A sweep record (qe-sweep's curve), raw[0..n) its line: checked and kept for finish(). */
static int
queue_sweep(struct add *a, const char *raw, size_t n, long line)
{
	cJSON *r = cJSON_ParseWithLength(raw, n);
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(r, "cell");

	if (qe_json_str(r, "document") == NULL || qe_json_str(r, "parameter") == NULL ||
	    qe_json_str(cJSON_GetObjectItemCaseSensitive(r, "machine"), "fingerprint") == NULL ||
	    !(c == NULL || cJSON_IsNull(c) || cJSON_IsString(c)) ||
	    !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(r, "points"))) {
		cJSON_Delete(r);
		return fail(a, line, "a sweep record without document, parameter, machine.fingerprint or points");
	}
	cJSON_DeleteItemFromObjectCaseSensitive(r, "provenance");
	a->sw = qe_mem_grow(a->sw, a->nsw, &a->swcap, sizeof *a->sw, 16);
	a->sw[a->nsw++] = (struct psweep){ r, line };
	return 0;
}

/*
 * The stored row of sweep p's curve in this build: its id (-1: none) and
 * whether its record is p's; -2 on a database error.
 */
static sqlite3_int64
find_sweep(struct add *a, const struct psweep *p, sqlite3_int64 doc, const char *text, int *same,
    char **file)
{
	sqlite3_stmt *st = a->s->find_sweep;
	sqlite3_int64 id = -1;
	int rc;

	bind_text(st, 1, a->b.build);
	sqlite3_bind_int64(st, 2, doc);
	bind_text(st, 3, qe_json_str(p->rec, "cell"));
	bind_text(st, 4, qe_json_str(p->rec, "parameter"));
	bind_text(st, 5, qe_json_str(cJSON_GetObjectItemCaseSensitive(p->rec, "machine"), "fingerprint"));
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		id = sqlite3_column_int64(st, 0);
		*same = strcmp((const char *)sqlite3_column_text(st, 1), text) == 0;
		*file = qe_xstrdup((const char *)sqlite3_column_text(st, 2));
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? id : -2;
}

static int
insert_sweep(struct add *a, const struct psweep *p, sqlite3_int64 doc, const char *text)
{
	sqlite3_stmt *st = a->s->ins_sweep;
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(p->rec, "machine");

	bind_text(st, 1, a->b.build);
	bind_text(st, 2, qe_vocab_name(&qe_vocab_series_words, a->b.series));
	bind_text(st, 3, a->b.commit);
	bind_text(st, 4, a->b.started_at);
	sqlite3_bind_int64(st, 5, a->b.run_number);
	sqlite3_bind_int64(st, 6, doc);
	bind_text(st, 7, qe_json_str(p->rec, "cell"));
	bind_text(st, 8, qe_json_str(p->rec, "parameter"));
	bind_text(st, 9, qe_json_str(m, "fingerprint"));
	bind_text(st, 10, qe_json_str(m, "runner_class"));
	bind_text(st, 11, a->file);
	bind_text(st, 12, text);
	return step_done(st);
}

/* A stored curve of this build with another record: which, from where, how to resolve it. */
static void
sweep_conflict(struct add *a, const struct psweep *p, const char *file)
{
	struct qe_buf m = { 0 };
	const char *cell = qe_json_str(p->rec, "cell");

	qe_buf_addf(&m, "the sweep of %s, %s%s over %s on machine %s of build %s is already stored from %s"
	    " with another record: not replaced (qe-history add --replace stores this report's instead)",
	    qe_json_str(p->rec, "document"), cell ? "cell " : "the lecture", cell ? cell : "",
	    qe_json_str(p->rec, "parameter"),
	    qe_json_str(cJSON_GetObjectItemCaseSensitive(p->rec, "machine"), "fingerprint"), a->b.build, file);
	fail(a, p->line, m.data);
	qe_buf_free(&m);
}

/*
 * One sweep: stored the same already (present), else inserted; a stored
 * curve with another record is a conflict unless --replace. floor: the
 * largest row id before this report (a row above it is this report's own).
 */
static int
write_sweep(struct add *a, const struct psweep *p, sqlite3_int64 floor)
{
	sqlite3_int64 doc = doc_id(a, qe_json_str(p->rec, "document")), id;
	char *text = qe_json_print(p->rec), *file = NULL;
	int same = 0, rc = 0;

	if (doc < 0 || (id = find_sweep(a, p, doc, text, &same, &file)) == -2)
		rc = sqlfail(a, p->line), a->failed = 1;
	else if (id > floor)
		fail(a, p->line, "a sweep curve (document, cell, parameter, machine) appears twice in one report");
	else if (id >= 0 && !same && !a->replace)
		sweep_conflict(a, p, file);
	else if (id < 0 || !same) {
		if (id >= 0) {
			sqlite3_bind_int64(a->s->del_sweep, 1, id);
			if (step_done(a->s->del_sweep) < 0)
				rc = -1;
			a->sw_replaced++;
		}
		if (rc < 0 || insert_sweep(a, p, doc, text) < 0)
			sqlfail(a, p->line);
		a->sw_added++;
	}
	free(text);
	free(file);
	return a->failed ? -1 : 0;
}

/* Every sweep of the report, inside the report's transaction (opened here when it has none). */
static int
flush_sweeps(struct add *a)
{
	sqlite3_stmt *st;
	sqlite3_int64 floor = 0;

	if (a->nsw == 0)
		return 0;
	if (!a->in_tx) {
		if (sqlite3_exec(a->s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
			return sqlfail(a, 0), -1;
		a->in_tx = 1;
	}
	if (sqlite3_prepare_v2(a->s->db, "SELECT ifnull(max(id), 0) FROM sweeps", -1, &st, NULL) != SQLITE_OK)
		return sqlfail(a, 0), -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		floor = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	for (size_t i = 0; i < a->nsw; i++)
		if (write_sweep(a, &a->sw[i], floor) < 0)
			return -1;
	return 0;
}

/* One record of the report, raw[0..n) its line as read; 0. */
static int
take(struct add *a, const struct hrec *r, const char *raw, size_t n, long line)
{
	int nb = r->kind && strcmp(r->kind, "notebook") == 0, cell = r->kind && strcmp(r->kind, "cell") == 0;
	int sw = r->kind && strcmp(r->kind, "sweep") == 0;
	struct pend *p;

	qe_sha256_add(&a->sha, raw, n);
	qe_sha256_add(&a->sha, "\n", 1);
	if (a->failed || !(nb || cell || sw))
		return 0;
	if (!a->started) {
		if (start(a, r->prov, line), a->failed)
			return 0;
	} else if (!same_build(a, r->prov))
		return fail(a, line, r->prov ? "records of more than one qe-stamp run in one report: add each build's report on its own" :
		    "a record without provenance among stamped ones (pass the whole report through qe-stamp)");
	if (sw)
		return queue_sweep(a, raw, n, line);
	if (!a->build_started && (start_build(a, line), a->failed))
		return 0;
	if (not_ours(r))
		return 0;
	if (r->doc == NULL)
		return fail(a, line, "a record without a document");
	if (a->present) {	/* counted, not written */
		*(nb ? &a->nbs : &a->cells) += 1;
		return 0;
	}
	p = pend_of(a, r->doc);
	return nb ? add_notebook(a, r, p, line) : add_cell(a, r, p, line);
}

static double
line_num(const struct qe_recline *l, int id)
{
	return l->type[id] == QE_JS_NUM && isfinite(l->num[id]) ? l->num[id] : NAN;
}

/* A line read into the one record struct (qe_line_fn); one that is no record is said so by qe_ndjson. */
static int
line_record(const char *s, size_t n, const char *file, long line, void *ctx)
{
	struct add *a = ctx;
	struct qe_recline l;
	struct hrec r;

	(void)file;
	if (qe_recscan_line(&a->scan, s, n, &l) != 0)
		return QE_LINE_REFUSED;	/* qe_ndjson says why */
	r = (struct hrec){
		.prov = l.prov, .kenv = l.kenv, .kind = l.str[QE_RK_KIND], .doc = l.str[QE_RK_DOCUMENT],
		.origin = l.str[QE_RK_ORIGIN], .status = l.str[QE_RK_STATUS], .src = l.str[QE_RK_SOURCE],
		.label = l.str[QE_RK_LABEL], .first_line = l.str[QE_RK_FIRST_LINE],
		.name = l.str[QE_RK_NAME],
		.not_current = l.type[QE_RK_CURRENT] == QE_JS_FALSE,
		.ix = line_num(&l, QE_RK_INDEX), .ex = line_num(&l, QE_RK_EXEC_S),
		.cs = line_num(&l, QE_RK_CELLS_S), .dur = line_num(&l, QE_RK_DURATION),
		.cc = line_num(&l, QE_RK_CODE_CELLS),
	};
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	return take(a, &r, s, n, line);
}

/* The history-add record of a report added or found present. */
static void
emit_add(const struct add *a, const char *digest)
{
	cJSON *r = qe_json_record_new("history-add");

	cJSON_AddStringToObject(r, "file", a->file);
	int res = a->present || (a->replaced && strcmp(a->stored_sha, digest) == 0) ? QE_ADD_PRESENT :
	    a->replaced ? QE_ADD_REPLACED : QE_ADD_ADDED;

	if (!a->build_started)	/* sweeps only: what became of them */
		res = a->sw_replaced ? QE_ADD_REPLACED : a->sw_added ? QE_ADD_ADDED : QE_ADD_PRESENT;
	cJSON_AddStringToObject(r, "result", qe_vocab_name(&qe_vocab_add_results, res));
	cJSON_AddStringToObject(r, "build", a->b.build);
	cJSON_AddStringToObject(r, "series", qe_vocab_name(&qe_vocab_series_words, a->b.series));
	qe_json_add_str_or_null(r, "commit", a->b.commit);
	cJSON_AddStringToObject(r, "started_at", a->b.started_at);
	cJSON_AddStringToObject(r, "content_sha256", digest);
	cJSON_AddNumberToObject(r, "notebooks", (double)a->nbs);
	cJSON_AddNumberToObject(r, "cells", (double)a->cells);
	if (a->nsw > 0)
		cJSON_AddNumberToObject(r, "sweeps", (double)a->nsw);
	qe_json_check(r);
	qe_json_emit(r);
	cJSON_Delete(r);
}

/* The pending documents named by absolute path, named as the history has them (qe_hrelayout). */
static int
relayout(struct add *a)
{
	char **names = qe_xcalloc(a->npend + 1, sizeof *names);
	int rc;

	for (size_t i = 0; i < a->npend; i++)
		names[i] = a->pend[i].doc;
	rc = qe_hrelayout(a->s->db, a->file, names, a->npend);
	for (size_t i = 0; i < a->npend; i++)
		a->pend[i].doc = names[i];
	free(names);
	return rc;
}

/* Write every pending document: one notebooks row each. */
static int
flush(struct add *a)
{
	sqlite3_stmt *st = a->s->ins_nb;

	if (relayout(a) < 0) {
		sqlfail(a, 0);
		return -1;
	}

	for (size_t i = 0; i < a->npend; i++) {
		struct pend *p = &a->pend[i];
		sqlite3_int64 doc = doc_id(a, p->doc);

		if (doc < 0) {
			sqlfail(a, 0);
			return -1;
		}
		sqlite3_bind_int64(st, 1, doc);
		sqlite3_bind_int64(st, 2, a->id);
		bind_text(st, 3, p->status);
		bind_num(st, 4, p->ex);
		bind_num(st, 5, p->has_nb || !p->timed ? p->cs : p->sum);
		if (p->code_cells >= 0)
			sqlite3_bind_int64(st, 6, p->code_cells);
		sqlite3_bind_int64(st, 7, p->ncells);
		sqlite3_bind_blob(st, 8, p->blob.data ? p->blob.data : "", (int)p->blob.len, SQLITE_STATIC);
		bind_text(st, 9, p->kenv);
		if (step_done(st) < 0) {
			sqlfail(a, 0);
			return -1;
		}
	}
	return 0;
}

static void
pend_free(struct add *a)
{
	for (size_t i = 0; i < a->npend; i++) {
		free(a->pend[i].doc);
		free(a->pend[i].status);
		free(a->pend[i].kenv);
		qe_buf_free(&a->pend[i].blob);
	}
	free(a->pend);
}

/*
 * The members of provenance objects x and y that differ, as paths
 * ("run.build_id"), one level into objects; appended to m, at most 4.
 */
static int
prov_paths(const cJSON *x, const cJSON *y, const char *pre, struct qe_buf *m, int n)
{
	const cJSON *pair[2] = { x, y }, *c;

	for (int side = 0; side < 2; side++)
		cJSON_ArrayForEach(c, pair[side]) {
			const cJSON *o = cJSON_GetObjectItemCaseSensitive(pair[1 - side], c->string);

			if (side == 1 && o != NULL)
				continue;	/* seen from x's side */
			if (o && cJSON_IsObject(c) && cJSON_IsObject(o) && *pre == 0) {
				n = prov_paths(side ? o : c, side ? c : o, c->string, m, n);
				continue;
			}
			if (o && cJSON_Compare(c, o, 1))
				continue;
			if (n++ < 4)
				qe_buf_addf(m, "%s%s%s%s", n > 1 ? ", " : "", pre, *pre ? "." : "", c->string);
		}
	return n;
}

/* What differs between the stored build and this report, into m. */
static void
differs(const struct add *a, struct qe_buf *m)
{
	cJSON *p = cJSON_Parse(a->stored_prov), *q = cJSON_Parse(a->prov_text);
	size_t n = m->len;
	int k;

	if (p && q && !cJSON_Compare(p, q, 1)) {
		qe_buf_adds(m, "the provenance (");
		if ((k = prov_paths(p, q, "", m, 0)) > 4)
			qe_buf_addf(m, " and %d more", k - 4);
		qe_buf_adds(m, ": another qe-stamp run)");
	}
	if (a->stored_nbs != a->nbs || a->stored_cells != a->cells)
		qe_buf_addf(m, "%sthe records (%ld notebooks and %ld cells vs %ld and %ld)",
		    m->len > n ? ", " : "", a->stored_nbs, a->stored_cells, a->nbs, a->cells);
	if (m->len == n)
		qe_buf_adds(m, "the measurements (same provenance and record counts)");
	cJSON_Delete(p);
	cJSON_Delete(q);
}

/* A real conflict: both builds named, what differs, how to resolve it. */
static int
conflict(struct add *a, const char *digest)
{
	struct qe_buf m = { 0 };

	qe_buf_addf(&m, "build %s is already stored with other content: stored from %s"
	    " (content_sha256 %.12s), this report's %.12s; they differ in ", a->b.build,
	    a->stored_file, a->stored_sha, digest);
	differs(a, &m);
	qe_buf_adds(&m, ": not replaced (qe-history add --replace stores this report instead)");
	fail(a, 0, m.data);
	qe_buf_free(&m);
	return 0;
}

/* After the last line: commit, or compare with the stored build. */
static int
finish(struct add *a, const char *digest)
{
	sqlite3_stmt *st = a->s->fin_build;

	if (!a->started)
		return fail(a, 0, "no notebook, cell or sweep records: nothing to add");
	if (a->present) {	/* its sweeps were stored with it */
		if (strcmp(a->stored_sha, digest) != 0)
			return conflict(a, digest);
		return 0;
	}
	if (a->build_started) {
		if (flush(a) < 0)
			return -1;
		bind_text(st, 1, digest);
		sqlite3_bind_int64(st, 2, a->nbs);
		sqlite3_bind_int64(st, 3, a->cells);
		sqlite3_bind_int64(st, 4, a->id);
		if (step_done(st) < 0)
			return sqlfail(a, 0);
	}
	if (flush_sweeps(a) < 0)
		return -1;
	if (a->in_tx && sqlite3_exec(a->s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		return sqlfail(a, 0);
	a->in_tx = 0;
	return 0;
}

int
qe_hadd(struct qe_hstore *s, const char *file, const char *main_ref, int replace)
{
	struct add a = { .s = s, .file = file, .main_ref = main_ref, .replace = replace };
	char *argv[] = { (char *)file, NULL }, digest[QE_SHA256_HEX];
	int status;

	qe_sha256_begin(&a.sha);
	status = qe_ndjson_each_lines(1, argv, line_record, NULL, &a);
	qe_sha256_end(&a.sha, digest);
	if (status != QE_EXIT_OK && !a.failed)
		fail(&a, 0, "lines were rejected");
	if (!a.failed)
		finish(&a, digest);
	if (a.in_tx)
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	if (!a.failed)
		emit_add(&a, digest);
	qe_hbuild_free(&a.b);
	free(a.stored_sha);
	free(a.stored_file);
	free(a.stored_prov);
	free(a.stored_at);
	free(a.prov_text);
	free(a.first_id);
	pend_free(&a);
	for (size_t i = 0; i < a.nsw; i++)
		cJSON_Delete(a.sw[i].rec);
	free(a.sw);
	qe_recscan_free(&a.scan);
	return a.failed ? QE_EXIT_TROUBLE : QE_EXIT_OK;
}
