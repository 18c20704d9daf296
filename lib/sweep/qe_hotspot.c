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

/* Amdahl's bound of the top Python function, into rec. */
static void
amdahl(cJSON *rec, const cJSON *top, double total, double cell)
{
	cJSON *a = qe_json_check(cJSON_AddObjectToObject(rec, "amdahl"));
	double share = fmin(1, qe_json_num(top, "cumulative_s") / total);

	copy_member(a, top, "function");
	qe_json_add_rounded(a, "share", share, 4);
	qe_json_add_rounded(a, "seconds", share * cell, 6);
	qe_json_check(cJSON_AddNumberToObject(a, "factor", 10));
	qe_json_add_rounded(a, "overall", qe_scalefit_amdahl(share, 10), 4);
	qe_json_add_rounded(a, "limit", share < 1 ? qe_scalefit_amdahl(share, INFINITY) : NAN, 4);
}

cJSON *
qe_hotspot_record(const cJSON *prof, const cJSON *timed)
{
	const cJSON *fns = cJSON_GetObjectItemCaseSensitive(prof, "functions"), *f, *top = NULL;
	double total = qe_json_num(prof, "profile_s"), cell;
	cJSON *rec, *list, *o;
	int runs, n = 0;

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
	list = qe_json_check(cJSON_AddArrayToObject(rec, "functions"));
	cJSON_ArrayForEach(f, fns) {
		if (own_frame(f) || !isfinite(qe_json_num(f, "cumulative_s")))
			continue;
		if (top == NULL && qe_json_str(f, "file") != NULL)
			top = f;
		if (n++ >= QE_HOTSPOT_TOP)
			continue;
		cJSON_AddItemToArray(list, o = qe_json_check(cJSON_Duplicate(f, 1)));
		qe_json_add_rounded(o, "share", fmin(1, qe_json_num(f, "cumulative_s") / total), 4);
	}
	if (top != NULL)
		amdahl(rec, top, total, cell);
	else
		cJSON_AddItemToObject(rec, "amdahl", qe_json_check(cJSON_CreateNull()));
	return rec;
}
