/*
 * qe_triage.c - where a lecture's as-used time goes, and whether a rewrite
 * could pay (qe_triage.h).
 */
#include <err.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qe_gfm.h"
#include "qe_json.h"
#include "qe_mem.h"
#include "qe_stats.h"
#include "qe_scalefit.h"
#include "qe_triage.h"
#include "qe_record.h"

void
qe_triage_init(struct qe_triage *t, const struct qe_triage_rules *r)
{
	t->rules = *r;
	t->docs = qe_json_check(cJSON_CreateObject());
}

/* The entry of rec's lecture, made when new. */
static cJSON *
doc_of(struct qe_triage *t, const char *doc, const char *version)
{
	char key[1024];
	cJSON *d;

	snprintf(key, sizeof key, "%s\t%s", doc, version != NULL ? version : "");
	if ((d = cJSON_GetObjectItemCaseSensitive(t->docs, key)) != NULL)
		return d;
	d = qe_json_check(cJSON_AddObjectToObject(t->docs, key));
	qe_json_check(cJSON_AddStringToObject(d, "document", doc));
	qe_json_add_str_or_null(d, "version", version);
	qe_json_check(cJSON_AddArrayToObject(d, "totals"));
	qe_json_check(cJSON_AddObjectToObject(d, "cells"));
	qe_json_check(cJSON_AddObjectToObject(d, "profiles"));
	qe_json_check(cJSON_AddObjectToObject(d, "jit"));
	return d;
}

static void
push(cJSON *o, const char *key, double v)
{
	cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key);

	if (a == NULL)
		a = qe_json_check(cJSON_AddArrayToObject(o, key));
	cJSON_AddItemToArray(a, qe_json_check(cJSON_CreateNumber(v)));
}

/* A finished cell's run: its seconds, its compile seconds, the functions compiled. */
static void
take_cell(cJSON *d, const cJSON *rec)
{
	const cJSON *f;
	char key[32];
	cJSON *c;
	double s = qe_json_num(rec, "duration_s"), jit = qe_json_num(rec, "jit_compile_s");

	if (!qe_mem_streq(qe_json_str(rec, "status"), "ok") || !isfinite(s) || !isfinite(qe_json_num(rec, "index")))
		return;
	snprintf(key, sizeof key, "%.0f", qe_json_num(rec, "index"));
	if ((c = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(d, "cells"), key)) == NULL) {
		c = qe_json_check(cJSON_AddObjectToObject(cJSON_GetObjectItemCaseSensitive(d, "cells"), key));
		qe_json_add_str_or_null(c, "name", qe_json_str(rec, "name") ? qe_json_str(rec, "name")
		    : qe_json_str(rec, "first_line"));
	}
	push(c, "s", s);
	push(c, "jit", isfinite(jit) && jit > 0 ? jit : 0);
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(rec, "jit_functions"))
		if (f->string != NULL && cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(d, "jit"),
		    f->string) == NULL)
			qe_json_check(cJSON_AddTrueToObject(cJSON_GetObjectItemCaseSensitive(d, "jit"), f->string));
}

