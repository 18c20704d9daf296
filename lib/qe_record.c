/* The record model: the field table, the one check, the display name, a machine (qe_record.h). */
#include <err.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include "qe_json.h"
#include "qe_jscan.h"
#include "qe_record.h"

#define NB QE_RKIND_NOTEBOOK
#define CELL QE_RKIND_CELL
#define DIFF QE_RREAD_DIFF
#define STATUS QE_RREAD_STATUS

/*
 * kind, document, index and source_sha256 are checked where they are read,
 * and duration_s by qe-cell-diff and qe-history too. A field read here: for
 * the scanner's readers, its QE_RK_* in qe_recscan.h and qe_recscan_key().
 */
const struct qe_record_field qe_record_fields[] = {
	{ "cache_key", QE_RT_STR, NB, DIFF | STATUS, QE_RK_CACHE_KEY },
	{ "cells_seconds", QE_RT_NUM, NB, DIFF | STATUS, QE_RK_CELLS_S },
	{ "current", QE_RT_BOOL, NB | CELL, DIFF | STATUS, QE_RK_CURRENT },
	{ "error", QE_RT_STR, NB | CELL, DIFF | STATUS, QE_RK_ERROR },
	{ "execution_seconds", QE_RT_NUM, NB, DIFF | STATUS, QE_RK_EXEC_S },
	{ "code_cells", QE_RT_NUM, NB, STATUS, QE_RK_CODE_CELLS },
	{ "timed_cells", QE_RT_NUM, NB, STATUS, -1 },
	{ "created", QE_RT_STR, NB, STATUS, -1 },
	{ "first_line", QE_RT_STR, CELL, DIFF, QE_RK_FIRST_LINE },
	{ "name", QE_RT_STR, CELL, DIFF, QE_RK_NAME },
	{ "input", QE_RT_STR, NB, DIFF, QE_RK_INPUT },
	{ "label", QE_RT_STR, CELL, DIFF | STATUS, QE_RK_LABEL },
	{ "duration_s", QE_RT_NUM, CELL, STATUS, QE_RK_DURATION },
	{ "start", QE_RT_STR, CELL, STATUS, -1 },
	{ "block_label", QE_RT_STR, CELL, STATUS, -1 },
	{ "kernel_env", QE_RT_OBJ, NB, DIFF, QE_RK_KENV },
	{ "origin", QE_RT_STR, NB | CELL, DIFF | STATUS, QE_RK_ORIGIN },
	{ "output_sha256", QE_RT_STR, CELL, DIFF, QE_RK_OUTPUT },
	{ "provenance", QE_RT_OBJ, NB | CELL, DIFF | STATUS, QE_RK_PROVENANCE },
	{ "result_sha256", QE_RT_STR, CELL, DIFF, QE_RK_RESULT },
	{ "status", QE_RT_STR, NB | CELL, DIFF | STATUS, QE_RK_STATUS },
	{ "timeout_cell", QE_RT_OBJ, NB, DIFF, QE_RK_TIMEOUT },
	{ "timing_note", QE_RT_STR, CELL, DIFF, QE_RK_TNOTE },
	{ "timing_source", QE_RT_STR, CELL, DIFF | STATUS, QE_RK_TSRC },
	{ "warm_s", QE_RT_NUM, CELL, DIFF, QE_RK_WARM_S },
	{ "peak_growth_bytes", QE_RT_NUM, CELL, DIFF, QE_RK_PEAK_GROWTH },
	{ "rss_bytes", QE_RT_NUM, CELL, DIFF, QE_RK_RSS },
	{ "warm_note", QE_RT_STR, CELL, DIFF, QE_RK_WARM_NOTE },
	{ "warm_error", QE_RT_STR, NB | CELL, DIFF, QE_RK_WARM_ERROR },
	{ "warm_seconds", QE_RT_NUM, NB, DIFF, QE_RK_WARM_NB },
	{ "arm", QE_RT_STR, NB | CELL, DIFF, QE_RK_ARM },
	{ "values", QE_RT_ARR, NB, DIFF, QE_RK_VALUES },
	{ "jit_compiles", QE_RT_NUM, CELL, DIFF, QE_RK_JIT_N },
	{ "jit_compile_s", QE_RT_NUM, CELL, DIFF, QE_RK_JIT_S },
	{ "jit_functions", QE_RT_OBJ, CELL, DIFF, QE_RK_JIT_FN },
	{ "engine", QE_RT_STR, NB, DIFF, QE_RK_ENGINE },
	{ "concurrent", QE_RT_ARR, NB, DIFF, QE_RK_CONCURRENT },
};
const size_t qe_record_nfields = sizeof qe_record_fields / sizeof *qe_record_fields;

