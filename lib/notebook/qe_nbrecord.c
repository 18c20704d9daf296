/* The notebook and cell records of a notebook (qe_nbrecord.h). */
#include <err.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qe_json.h"
#include "qe_record.h"
#include "qe_jw.h"
#include "qe_cellname.h"
#include "qe_nbrecord.h"
#include "qe_nbscan.h"
#include "qe_notebook.h"
#include "qe_timing.h"

/* What the cells add up to, for the notebook record. */
struct tally {
	int code_cells, timed_cells, stale_cells, discarded, untimed_executed;
	double cells_seconds;
	struct qe_time last_end;
	int have_last_end;
	char *failure;			/* first untolerated error, "ename: evalue" */
	const struct cJSON *kernel_env;	/* the matched hook run's env, borrowed; or NULL */
	const struct qe_hook_run *run;	/* the matched hook run, or NULL */
	const char *names_from;		/* where the markdown around the cells came from */
};

/* Everything the notebook record says. */
struct summary {
	int status;			/* QE_NB_* */
	const char *error;
	double execution_seconds;	/* NAN: null */
	const struct tally *t;
	int have_code_cells;
	const struct qe_time *created;	/* NULL: null */
	const char *kernel, *language, *language_version;
	int timeout_cell;		/* a failed cache entry: look for the cell never finished */
};

/* 1 when the notebook read is the document's own (a file, or a mystmd page): not a cache's copy. */
static int
is_ipynb(const struct qe_nbctx *nb)
{
	return strcmp(nb->input, "ipynb") == 0 || strcmp(nb->input, "mystmd") == 0;
}

static void
add_time(cJSON *o, const char *key, const struct qe_time *t)
{
	char buf[QE_TIME_BUFSZ];

	if (t == NULL || t->sec == INT64_MIN)
		qe_json_check(cJSON_AddNullToObject(o, key));
	else
		qe_json_check(cJSON_AddStringToObject(o, key, qe_time_format(t, buf)));
}

static cJSON *
new_record(const char *kind, const struct qe_nbctx *nb)
{
	cJSON *o = qe_json_record_new(kind);

	qe_json_check(cJSON_AddStringToObject(o, "document", nb->document));
	qe_json_check(cJSON_AddStringToObject(o, "input", nb->input));
	return o;
}

static void
add_identity(cJSON *o, const struct qe_nbctx *nb, int notebook)
{
	int cache = strcmp(nb->input, "cache") == 0;
	int keyed = cache || strcmp(nb->input, "mystmd") == 0;

	if (notebook && nb->uri)
		qe_json_check(cJSON_AddStringToObject(o, "uri", nb->uri));
	if (notebook && is_ipynb(nb))
		qe_json_check(cJSON_AddStringToObject(o, "path", nb->where));
	if (keyed)
		qe_json_add_str_or_null(o, "cache_key", nb->cache_key);
	if (notebook && cache)
		qe_json_add_num_or_null(o, "cache_pk", nb->pk >= 0, (double)nb->pk);
	if (nb->current >= 0)
		qe_json_check(cJSON_AddBoolToObject(o, "current", nb->current));
	if (nb->origin)
		qe_json_check(cJSON_AddStringToObject(o, "origin", nb->origin));
}

/* Serialise a record (an object) as one NDJSON line onto `out`, and free it. */
static void
append_record(struct qe_buf *out, cJSON *rec)
{
	qe_jw_value(out, rec);
	qe_buf_addc(out, '\n');
	cJSON_Delete(rec);
}

/* "timeout_cell": the cell its kernel never finished (qe_hooklog_unfinished), or null. */
/*
 * 1 when a failure's exception line allows a cell left unfinished: none, a
 * timeout (nbclient's CellTimeoutError, "timed out") or a dead kernel. A
 * ValueError ended its run with an error, not inside a cell.
 */
static int
stopped_unfinished(const char *error)
{
	return error == NULL || strstr(error, "Timeout") || strstr(error, "timed out") ||
	    strstr(error, "DeadKernel") || strstr(error, "died");
}

