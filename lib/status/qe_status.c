/* A build's documents, the newest record of each, and their documents (qe_status.h). */
#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "qe_json.h"
#include "qe_time.h"
#include "qe_jw.h"
#include "qe_record.h"
#include "qe_extime.h"
#include "qe_status.h"

/* 1 (after the message) when a field read here has another type (qe_record.h). */
static int
bad_field(const cJSON *rec, int cell, const char *kind, const char *file, long line)
{
	return qe_record_bad_tree(rec, cell ? QE_RKIND_CELL : QE_RKIND_NOTEBOOK, QE_RREAD_STATUS, kind, file, line);
}

/* The time of a stamped build (provenance.run.started_at, else stamped_at), or NULL. */
static const char *
build_time(const cJSON *rec)
{
	const cJSON *run = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(rec, "provenance"), "run");
	const char *t = qe_json_str(run, "started_at");

	return t && *t ? t : qe_json_str(run, "stamped_at");
}

/* a - b in time where both parse (qe_time), else as strings: <0, 0, >0. */
static int
time_cmp(const char *a, const char *b)
{
	struct qe_time ta, tb;

	if (qe_time_parse(a, &ta) == 0 && qe_time_parse(b, &tb) == 0) {
		int64_t d = qe_time_diff_us(&ta, &tb);	/* b - a */

		if (d != 0)
			return d > 0 ? -1 : 1;
	}
	return strcmp(a, b);
}

/* 1 when the record re-reports an earlier build's measurement (origin inherited). */
static int
inherited(const cJSON *nb)
{
	return qe_vocab_lookup(&qe_vocab_origins, qe_json_str(nb, "origin")) == QE_ORIGIN_INHERITED;
}

int
qe_status_newer(const cJSON *a, const cJSON *b)
{
	const char *ba = build_time(a), *bb = build_time(b);
	const char *ca = qe_json_str(a, "created"), *cb = qe_json_str(b, "created");
	const char *ka = qe_json_str(a, "cache_key"), *kb = qe_json_str(b, "cache_key");

	/* one measurement in two reports: the build that made it, not a later one that inherited it */
	if (ca && cb && strcmp(ca, cb) == 0 && ka && kb && strcmp(ka, kb) == 0 &&
	    inherited(a) != inherited(b))
		return inherited(b);
	if (ba && *ba && bb && *bb && strcmp(ba, bb) != 0)
		return time_cmp(ba, bb) > 0;
	if (ca == NULL)
		return 1;
	if (cb == NULL)
		return 0;
	return time_cmp(ca, cb) >= 0;
}

static long
find_doc(const struct qe_status *s, const char *name)
{
	for (size_t i = 0; i < s->ndocs; i++)
		if (strcmp(s->docs[i].name, name) == 0)
			return (long)i;
	return -1;
}

/* A current notebook record: its document's entry when it is the newest. */
static void
take_notebook(struct qe_status *s, const cJSON *rec, const char *doc, const char *file)
{
	long i = find_doc(s, doc);
	struct qe_status_doc *d;

	if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(rec, "current")))
		return;
	if (i >= 0 && !qe_status_newer(rec, s->docs[i].nb))
		return;
	if (i < 0) {
		if (s->ndocs == s->cap) {
			s->cap = s->cap ? 2 * s->cap : 64;
			s->docs = qe_xrealloc(s->docs, s->cap * sizeof *s->docs);
		}
		i = (long)s->ndocs++;
		s->docs[i].name = qe_xstrdup(doc);
	} else {
		cJSON_Delete(s->docs[i].nb);
		cJSON_Delete(s->docs[i].cells);
		free(s->docs[i].file);
	}
	d = &s->docs[i];
	d->nb = qe_json_check(cJSON_Duplicate(rec, 1));
	d->cells = s->times ? qe_json_check(cJSON_CreateObject()) : NULL;
	d->file = qe_xstrdup(file);
	s->cur = i;
}

