/*
 * qe_sweep.c - a sweep's records into curves and back out (qe_sweep.h).
 */
#include <err.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qe_record.h"
#include "qe_gfm.h"
#include "qe_json.h"
#include "qe_mem.h"
#include "qe_stats.h"
#include "qe_scalefit.h"
#include "qe_sweep.h"

void
qe_sweep_init(struct qe_sweep *sw, double ratio, double min_s)
{
	memset(sw, 0, sizeof *sw);
	sw->machines = qe_json_check(cJSON_CreateObject());
	sw->own = qe_json_check(cJSON_CreateObject());
	sw->profiles = qe_json_check(cJSON_CreateArray());
	sw->timed = qe_json_check(cJSON_CreateObject());
	sw->ratio = ratio;
	sw->min_s = min_s;
}

/* The machine of rec: its provenance's fingerprint, described once in sw. */
static const char *
machine_of(struct qe_sweep *sw, const cJSON *rec)
{
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(rec, "provenance");
	const char *fp = qe_json_str(p, "fingerprint");
	cJSON *d;

	if (fp == NULL)
		fp = "unstamped";
	if (cJSON_GetObjectItemCaseSensitive(sw->machines, fp) != NULL)
		return fp;
	d = qe_json_check(cJSON_AddObjectToObject(sw->machines, fp));
	qe_json_check(cJSON_AddStringToObject(d, "fingerprint", fp));
	qe_json_add_str_or_null(d, "runner_class",
	    qe_json_str(cJSON_GetObjectItemCaseSensitive(p, "runner"), "class"));
	p = cJSON_GetObjectItemCaseSensitive(p, "hardware");
	qe_json_add_str_or_null(d, "cpu_model", qe_json_str(p, "cpu_model"));
	qe_json_add_num_or_null(d, "logical_cpus", isfinite(qe_json_num(p, "logical_cpus")),
	    qe_json_num(p, "logical_cpus"));
	qe_json_add_num_or_null(d, "memory_bytes", isfinite(qe_json_num(p, "memory_bytes")),
	    qe_json_num(p, "memory_bytes"));
	qe_json_add_str_or_null(d, "gpu", qe_json_str(p, "gpu_model"));
	return fp;
}

/* The index of the curve (machine, document, cell, axis), made when new. */
static size_t
curve_of(struct qe_sweep *sw, const char *machine, const char *doc, const char *cell, const char *axis)
{
	struct qe_sweep_curve *c;
	size_t i;

	for (i = 0; i < sw->ncurves; i++) {
		c = &sw->curves[i];
		if (qe_mem_streq(c->machine, machine) && qe_mem_streq(c->document, doc) && qe_mem_streq(c->cell, cell) &&
		    qe_mem_streq(c->axis, axis))
			return i;
	}
	sw->curves = qe_mem_grow(sw->curves, sw->ncurves, &sw->capcurves, sizeof *sw->curves, 16);
	c = &sw->curves[sw->ncurves];
	c->machine = qe_xstrdup(machine);
	c->document = qe_xstrdup(doc);
	c->cell = cell != NULL ? qe_xstrdup(cell) : NULL;
	c->axis = qe_xstrdup(axis);
	c->code[0] = c->code[1] = NULL;
	return sw->ncurves++;
}

/* A run outside any sweep: its seconds under "document version index". */
static void
take_timed(struct qe_sweep *sw, const cJSON *rec, const char *doc, const char *version)
{
	char key[512];
	double s = qe_json_num(rec, "duration_s"), index = qe_json_num(rec, "index");
	cJSON *a;

	if (!isfinite(s) || !isfinite(index) || !qe_mem_streq(qe_json_str(rec, "status"), "ok"))
		return;
	snprintf(key, sizeof key, "%s %s %.0f", doc, version, index);
	if ((a = cJSON_GetObjectItemCaseSensitive(sw->timed, key)) == NULL)
		a = qe_json_check(cJSON_AddArrayToObject(sw->timed, key));
	cJSON_AddItemToArray(a, qe_json_check(cJSON_CreateNumber(s)));
}

/* 1 when rec is the injected-parameters cell. */
static int
injected(const cJSON *rec)
{
	const cJSON *t;

	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(rec, "tags"))
		if (cJSON_IsString(t) && strcmp(t->valuestring, "injected-parameters") == 0)
			return 1;
	return 0;
}

