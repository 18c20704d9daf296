/*
 * qe-history sweeps (qe_hquery.h): the scaling curves stored from
 * qe-sweep's records (the sweeps table, qe_hstore.h), one history-sweep row
 * per stored curve: the build its report's provenance names, then the
 * sweep record as stored. Every series: a sweep is asked for, not a trend.
 *
 * Rows are ordered by document, cell (the lecture's total first), parameter,
 * machine fingerprint, then build order. A curve is one machine's runs: two
 * machines' curves of one cell are two rows, never pooled; the Markdown
 * says when the rows come from more than one machine.
 */
#include <err.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qe.h"
#include "qe_mem.h"
#include "qe_json.h"
#include "qe_gfm.h"
#include "qe_record.h"
#include "qe_hout.h"
#include "qe_hquery.h"

static const char sweeps_sql[] =
    "SELECT s.record, s.build, s.series, s.commit_sha, s.started_at FROM sweeps s"
    " JOIN docs d ON d.id = s.doc"
    " WHERE (?1 IS NULL OR d.name = ?1) AND (?2 IS NULL OR s.cell = ?2)"
    " ORDER BY d.name, s.cell IS NOT NULL, s.cell, s.parameter, s.fingerprint,"
    " s.started_at, s.run_number, s.id";

/* The history-sweep record of one row: the build, then the stored record's members. */
static cJSON *
sweep_rec(sqlite3_stmt *st)
{
	cJSON *stored = cJSON_Parse((const char *)sqlite3_column_text(st, 0));
	cJSON *o = qe_json_record_new("history-sweep"), *m;

	cJSON_AddStringToObject(o, "build", (const char *)sqlite3_column_text(st, 1));
	cJSON_AddStringToObject(o, "series", (const char *)sqlite3_column_text(st, 2));
	qe_json_add_str_or_null(o, "commit", (const char *)sqlite3_column_text(st, 3));
	cJSON_AddStringToObject(o, "started_at", (const char *)sqlite3_column_text(st, 4));
	while (stored && (m = stored->child) != NULL) {
		cJSON_DetachItemViaPointer(stored, m);
		if (strcmp(m->string, "kind") == 0 || strcmp(m->string, "schema_version") == 0 ||
		    cJSON_GetObjectItemCaseSensitive(o, m->string))
			cJSON_Delete(m);
		else
			cJSON_AddItemToObject(o, m->string, m);
	}
	cJSON_Delete(stored);
	return o;
}

static void
md_num(struct qe_buf *b, const cJSON *v, int places)
{
	if (cJSON_IsNumber(v))
		qe_gfm_decimal(b, v->valuedouble, places);
	else
		qe_buf_adds(b, "—");
}

static void
md_size(struct qe_buf *b, const cJSON *v)
{
	qe_gfm_magnitude(b, cJSON_IsNumber(v) ? v->valuedouble : NAN);
}

/* "n = 1e3 … 1e6 (4 sizes)" of a curve's points */
static void
md_sizes(struct qe_buf *b, const cJSON *r)
{
	const cJSON *pts = cJSON_GetObjectItemCaseSensitive(r, "points");
	int n = cJSON_GetArraySize(pts);

	if (n == 0) {
		qe_buf_adds(b, "—");
		return;
	}
	md_size(b, cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(pts, 0), "value"));
	if (n > 1) {
		qe_buf_adds(b, " … ");
		md_size(b, cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(pts, n - 1), "value"));
	}
	qe_buf_addf(b, " (%d)", n);
}

/*
 * The crossover: its state, where, and the clear sizes around it when both
 * are known; a negligible curve (noise, qe-sweep(1)) says so instead.
 */
static void
md_cross(struct qe_buf *b, const cJSON *r)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(r, "crossover");
	const cJSON *at = cJSON_GetObjectItemCaseSensitive(c, "at");
	const cJSON *lo = cJSON_GetObjectItemCaseSensitive(c, "low");
	const cJSON *hi = cJSON_GetObjectItemCaseSensitive(c, "high");

	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "negligible"))) {
		qe_buf_adds(b, "negligible: noise (no run reached qe-sweep's --min-seconds)");
		return;
	}
	qe_gfm_text(b, qe_json_str(c, "state"), 30);
	if (!cJSON_IsNumber(at))
		return;
	qe_buf_adds(b, " at ");
	md_size(b, at);
	if (cJSON_IsNumber(lo) && cJSON_IsNumber(hi)) {
		qe_buf_adds(b, " (clear at ");
		md_size(b, lo);
		qe_buf_adds(b, " and ");
		md_size(b, hi);
		qe_buf_adds(b, ")");
	}
}