static void
add_timeout_cell(cJSON *rec, const struct qe_nbctx *nb, const char *error)
{
	const struct qe_hook_run *run;
	const struct qe_hook_cell *c = NULL;
	cJSON *o;
	char buf[QE_TIME_BUFSZ];
	int ambiguous = 0;

	if (nb->hooks && nb->hooks->n > 0 && stopped_unfinished(error))
		c = qe_hooklog_unfinished(nb->hooks, nb->uri, &run, &ambiguous);
	if (ambiguous)
		warnx("%s: %s: several kernel runs stopped inside a cell; none is attached",
		    nb->hooks->path, nb->document);
	if (c == NULL) {
		qe_json_check(cJSON_AddNullToObject(rec, "timeout_cell"));
		return;
	}
	o = qe_json_check(cJSON_AddObjectToObject(rec, "timeout_cell"));
	qe_json_check(cJSON_AddStringToObject(o, "run", run->id));
	qe_json_check(cJSON_AddNumberToObject(o, "seq", (double)c->seq));
	qe_json_check(cJSON_AddStringToObject(o, "source_sha256", c->digest));
	qe_json_check(cJSON_AddStringToObject(o, "start", qe_time_format(&c->start, buf)));
}

/* "concurrent": the documents that ran beside this one's run, or null without a run. */
static void
add_concurrent(cJSON *rec, const struct qe_nbctx *nb, const struct qe_hook_run *run)
{
	if (run == NULL) {
		qe_json_check(cJSON_AddNullToObject(rec, "concurrent"));
		return;
	}
	qe_hooklog_beside(nb->hooks, run, nb->hook_root,
	    qe_json_check(cJSON_AddArrayToObject(rec, "concurrent")));
}

static void
notebook_record(const struct qe_nbctx *nb, const struct summary *s, struct qe_buf *out)
{
	const struct tally *t = s->t;
	cJSON *rec = new_record("notebook", nb);
	int have_exec = !isnan(s->execution_seconds);

	add_identity(rec, nb, 1);
	qe_json_check(cJSON_AddStringToObject(rec, "status", qe_vocab_name(&qe_vocab_nb_statuses, s->status)));
	qe_json_add_str_or_null(rec, "error", s->error);
	qe_json_add_num_or_null(rec, "execution_seconds", have_exec, s->execution_seconds);
	qe_json_add_num_or_null(rec, "cells_seconds", t->timed_cells > 0,
	    round(t->cells_seconds * 1e6) / 1e6);
	qe_json_add_num_or_null(rec, "overhead_seconds",
	    t->timed_cells > 0 && t->untimed_executed == 0 && have_exec,
	    round((s->execution_seconds - t->cells_seconds) * 1e6) / 1e6);
	add_time(rec, "created", s->created);
	qe_json_add_num_or_null(rec, "code_cells", s->have_code_cells, t->code_cells);
	qe_json_check(cJSON_AddNumberToObject(rec, "timed_cells", t->timed_cells));
	qe_json_check(cJSON_AddNumberToObject(rec, "stale_cells", t->stale_cells));
	qe_json_check(cJSON_AddNumberToObject(rec, "discarded_timings", t->discarded));
	qe_json_add_str_or_null(rec, "kernel", s->kernel);
	qe_json_add_str_or_null(rec, "language", s->language);
	qe_json_add_str_or_null(rec, "language_version", s->language_version);
	qe_json_add_str_or_null(rec, "names_from", t->names_from);
	if (s->timeout_cell)
		add_timeout_cell(rec, nb, s->error);
	if (nb->engine != NULL)
		qe_json_check(cJSON_AddStringToObject(rec, "engine", nb->engine));
	if (nb->hook_document != NULL)
		add_concurrent(rec, nb, t->run);
	if (t->kernel_env != NULL)	/* only from a hook that reports it */
		cJSON_AddItemToObject(rec, "kernel_env", qe_json_check(cJSON_Duplicate(t->kernel_env, 1)));
	append_record(out, rec);
}

void
qe_nbrecord_failed(const struct qe_nbctx *nb, const char *error, struct qe_buf *out)
{
	struct tally t = { 0 };
	struct summary s = { .status = QE_NB_FAILED, .error = error,
	    .execution_seconds = nb->execution_seconds, .t = &t, .timeout_cell = 1 };

	notebook_record(nb, &s, out);
}