int
qe_triage_take(cJSON *rec, const char *file, long line, void *ctx)
{
	struct qe_triage *t = ctx;
	const char *kind = qe_json_str(rec, "kind"), *doc = qe_json_str(rec, "document");
	char key[32];
	cJSON *d;

	if (!qe_mem_streq(kind, "cell") && !qe_mem_streq(kind, "notebook") && !qe_mem_streq(kind, "profile"))
		return 0;  /* provenance and other records: not ours */
	if (doc == NULL) {
		warnx("%s:%ld: %s record without a document", file, line, kind);
		return -1;
	}
	if (qe_mem_streq(kind, "profile") && (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(rec, "functions")) ||
	    !(qe_json_num(rec, "profile_s") > 0) || !isfinite(qe_json_num(rec, "index")))) {
		warnx("%s:%ld: profile record without functions, an index or a positive profile_s", file, line);
		return -1;
	}
	d = doc_of(t, doc, qe_json_str(rec, "version"));
	if (qe_mem_streq(kind, "profile")) {
		snprintf(key, sizeof key, "%.0f", qe_json_num(rec, "index"));
		cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(d, "profiles"), key);
		cJSON_AddItemToObject(cJSON_GetObjectItemCaseSensitive(d, "profiles"), key,
		    qe_json_check(cJSON_Duplicate(rec, 1)));
	} else if (qe_mem_streq(kind, "cell")) {
		take_cell(d, rec);
	} else if (qe_mem_streq(qe_json_str(rec, "status"), "ok") && isfinite(qe_json_num(rec, "cells_seconds"))) {
		push(d, "totals", qe_json_num(rec, "cells_seconds"));
	}
	return 0;
}

size_t
qe_triage_count(const struct qe_triage *t)
{
	return (size_t)cJSON_GetArraySize(t->docs);
}

/* 1 when s ends with any of the NULL-terminated suffixes. */
static int
ends_with(const char *s, const char *const *suffixes)
{
	size_t n = strlen(s);

	for (; *suffixes != NULL; suffixes++)
		if (n >= strlen(*suffixes) && strcmp(s + n - strlen(*suffixes), *suffixes) == 0)
			return 1;
	return 0;
}

/* numba's compiler (the last two components of its files' paths, as profile records give them). */
static const char *const compile_files[] = {
	"core/dispatcher.py", "core/compiler.py", "core/compiler_machinery.py", "core/typed_passes.py",
	"core/untyped_passes.py", "core/typeinfer.py", "core/lowering.py", "numba/dispatcher.py",
	"numba/compiler.py", NULL
};

/* Builtins that wait or move bytes rather than compute: imports, I/O, sleeping, exec. */
static const char *const other_builtins[] = {
	"builtins.exec", "builtins.print", "builtins.__import__", "builtins.compile", "builtins.open",
	"time.sleep", "_imp.", "marshal.", "posix.", "_io.", "select.", "_socket.", "_thread.", NULL
};

/* Whether file is of a JIT compiler's package: where a function named *compile* is compiling. */
static int
jit_package(const char *file)
{
	static const char *const pkgs[] = { "numba/", "llvmlite/", "jax/", "jaxlib/", NULL };

	for (const char *const *p = pkgs; *p != NULL; p++) {
		const char *at = strstr(file, *p);

		if (at != NULL && (at == file || at[-1] == '/'))
			return 1;
	}
	return 0;
}

int
qe_triage_kind(const char *function, const char *file, const cJSON *jitnames)
{
	const char *const *o;

	if (function == NULL || strstr(function, "_lsprof.Profiler") != NULL ||
	    (file != NULL && strcmp(file, "<qe-replicate>") == 0))
		return -1;	/* the profiler's frames, and the runner's that make jitted calls seen */
	if (cJSON_GetObjectItemCaseSensitive(jitnames, function) != NULL ||
	    (file != NULL && strcmp(file, "<numba jitted>") == 0))
		return QE_TK_JITTED;
	if (file == NULL) {
		for (o = other_builtins; *o != NULL; o++)
			if (strstr(function, *o) != NULL)
				return QE_TK_OTHER;
		return QE_TK_LIBRARY;
	}
	if (strcmp(file, "cell") == 0)
		return QE_TK_PYTHON;
	/* a module's top level runs when it is imported (numba's dispatcher.py too) */
	if (strcmp(function, "<module>") == 0)
		return QE_TK_OTHER;
	/* importlib's _compile_bytecode is an import, re.compile a regex */
	if (ends_with(file, compile_files) || (jit_package(file) && strstr(function, "compile") != NULL))
		return QE_TK_COMPILE;
	return QE_TK_OTHER;
}