static void
md_row(struct qe_buf *b, const cJSON *r)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(r, "machine");
	const cJSON *fit = cJSON_GetObjectItemCaseSensitive(r, "fit");
	const char *cell = qe_json_str(r, "cell");
	char day[11];

	qe_buf_adds(b, "| ");
	qe_gfm_code(b, qe_json_str(r, "document"), 80, 1);
	qe_buf_adds(b, " | ");
	if (cell == NULL || qe_gfm_text(b, cell, 40) == 0)
		qe_buf_adds(b, "(lecture)");
	qe_buf_adds(b, " | ");
	qe_gfm_code(b, qe_json_str(r, "parameter"), 40, 1);
	qe_buf_adds(b, " | ");
	if (qe_gfm_text(b, qe_json_str(m, "runner_class"), 40) == 0)
		qe_buf_adds(b, "—");
	qe_buf_adds(b, " ");
	qe_gfm_code(b, qe_json_str(m, "fingerprint"), 16, 1);
	snprintf(day, sizeof day, "%s", qe_json_str(r, "started_at"));
	qe_buf_adds(b, " | ");
	qe_gfm_text(b, day, 10);
	qe_buf_adds(b, " | ");
	md_sizes(b, r);
	qe_buf_adds(b, " | ");
	md_num(b, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(fit, "base"), "exponent"), 2);
	qe_buf_adds(b, " | ");
	md_num(b, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(fit, "head"), "exponent"), 2);
	qe_buf_adds(b, " | ");
	md_cross(b, r);
	qe_buf_adds(b, " | ");
	md_size(b, cJSON_GetObjectItemCaseSensitive(r, "lecture_value"));
	qe_buf_adds(b, " | ");
	qe_gfm_ratio(b, cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(r, "speedup_at_lecture")) ?
	    qe_json_num(r, "speedup_at_lecture") : NAN);
	qe_buf_adds(b, " |\n");
}

/* The machines of the rows, once each (fingerprint strings), in order of appearance. */
static cJSON *
machines_of(const cJSON *rows)
{
	cJSON *fps = qe_json_check(cJSON_CreateArray());
	const cJSON *r, *f;

	cJSON_ArrayForEach(r, rows) {
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(r, "machine");
		const char *fp = qe_json_str(m, "fingerprint");
		int seen = 0;

		cJSON_ArrayForEach(f, fps)
			seen |= strcmp(qe_json_str(f, "fingerprint"), fp) == 0;
		if (!seen)
			cJSON_AddItemToArray(fps, qe_json_check(cJSON_Duplicate(m, 1)));
	}
	return fps;
}

static void
name_text(struct qe_buf *b, const char *s)
{
	qe_gfm_text(b, s, 60);
}

/* The table, then a note when the curves come from more than one machine. */
static void
md_write(const cJSON *rows)
{
	struct qe_buf b = { 0 };
	cJSON *fps = machines_of(rows);
	const cJSON *r, *m;
	int n = cJSON_GetArraySize(fps), i = 0;

	if (cJSON_GetArraySize(rows) == 0) {
		qe_buf_adds(&b, "No sweeps stored.\n");
		goto out;
	}
	qe_buf_adds(&b, "| document | cell | parameter | machine | built | sizes | base exponent |"
	    " head exponent | crossover | lecture's size | speedup there |\n"
	    "|---|---|---|---|---|---|---|---|---|---|---|\n");
	cJSON_ArrayForEach(r, rows)
		md_row(&b, r);
	if (n > 1) {
		qe_gfm_addf(&b, "\nThese curves come from %d different machines: ", n);
		cJSON_ArrayForEach(m, fps) {
			qe_buf_adds(&b, i++ ? "; " : "");
			qe_record_machine(&b, qe_json_str(m, "runner_class") ? qe_json_str(m, "runner_class") :
			    "no runner class", qe_json_str(m, "cpu_model"), qe_json_num(m, "logical_cpus"),
			    qe_json_num(m, "memory_bytes"), qe_json_str(m, "gpu"), name_text);
			qe_buf_adds(&b, " ");
			qe_gfm_code(&b, qe_json_str(m, "fingerprint"), 16, 0);
		}
		qe_buf_adds(&b, ". Each row is one machine's runs, never pooled with another's: compare the"
		    " versions on each machine, and the machines only knowing they differ.\n");
	}
out:
	qe_json_emit_bytes(b.data, b.len);
	qe_buf_free(&b);
	cJSON_Delete(fps);
}

int
qe_hq_sweeps(const struct qe_hq *q)
{
	sqlite3_stmt *st = NULL;
	cJSON *rows = q->md && !q->sink ? qe_json_check(cJSON_CreateArray()) : NULL;
	struct qe_hout o;
	int rc;

	if (sqlite3_prepare_v2(q->db, sweeps_sql, -1, &st, NULL) != SQLITE_OK) {
		warnx("%s: %s", q->path, sqlite3_errmsg(q->db));
		cJSON_Delete(rows);
		return QE_EXIT_TROUBLE;
	}
	if (q->doc)
		sqlite3_bind_text(st, 1, q->doc, -1, SQLITE_STATIC);
	if (q->cell)
		sqlite3_bind_text(st, 2, q->cell, -1, SQLITE_STATIC);
	qe_hout_begin(&o, 0, q->sink, NULL);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (rows)
			cJSON_AddItemToArray(rows, qe_json_check(sweep_rec(st)));
		else
			qe_hout_row(&o, sweep_rec(st));
	}
	if (rc != SQLITE_DONE)
		warnx("%s: %s", q->path, sqlite3_errmsg(q->db));
	sqlite3_finalize(st);
	if (rows && rc == SQLITE_DONE)
		md_write(rows);
	cJSON_Delete(rows);
	return rc == SQLITE_DONE ? QE_EXIT_OK : QE_EXIT_TROUBLE;
}