/* The fields every cell record starts with: identity, digests, first line, name. */
static cJSON *
cell_head(const struct qe_nbctx *nb, const struct qe_nb_code *code, int index,
    const struct qe_cellname_block *blk, const char *name)
{
	const cJSON *md = cJSON_GetObjectItemCaseSensitive(code->cell, "metadata");
	const cJSON *tags = cJSON_GetObjectItemCaseSensitive(md, "tags"), *t;
	cJSON *o = new_record("cell", nb), *arr;

	add_identity(o, nb, 0);
	qe_json_check(cJSON_AddNumberToObject(o, "index", index));
	qe_json_add_str_or_null(o, "cell_id", nb->stable_ids ? qe_json_str(code->cell, "id") : NULL);
	qe_json_add_str_or_null(o, "label", qe_nb_label(md));
	arr = qe_json_check(cJSON_AddArrayToObject(o, "tags"));
	cJSON_ArrayForEach(t, (cJSON_IsArray(tags) ? tags : NULL))
		if (cJSON_IsString(t))
			cJSON_AddItemToArray(arr, qe_json_check(cJSON_CreateString(t->valuestring)));
	qe_json_check(cJSON_AddStringToObject(o, "source_sha256", code->source_sha256));
	qe_json_check(cJSON_AddStringToObject(o, "output_sha256", code->output_sha256));
	qe_json_add_str_or_null(o, "first_line", code->first_line);
	qe_json_add_str_or_null(o, "name", name);
	qe_json_add_str_or_null(o, "block", qe_cellname_kind(blk->kind));
	qe_json_add_str_or_null(o, "block_label", blk->kind ? blk->label : NULL);
	return o;
}

/* QE_ST_*, and the timing note the status implies (or *note unchanged). */
static int
cell_status(const struct qe_nb_code *code, const cJSON *errout, int timed, int *note)
{
	const cJSON *cell = code->cell;
	const cJSON *md = cJSON_GetObjectItemCaseSensitive(cell, "metadata");
	const cJSON *outputs = cJSON_GetObjectItemCaseSensitive(cell, "outputs");
	const char *pmstatus = qe_json_str(cJSON_GetObjectItemCaseSensitive(md, "papermill"), "status");
	int executed = cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(cell, "execution_count")) ||
	    timed || (cJSON_IsArray(outputs) && cJSON_GetArraySize(outputs) > 0);

	if (code->skip) {
		*note = QE_TN_SKIPPED;
		return QE_ST_SKIPPED;
	}
	if (code->blank || (pmstatus && strcmp(pmstatus, "pending") == 0) || !executed) {
		*note = QE_TN_NOTEXECUTED;
		return QE_ST_NOTRUN;
	}
	if (errout != NULL || (pmstatus && strcmp(pmstatus, "failed") == 0))
		return QE_ST_ERROR;
	return QE_ST_OK;
}

/* "error" and "execution_count"; the first untolerated error fails the notebook. */
static void
cell_error(cJSON *o, const struct qe_nb_code *code, const cJSON *errout, struct tally *t)
{
	const cJSON *md = cJSON_GetObjectItemCaseSensitive(code->cell, "metadata");
	const cJSON *count = cJSON_GetObjectItemCaseSensitive(code->cell, "execution_count");

	if (errout != NULL) {
		char *e = qe_nb_error_text(errout);

		qe_json_check(cJSON_AddStringToObject(o, "error", e));
		if (t->failure == NULL &&
		    !qe_nb_has_tag(cJSON_GetObjectItemCaseSensitive(md, "tags"), "raises-exception"))
			t->failure = e;
		else
			free(e);
	} else
		qe_json_check(cJSON_AddNullToObject(o, "error"));
	qe_json_add_num_or_null(o, "execution_count", cJSON_IsNumber(count),
	    cJSON_IsNumber(count) ? count->valuedouble : 0);
}

/* The timing fields; counts the cell into the notebook's totals. */
static void
cell_timing(cJSON *o, const struct qe_timing *tm, int note, int status,
    const struct qe_window *w, struct tally *t)
{
	int have_dur = 0, stale = 0;
	double s = (double)tm->us / 1e6;

	if (note < 0 && !tm->have)
		note = QE_TN_NOTIMING;
	else if (note < 0) {
		note = qe_timing_judge(tm, w);
		stale = note == QE_TN_STALE;
		t->stale_cells += stale;
		t->discarded += note == QE_TN_INVALID;
		have_dur = !stale && note != QE_TN_INVALID;
	}
	qe_json_add_num_or_null(o, "duration_s", have_dur, s);
	qe_json_add_str_or_null(o, "timing_source",
	    have_dur ? qe_vocab_name(&qe_vocab_timing_sources, tm->source) : NULL);
	qe_json_add_str_or_null(o, "timing_method",
	    have_dur ? qe_vocab_name(&qe_vocab_timing_methods, tm->method) : NULL);
	qe_json_add_str_or_null(o, "timing_note", qe_vocab_name(&qe_vocab_timing_notes, note));
	qe_json_add_num_or_null(o, "busy_s", have_dur && tm->have_busy, (double)tm->busy_us / 1e6);
	if (stale)
		qe_json_check(cJSON_AddNumberToObject(o, "stale_duration_s", s));
	add_time(o, "start", have_dur ? &tm->start : NULL);
	add_time(o, "end", have_dur ? &tm->end : NULL);
	if (have_dur) {
		t->timed_cells++;
		t->cells_seconds += s;
		if (tm->end.sec != INT64_MIN &&
		    (!t->have_last_end || qe_time_diff_us(&t->last_end, &tm->end) > 0)) {
			t->last_end = tm->end;
			t->have_last_end = 1;
		}
	} else if (status == QE_ST_OK || status == QE_ST_ERROR)
		t->untimed_executed++;
}

