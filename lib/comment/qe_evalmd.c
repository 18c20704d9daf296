/*
 * qe_evalmd.c - sweep and hotspot records as the report's Markdown (qe_evalmd.h).
 */
#include <err.h>
#include <math.h>
#include <string.h>

#include "qe_gfm.h"
#include "qe_json.h"
#include "qe_mem.h"
#include "qe_record.h"
#include "qe_evalmd.h"

#define CAP_NAME 80
#define MIN_COVERAGE 0.03	/* below it a cell's profile shows too little to list */

int
qe_evalmd_record(cJSON *rec, const char *file, long line, void *set)
{
	struct qe_evalset *e = set;
	const char *kind = qe_json_str(rec, "kind");
	cJSON **to;

	if (kind == NULL || (strcmp(kind, "sweep") != 0 && strcmp(kind, "hotspot") != 0))
		return 0;
	if (qe_json_str(rec, "document") == NULL) {
		warnx("%s:%ld: %s record without 'document'", file, line, kind);
		return -1;
	}
	to = kind[0] == 's' ? &e->sweeps : &e->hotspots;
	if (*to == NULL)
		*to = qe_json_check(cJSON_CreateArray());
	cJSON_AddItemToArray(*to, qe_json_check(cJSON_Duplicate(rec, 1)));
	return 0;
}

int
qe_evalmd_any(const struct qe_evalset *e)
{
	return cJSON_GetArraySize(e->sweeps) + cJSON_GetArraySize(e->hotspots) > 0;
}

static const cJSON *
get(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k);
}

/* "`loops`": a name as an inert code span. */
static void
code(struct qe_buf *b, const char *s)
{
	if (s == NULL || *s == '\0')
		qe_buf_adds(b, QE_GFM_NONE);
	else
		qe_gfm_code(b, s, CAP_NAME, 1);
}

static void
name_text(struct qe_buf *b, const char *s)
{
	qe_gfm_text(b, s, CAP_NAME);
}

/* A machine as a reader tells machines apart (qe_record_machine). */
static void
machine(struct qe_buf *b, const cJSON *m)
{
	const char *runner = qe_json_str(m, "runner_class");

	qe_record_machine(b, runner != NULL ? runner : "an unstamped machine", qe_json_str(m, "cpu_model"),
	    qe_json_num(m, "logical_cpus"), qe_json_num(m, "memory_bytes"), qe_json_str(m, "gpu"), name_text);
}

/* The fingerprint of a sweep record's machine ("" when none). */
static const char *
fingerprint(const cJSON *s)
{
	const char *f = qe_json_str(get(s, "machine"), "fingerprint");

	return f != NULL ? f : "";
}

/* How many machines the sweeps come from; their descriptions into b when more than one. */
static int
machines(struct qe_buf *b, const struct qe_evalset *e)
{
	const cJSON *s, *t;
	int n = 0, seen;

	cJSON_ArrayForEach(s, e->sweeps) {
		seen = 0;
		cJSON_ArrayForEach(t, e->sweeps) {
			if (t == s)
				break;
			seen |= strcmp(fingerprint(t), fingerprint(s)) == 0;
		}
		if (seen)
			continue;
		qe_buf_adds(b, n++ > 0 ? "; " : "");
		machine(b, get(s, "machine"));
	}
	return n;
}

int
qe_evalmd_machine(struct qe_buf *b, const struct qe_evalset *e)
{
	const cJSON *s = cJSON_GetArrayItem(e->sweeps, 0);
	struct qe_buf m = { 0 };
	int one = machines(&m, e) == 1 && qe_json_str(get(s, "machine"), "runner_class") != NULL;

	if (one)
		qe_buf_add(b, m.data, m.len);
	qe_buf_free(&m);
	return one;
}