const char *
qe_record_type_name(int type)
{
	static const char *const names[] = { "a string", "a number", "true or false", "an object", "an array" };

	return type >= 0 && type <= QE_RT_ARR ? names[type] : "?";
}

int
qe_record_type_ok(int t, int type)
{
	static const signed char js[] = { [QE_RT_STR] = QE_JS_STR, [QE_RT_NUM] = QE_JS_NUM,
		[QE_RT_BOOL] = QE_JS_TRUE, [QE_RT_OBJ] = QE_JS_OBJ, [QE_RT_ARR] = QE_JS_ARR };

	return t == QE_JS_NULL || (t == QE_JS_FALSE ? QE_JS_TRUE : t) == js[type];
}

int
qe_record_js_type(const cJSON *v)
{
	if (cJSON_IsObject(v))
		return QE_JS_OBJ;
	if (cJSON_IsArray(v))
		return QE_JS_ARR;
	if (cJSON_IsString(v))
		return QE_JS_STR;
	if (cJSON_IsNumber(v))
		return QE_JS_NUM;
	if (cJSON_IsTrue(v))
		return QE_JS_TRUE;
	if (cJSON_IsFalse(v))
		return QE_JS_FALSE;
	return QE_JS_NULL;
}

/* The field a reader reads of a record of `kind` under member id or key, or NULL. */
static const struct qe_record_field *
field_of(int id, const char *key, int kind, int reader)
{
	for (size_t i = 0; i < qe_record_nfields; i++) {
		const struct qe_record_field *f = &qe_record_fields[i];

		if (key != NULL ? strcmp(f->key, key) == 0 : f->id == id)
			return (f->kinds & kind) && (f->readers & reader) ? f : NULL;
	}
	return NULL;
}

static int
complain(const struct qe_record_field *f, const char *what, const char *file, long line)
{
	warnx("%s:%ld: %s record with an invalid '%s' (not %s)", file, line, what, f->key,
	    qe_record_type_name(f->type));
	return 1;
}

int
qe_record_bad_line(const struct qe_recline *l, int kind, int reader, const char *what,
    const char *file, long line)
{
	const struct qe_record_field *f, *bad = NULL;
	unsigned at = UINT_MAX;

	for (size_t i = 0; i < qe_record_nfields; i++) {
		f = &qe_record_fields[i];
		if (f->id >= 0 && (f->kinds & kind) && (f->readers & reader) && l->type[f->id] != 0 &&
		    !qe_record_type_ok(l->type[f->id], f->type) && l->pos[f->id] < at)
			bad = f, at = l->pos[f->id];
	}
	for (size_t i = 0; i < l->ndup; i++)
		if ((f = field_of(l->dup[i].id, NULL, kind, reader)) != NULL &&
		    !qe_record_type_ok(l->dup[i].type, f->type) && l->dup[i].pos < at)
			bad = f, at = l->dup[i].pos;
	return bad != NULL ? complain(bad, what, file, line) : 0;
}

int
qe_record_bad_tree(const cJSON *rec, int kind, int reader, const char *what,
    const char *file, long line)
{
	const cJSON *m;
	const struct qe_record_field *f;

	cJSON_ArrayForEach(m, rec)
		if (m->string != NULL && (f = field_of(-1, m->string, kind, reader)) != NULL &&
		    !qe_record_type_ok(qe_record_js_type(m), f->type))
			return complain(f, what, file, line);
	return 0;
}

const char *
qe_record_name(const char *name, const char *label, const char *first_line, const char *dflt)
{
	if (name != NULL && *name)
		return name;
	if (label != NULL && *label)
		return label;
	if (first_line != NULL && *first_line)
		return first_line;
	return dflt;
}