/* One cell record named `name`; hk is the hook's timing of the cell, or NULL. */
static cJSON *
cell_record(struct qe_nbctx *nb, const struct qe_nb_code *code, int index,
    const struct qe_cellname_block *blk, const char *name, const struct qe_hook_cell *hk,
    int ambiguous, const struct qe_window *w, struct tally *t)
{
	const cJSON *md = cJSON_GetObjectItemCaseSensitive(code->cell, "metadata");
	const cJSON *errout = code->errout;
	struct qe_timing tm;
	int note = -1, status;
	cJSON *o;

	if (code->bad_source) {
		warnx("%s: code cell %d: 'source' is not a string or a list of strings",
		    nb->where, index);
		nb->problems++;
	}
	if (cJSON_GetObjectItemCaseSensitive(code->cell, "outputs") != NULL &&
	    !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(code->cell, "outputs"))) {
		warnx("%s: code cell %d: 'outputs' is not a list (read as no outputs)",
		    nb->where, index);
		nb->problems++;
	}
	o = cell_head(nb, code, index, blk, name);
	qe_timing_choose(md, &tm);
	if (hk != NULL && hk->has_end)	/* the in-kernel clock comes first */
		qe_timing_hook(&tm, &hk->start, &hk->end, hk->us);
	else if (ambiguous && !tm.have)
		note = QE_TN_AMBIGUOUS;
	status = cell_status(code, errout, tm.have, &note);
	if (tm.have_busy && !qe_timing_busy_believable(&tm, w)) {
		warnx("%s: code cell %d: busy period of %.6g s not believable for a duration of "
		    "%.6g s: busy_s left out", nb->where, index,
		    (double)tm.busy_us / 1e6, (double)tm.us / 1e6);
		tm.have_busy = 0;
		nb->problems++;
	}
	qe_json_check(cJSON_AddStringToObject(o, "status", qe_vocab_name(&qe_vocab_cell_statuses, status)));
	cell_error(o, code, errout, t);
	cell_timing(o, &tm, note, status, w, t);
	if (hk != NULL && hk->has_end && (hk->rss >= 0 || hk->peak_growth >= 0)) {
		/* only from a hook that measures memory: older logs add nothing */
		qe_json_add_num_or_null(o, "rss_bytes", hk->rss >= 0, (double)hk->rss);
		qe_json_add_num_or_null(o, "peak_growth_bytes", hk->peak_growth >= 0, (double)hk->peak_growth);
	}
	if (hk != NULL && hk->has_end && hk->jit_n >= 0) {	/* a kernel with a JIT listener */
		qe_json_check(cJSON_AddNumberToObject(o, "jit_compiles", (double)hk->jit_n));
		qe_json_check(cJSON_AddNumberToObject(o, "jit_compile_s", hk->jit_s));
		cJSON_AddItemToObject(o, "jit_functions", qe_json_check(hk->jit_fn ? cJSON_Duplicate(hk->jit_fn, 1) :
		    cJSON_CreateObject()));
	}
	return o;
}

/*
 * Which kernel run of the hook's log executed this notebook: hk[i] gets
 * the hook's cell for code cell i (NULL-initialised by the caller).
 */