/* Copy rec[key] (null when absent) into o. */
static void
copy(cJSON *o, const char *key, const cJSON *rec, const char *as)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(rec, key);

	cJSON_AddItemToObject(o, as ? as : key,
	    qe_json_check(v ? cJSON_Duplicate(v, 1) : cJSON_CreateNull()));
}

/*
 * A cell of an exercise or solution block (block_label, qe-cache-extract's
 * cell names) adds its duration to its block's entry, made by its first
 * cell: the block's time is the sum of its cells (null while one is
 * untimed). A cell's own label wins over a block of that name.
 */
static void
take_block_cell(cJSON *cells, const cJSON *rec, const char *block)
{
	cJSON *c = cJSON_GetObjectItemCaseSensitive(cells, block), *sum;
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(rec, "duration_s");

	if (c == NULL) {
		c = qe_json_check(cJSON_CreateObject());
		copy(c, "duration_s", rec, NULL);
		copy(c, "start", rec, NULL);
		copy(c, "timing_source", rec, NULL);
		qe_json_check(cJSON_AddTrueToObject(c, "block"));
		cJSON_AddItemToObject(cells, block, c);
		return;
	}
	if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "block")))
		return;
	sum = cJSON_GetObjectItemCaseSensitive(c, "duration_s");
	if (cJSON_IsNumber(sum) && cJSON_IsNumber(d))
		cJSON_SetNumberValue(sum, sum->valuedouble + d->valuedouble);
	else if (cJSON_IsNumber(sum))
		cJSON_ReplaceItemInObjectCaseSensitive(c, "duration_s", qe_json_check(cJSON_CreateNull()));
}

/* A cell record of the current document: its label's first cell, with times. */
static void
take_cell(struct qe_status *s, const cJSON *rec, const char *doc)
{
	struct qe_status_doc *d = s->cur >= 0 ? &s->docs[s->cur] : NULL;
	const char *label = qe_json_str(rec, "label"), *block = qe_json_str(rec, "block_label");
	cJSON *c, *had;

	if (d == NULL || d->cells == NULL || strcmp(doc, d->name) != 0)
		return;
	if (block != NULL && (label == NULL || strcmp(label, block) != 0))
		take_block_cell(d->cells, rec, block);
	had = label ? cJSON_GetObjectItemCaseSensitive(d->cells, label) : NULL;
	if (label == NULL || (had != NULL && !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(had, "block"))))
		return;
	c = qe_json_check(cJSON_CreateObject());
	copy(c, "duration_s", rec, NULL);
	copy(c, "start", rec, NULL);
	copy(c, "timing_source", rec, NULL);
	if (had != NULL)
		cJSON_ReplaceItemInObjectCaseSensitive(d->cells, label, c);
	else
		cJSON_AddItemToObject(d->cells, label, c);
}

int
qe_status_record(cJSON *rec, const char *file, long line, void *ctx)
{
	struct qe_status *s = ctx;
	const char *kind = qe_json_str(rec, "kind"), *doc;
	int cell;

	if (s->file == NULL || strcmp(s->file, file) != 0) {	/* a new file: no cells yet */
		free(s->file);
		s->file = qe_xstrdup(file);
		s->cur = -1;
	}
	if (kind == NULL) {
		warnx("%s:%ld: record without 'kind'", file, line);
		return -1;
	}
	cell = strcmp(kind, "cell") == 0;
	if (!cell && strcmp(kind, "notebook") != 0)
		return 0;
	if ((doc = qe_json_str(rec, "document")) == NULL) {
		warnx("%s:%ld: %s record without 'document'", file, line, kind);
		return -1;
	}
	if (bad_field(rec, cell, kind, file, line))
		return -1;
	if (cell)
		take_cell(s, rec, doc);
	else {
		s->cur = -1;
		take_notebook(s, rec, doc, file);
	}
	return 0;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(((const struct qe_status_doc *)a)->name, ((const struct qe_status_doc *)b)->name);
}