int
qe_triage_kinds(const char *list, unsigned *mask)
{
	char word[32];
	const char *p = list;
	size_t n;
	int k;

	*mask = 0;
	while (*p != '\0') {
		n = strcspn(p, ",");
		if (n == 0 || n >= sizeof word)
			return -1;
		memcpy(word, p, n);
		word[n] = '\0';
		if ((k = qe_vocab_lookup(&qe_vocab_time_kinds, word)) < 0)
			return -1;
		*mask |= 1u << k;
		p += n + (p[n] == ',');
	}
	return *mask != 0 ? 0 : -1;
}

/* The median of a number array, 0 when empty. */
static double
median_of(const cJSON *a)
{
	int n = cJSON_GetArraySize(a), k = 0;
	double *v, m;
	const cJSON *x;

	if (n == 0)
		return 0;
	v = qe_xcalloc(n, sizeof *v);
	cJSON_ArrayForEach(x, a)
		v[k++] = x->valuedouble;
	m = qe_stats_median(v, k);
	free(v);
	return m;
}

/* The most addressable function so far. */
struct best {
	const char *function;
	double s;
};

/*
 * One cell into out[kind] seconds: compile from the hook, the rest in
 * proportion to the profile's own times (the profiler's own and the
 * compiler's excluded: the hook counted that).
 */
static void
split_cell(const struct qe_triage_rules *r, const cJSON *cell, const cJSON *prof, const cJSON *jit,
    double *out, struct best *best)
{
	double t = median_of(cJSON_GetObjectItemCaseSensitive(cell, "s")), c, rest, own[QE_NTIME_KINDS] = { 0 };
	double seen, listed = 0;
	const cJSON *f;
	int k;

	c = fmin(t, median_of(cJSON_GetObjectItemCaseSensitive(cell, "jit")));
	rest = t - c;
	out[QE_TK_COMPILE] = c;
	seen = qe_json_num(prof, "profile_s");
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(prof, "functions")) {
		double s = qe_json_num(f, "own_s");

		if (!(s >= 0))
			continue;
		if ((k = qe_triage_kind(qe_json_str(f, "function"), qe_json_str(f, "file"), jit)) < 0) {
			seen -= s;
			continue;
		}
		own[k] += s;
		if (k == QE_TK_COMPILE)
			seen -= s;
		else
			listed += s;
	}
	if (prof == NULL || !(seen > 0)) {
		out[QE_TK_OTHER] = rest;
		return;
	}
	for (k = 0; k < QE_NTIME_KINDS; k++)
		if (k != QE_TK_COMPILE)
			out[k] = rest * own[k] / seen;
	out[QE_TK_OTHER] += rest * fmax(0, seen - listed) / seen;
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(prof, "functions")) {
		k = qe_triage_kind(qe_json_str(f, "function"), qe_json_str(f, "file"), jit);
		if (k >= 0 && (r->addressable & (1u << k)) && rest * qe_json_num(f, "own_s") / seen > best->s) {
			best->s = rest * qe_json_num(f, "own_s") / seen;
			best->function = qe_json_str(f, "function");
		}
	}
}

static cJSON *
kinds_json(const double *s)
{
	cJSON *o = qe_json_check(cJSON_CreateObject());

	for (int k = 0; k < QE_NTIME_KINDS; k++)
		qe_json_add_rounded(o, qe_vocab_name(&qe_vocab_time_kinds, k), s[k], 6);
	return o;
}