void
qe_evalmd_recommend(struct qe_buf *b, const struct qe_evalset *e)
{
	struct qe_buf m = { 0 };
	const cJSON *s;
	int several = machines(&m, e) > 1;

	cJSON_ArrayForEach(s, e->sweeps) {
		if (!cJSON_IsNull(get(s, "cell")))
			continue;
		qe_buf_adds(b, "**What to do about ");
		code(b, qe_json_str(s, "document"));
		if (several) {
			qe_buf_adds(b, " on ");
			qe_gfm_text(b, qe_json_str(get(s, "machine"), "runner_class") ?
			    qe_json_str(get(s, "machine"), "runner_class") : fingerprint(s), CAP_NAME);
		}
		qe_buf_adds(b, ":** ");
		qe_gfm_text(b, qe_json_str(s, "recommendation"), 600);
		qe_buf_adds(b, "\n\n");
	}
	if (several) {
		qe_buf_adds(b, "> [!WARNING]\n> These sweeps ran on different machines: ");
		qe_buf_add(b, m.data, m.len);
		qe_buf_adds(b, ". Each curve compares the two versions on one machine; times are not comparable across machines.\n\n");
	}
	qe_buf_free(&m);
}

/* "n^0.50 ± 0.01" of a fit. */
static void
exponent(struct qe_buf *b, const char *axis, const cJSON *fit)
{
	double x = qe_json_num(fit, "exponent"), se = qe_json_num(fit, "se");

	qe_gfm_text(b, axis, CAP_NAME);
	if (!isfinite(x)) {
		qe_buf_adds(b, "^" QE_GFM_NONE);
		return;
	}
	qe_gfm_addf(b, "^%.2f", x);
	if (isfinite(se))
		qe_gfm_addf(b, " \xc2\xb1 %.2f", se);
}

/* The words of a crossover: "the new version wins above n ≈ 2.9e4 (between 1e4 and 1e5)". */
static void
crossover(struct qe_buf *b, const char *axis, const cJSON *c)
{
	int cx = qe_vocab_lookup(&qe_vocab_crossovers, qe_json_str(c, "state"));
	double lo = qe_json_num(c, "low"), hi = qe_json_num(c, "high");

	if (cx < 0 || cx == QE_CX_WINS_THROUGHOUT || cx == QE_CX_LOSES_THROUGHOUT || cx == QE_CX_TOO_FEW) {
		qe_buf_adds(b, cx < 0 ? QE_GFM_NONE : cx == QE_CX_WINS_THROUGHOUT ?
		    "new version faster at every size" : cx == QE_CX_LOSES_THROUGHOUT ?
		    "new version slower at every size" : "too few sizes");
		return;
	}
	qe_buf_adds(b, cx == QE_CX_WINS_ABOVE ? "new version wins above " :
	    cx == QE_CX_LOSES_ABOVE ? "new version loses above " : "curves cross repeatedly, first at ");
	qe_gfm_text(b, axis, CAP_NAME);
	qe_buf_adds(b, " \xe2\x89\x88 ");
	qe_gfm_magnitude(b, qe_json_num(c, "at"));
	qe_buf_adds(b, " (");
	if (isfinite(lo))
		qe_gfm_magnitude(b, lo);
	qe_buf_adds(b, isfinite(lo) && isfinite(hi) ? "\xe2\x80\x93" : isfinite(lo) ? " or more" : isfinite(hi) ? "below " : "unclear");
	if (isfinite(hi))
		qe_gfm_magnitude(b, hi);
	qe_buf_adds(b, ")");
}

/* 1 when record r is of the head (new) version, 0 for the base (old). */
static int
is_head(const cJSON *r)
{
	const char *v = qe_json_str(r, "version");

	return v != NULL && strcmp(v, "head") == 0;
}