/* Documents in name order (cells taken: no record follows). */
static void
sort_docs(struct qe_status *s)
{
	if (s->ndocs > 1)
		qsort(s->docs, s->ndocs, sizeof *s->docs, by_name);
	s->cur = -1;
}

const cJSON *
qe_status_provenance(const struct qe_status *s)
{
	const cJSON *best = NULL;
	const char *name = NULL;

	for (size_t i = 0; i < s->ndocs; i++) {
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(s->docs[i].nb, "provenance");

		if (cJSON_IsObject(p) && (name == NULL || strcmp(s->docs[i].name, name) < 0))
			best = p, name = s->docs[i].name;
	}
	return best;
}

/* "executed", "cached" or NULL: what the record's origin says. */
static const char *
execution(const cJSON *nb)
{
	return qe_vocab_name(&qe_vocab_executions, qe_vocab_lookup(&qe_vocab_origins, qe_json_str(nb, "origin")));
}

static int
failed(const cJSON *nb)
{
	return qe_vocab_lookup(&qe_vocab_nb_statuses, qe_json_str(nb, "status")) == QE_NB_FAILED;
}

/* The number nb[key], 0 when absent or null. */
static double
num0(const cJSON *nb, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(nb, key);

	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* The commit of a provenance object (provenance.source.commit), or NULL. */
static const char *
commit_of(const cJSON *prov)
{
	return qe_json_str(cJSON_GetObjectItemCaseSensitive(prov, "source"), "commit");
}

/* A cached document's entry in the stored reports, or NULL. */
static const struct qe_status_doc *
stored(const struct qe_status *reports, const char *name)
{
	long i = reports ? find_doc(reports, name) : -1;

	return i >= 0 && !failed(reports->docs[i].nb) ? &reports->docs[i] : NULL;
}

/*
 * Where the document's times come from, {from, report, created, commit}:
 * this build (executed), the newest stored report that has it (cached),
 * else the cache's own record (cached: an earlier build, commit unknown);
 * a record that inherited its measurement names no commit.
 */
static cJSON *
times_of(const struct qe_status_doc *d, const struct qe_status_build *b)
{
	cJSON *o = qe_json_check(cJSON_CreateObject());
	const char *e = execution(d->nb), *report = NULL, *commit = NULL;
	int from = -1;
	const cJSON *nb = d->nb;
	const struct qe_status_doc *r;

	if (e && strcmp(e, "executed") == 0) {
		from = QE_TF_THIS_BUILD;
		commit = commit_of(b->provenance ? b->provenance : cJSON_GetObjectItemCaseSensitive(nb, "provenance"));
	} else if (e && (r = stored(b->reports, d->name)) != NULL) {
		from = QE_TF_STORED_REPORT, report = r->file, nb = r->nb;
		commit = inherited(nb) ? NULL : commit_of(cJSON_GetObjectItemCaseSensitive(nb, "provenance"));
	} else if (e) {
		from = QE_TF_CACHE;
	} else if (!inherited(nb)) {
		commit = commit_of(cJSON_GetObjectItemCaseSensitive(nb, "provenance"));
	}
	qe_json_add_str_or_null(o, "from", qe_vocab_name(&qe_vocab_times_from, from));
	qe_json_add_str_or_null(o, "report", report);
	copy(o, "created", nb, NULL);
	qe_json_add_str_or_null(o, "commit", commit);
	return o;
}

/* 1 when the record's cell counts are this build's: not a cache hit. */
static int
counts_here(const cJSON *nb)
{
	const char *e = execution(nb);

	return e == NULL || strcmp(e, "cached") != 0;
}

/* One document's entry of the status document. */
static cJSON *
status_entry(const struct qe_status_doc *d, const struct qe_status_build *b)
{
	cJSON *o = qe_json_check(cJSON_CreateObject());
	int here = counts_here(d->nb);

	qe_json_check(cJSON_AddStringToObject(o, "document", d->name));
	qe_json_check(cJSON_AddStringToObject(o, "status",
	    qe_vocab_name(&qe_vocab_nb_statuses, failed(d->nb) ? QE_NB_FAILED : QE_NB_OK)));
	copy(o, "error", d->nb, NULL);
	qe_json_add_str_or_null(o, "execution", execution(d->nb));
	copy(o, "execution_seconds", d->nb, "runtime_s");
	copy(o, "code_cells", d->nb, "cells");
	/* a cache hit's cells ran in an earlier build: none timed in this one */
	qe_json_check(cJSON_AddNumberToObject(o, "cells_timed", here ? num0(d->nb, "timed_cells") : 0));
	if (here)
		copy(o, "cells_seconds", d->nb, NULL);
	else
		qe_json_check(cJSON_AddNullToObject(o, "cells_seconds"));
	copy(o, "created", d->nb, NULL);
	copy(o, "cache_key", d->nb, NULL);
	cJSON_AddItemToObject(o, "times", times_of(d, b));
	return o;
}

static void
add_count(cJSON *o, const char *key, long n)
{
	qe_json_check(cJSON_AddNumberToObject(o, key, (double)n));
}

/* The totals over the entries of the document. */
static void
add_totals(cJSON *o, const struct qe_status *s)
{
	cJSON *t = qe_json_check(cJSON_AddObjectToObject(o, "totals"));
	long ok = 0, nfailed = 0, executed = 0, cached = 0;
	double runtime = 0, here = 0, timed = 0;

	for (size_t i = 0; i < s->ndocs; i++) {
		const cJSON *nb = s->docs[i].nb;
		const char *e = execution(nb);

		if (failed(nb))
			nfailed++;
		else
			ok++;
		executed += e && strcmp(e, "executed") == 0;
		cached += e && strcmp(e, "cached") == 0;
		/* the total is of what the document lists, whichever build ran it */
		runtime += num0(nb, "execution_seconds");
		if (!counts_here(nb))
			continue;	/* an earlier build's execution */
		here += num0(nb, "execution_seconds");
		timed += num0(nb, "timed_cells");
	}
	add_count(t, "documents", (long)s->ndocs);
	add_count(t, "ok", ok);
	add_count(t, "failed", nfailed);
	add_count(t, "executed", executed);
	add_count(t, "cached", cached);
	qe_json_add_rounded(t, "runtime_s", runtime, 6);
	qe_json_add_rounded(t, "executed_runtime_s", here, 6);
	qe_json_check(cJSON_AddNumberToObject(t, "cells_timed", timed));
}

/* prov as the document holds it: without a record's kind and schema_version, or null. */
static cJSON *
provenance_of(const cJSON *prov)
{
	cJSON *p;

	if (prov == NULL)
		return qe_json_check(cJSON_CreateNull());
	p = qe_json_check(cJSON_Duplicate(prov, 1));
	cJSON_DeleteItemFromObjectCaseSensitive(p, "kind");
	cJSON_DeleteItemFromObjectCaseSensitive(p, "schema_version");
	return p;
}

/* o's "machine": the description of the provenance o holds (qe_record_machine_of), or null. */
static void
add_machine(cJSON *o)
{
	const cJSON *prov = cJSON_GetObjectItemCaseSensitive(o, "provenance");
	struct qe_buf m = { 0 };

	if (cJSON_IsObject(prov))
		qe_record_machine_of(&m, prov);
	qe_json_add_str_or_null(o, "machine", m.len ? m.data : NULL);
	qe_buf_free(&m);
}

/* Print o with a newline onto out, and free it. */
static void
put(struct qe_buf *out, cJSON *o)
{
	qe_jw_value(out, o);
	qe_buf_addc(out, '\n');
	cJSON_Delete(o);
}

void
qe_status_document(struct qe_buf *out, struct qe_status *s, const struct qe_status_build *b)
{
	cJSON *o = qe_json_record_new("execution-status");
	cJSON *build = qe_json_check(cJSON_AddObjectToObject(o, "build"));
	cJSON *in, *docs;

	sort_docs(s);
	qe_json_check(cJSON_AddStringToObject(build, "generator", b->generator));
	qe_json_add_str_or_null(build, "started", b->started);
	qe_json_add_str_or_null(build, "finished", b->finished);
	in = qe_json_check(cJSON_AddArrayToObject(build, "inputs"));
	for (int i = 0; i < b->ninputs; i++)
		cJSON_AddItemToArray(in, qe_json_check(cJSON_CreateString(b->inputs[i])));
	cJSON_AddItemToObject(build, "provenance",
	    provenance_of(b->provenance ? b->provenance : qe_status_provenance(s)));
	add_totals(o, s);
	docs = qe_json_check(cJSON_AddArrayToObject(o, "documents"));
	for (size_t i = 0; i < s->ndocs; i++)
		cJSON_AddItemToArray(docs, status_entry(&s->docs[i], b));
	put(out, o);
}

/* o[key]: the text of b. */
static void
add_text(cJSON *o, const char *key, const struct qe_buf *b)
{
	qe_json_check(cJSON_AddStringToObject(o, key, b->len ? b->data : ""));
}

/*
 * The printed forms of a duration (qe_extime.h), as the {exec-time} roles
 * show it: human, seconds and rounded; with a base (> 0), the share of it
 * and the base's seconds form (share_base, for a tooltip).  null when the
 * duration is not a number.
 */
static cJSON *
texts(const cJSON *dur, const cJSON *base, const struct qe_status_form *f)
{
	struct qe_buf h = { 0 }, sec = { 0 }, r = { 0 }, sh = { 0 }, bs = { 0 };
	cJSON *o;

	if (!cJSON_IsNumber(dur))
		return qe_json_check(cJSON_CreateNull());
	o = qe_json_check(cJSON_CreateObject());
	qe_extime_human(&h, dur->valuedouble);
	qe_extime_seconds(&sec, dur->valuedouble, f->digits);
	qe_extime_rounded(&r, dur->valuedouble);
	add_text(o, "human", &h);
	add_text(o, "seconds", &sec);
	add_text(o, "rounded", &r);
	if (cJSON_IsNumber(base) && base->valuedouble > 0) {
		qe_extime_share(&sh, dur->valuedouble, base->valuedouble, f->style);
		qe_extime_seconds(&bs, base->valuedouble, f->digits);
		add_text(o, "share", &sh);
		add_text(o, "share_base", &bs);
	}
	qe_buf_free(&h), qe_buf_free(&sec), qe_buf_free(&r), qe_buf_free(&sh), qe_buf_free(&bs);
	return o;
}

/* A cell's share is of the document's timed cells, else (none timed) of its runtime. */
static const cJSON *
share_base(const cJSON *nb)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(nb, "cells_seconds");

	if (cJSON_IsNumber(c) && c->valuedouble != 0)
		return c;
	return cJSON_GetObjectItemCaseSensitive(nb, "execution_seconds");
}

