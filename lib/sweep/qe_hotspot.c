/*
 * qe_hotspot.c - profile records into hotspots (qe_hotspot.h).
 */
#include <err.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qe_json.h"
#include "qe_mem.h"
#include "qe_stats.h"
#include "qe_scalefit.h"
#include "qe_hotspot.h"
#include "qe_triage.h"
#include "qe_record.h"

/* 1 for the cell's own frames (its <module>, the builtin exec running it)
 * and the profiler's (its disable method). */
static int
own_frame(const cJSON *f)
{
	const char *fn = qe_json_str(f, "function");

	return fn == NULL || strcmp(fn, "<module>") == 0 || (qe_json_str(f, "file") == NULL &&
	    (strstr(fn, "builtins.exec") != NULL || strstr(fn, "_lsprof.Profiler") != NULL));
}

/* The as-used seconds of the profiled cell: the timed runs' median, else the profiled run's. */
static double
as_used(const cJSON *prof, const cJSON *timed, int *runs)
{
	char key[512];
	const cJSON *a, *v;
	double *s, med;

	snprintf(key, sizeof key, "%s %s %.0f", qe_json_str(prof, "document"), qe_json_str(prof, "version"),
	    qe_json_num(prof, "index"));
	a = cJSON_GetObjectItemCaseSensitive(timed, key);
	if ((*runs = cJSON_GetArraySize(a)) == 0)
		return qe_json_num(prof, "cell_s");
	s = qe_xcalloc(*runs, sizeof *s);
	*runs = 0;
	cJSON_ArrayForEach(v, a)
		s[(*runs)++] = v->valuedouble;
	med = qe_stats_median(s, *runs);
	free(s);
	return med;
}

static void
copy_member(cJSON *to, const cJSON *from, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(from, key);

	cJSON_AddItemToObject(to, key, v != NULL ? qe_json_check(cJSON_Duplicate(v, 1))
	    : qe_json_check(cJSON_CreateNull()));
}

/*
 * Amdahl's bound of making `top` 10x faster, into rec: share is of the time
 * cProfile saw, for the speedup and its limit alike (a limit over the whole
 * cell beside a speedup over what cProfile saw would read "x1.73 overall
 * (at most x1.00)" for a cell it saw little of: the line says that apart).
 */
static void
amdahl(cJSON *rec, const char *function, double share, double cell)
{
	cJSON *a = qe_json_check(cJSON_AddObjectToObject(rec, "amdahl"));

	share = fmin(1, share);
	if (function != NULL)
		qe_json_check(cJSON_AddStringToObject(a, "function", function));
	else
		cJSON_AddItemToObject(a, "function", qe_json_check(cJSON_CreateNull()));
	qe_json_add_rounded(a, "share", share, 4);
	qe_json_add_rounded(a, "seconds", share * cell, 6);
	qe_json_check(cJSON_AddNumberToObject(a, "factor", 10));
	qe_json_add_rounded(a, "overall", qe_scalefit_amdahl(share, 10), 4);
	qe_json_add_rounded(a, "limit", 1 - share >= QE_HOTSPOT_REST ? qe_scalefit_amdahl(share, INFINITY) : NAN, 4);
}

/* 1 when f's cumulative time is the cell's: its one top-level call. */
static int
whole_cell(const cJSON *f, double total)
{
	return qe_json_str(f, "file") != NULL && qe_json_num(f, "cumulative_s") >= QE_HOTSPOT_WHOLE * total;
}

/* A function to list and its self time (the compile row's: its outermost frame's cumulative). */
struct row {
	const cJSON *f;
	double own;
};

static int
by_own(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	return (x->own < y->own) - (x->own > y->own);
}

/*
 * The rows of the profile: each function by its own time, the JIT
 * compiler's frames (numba's dispatcher, its passes; JAX's compile) folded
 * into one row whose time is the outermost frame's cumulative; into rows,
 * their count. *top: the lecture's own function (file "cell": the kind
 * triage calls python, what a rewrite can change) with the most cumulative
 * time that is not the whole cell, or NULL.
 */
static int
rows_of(const cJSON *fns, double total, struct row *rows, struct row *compile, const cJSON **top)
{
	const cJSON *f;
	int n = 0;

	compile->f = NULL;
	compile->own = 0;
	cJSON_ArrayForEach(f, fns) {
		int k = qe_triage_kind(qe_json_str(f, "function"), qe_json_str(f, "file"), NULL);

		if (k < 0 || !isfinite(qe_json_num(f, "own_s")) || !isfinite(qe_json_num(f, "cumulative_s")) ||
		    (own_frame(f) && strcmp(qe_json_str(f, "function"), "<module>") != 0))
			continue;
		if (k == QE_TK_COMPILE) {
			if (qe_json_num(f, "cumulative_s") > compile->own)
				*compile = (struct row){ f, qe_json_num(f, "cumulative_s") };
			continue;
		}
		if (k == QE_TK_PYTHON && !own_frame(f) && !whole_cell(f, total) &&
		    (*top == NULL || qe_json_num(f, "cumulative_s") > qe_json_num(*top, "cumulative_s")))
			*top = f;
		rows[n++] = (struct row){ f, qe_json_num(f, "own_s") };
	}
	if (compile->f != NULL)
		rows[n++] = *compile;
	qsort(rows, n, sizeof *rows, by_own);
	return n;
}