/* The findings table's hotspot rows: one per hotspot with an Amdahl bound. */
static void
rows_hotspot(struct qe_buf *b, const struct qe_evalset *e)
{
	const cJSON *h, *a;

	cJSON_ArrayForEach(h, e->hotspots) {
		/* a cell cProfile saw too little of is left out here as in the table */
		if (cJSON_IsNull(a = get(h, "amdahl")) || a == NULL || qe_json_num(h, "coverage") < MIN_COVERAGE)
			continue;
		qe_buf_adds(b, "| Hotspot | ");
		code(b, qe_json_str(h, "document"));
		qe_buf_adds(b, " ");
		code(b, qe_json_str(h, "name"));
		qe_buf_adds(b, is_head(h) ? " (new): " : " (old): ");
		qe_gfm_dur(b, qe_json_num(a, "seconds"));
		qe_buf_adds(b, " of ");
		qe_gfm_dur(b, qe_json_num(h, "cell_s"));
		qe_buf_adds(b, " (");
		qe_gfm_pct(b, qe_json_num(a, "share"));
		qe_buf_adds(b, ") in ");
		code(b, qe_json_str(a, "function"));
		qe_buf_adds(b, "; 10x faster there gives ");
		qe_gfm_ratio(b, qe_json_num(a, "overall"));
		qe_buf_adds(b, " overall");
		if (!isnan(qe_json_num(a, "limit"))) {	/* null: beyond what the profile can tell */
			qe_buf_adds(b, " (at most ");
			qe_gfm_ratio(b, qe_json_num(a, "limit"));
			qe_buf_adds(b, ")");
		}
		if (qe_json_num(h, "coverage") < 0.5) {
			qe_buf_adds(b, "; cProfile saw only ");
			qe_gfm_pct(b, qe_json_num(h, "coverage"));
			qe_buf_adds(b, " of the cell's time");
		}
		qe_buf_adds(b, " |\n");
	}
}

/* The findings table's scaling rows: a lecture's total, and each cell whose
 * code changed and whose curves cross with clear sizes on both sides (a
 * cell the same in both versions has no crossover of its own). */
static void
rows_scaling(struct qe_buf *b, const struct qe_evalset *e)
{
	const cJSON *s, *fit;
	const char *axis;

	cJSON_ArrayForEach(s, e->sweeps) {
		const char *st = qe_json_str(get(s, "crossover"), "state");

		if (!cJSON_IsNull(get(s, "cell")) && (st == NULL || strstr(st, "above") == NULL || cJSON_IsTrue(get(s, "same_code")) ||
		    cJSON_IsTrue(get(s, "negligible")) || !isfinite(qe_json_num(get(s, "crossover"), "low")) ||
		    !isfinite(qe_json_num(get(s, "crossover"), "high"))))
			continue;
		axis = qe_json_str(s, "parameter") ? qe_json_str(s, "parameter") : "n";
		fit = get(s, "fit");
		qe_buf_adds(b, "| Scaling | ");
		code(b, qe_json_str(s, "document"));
		qe_buf_adds(b, " ");
		if (cJSON_IsNull(get(s, "cell")))
			qe_buf_adds(b, "(lecture)");
		else
			code(b, qe_json_str(s, "cell"));
		qe_buf_adds(b, ": old ");
		exponent(b, axis, get(fit, "base"));
		qe_buf_adds(b, ", new ");
		exponent(b, axis, get(fit, "head"));
		qe_buf_adds(b, "; ");
		crossover(b, axis, get(s, "crossover"));
		qe_buf_adds(b, " |\n");
	}
}

/* "2 + 2 runs a size": the runs of the first point. */
static void
runs(struct qe_buf *b, const cJSON *s)
{
	const cJSON *p = cJSON_GetArrayItem(get(s, "points"), 0);

	double nb = qe_json_num(get(p, "base"), "runs"), nh = qe_json_num(get(p, "head"), "runs");

	if (isfinite(nb) && isfinite(nh) && nb >= 0 && nh >= 0 && nb < 1e9 && nh < 1e9)
		qe_gfm_addf(b, "%.0f + %.0f runs a size", nb, nh);
	else
		qe_buf_adds(b, "runs of each size unknown");
}

/* One row of a scaling table. */
static void
point_row(struct qe_buf *b, const cJSON *p, int own)
{
	qe_buf_adds(b, own ? "| **" : "| ");
	qe_gfm_magnitude(b, qe_json_num(p, "value"));
	qe_buf_adds(b, own ? " (this lecture)** | " : " | ");
	qe_gfm_dur(b, qe_json_num(get(p, "base"), "median_s"));
	qe_buf_adds(b, " | ");
	qe_gfm_dur(b, qe_json_num(get(p, "head"), "median_s"));
	qe_buf_adds(b, " | ");
	qe_gfm_ratio(b, qe_json_num(p, "speedup"));
	qe_buf_adds(b, qe_vocab_lookup(&qe_vocab_sweep_clear, qe_json_str(p, "clear")) == QE_SC_OVERLAP ?
	    " (runs overlap) |\n" : " |\n");
}