/* The lookup's cells of a document, each with its printed forms. */
static cJSON *
times_cells(const struct qe_status_doc *d, const struct qe_status_form *f)
{
	cJSON *cells = qe_json_check(d->cells ? cJSON_Duplicate(d->cells, 1) : cJSON_CreateObject()), *c;
	const cJSON *base = share_base(d->nb);

	cJSON_ArrayForEach(c, cells)
		cJSON_AddItemToObject(c, "text", texts(cJSON_GetObjectItemCaseSensitive(c, "duration_s"), base, f));
	return cells;
}

/* {document, run_time_seconds} of the longest runtime (the first by name of equals), or null. */
static cJSON *
slowest(const struct qe_status *s)
{
	const cJSON *best = NULL;
	const char *name = NULL;
	cJSON *o;

	for (size_t i = 0; i < s->ndocs; i++) {
		const cJSON *rt = cJSON_GetObjectItemCaseSensitive(s->docs[i].nb, "execution_seconds");

		if (cJSON_IsNumber(rt) && (best == NULL || rt->valuedouble > best->valuedouble))
			best = rt, name = s->docs[i].name;
	}
	if (best == NULL)
		return qe_json_check(cJSON_CreateNull());
	o = qe_json_check(cJSON_CreateObject());
	qe_json_check(cJSON_AddStringToObject(o, "document", name));
	qe_json_check(cJSON_AddNumberToObject(o, "run_time_seconds", best->valuedouble));
	return o;
}