const char *
qe_record_name_of(const cJSON *rec, const char *dflt)
{
	return qe_record_name(qe_json_str(rec, "name"), qe_json_str(rec, "label"),
	    qe_json_str(rec, "first_line"), dflt);
}

/* Append s, through text() when given. */
static void
put(struct qe_buf *b, const char *s, void (*text)(struct qe_buf *, const char *))
{
	if (text != NULL)
		text(b, s);
	else
		qe_buf_adds(b, s);
}

void
qe_record_machine(struct qe_buf *b, const char *runner, const char *cpu, double cpus, double mem,
    const char *gpu, void (*text)(struct qe_buf *, const char *))
{
	int n = 0;

	if (runner != NULL && *runner)
		put(b, runner, text);
	if ((cpu == NULL || !*cpu) && !isfinite(cpus) && !isfinite(mem) && (gpu == NULL || !*gpu))
		return;
	if (runner != NULL && *runner)
		qe_buf_adds(b, " (");
	if (cpu != NULL && *cpu)
		put(b, cpu, text), n++;
	if (isfinite(cpus))
		qe_buf_addf(b, "%s%.0f CPUs", n++ ? ", " : "", cpus);
	if (isfinite(mem))
		qe_buf_addf(b, "%s%.0f GB", n++ ? ", " : "", mem / 1e9);
	if (gpu != NULL && *gpu) {
		qe_buf_adds(b, n++ ? ", GPU " : "GPU ");
		put(b, gpu, text);
	}
	if (runner != NULL && *runner)
		qe_buf_adds(b, ")");
}

void
qe_record_machine_of(struct qe_buf *b, const cJSON *prov)
{
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(prov, "runner"),
	    *hw = cJSON_GetObjectItemCaseSensitive(prov, "hardware");
	const char *runner = qe_json_str(r, "class");

	qe_record_machine(b, runner != NULL && *runner ? runner : qe_json_str(r, "distro"),
	    qe_json_str(hw, "cpu_model"), qe_json_num(hw, "logical_cpus"), qe_json_num(hw, "memory_bytes"),
	    qe_json_str(hw, "gpu_model"), NULL);
}

/* The vocabulary. */