/* Every cell of lecture d into the record's cells and the split. */
static cJSON *
cells_json(const struct qe_triage_rules *r, const cJSON *d, struct qe_triage_split *sp)
{
	const cJSON *c, *profs = cJSON_GetObjectItemCaseSensitive(d, "profiles");
	const cJSON *jit = cJSON_GetObjectItemCaseSensitive(d, "jit");
	cJSON *a = qe_json_check(cJSON_CreateArray()), *o;
	struct best best = { NULL, 0 };
	double s[QE_NTIME_KINDS];

	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(d, "cells")) {
		const cJSON *prof = cJSON_GetObjectItemCaseSensitive(profs, c->string);

		memset(s, 0, sizeof s);
		split_cell(r, c, prof, jit, s, &best);
		cJSON_AddItemToArray(a, o = qe_json_check(cJSON_CreateObject()));
		qe_json_check(cJSON_AddNumberToObject(o, "index", atof(c->string)));
		qe_json_add_str_or_null(o, "name", qe_json_str(c, "name"));
		qe_json_add_rounded(o, "as_used_s", median_of(cJSON_GetObjectItemCaseSensitive(c, "s")), 6);
		qe_json_check(cJSON_AddBoolToObject(o, "profiled", prof != NULL));
		cJSON_AddItemToObject(o, "time", kinds_json(s));
		for (int k = 0; k < QE_NTIME_KINDS; k++)
			sp->s[k] += s[k];
	}
	sp->function = best.function;
	return a;
}

/* The runs' total: their median and spread, else the cells' medians summed. */
static void
totals(const cJSON *d, struct qe_triage_split *sp)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(d, "totals"), *x;
	double all = 0;

	sp->runs = cJSON_GetArraySize(a);
	sp->run_min = INFINITY;
	sp->run_max = -INFINITY;
	cJSON_ArrayForEach(x, a) {
		sp->run_min = fmin(sp->run_min, x->valuedouble);
		sp->run_max = fmax(sp->run_max, x->valuedouble);
	}
	for (int k = 0; k < QE_NTIME_KINDS; k++)
		all += sp->s[k];
	sp->total_s = sp->runs > 0 ? median_of(a) : all;
	if (sp->runs == 0)
		sp->run_min = sp->run_max = NAN;
}

static cJSON *
rules_json(const struct qe_triage_rules *r)
{
	cJSON *o = qe_json_check(cJSON_CreateObject()), *a;

	qe_json_add_rounded(o, "floor_s", r->floor_s, 6);
	qe_json_add_rounded(o, "ceiling", r->ceiling, 4);
	a = qe_json_check(cJSON_AddArrayToObject(o, "addressable"));
	for (int k = 0; k < QE_NTIME_KINDS; k++)
		if (r->addressable & (1u << k))
			cJSON_AddItemToArray(a, qe_json_check(cJSON_CreateString(qe_vocab_name(&qe_vocab_time_kinds, k))));
	return o;
}

cJSON *
qe_triage_record(const struct qe_triage *t, size_t i)
{
	const cJSON *d = cJSON_GetArrayItem(t->docs, (int)i);
	struct qe_triage_split sp = { { 0 }, 0, 0, 0, 0, NULL };
	struct qe_triage_verdict v;
	struct qe_buf b = { 0 };
	cJSON *rec = qe_json_record_new("triage"), *cells, *o;

	qe_json_check(cJSON_AddStringToObject(rec, "document", qe_json_str(d, "document")));
	qe_json_add_str_or_null(rec, "version", qe_json_str(d, "version"));
	cells = cells_json(&t->rules, d, &sp);
	totals(d, &sp);
	qe_triage_decide(&t->rules, &sp, &v);
	qe_json_check(cJSON_AddNumberToObject(rec, "runs", sp.runs));
	qe_json_add_rounded(rec, "as_used_s", sp.total_s, 6);
	qe_json_add_rounded(rec, "min_s", sp.run_min, 6);
	qe_json_add_rounded(rec, "max_s", sp.run_max, 6);
	cJSON_AddItemToObject(rec, "time", kinds_json(sp.s));
	cJSON_AddItemToObject(rec, "rules", rules_json(&t->rules));
	cJSON_AddItemToObject(rec, "addressable", o = qe_json_check(cJSON_CreateObject()));
	qe_json_add_rounded(o, "share", v.share, 4);
	qe_json_add_rounded(o, "seconds", v.seconds, 6);
	qe_json_add_rounded(o, "ceiling", isinf(v.ceiling) ? NAN : v.ceiling, 4);
	qe_json_add_str_or_null(o, "function", sp.function);
	qe_json_check(cJSON_AddStringToObject(rec, "decision", qe_vocab_name(&qe_vocab_triage, v.decision)));
	qe_json_check(cJSON_AddStringToObject(rec, "binding", qe_vocab_name(&qe_vocab_triage_binding, v.binding)));
	qe_triage_line(&b, &t->rules, &sp, &v);
	qe_json_check(cJSON_AddStringToObject(rec, "line", b.data));
	qe_buf_reset(&b);
	qe_triage_sensitivity(&b, &t->rules, &sp, &v);
	qe_json_check(cJSON_AddStringToObject(rec, "sensitivity", b.data));
	cJSON_AddItemToObject(rec, "cells", cells);
	qe_buf_free(&b);
	return rec;
}