void
qe_status_dashboard(struct qe_buf *out, struct qe_status *s)
{
	cJSON *o = qe_json_check(cJSON_CreateObject());
	cJSON *e = qe_json_check(cJSON_AddObjectToObject(o, "execution")), *names;
	long nfailed = 0;
	double total = 0;

	sort_docs(s);
	names = qe_json_check(cJSON_CreateArray());
	for (size_t i = 0; i < s->ndocs; i++) {
		total += num0(s->docs[i].nb, "execution_seconds");
		if (!failed(s->docs[i].nb))
			continue;
		nfailed++;
		cJSON_AddItemToArray(names, qe_json_check(cJSON_CreateString(s->docs[i].name)));
	}
	add_count(e, "documents", (long)s->ndocs);
	add_count(e, "succeeded", (long)s->ndocs - nfailed);
	add_count(e, "failed", nfailed);
	cJSON_AddItemToObject(e, "failed_documents", names);
	qe_json_add_rounded(e, "total_run_time_seconds", total, 6);
	cJSON_AddItemToObject(e, "slowest", slowest(s));
	put(out, o);
}

/* One document's entry of the lookup. */
static cJSON *
times_entry(const struct qe_status_doc *d, const struct qe_status_form *f)
{
	cJSON *o = qe_json_check(cJSON_CreateObject());

	qe_json_check(cJSON_AddStringToObject(o, "file", d->file));
	qe_json_check(cJSON_AddStringToObject(o, "status",
	    qe_vocab_name(&qe_vocab_nb_statuses, failed(d->nb) ? QE_NB_FAILED : QE_NB_OK)));
	copy(o, "error", d->nb, NULL);
	qe_json_add_str_or_null(o, "execution", execution(d->nb));
	copy(o, "execution_seconds", d->nb, "runtime_s");
	copy(o, "cells_seconds", d->nb, NULL);
	copy(o, "created", d->nb, NULL);
	/* an inherited record's provenance is the build that re-reported it, not the one that measured */
	if (inherited(d->nb))
		qe_json_check(cJSON_AddNullToObject(o, "provenance"));
	else
		copy(o, "provenance", d->nb, NULL);
	add_machine(o);
	cJSON_AddItemToObject(o, "text", texts(cJSON_GetObjectItemCaseSensitive(d->nb, "execution_seconds"), NULL, f));
	cJSON_AddItemToObject(o, "cells", times_cells(d, f));
	return o;
}

void
qe_status_times(struct qe_buf *out, struct qe_status *s, const cJSON *prov, const struct qe_status_form *f)
{
	cJSON *o = qe_json_record_new("exec-times"), *docs;

	sort_docs(s);
	cJSON_AddItemToObject(o, "provenance", provenance_of(prov ? prov : qe_status_provenance(s)));
	add_machine(o);
	docs = qe_json_check(cJSON_AddObjectToObject(o, "documents"));
	for (size_t i = 0; i < s->ndocs; i++)
		cJSON_AddItemToObject(docs, s->docs[i].name, times_entry(&s->docs[i], f));
	put(out, o);
}

void
qe_status_free(struct qe_status *s)
{
	for (size_t i = 0; i < s->ndocs; i++) {
		free(s->docs[i].name);
		free(s->docs[i].file);
		cJSON_Delete(s->docs[i].nb);
		cJSON_Delete(s->docs[i].cells);
	}
	free(s->docs);
	free(s->file);
	memset(s, 0, sizeof *s);
}