/* The time-against-size table of a lecture's total, its own size marked. */
static void
scaling_table(struct qe_buf *b, const cJSON *s, int one_machine)
{
	const char *axis = qe_json_str(s, "parameter") ? qe_json_str(s, "parameter") : "n";
	double own = qe_json_num(s, "lecture_value");
	const cJSON *p;
	int marked = 0;

	qe_buf_adds(b, "#### Scaling of ");
	code(b, qe_json_str(s, "document"));
	qe_buf_adds(b, " with ");
	code(b, axis);
	qe_buf_adds(b, "\n\nThe lecture's cells in all, ");
	runs(b, s);
	qe_buf_adds(b, " on ");
	if (one_machine)
		qe_buf_adds(b, "the machine the footer names");
	else
		machine(b, get(s, "machine"));
	qe_buf_adds(b, "; speedup is old time / new time (above ×1 the new version is faster).\n\n| ");
	qe_gfm_text(b, axis, CAP_NAME);
	qe_buf_adds(b, " | old | new | speedup |\n|---:|---:|---:|---:|\n");
	cJSON_ArrayForEach(p, get(s, "points")) {
		if (!marked && isfinite(own) && own < qe_json_num(p, "value")) {
			qe_buf_adds(b, "| **");
			qe_gfm_magnitude(b, own);
			qe_buf_adds(b, " (this lecture)** | | | ");
			qe_gfm_ratio(b, qe_json_num(s, "speedup_at_lecture"));
			qe_buf_adds(b, " (interpolated) |\n");
			marked = 1;
		}
		marked |= qe_json_num(p, "value") == own;
		point_row(b, p, qe_json_num(p, "value") == own);
	}
	qe_buf_adds(b, "\n");
}

/* Each cell's curve in one row: exponents, crossover, memory at the smallest and largest size. */
static void
cell_table(struct qe_buf *b, const struct qe_evalset *e, const cJSON *lecture)
{
	const char *doc = qe_json_str(lecture, "document");
	const cJSON *s, *first, *last;
	int n = 0, small = 0;

	cJSON_ArrayForEach(s, e->sweeps) {
		const char *axis = qe_json_str(s, "parameter") ? qe_json_str(s, "parameter") : "n";

		if (cJSON_IsNull(get(s, "cell")) || strcmp(qe_json_str(s, "document"), doc) != 0 ||
		    strcmp(fingerprint(s), fingerprint(lecture)) != 0)
			continue;
		if (cJSON_IsTrue(get(s, "negligible"))) {
			small++;
			continue;
		}
		if (n++ == 0)
			qe_buf_adds(b, "| cell | old grows as | new grows as | crossover | peak memory, smallest \xe2\x86\x92 largest size (old; new) |\n"
			    "|---|---|---|---|---|\n");
		first = cJSON_GetArrayItem(get(s, "points"), 0);
		last = cJSON_GetArrayItem(get(s, "points"), cJSON_GetArraySize(get(s, "points")) - 1);
		qe_buf_adds(b, "| ");
		code(b, qe_json_str(s, "cell"));
		qe_buf_adds(b, " | ");
		exponent(b, axis, get(get(s, "fit"), "base"));
		qe_buf_adds(b, " | ");
		exponent(b, axis, get(get(s, "fit"), "head"));
		qe_buf_adds(b, " | ");
		/* one crossover decides, the lecture total's: a cell the same in both versions has none */
		if (cJSON_IsTrue(get(s, "same_code")))
			qe_buf_adds(b, "same code in both versions");
		else
			crossover(b, axis, get(s, "crossover"));
		for (int v = 0; v < 2; v++) {
			qe_buf_adds(b, v ? "; " : " | ");
			qe_gfm_bytes_delta(b, qe_json_num(get(first, v ? "head" : "base"), "peak_growth_bytes"));
			qe_buf_adds(b, " \xe2\x86\x92 ");
			qe_gfm_bytes_delta(b, qe_json_num(get(last, v ? "head" : "base"), "peak_growth_bytes"));
		}
		qe_buf_adds(b, " |\n");
	}
	if (small > 0)
		qe_gfm_addf(b, "%s%d %s under the negligible time at every size (qe-sweep --min-seconds) left out.\n",
		    n > 0 ? "\n" : "", small, qe_gfm_plural(small, "cell", "cells"));
	if (n > 0 || small > 0)
		qe_buf_adds(b, "\n");
}