static void
join_hooks(struct qe_nbctx *nb, const struct qe_nb_codes *codes, const struct qe_window *w,
    const struct qe_hook_cell **hk, int *ambiguous, struct tally *t)
{
	const char **dg = qe_xcalloc(codes->n, sizeof *dg);
	size_t *pos = qe_xcalloc(codes->n, sizeof *pos), n = 0;
	struct qe_hook_want want = { .uri = nb->uri, .path = nb->where, .window = w,
	    .document = nb->hook_document, .root = nb->hook_root };
	struct qe_hook_run *run;

	for (size_t i = 0; i < codes->n; i++)
		if (qe_nb_code_is_sent(&codes->v[i])) {
			dg[n] = codes->v[i].source_sha256;
			pos[n++] = i;
		}
	want.digest = dg;
	want.n = n;
	if ((run = qe_hooklog_match(nb->hooks, &want, ambiguous)) != NULL) {
		run->used = 1;
		t->run = run;
		t->kernel_env = run->env;
		for (size_t k = 0; k < run->n; k++)
			hk[pos[k]] = &run->c[k];
	} else if (*ambiguous)
		warnx("%s: several runs in '%s' match '%s': no hook timing taken",
		    nb->where, nb->hooks->path, nb->document);
	free(dg);
	free(pos);
}

/* The source digests of codes, as an array. */
static char (*digests(const struct qe_nb_codes *codes))[QE_SHA256_HEX]
{
	char (*d)[QE_SHA256_HEX] = qe_xcalloc(codes->n ? codes->n : 1, sizeof *d);

	for (size_t i = 0; i < codes->n; i++)
		memcpy(d[i], codes->v[i].source_sha256, QE_SHA256_HEX);
	return d;
}

/*
 * The block of each code cell of a cache's notebook, from the build's
 * notebook (nb->build_bytes, handed over here): NULL when there is none
 * or it cannot be read (said), blk[] then stays empty.
 */
static const char *
build_blocks(struct qe_nbctx *nb, const struct qe_nb_codes *codes, struct qe_cellname_block *blk)
{
	struct qe_nb_doc bd;
	struct qe_nb_codes bc = { 0 };
	struct qe_cellname_blocks bb = { 0 };
	char (*have)[QE_SHA256_HEX], (*want)[QE_SHA256_HEX];
	const cJSON *cells;

	if (nb->build_bytes == NULL)
		return NULL;
	if (nb->build_myst) {	/* the source: its code cells have no outputs */
		bd.doc = qe_json_check(cJSON_CreateObject());
		cJSON_AddItemToObject(bd.doc, "cells", qe_cellname_myst(nb->build_bytes, nb->build_len));
		free(nb->build_bytes);
		bd.ncells = (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(bd.doc, "cells"));
		bd.odig = qe_xcalloc(bd.ncells ? bd.ncells : 1, sizeof *bd.odig);
	} else if (qe_nbscan_read(nb->build_where, nb->build_bytes, nb->build_len, free, &nb->problems,
	    &bd) < 0) {
		nb->problems++;
		return NULL;
	}
	cells = cJSON_GetObjectItemCaseSensitive(bd.doc, "cells");
	qe_nb_codes_read(cells, (const char (*)[QE_SHA256_HEX])bd.odig, &bc);
	qe_cellname_blocks_read(cells, &bb);
	have = digests(&bc);
	want = digests(codes);
	qe_cellname_blocks_match(&bb, (const char (*)[QE_SHA256_HEX])have,
	    (const char (*)[QE_SHA256_HEX])want, codes->n, blk);
	free(have);
	free(want);
	qe_cellname_blocks_free(&bb);
	qe_nb_codes_free(&bc);
	qe_nbscan_doc_free(&bd);
	return nb->build_myst ? "source" : "build";
}

/* Each code cell's block (blk[codes->n], zeroed); where they came from. */
static const char *
cell_blocks(struct qe_nbctx *nb, const cJSON *cells, const struct qe_nb_codes *codes,
    struct qe_cellname_block *blk)
{
	struct qe_cellname_blocks own = { 0 };
	const char *from;

	if (!is_ipynb(nb) || nb->build_bytes != NULL) {
		/* a notebook file with a build's: a cache's copy run again (qe-replicate -d) */
		from = build_blocks(nb, codes, blk);
		nb->build_bytes = NULL;
		if (from != NULL || !is_ipynb(nb))
			return from ? from : "none";
	}
	qe_cellname_blocks_read(cells, &own);
	for (size_t i = 0; i < codes->n && i < own.n; i++)
		blk[i] = own.v[i];	/* the labels move */
	free(own.v);
	return "notebook";
}

/* Each code cell's display name, unique within the document (names[codes->n]). */
static char **
cell_names(const struct qe_nb_codes *codes, const struct qe_cellname_block *blk)
{
	char **names = qe_xcalloc(codes->n ? codes->n : 1, sizeof *names);

	for (size_t i = 0; i < codes->n; i++)
		names[i] = qe_cellname_name(qe_nb_label(cJSON_GetObjectItemCaseSensitive(codes->v[i].cell,
		    "metadata")), &blk[i], codes->v[i].says);
	qe_cellname_unique(names, codes->n);
	return names;
}