#define TABLE(name, what, ...) \
	static const char *const name##_words[] = { __VA_ARGS__ }; \
	const struct qe_vocab name = { what, name##_words, \
		(int)(sizeof name##_words / sizeof name##_words[0]) }

TABLE(qe_vocab_verdicts, "verdict", "regression", "improvement", "unchanged", "inconclusive",
    "new", "removed", "no-timing", "not-comparable", "cached", "failed", "newly-failed");
TABLE(qe_vocab_verdict_words, "verdict word", "slower", "faster", "unchanged", "unclear",
    "new", "removed", "no timing", "not comparable", "not re-executed", "still failing",
    "newly failing");
TABLE(qe_vocab_flags, "flag", "source-changed", "upstream-changed", "output-changed",
    "status-changed", "not-comparable", "changed-on-main", "ignored", "compile-time-regression",
    "memory-growth", "precision-loss", "recompiles", "machine-speed");
TABLE(qe_vocab_cell_statuses, "cell status", "ok", "error", "skipped", "not-run");
TABLE(qe_vocab_nb_statuses, "notebook status", "ok", "failed");
TABLE(qe_vocab_timing_sources, "timing source", "hook", "nbclient", "jupyterlab", "papermill",
    "executetime", "other");
TABLE(qe_vocab_timing_methods, "timing method", "in-kernel", "input-reply", "started-reply",
    "busy-idle", "duration", "start-end");
TABLE(qe_vocab_timing_notes, "timing note", "skipped", "not-executed", "stale", "no-timing",
    "invalid", "approximate", "ambiguous");
TABLE(qe_vocab_origins, "origin", "executed", "inherited");
TABLE(qe_vocab_executions, "execution", "executed", "cached");
TABLE(qe_vocab_times_from, "times from", "this-build", "stored-report", "cache");
TABLE(qe_vocab_answers, "answer", "regressed", "improved", "same", "inconclusive");
TABLE(qe_vocab_verdict_rules, "verdict rule", "cells", "sum");
TABLE(qe_vocab_speeds, "speed", "none", "steady", "few", "mixed", "replicates", "machine-differs",
    "broad-slowdown", "broad-speedup");
TABLE(qe_vocab_series_words, "series", "main", "pull-request", "branch");
TABLE(qe_vocab_levels, "level", "build", "lecture", "cell");
TABLE(qe_vocab_add_results, "add result", "added", "present", "replaced");
TABLE(qe_vocab_prov_whats, "provenance change", "package", "runner-class", "env-file", "fingerprint");
TABLE(qe_vocab_compare_bys, "compare by", "package", "fingerprint", "env-file", "environment");
TABLE(qe_vocab_moves, "moved", "slower", "faster", "same", "unknown", "machine", "moved", "nothing");
TABLE(qe_vocab_causes, "cause", "edit", "environment", "runner", "kernel", "unexplained");
TABLE(qe_vocab_versions, "version", "base", "head");
TABLE(qe_vocab_machines, "machines", "same", "different", "unknown");
TABLE(qe_vocab_engines, "engine", "jupyter-cache", "mystmd");
TABLE(qe_vocab_crossovers, "crossover", "head-wins-above", "head-loses-above", "head-wins-throughout",
    "head-loses-throughout", "crosses-repeatedly", "too-few-sizes");
TABLE(qe_vocab_sweep_clear, "sweep clear", "head-faster", "head-slower", "overlap");
TABLE(qe_vocab_fidelity, "fidelity verdict", "same", "differ", "shape-changed", "missing", "not-compared");
TABLE(qe_vocab_fidelity_answers, "fidelity answer", "same", "differ", "precision-loss", "not-compared");
TABLE(qe_vocab_time_kinds, "time kind", "compile", "library", "python", "jitted", "other");
TABLE(qe_vocab_triage, "triage", "no-conversion", "worth-a-candidate");
TABLE(qe_vocab_triage_binding, "triage binding", "floor", "ceiling", "addressable-floor", "addressable");

const struct qe_vocab *const qe_vocabularies[] = {
	&qe_vocab_verdicts, &qe_vocab_verdict_words, &qe_vocab_flags, &qe_vocab_cell_statuses, &qe_vocab_nb_statuses,
	&qe_vocab_timing_sources, &qe_vocab_timing_methods, &qe_vocab_timing_notes, &qe_vocab_origins, &qe_vocab_executions,
	&qe_vocab_times_from, &qe_vocab_answers,
	&qe_vocab_verdict_rules, &qe_vocab_series_words, &qe_vocab_levels, &qe_vocab_add_results, &qe_vocab_prov_whats,
	&qe_vocab_compare_bys, &qe_vocab_moves, &qe_vocab_causes, &qe_vocab_versions, &qe_vocab_machines,
	&qe_vocab_fidelity, &qe_vocab_fidelity_answers, &qe_vocab_crossovers, &qe_vocab_sweep_clear,
	&qe_vocab_speeds, &qe_vocab_time_kinds, &qe_vocab_triage, &qe_vocab_triage_binding, &qe_vocab_engines, NULL
};

int
qe_vocab_lookup(const struct qe_vocab *v, const char *s)
{
	if (s == NULL)
		return -1;
	for (int i = 0; i < v->n; i++)
		if (strcmp(s, v->names[i]) == 0)
			return i;
	return -1;
}

const char *
qe_vocab_name(const struct qe_vocab *v, int i)
{
	return i >= 0 && i < v->n ? v->names[i] : NULL;
}

int
qe_vocab_verdict_is_timed(int v)
{
	switch (v) {
	case QE_V_REGRESSION:
	case QE_V_IMPROVEMENT:
	case QE_V_UNCHANGED:
	case QE_V_INCONCLUSIVE:
		return 1;
	default:
		return 0;
	}
}

int
qe_vocab_verdict_is_cell(int v)
{
	return v >= 0 && v < QE_NVERDICTS && v != QE_V_CACHED && !qe_vocab_verdict_is_failure(v);
}

int
qe_vocab_verdict_is_failure(int v)
{
	return v == QE_V_FAILED || v == QE_V_NEWLYFAILED;
}

static int
nbclient_keys(int ts)
{
	return ts == QE_TS_NBCLIENT || ts == QE_TS_JUPYTERLAB;
}

int
qe_vocab_timing_sources_comparable(int a, int b)
{
	return a == b || (nbclient_keys(a) && nbclient_keys(b));
}