/* The functions of each hotspot cProfile saw enough of. */
static void
hotspot_table(struct qe_buf *b, const struct qe_evalset *e)
{
	const cJSON *h, *f;
	int blind = 0;

	if (cJSON_GetArraySize(e->hotspots) == 0)
		return;
	qe_buf_adds(b, "#### Hotspots\n\ncProfile in a run of its own (never a timed run): the functions by their own time, as many as cover 90% of what it saw in the cell, the JIT compiler's frames in one row; share is of that time.\n\n"
	    "| lecture | cell | version | function | file | calls | cumulative | own | share |\n"
	    "|---|---|---|---|---|---:|---:|---:|---:|\n");
	cJSON_ArrayForEach(h, e->hotspots) {
		if (qe_json_num(h, "coverage") < MIN_COVERAGE) {
			blind++;
			continue;
		}
		cJSON_ArrayForEach(f, get(h, "functions")) {
			qe_buf_adds(b, "| ");
			code(b, qe_json_str(h, "document"));
			qe_buf_adds(b, " | ");
			code(b, qe_json_str(h, "name"));
			qe_buf_adds(b, is_head(h) ? " | new | " : " | old | ");
			code(b, qe_json_str(f, "function"));
			qe_buf_adds(b, " | ");
			if (qe_json_str(f, "file") != NULL)
				code(b, qe_json_str(f, "file"));
			else
				qe_buf_adds(b, "builtin");
			qe_buf_adds(b, " | ");
			if (qe_json_num(f, "calls") >= 0 && qe_json_num(f, "calls") <= 1e12)
				qe_gfm_count(b, (long)qe_json_num(f, "calls"));
			else
				qe_buf_adds(b, QE_GFM_NONE);
			qe_buf_adds(b, " | ");
			qe_gfm_dur(b, qe_json_num(f, "cumulative_s"));
			qe_buf_adds(b, " | ");
			qe_gfm_dur(b, qe_json_num(f, "own_s"));
			qe_buf_adds(b, " | ");
			qe_gfm_pct(b, qe_json_num(f, "share"));
			qe_buf_adds(b, " |\n");
		}
	}
	if (blind > 0)
		qe_gfm_addf(b, "\n%d %s left out: cProfile saw under 3%% of %s time (C code or imports it does not see).\n",
		    blind, qe_gfm_plural(blind, "cell", "cells"), qe_gfm_plural(blind, "its", "their"));
	qe_buf_adds(b, "\n");
}

void
qe_evalmd_sections(struct qe_buf *b, const struct qe_evalset *e)
{
	struct qe_buf m = { 0 };
	const cJSON *s;
	int one = qe_evalmd_machine(&m, e);

	if (!qe_evalmd_any(e))
		return;
	qe_buf_adds(b, "#### Findings\n\n| | Finding |\n|---|---|\n");
	/* Correctness first: the fidelity and recompile rows (qe-replicate
	 * --compare, the recompile audit) go here, before any speed. */
	rows_hotspot(b, e);
	rows_scaling(b, e);
	qe_buf_adds(b, "\n");
	cJSON_ArrayForEach(s, e->sweeps) {
		if (!cJSON_IsNull(get(s, "cell")))
			continue;
		scaling_table(b, s, one);
		cell_table(b, e, s);
	}
	hotspot_table(b, e);
	qe_buf_free(&m);
}

void
qe_evalmd_free(struct qe_evalset *e)
{
	cJSON_Delete(e->sweeps);
	cJSON_Delete(e->hotspots);
	e->sweeps = e->hotspots = NULL;
}