/* The compile row: one line for the compiler's frames. */
static cJSON *
compile_row(const struct row *r)
{
	cJSON *o = qe_json_check(cJSON_CreateObject());

	qe_json_check(cJSON_AddStringToObject(o, "function", QE_HOTSPOT_COMPILE));
	qe_json_check(cJSON_AddStringToObject(o, "file", "(compiler)"));
	qe_json_check(cJSON_AddNumberToObject(o, "line", 0));
	copy_member(o, r->f, "calls");
	qe_json_add_rounded(o, "own_s", r->own, 6);
	qe_json_add_rounded(o, "cumulative_s", r->own, 6);
	return o;
}

/* As many rows as cover QE_HOTSPOT_COVER of the time by own time, at most QE_HOTSPOT_MAX; the share covered. */
static double
list_rows(cJSON *list, const struct row *rows, int n, const struct row *compile, double total)
{
	double covered = 0;
	cJSON *o;

	for (int i = 0; i < n && i < QE_HOTSPOT_MAX && covered < QE_HOTSPOT_COVER * total; i++) {
		if (!(rows[i].own > 0))
			break;
		o = rows[i].f == compile->f ? compile_row(&rows[i]) : qe_json_check(cJSON_Duplicate(rows[i].f, 1));
		qe_json_add_rounded(o, "share", fmin(1, rows[i].own / total), 4);
		cJSON_AddItemToArray(list, o);
		covered += rows[i].own;
	}
	return fmin(1, covered / total);
}

/*
 * Without such a function: the hottest row by own time (rows are sorted so):
 * where the time goes (a whole-cell function's own loop, the cell's
 * top-level code, a library call, the JIT compiler's row), or NULL.
 */
static const struct row *
hottest(const struct row *rows, int n)
{
	return n > 0 && rows[0].own > 0 ? &rows[0] : NULL;
}

cJSON *
qe_hotspot_record(const cJSON *prof, const cJSON *timed)
{
	const cJSON *fns = cJSON_GetObjectItemCaseSensitive(prof, "functions"), *top = NULL;
	double total = qe_json_num(prof, "profile_s"), cell;
	struct row *rows, compile;
	const struct row *hot;
	cJSON *rec;
	int runs, n;

	if (!cJSON_IsArray(fns) || !(total > 0))
		return NULL;
	rec = qe_json_record_new("hotspot");
	copy_member(rec, prof, "document");
	copy_member(rec, prof, "version");
	copy_member(rec, prof, "index");
	copy_member(rec, prof, "name");
	cell = as_used(prof, timed, &runs);
	qe_json_add_rounded(rec, "cell_s", cell, 6);
	qe_json_check(cJSON_AddStringToObject(rec, "cell_from", runs > 0 ? "timed-runs" : "profiled-run"));
	qe_json_check(cJSON_AddNumberToObject(rec, "timed_runs", runs));
	qe_json_add_rounded(rec, "profile_s", total, 6);
	/* what cProfile saw of the profiled run's cell: little for time in C or imports */
	qe_json_add_rounded(rec, "coverage", qe_json_num(prof, "cell_s") > 0 ?
	    fmin(1, total / qe_json_num(prof, "cell_s")) : NAN, 4);
	rows = qe_xcalloc(cJSON_GetArraySize(fns) + 1, sizeof *rows);
	n = rows_of(fns, total, rows, &compile, &top);
	qe_json_add_rounded(rec, "covered", list_rows(qe_json_check(cJSON_AddArrayToObject(rec, "functions")),
	    rows, n, &compile, total), 4);
	if (top != NULL)
		amdahl(rec, qe_json_str(top, "function"), qe_json_num(top, "cumulative_s") / total, cell);
	else if ((hot = hottest(rows, n)) != NULL)
		amdahl(rec, hot->f == compile.f ? QE_HOTSPOT_COMPILE : qe_json_str(hot->f, "function"),
		    hot->own / total, cell);
	else
		cJSON_AddItemToObject(rec, "amdahl", qe_json_check(cJSON_CreateNull()));
	free(rows);
	return rec;
}