/* The lecture's own parameters (the head's, else the base's) of a notebook record. */
static void
take_own(struct qe_sweep *sw, const cJSON *rec, const char *machine, const char *doc, int head)
{
	const cJSON *own = cJSON_GetObjectItemCaseSensitive(rec, "lecture_parameters");
	char key[512];

	if (!cJSON_IsObject(own))
		return;
	snprintf(key, sizeof key, "%s %s", machine, doc);
	if (cJSON_GetObjectItemCaseSensitive(sw->own, key) != NULL) {
		if (!head)
			return;
		cJSON_DeleteItemFromObjectCaseSensitive(sw->own, key);
	}
	cJSON_AddItemToObject(sw->own, key, qe_json_check(cJSON_Duplicate(own, 1)));
}

/* A cell run's source digest into its curve's version. */
static void
take_code(struct qe_sweep_curve *c, int head, const char *sha)
{
	if (c->code[head] == NULL)
		c->code[head] = qe_xstrdup(sha != NULL ? sha : "");
	else if (!qe_mem_streq(c->code[head], sha != NULL ? sha : ""))
		c->code[head][0] = '\0';
}

/* 1 when a cell's code is one and the same in both versions: its time moves only with what it calls. */
static int
same_code(const struct qe_sweep_curve *c)
{
	return c->cell != NULL && c->code[0] != NULL && c->code[1] != NULL && c->code[0][0] != '\0' &&
	    strcmp(c->code[0], c->code[1]) == 0;
}

/* One run of a sweep: a cell's, or the lecture's total (cells_seconds). */
static int
take_run(struct qe_sweep *sw, const cJSON *rec, const char *doc, int head, const char *file, long line)
{
	const cJSON *sweep = cJSON_GetObjectItemCaseSensitive(rec, "sweep");
	const cJSON *axis = sweep != NULL ? sweep->child : NULL;
	const char *machine = machine_of(sw, rec), *cell = NULL;
	int lecture = qe_mem_streq(qe_json_str(rec, "kind"), "notebook");
	struct qe_sweep_run *r;

	if (axis == NULL || !cJSON_IsNumber(axis) || !(axis->valuedouble > 0) || isinf(axis->valuedouble)) {
		warnx("%s:%ld: the size swept ('%s') is not a positive number", file, line,
		    axis != NULL && axis->string != NULL ? axis->string : "");
		return -1;
	}
	if (lecture)
		take_own(sw, rec, machine, doc, head);
	else if (injected(rec))
		return 0;
	else
		cell = qe_record_name_of(rec, "(blank cell)");
	if (!qe_mem_streq(qe_json_str(rec, "status"), "ok") ||
	    !isfinite(qe_json_num(rec, lecture ? "cells_seconds" : "duration_s")))
		return 0;  /* a failed run is no timing */
	sw->runs = qe_mem_grow(sw->runs, sw->nruns, &sw->capruns, sizeof *sw->runs, 64);
	r = &sw->runs[sw->nruns++];
	r->curve = curve_of(sw, machine, doc, cell, axis->string);
	if (!lecture)
		take_code(&sw->curves[r->curve], head, qe_json_str(rec, "source_sha256"));
	r->x = axis->valuedouble;
	r->head = head;
	r->s = qe_json_num(rec, lecture ? "cells_seconds" : "duration_s");
	r->mem = lecture ? NAN : qe_json_num(rec, "peak_growth_bytes");
	return 0;
}

int
qe_sweep_take(cJSON *rec, const char *file, long line, void *ctx)
{
	struct qe_sweep *sw = ctx;
	const char *kind = qe_json_str(rec, "kind"), *doc = qe_json_str(rec, "document");
	const char *version = qe_json_str(rec, "version");

	if (qe_mem_streq(kind, "profile")) {
		if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(rec, "functions")) ||
		    !(qe_json_num(rec, "profile_s") > 0) || doc == NULL) {
			warnx("%s:%ld: profile record without a document, functions or a positive profile_s", file, line);
			return -1;
		}
		cJSON_AddItemToArray(sw->profiles, qe_json_check(cJSON_Duplicate(rec, 1)));
		return 0;
	}
	if (!qe_mem_streq(kind, "cell") && !qe_mem_streq(kind, "notebook"))
		return 0;  /* provenance and other records: not ours */
	if (doc == NULL || (!qe_mem_streq(version, "base") && !qe_mem_streq(version, "head"))) {
		warnx("%s:%ld: %s record without a document and a version (base or head): not qe-replicate's",
		    file, line, kind);
		return -1;
	}
	if (cJSON_GetObjectItemCaseSensitive(rec, "sweep") == NULL) {
		if (qe_mem_streq(kind, "cell"))
			take_timed(sw, rec, doc, version);
		return 0;
	}
	return take_run(sw, rec, doc, qe_mem_streq(version, "head"), file, line);
}