void
qe_triage_decide(const struct qe_triage_rules *r, const struct qe_triage_split *sp, struct qe_triage_verdict *v)
{
	double all = 0, addr = 0;

	for (int k = 0; k < QE_NTIME_KINDS; k++) {
		all += sp->s[k];
		if (r->addressable & (1u << k))
			addr += sp->s[k];
	}
	v->share = all > 0 ? addr / all : 0;
	v->seconds = v->share * sp->total_s;
	v->ceiling = qe_scalefit_amdahl(v->share, INFINITY);
	if (v->share >= 1)
		v->ceiling = INFINITY;
	v->decision = QE_TR_NO_CONVERSION;
	if (!(sp->total_s >= r->floor_s))
		v->binding = QE_TB_FLOOR;
	else if (v->ceiling < r->ceiling)
		v->binding = QE_TB_CEILING;
	else if (v->seconds < r->floor_s)
		v->binding = QE_TB_ADDR_FLOOR;
	else {
		v->binding = QE_TB_ADDRESSABLE;
		v->decision = QE_TR_WORTH;
	}
}

/* Seconds as the lines write them: three significant digits. */
static void
secs(struct qe_buf *b, double s)
{
	qe_buf_addf(b, "%.3g s", s);
}

static void
ceiling_text(struct qe_buf *b, double c)
{
	if (isinf(c))
		qe_buf_adds(b, "no bound");
	else
		qe_gfm_ratio(b, c);
}

void
qe_triage_line(struct qe_buf *b, const struct qe_triage_rules *r, const struct qe_triage_split *sp,
    const struct qe_triage_verdict *v)
{
	qe_buf_adds(b, v->decision == QE_TR_WORTH ? "worth a candidate: " : "no-conversion: ");
	if (v->binding == QE_TB_FLOOR) {
		secs(b, sp->total_s);
		qe_buf_adds(b, " as used, under the ");
		secs(b, r->floor_s);
		qe_buf_adds(b, " floor");
		return;
	}
	if (v->binding == QE_TB_ADDRESSABLE) {
		qe_buf_addf(b, "%.0f%% addressable (", v->share * 100);
		ceiling_text(b, v->ceiling);
		qe_buf_adds(b, " at most)");
		if (sp->function != NULL) {
			qe_buf_adds(b, ", in `");
			qe_buf_adds(b, sp->function);
			qe_buf_adds(b, "`");
		}
		return;
	}
	qe_buf_addf(b, "%.0f%% of the ", v->share * 100);
	secs(b, sp->total_s);
	qe_buf_adds(b, " as used is addressable (");
	ceiling_text(b, v->ceiling);
	qe_buf_adds(b, " at best)");
	if (v->binding == QE_TB_ADDR_FLOOR) {
		qe_buf_adds(b, ", ");
		secs(b, v->seconds);
		qe_buf_adds(b, " in all, under the ");
		secs(b, r->floor_s);
		qe_buf_adds(b, " floor");
	}
}