/* The cell records of every code cell into recs[], counted into t. */
static void
cell_records(struct qe_nbctx *nb, const struct qe_nb_doc *nd, struct tally *t, cJSON ***recs)
{
	const cJSON *cells = cJSON_GetObjectItemCaseSensitive(nd->doc, "cells");
	struct qe_nb_codes codes = { 0 };
	struct qe_window w = { .created = nb->created, .have_created = nb->have_created,
	    .exec_us = qe_timing_window_exec_us(nb->execution_seconds),
	    .margin_us = nb->stale_margin_us };
	const struct qe_hook_cell **hk;
	struct qe_cellname_block *blk;
	char **names;
	int ambiguous = 0;

	qe_nb_codes_read(cells, (const char (*)[QE_SHA256_HEX])nd->odig, &codes);
	blk = qe_xcalloc(codes.n ? codes.n : 1, sizeof *blk);
	t->names_from = cell_blocks(nb, cells, &codes, blk);
	names = cell_names(&codes, blk);
	hk = qe_xcalloc(codes.n, sizeof *hk);
	if (nb->hooks != NULL && nb->hooks->n > 0)
		join_hooks(nb, &codes, &w, hk, &ambiguous, t);
	*recs = qe_xcalloc(codes.n, sizeof **recs);
	/* timing on markdown/raw cells is ignored */
	for (size_t i = 0; i < codes.n; i++)
		(*recs)[i] = cell_record(nb, &codes.v[i], (int)i, &blk[i], names[i], hk[i], ambiguous, &w, t);
	t->code_cells = (int)codes.n;
	for (size_t i = 0; i < codes.n; i++) {
		qe_cellname_block_free(&blk[i]);
		free(names[i]);
	}
	free(names);
	free(blk);
	free(hk);
	qe_nb_codes_free(&codes);
}

/* The notebook record's fields from the document and the cells' totals. */
static void
summarise(const struct qe_nbctx *nb, const cJSON *doc, struct tally *t, struct summary *s)
{
	const cJSON *md = cJSON_GetObjectItemCaseSensitive(doc, "metadata");
	const cJSON *ks = cJSON_GetObjectItemCaseSensitive(md, "kernelspec");
	const cJSON *li = cJSON_GetObjectItemCaseSensitive(md, "language_info");
	const cJSON *pmv = cJSON_GetObjectItemCaseSensitive(md, "papermill");

	s->t = t;
	s->execution_seconds = nb->execution_seconds;
	if (is_ipynb(nb)) {
		const cJSON *d = cJSON_GetObjectItemCaseSensitive(pmv, "duration");

		if (cJSON_IsNumber(d) && isfinite(d->valuedouble) && d->valuedouble >= 0)
			s->execution_seconds = d->valuedouble;
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pmv, "exception")) && t->failure == NULL)
			t->failure = qe_xstrdup("papermill reported an exception");
	}
	s->status = is_ipynb(nb) && t->failure ? QE_NB_FAILED : QE_NB_OK;
	s->error = is_ipynb(nb) ? t->failure : NULL;
	s->have_code_cells = 1;
	s->created = nb->have_created ? &nb->created : t->have_last_end ? &t->last_end : NULL;
	s->kernel = qe_json_str(ks, "name");
	s->language = qe_json_str(li, "name") ? qe_json_str(li, "name") : qe_json_str(ks, "language");
	s->language_version = qe_json_str(li, "version");
}

int
qe_nbrecord_notebook(struct qe_nbctx *nb, char *bytes, size_t len, void (*release)(void *),
    struct qe_buf *out)
{
	struct tally t = { 0 };
	struct summary s = { 0 };
	struct qe_nb_doc nd;
	cJSON **recs;

	if (qe_nbscan_read(nb->where, bytes, len, release, &nb->problems, &nd) < 0) {
		free(nb->build_bytes);
		nb->build_bytes = NULL;
		return -1;
	}
	cell_records(nb, &nd, &t, &recs);
	summarise(nb, nd.doc, &t, &s);
	notebook_record(nb, &s, out);
	for (int i = 0; i < t.code_cells; i++)
		append_record(out, recs[i]);
	free(recs);
	free(t.failure);
	qe_nbscan_doc_free(&nd);
	return 0;
}