/* One version's runs at one size of a curve. */
struct side {
	int n;
	double med, min, max, mem;
};

static void
side_of(const struct qe_sweep *sw, size_t c, double x, int head, struct side *o)
{
	double *s = qe_xcalloc(sw->nruns + 1, sizeof *s), *m = qe_xcalloc(sw->nruns + 1, sizeof *m);
	int nm = 0;
	size_t i;

	o->n = 0;
	o->min = INFINITY;
	o->max = -INFINITY;
	for (i = 0; i < sw->nruns; i++) {
		const struct qe_sweep_run *r = &sw->runs[i];

		if (r->curve != c || r->x != x || r->head != head)
			continue;
		s[o->n++] = r->s;
		o->min = fmin(o->min, r->s);
		o->max = fmax(o->max, r->s);
		if (isfinite(r->mem))
			m[nm++] = r->mem;
	}
	o->med = qe_stats_median(s, o->n);
	o->mem = qe_stats_median(m, nm);
	free(s);
	free(m);
}

static int
by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The sizes of curve c, ascending, each once, into x (room for nruns); their count. */
static int
sizes_of(const struct qe_sweep *sw, size_t c, double *x)
{
	int n = 0, k = 0, i;
	size_t j;

	for (j = 0; j < sw->nruns; j++)
		if (sw->runs[j].curve == c)
			x[n++] = sw->runs[j].x;
	qsort(x, n, sizeof *x, by_value);
	for (i = 0; i < n; i++)
		if (k == 0 || x[i] != x[k - 1])
			x[k++] = x[i];
	return k;
}

static cJSON *
side_json(const struct side *o)
{
	cJSON *j = qe_json_check(cJSON_CreateObject());

	qe_json_check(cJSON_AddNumberToObject(j, "runs", o->n));
	qe_json_add_rounded(j, "median_s", o->n > 0 ? o->med : NAN, 6);
	qe_json_add_rounded(j, "min_s", o->n > 0 ? o->min : NAN, 6);
	qe_json_add_rounded(j, "max_s", o->n > 0 ? o->max : NAN, 6);
	qe_json_add_rounded(j, "peak_growth_bytes", o->mem, 0);
	return j;
}

static cJSON *
fit_json(const double *x, const double *y, int n)
{
	struct qe_scalefit f;
	cJSON *j = qe_json_check(cJSON_CreateObject());

	qe_scalefit_loglog(x, y, n, &f);
	qe_json_add_rounded(j, "exponent", f.slope, 4);
	qe_json_add_rounded(j, "se", f.se, 4);
	qe_json_check(cJSON_AddNumberToObject(j, "sizes", f.n));
	return j;
}

/* The points array of curve c, and the fits' and the crossover's inputs. */
static cJSON *
points_json(const struct qe_sweep *sw, size_t c, double *x, int nx, struct qe_scalefit_point *p,
    int *np, double fit[2][2][64], int nfit[2])
{
	cJSON *a = qe_json_check(cJSON_CreateArray()), *pt;
	struct side b, h;
	int i;

	*np = nfit[0] = nfit[1] = 0;
	for (i = 0; i < nx; i++) {
		side_of(sw, c, x[i], 0, &b);
		side_of(sw, c, x[i], 1, &h);
		cJSON_AddItemToArray(a, pt = qe_json_check(cJSON_CreateObject()));
		qe_json_check(cJSON_AddNumberToObject(pt, "value", x[i]));
		cJSON_AddItemToObject(pt, "base", side_json(&b));
		cJSON_AddItemToObject(pt, "head", side_json(&h));
		for (int v = 0; v < 2; v++) {
			const struct side *o = v ? &h : &b;

			if (o->n > 0 && o->med > 0 && nfit[v] < 64) {
				fit[v][0][nfit[v]] = x[i];
				fit[v][1][nfit[v]++] = o->med;
			}
		}
		if (b.n == 0 || h.n == 0 || !(b.med > 0) || !(h.med > 0)) {
			qe_json_add_rounded(pt, "speedup", NAN, 4);
			qe_json_add_str_or_null(pt, "clear", NULL);
			continue;
		}
		p[*np] = (struct qe_scalefit_point){ x[i], b.med / h.med, h.max < b.min ? 1 : h.min > b.max ? -1 : 0 };
		qe_json_add_rounded(pt, "speedup", p[*np].speedup, 4);
		qe_json_check(cJSON_AddStringToObject(pt, "clear",
		    qe_vocab_name(&qe_vocab_sweep_clear, p[*np].clear > 0 ? QE_SC_HEAD_FASTER :
		    p[*np].clear < 0 ? QE_SC_HEAD_SLOWER : QE_SC_OVERLAP)));
		(*np)++;
	}
	return a;
}