/* Which rules say no-conversion, as bits of qe_triage_binding. */
static unsigned
failing(const struct qe_triage_rules *r, const struct qe_triage_split *sp, const struct qe_triage_verdict *v)
{
	return (!(sp->total_s >= r->floor_s) ? 1u << QE_TB_FLOOR : 0) |
	    (v->ceiling < r->ceiling ? 1u << QE_TB_CEILING : 0) |
	    (v->seconds < r->floor_s ? 1u << QE_TB_ADDR_FLOOR : 0);
}

/* What each failing rule says, when no single input would flip them all. */
static void
all_failing(struct qe_buf *b, unsigned fail, const struct qe_triage_rules *r, const struct qe_triage_split *sp,
    const struct qe_triage_verdict *v)
{
	const char *sep = "no single input flips it: ";

	if (fail & (1u << QE_TB_FLOOR)) {
		qe_buf_adds(b, sep);
		qe_buf_adds(b, "the as-used total (");
		secs(b, sp->total_s);
		qe_buf_adds(b, ") is under the floor");
		sep = "; ";
	}
	if (fail & (1u << QE_TB_CEILING)) {
		qe_buf_addf(b, "%sthe addressable share is %.0f%% (%.0f%% for ", sep, v->share * 100,
		    (1 - 1 / r->ceiling) * 100);
		qe_gfm_ratio(b, r->ceiling);
		qe_buf_adds(b, ")");
		sep = "; ";
	}
	if (fail & (1u << QE_TB_ADDR_FLOOR)) {
		qe_buf_adds(b, sep);
		qe_buf_adds(b, "the addressable time (");
		secs(b, v->seconds);
		qe_buf_adds(b, ") is under the floor");
	}
}

/*
 * The inputs, each alone: the floor and the lecture's size move the
 * floor rules together (the addressable time is the nearer, never above
 * the total); the addressable share moves the ceiling and the addressable
 * time. A flip to worth-a-candidate needs the other rules passing.
 */
void
qe_triage_sensitivity(struct qe_buf *b, const struct qe_triage_rules *r, const struct qe_triage_split *sp,
    const struct qe_triage_verdict *v)
{
	int worth = v->decision == QE_TR_WORTH;
	double need = fmax(1 - 1 / r->ceiling, r->floor_s / sp->total_s), dfloor = INFINITY, dshare = INFINITY;

	if (sp->runs > 1 && sp->run_min < r->floor_s && sp->run_max >= r->floor_s) {
		qe_buf_adds(b, "the run count: the runs span ");
		secs(b, sp->run_min);
		qe_buf_adds(b, " to ");
		secs(b, sp->run_max);
		qe_buf_adds(b, ", across the floor: run more");
		return;
	}
	if ((worth || !(v->ceiling < r->ceiling)) && v->seconds > 0)
		dfloor = fabs(log(v->seconds / r->floor_s));
	if ((worth || sp->total_s >= r->floor_s) && v->share > 0 && need <= 1)
		dshare = fabs(log(need / v->share));
	if (isinf(dfloor) && isinf(dshare)) {
		all_failing(b, failing(r, sp, v), r, sp, v);
		return;
	}
	if (dfloor <= dshare) {
		qe_buf_adds(b, worth ? "the floor or the size: a floor above " : "the floor or the size: a floor at or under ");
		secs(b, v->seconds);
		qe_buf_addf(b, " (the addressable time), or a size that runs \xc3\x97%.2g %s, would flip it",
		    worth ? v->seconds / r->floor_s : r->floor_s / v->seconds, worth ? "shorter" : "longer");
		return;
	}
	qe_buf_addf(b, "the addressable share: %s%.0f%%%s would flip it; it is %.0f%%", worth ? "under " : "",
	    need * 100, worth ? "" : " or more", v->share * 100);
}

void
qe_triage_free(struct qe_triage *t)
{
	cJSON_Delete(t->docs);
	t->docs = NULL;
}