/* 1 when no run of curve c reaches min_s: its curves are noise. */
static int
negligible(const struct qe_sweep *sw, size_t c)
{
	size_t i;

	for (i = 0; i < sw->nruns; i++)
		if (sw->runs[i].curve == c && sw->runs[i].s >= sw->min_s)
			return 0;
	return 1;
}

/* The lecture's own value of the curve's axis, or NAN. */
static double
own_value(const struct qe_sweep *sw, const struct qe_sweep_curve *c)
{
	char key[512];

	snprintf(key, sizeof key, "%s %s", c->machine, c->document);
	return qe_json_num(cJSON_GetObjectItemCaseSensitive(sw->own, key), c->axis);
}

cJSON *
qe_sweep_record(const struct qe_sweep *sw, size_t c)
{
	const struct qe_sweep_curve *cv = &sw->curves[c];
	cJSON *rec = qe_json_record_new("sweep"), *j;
	double *x = qe_xcalloc(sw->nruns + 1, sizeof *x), fit[2][2][64], own = own_value(sw, cv);
	struct qe_scalefit_point *p = qe_xcalloc(sw->nruns + 1, sizeof *p);
	struct qe_scalefit_cross cr;
	struct qe_buf b = { 0 };
	int nx = sizes_of(sw, c, x), np, nfit[2];

	qe_json_check(cJSON_AddStringToObject(rec, "document", cv->document));
	qe_json_add_str_or_null(rec, "cell", cv->cell);
	qe_json_check(cJSON_AddStringToObject(rec, "parameter", cv->axis));
	cJSON_AddItemToObject(rec, "machine", qe_json_check(cJSON_Duplicate(
	    cJSON_GetObjectItemCaseSensitive(sw->machines, cv->machine), 1)));
	cJSON_AddItemToObject(rec, "points", points_json(sw, c, x, nx, p, &np, fit, nfit));
	cJSON_AddItemToObject(rec, "fit", j = qe_json_check(cJSON_CreateObject()));
	cJSON_AddItemToObject(j, "base", fit_json(fit[0][0], fit[0][1], nfit[0]));
	cJSON_AddItemToObject(j, "head", fit_json(fit[1][0], fit[1][1], nfit[1]));
	qe_scalefit_crossover(p, np, &cr);
	cJSON_AddItemToObject(rec, "crossover", j = qe_json_check(cJSON_CreateObject()));
	qe_json_check(cJSON_AddStringToObject(j, "state", cr.state));
	qe_json_add_rounded(j, "at", cr.at, 0);
	qe_json_add_rounded(j, "low", cr.lo, 6);
	qe_json_add_rounded(j, "high", cr.hi, 6);
	qe_json_check(cJSON_AddBoolToObject(rec, "negligible", negligible(sw, c)));
	qe_json_check(cJSON_AddBoolToObject(rec, "same_code", same_code(cv)));
	qe_json_add_rounded(rec, "lecture_value", own, 6);
	qe_json_add_rounded(rec, "speedup_at_lecture", isfinite(own) ? qe_scalefit_at(p, np, own) : NAN, 4);
	qe_sweep_sentence(&b, rec, sw->ratio);
	qe_json_check(cJSON_AddStringToObject(rec, "recommendation", b.data));
	qe_buf_free(&b);
	free(x);
	free(p);
	return rec;
}

/* "n = 1e5": a size of the axis. */
static void
size_text(struct qe_buf *b, const char *axis, double x)
{
	qe_buf_adds(b, axis);
	qe_buf_adds(b, " = ");
	qe_gfm_magnitude(b, x);
}

/* Where the crossover may lie: between the clear sizes around it. */
static void
bracket(struct qe_buf *b, const cJSON *cross)
{
	double lo = qe_json_num(cross, "low"), hi = qe_json_num(cross, "high");

	if (isfinite(lo) && isfinite(hi)) {
		qe_buf_adds(b, "between ");
		qe_gfm_magnitude(b, lo);
		qe_buf_adds(b, " and ");
		qe_gfm_magnitude(b, hi);
	} else if (isfinite(lo) || isfinite(hi)) {
		qe_buf_adds(b, isfinite(lo) ? "above " : "below ");
		qe_gfm_magnitude(b, isfinite(lo) ? lo : hi);
	} else {
		qe_buf_adds(b, "the runs overlap at the sizes around it");
	}
}

/* "at this lecture's size ... the new version is ×2.4 slower": 1 faster, -1 slower, 0 within, 2 unknown. */
static int
at_lecture(struct qe_buf *b, const cJSON *rec, double ratio, double lo, double hi)
{
	const char *axis = qe_json_str(rec, "parameter");
	double own = qe_json_num(rec, "lecture_value"), sp = qe_json_num(rec, "speedup_at_lecture");

	if (!isfinite(own)) {
		qe_gfm_addf(b, "This lecture's own %s is unknown (its parameters cell gives no constant)", axis);
		return 2;
	}
	qe_buf_adds(b, isfinite(sp) ? "As used at this lecture's size (" : "This lecture's size (");
	size_text(b, axis, own);
	if (!isfinite(sp) && own >= lo && own <= hi) {
		qe_buf_adds(b, ") has no runs of both versions around it");
		return 2;
	}
	if (!isfinite(sp)) {
		qe_buf_adds(b, ") lies outside the sizes swept (");
		qe_gfm_magnitude(b, lo);
		qe_buf_adds(b, " to ");
		qe_gfm_magnitude(b, hi);
		qe_buf_adds(b, ")");
		return 2;
	}
	qe_buf_adds(b, ") the new version is ");
	if (sp < ratio && sp > 1 / ratio) {
		qe_buf_adds(b, "within ");
		qe_gfm_ratio(b, ratio);
		qe_buf_adds(b, " of the old one");
		return 0;
	}
	qe_gfm_ratio(b, sp >= ratio ? sp : 1 / sp);
	qe_buf_adds(b, sp >= ratio ? " faster" : " slower");
	return sp >= ratio ? 1 : -1;
}

void
qe_sweep_sentence(struct qe_buf *b, const cJSON *rec, double ratio)
{
	const cJSON *cross = cJSON_GetObjectItemCaseSensitive(rec, "crossover");
	const cJSON *pts = cJSON_GetObjectItemCaseSensitive(rec, "points");
	const char *axis = qe_json_str(rec, "parameter");
	int cx = qe_vocab_lookup(&qe_vocab_crossovers, qe_json_str(cross, "state"));
	double at = qe_json_num(cross, "at"), lo = qe_json_num(cJSON_GetArrayItem(pts, 0), "value");
	double hi = qe_json_num(cJSON_GetArrayItem(pts, cJSON_GetArraySize(pts) - 1), "value");
	int v = at_lecture(b, rec, ratio, lo, hi), wins = cx == QE_CX_WINS_ABOVE;

	if (wins || cx == QE_CX_LOSES_ABOVE || cx == QE_CX_REPEATEDLY) {
		qe_buf_adds(b, cx == QE_CX_REPEATEDLY ? "; its curve crosses the old one more than once, first near "
		    : wins ? "; it wins above " : "; it loses above ");
		qe_buf_adds(b, axis);
		qe_buf_adds(b, " \xe2\x89\x88 ");
		qe_gfm_magnitude(b, at);
		qe_buf_adds(b, " (");
		bracket(b, cross);
		qe_buf_adds(b, cx == QE_CX_REPEATEDLY ? "): run more replicates" : ")");
	} else if (cx == QE_CX_TOO_FEW || cx < 0) {
		qe_buf_adds(b, "; sweep two sizes at least for a crossover");
	} else {
		qe_buf_adds(b, cx == QE_CX_WINS_THROUGHOUT ? "; it is faster at every size swept ("
		    : "; it is slower at every size swept (");
		qe_gfm_magnitude(b, lo);
		qe_buf_adds(b, " to ");
		qe_gfm_magnitude(b, hi);
		qe_buf_adds(b, ")");
	}
	qe_buf_adds(b, v == 1 ? ". Take the new version." : v == 0 ? ". Speed is no reason to change at this lecture's size."
	    : v == 2 ? ". Decide by the size the lecture runs at." : ". Keep the old version for this lecture");
	if (v == -1 && wins) {
		qe_buf_adds(b, ", unless it is to run above ");
		size_text(b, axis, at);
	}
	if (v == -1)
		qe_buf_adds(b, ".");
}

void
qe_sweep_free(struct qe_sweep *sw)
{
	size_t i;

	for (i = 0; i < sw->ncurves; i++) {
		free(sw->curves[i].machine);
		free(sw->curves[i].document);
		free(sw->curves[i].cell);
		free(sw->curves[i].axis);
		free(sw->curves[i].code[0]);
		free(sw->curves[i].code[1]);
	}
	free(sw->curves);
	free(sw->runs);
	cJSON_Delete(sw->machines);
	cJSON_Delete(sw->own);
	cJSON_Delete(sw->profiles);
	cJSON_Delete(sw->timed);
}
