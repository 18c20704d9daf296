/*
 * qe_evidence.c - QuantEcon's evidence.json and env.json from our
 * measurements (qe_evidence.h).
 */
#include <err.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "qe_json.h"
#include "qe_mem.h"
#include "qe_stats.h"
#include "qe_evidence.h"

#define NOT_OURS "not measured by qe-telemetry: the template's placeholder, an author's judgement to fill in"

void
qe_evidence_init(struct qe_evidence *ev)
{
	ev->docs = qe_json_check(cJSON_CreateObject());
	ev->x64 = 0;
}

static cJSON *
doc_of(struct qe_evidence *ev, const char *doc)
{
	cJSON *d = cJSON_GetObjectItemCaseSensitive(ev->docs, doc);

	if (d != NULL)
		return d;
	d = qe_json_check(cJSON_AddObjectToObject(ev->docs, doc));
	qe_json_check(cJSON_AddObjectToObject(d, "base"));
	qe_json_check(cJSON_AddObjectToObject(d, "head"));
	qe_json_check(cJSON_AddArrayToObject(d, "failed"));
	return d;
}

/* The environment a run measured in: the first head run's (else base's) kernel and stamp. */
static void
take_env(cJSON *d, const cJSON *rec, int head)
{
	cJSON *e = cJSON_GetObjectItemCaseSensitive(d, "env");
	const char *keys[] = { "language_version", "kernel_env", "provenance" };

	if (e != NULL && (!head || cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "head"))))
		return;
	cJSON_DeleteItemFromObjectCaseSensitive(d, "env");
	e = qe_json_check(cJSON_AddObjectToObject(d, "env"));
	qe_json_check(cJSON_AddBoolToObject(e, "head", head));
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
		if (cJSON_GetObjectItemCaseSensitive(rec, keys[i]) != NULL)
			cJSON_AddItemToObject(e, keys[i], qe_json_check(cJSON_Duplicate(
			    cJSON_GetObjectItemCaseSensitive(rec, keys[i]), 1)));
}

/* One as-used run of base or head: its total by replicate, or its failure. */
static void
take_run(cJSON *d, const cJSON *rec, int head)
{
	double s = qe_json_num(rec, "cells_seconds"), rep = qe_json_num(rec, "replicate");
	char key[32], what[64];

	snprintf(key, sizeof key, "%.0f", isfinite(rep) ? rep : (double)cJSON_GetArraySize(
	    cJSON_GetObjectItemCaseSensitive(d, head ? "head" : "base")) + 1);
	take_env(d, rec, head);
	if (!qe_mem_streq(qe_json_str(rec, "status"), "ok") || !isfinite(s)) {
		snprintf(what, sizeof what, "%s run %s failed", head ? "head" : "base", key);
		cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(d, "failed"), qe_json_check(cJSON_CreateString(what)));
		if (head)
			qe_json_check(cJSON_AddTrueToObject(d, "head_failed"));
		return;
	}
	cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(d, head ? "head" : "base"), key);
	qe_json_check(cJSON_AddNumberToObject(cJSON_GetObjectItemCaseSensitive(d, head ? "head" : "base"), key, s));
}

int
qe_evidence_take(cJSON *rec, const char *file, long line, void *ctx)
{
	struct qe_evidence *ev = ctx;
	const char *kind = qe_json_str(rec, "kind"), *doc = qe_json_str(rec, "document");
	const char *version = qe_json_str(rec, "version");
	const cJSON *sweep = cJSON_GetObjectItemCaseSensitive(rec, "sweep");
	cJSON *d;

	if (!qe_mem_streq(kind, "notebook") && !qe_mem_streq(kind, "notebook-diff"))
		return 0;
	if (doc == NULL) {
		warnx("%s:%ld: %s record without a document", file, line, kind);
		return -1;
	}
	if (qe_mem_streq(kind, "notebook-diff")) {
		const cJSON *fid = cJSON_GetObjectItemCaseSensitive(rec, "fidelity");

		d = doc_of(ev, doc);
		if (cJSON_IsObject(fid) && cJSON_GetObjectItemCaseSensitive(d, ev->x64 ? "x64" : "fid") == NULL)
			cJSON_AddItemToObject(d, ev->x64 ? "x64" : "fid", qe_json_check(cJSON_Duplicate(fid, 1)));
		return 0;
	}
	/* a sweep's sizes and the arms past the first two are no as-used run */
	if (ev->x64 || (sweep != NULL && !cJSON_IsNull(sweep)) ||
	    (!qe_mem_streq(version, "base") && !qe_mem_streq(version, "head")))
		return 0;
	take_run(doc_of(ev, doc), rec, qe_mem_streq(version, "head"));
	return 0;
}

/* The values of a number object as an array, their median into *med. */
static double *
values(const cJSON *o, int *n, double *med)
{
	double *v = qe_xcalloc(cJSON_GetArraySize(o) + 1, sizeof *v), *c;
	const cJSON *x;

	*n = 0;
	cJSON_ArrayForEach(x, o)
		v[(*n)++] = x->valuedouble;
	c = qe_xcalloc(*n + 1, sizeof *c);
	memcpy(c, v, *n * sizeof *c);
	*med = qe_stats_median(c, *n);
	free(c);
	return v;
}

/* The largest max_abs of a fidelity's values, NAN when none was compared. */
static double
max_delta(const cJSON *fid)
{
	const cJSON *v;
	double m = NAN;

	cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(fid, "values"))
		if (isfinite(qe_json_num(v, "max_abs")))
			m = isnan(m) ? qe_json_num(v, "max_abs") : fmax(m, qe_json_num(v, "max_abs"));
	return m;
}

/* A measured value as it is (a shipped difference may be 1e-12: no rounding
 * to the writer's at most 6 decimals), null when not finite. */
static void
add_num(cJSON *o, const char *key, double v)
{
	qe_json_add_num_or_null(o, key, isfinite(v), v);
}

static cJSON *
correctness(const cJSON *d)
{
	cJSON *c = qe_json_check(cJSON_CreateObject());
	const cJSON *fid = cJSON_GetObjectItemCaseSensitive(d, "fid"), *x64 = cJSON_GetObjectItemCaseSensitive(d, "x64");
	const char *answer = qe_json_str(x64 != NULL ? x64 : fid, "answer");

	qe_json_check(cJSON_AddBoolToObject(c, "builds", cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(d, "head")) > 0 &&
	    !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(d, "head_failed"))));
	add_num(c, "max_delta_shipped", max_delta(fid));
	if (answer == NULL || strcmp(answer, "not-compared") == 0)
		qe_json_check(cJSON_AddNullToObject(c, "matches_under_x64"));
	else
		qe_json_check(cJSON_AddBoolToObject(c, "matches_under_x64", strcmp(answer, "differ") != 0));
	qe_json_check(cJSON_AddStringToObject(c, "source", x64 != NULL ?
	    "qe-telemetry: builds from the new version's runs (notebook status); max_delta_shipped the largest max_abs of "
	    "qe-cell-diff's fidelity (qe-replicate --compare); matches_under_x64 from the x64 arms' fidelity (qe-sweep --x64)" :
	    "qe-telemetry: builds from the new version's runs (notebook status); max_delta_shipped the largest max_abs of "
	    "qe-cell-diff's fidelity (qe-replicate --compare); no x64 arm ran: matches_under_x64 is the shipped fidelity's"));
	return c;
}

static cJSON *
efficiency(const cJSON *d)
{
	const cJSON *base = cJSON_GetObjectItemCaseSensitive(d, "base"), *head = cJSON_GetObjectItemCaseSensitive(d, "head");
	const cJSON *b, *fid = cJSON_GetObjectItemCaseSensitive(d, "fid");
	cJSON *e = qe_json_check(cJSON_CreateObject()), *runs;
	double mb, mh, *vb, *vh;
	int nb, nh;

	vb = values(base, &nb, &mb);
	vh = values(head, &nh, &mh);
	add_num(e, "as_used_speedup", mh > 0 ? mb / mh : NAN);
	runs = qe_json_check(cJSON_AddArrayToObject(e, "as_used_runs"));
	cJSON_ArrayForEach(b, base) {
		double h = qe_json_num(head, b->string);

		if (h > 0)
			cJSON_AddItemToArray(runs, qe_json_check(cJSON_CreateNumber(round(b->valuedouble / h * 1e6) / 1e6)));
	}
	add_num(e, "baseline_as_used_seconds", nb > 0 ? mb : NAN);
	qe_json_check(cJSON_AddBoolToObject(e, "correct_or_fixable", !qe_mem_streq(qe_json_str(fid, "answer"), "differ")));
	qe_json_check(cJSON_AddStringToObject(e, "source", "qe-telemetry: qe-replicate's fresh-kernel runs of the lecture "
	    "itself, cells_seconds per run; as_used_runs base run i / head run i by replicate number; as_used_speedup "
	    "median base / median head; baseline_as_used_seconds the median base run; correct_or_fixable: the values "
	    "compared do not differ"));
	free(vb);
	free(vh);
	return e;
}

/* A structural dimension of the template, its criteria unanswered. */
static cJSON *
structural(const char *const *criteria, int bug)
{
	cJSON *s = qe_json_check(cJSON_CreateObject()), *c = qe_json_check(cJSON_AddObjectToObject(s, "criteria"));

	for (; *criteria != NULL; criteria++)
		qe_json_check(cJSON_AddFalseToObject(c, *criteria));
	if (bug)
		qe_json_check(cJSON_AddFalseToObject(s, "introduces_correctness_bug"));
	qe_json_check(cJSON_AddObjectToObject(s, "citations"));
	qe_json_check(cJSON_AddStringToObject(s, "source", NOT_OURS));
	return s;
}

static const char *const logic[] = { "pure_no_order_dependence", "no_global_state", "good_algorithmic_choices",
	"fixes_prior_bugs", NULL };
static const char *const style[] = { "vectorised_where_natural", "correct_control_flow_primitive",
	"no_anti_idiomatic_constructs", "clean_call_sites_and_naming", NULL };
static const char *const maint[] = { "pure_unit_testable", "dtype_precision_safe", "no_footgun_for_editors",
	"robust_no_brittle_conditions", NULL };

cJSON *
qe_evidence_json(const struct qe_evidence *ev, int i)
{
	const cJSON *d = cJSON_GetArrayItem(ev->docs, i);
	const cJSON *src = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
	    d, "env"), "provenance"), "source");
	cJSON *o = qe_json_check(cJSON_CreateObject()), *q, *x;

	qe_json_check(cJSON_AddStringToObject(o, "lecture", d->string));
	qe_json_add_str_or_null(o, "branch", qe_json_str(src, "head_ref"));
	qe_json_add_num_or_null(o, "source_pr", isfinite(qe_json_num(src, "pr")), qe_json_num(src, "pr"));
	x = qe_json_check(cJSON_AddObjectToObject(o, "refs"));
	qe_json_add_str_or_null(x, "base", qe_json_str(src, "base_sha"));
	qe_json_add_str_or_null(x, "head", qe_json_str(src, "head_sha") ? qe_json_str(src, "head_sha") : qe_json_str(src, "commit"));
	qe_json_check(cJSON_AddStringToObject(o, "_how", "Written by qe-sweep --evidence (qe-telemetry) from qe-replicate's "
	    "runs: the correctness and efficiency slots are measured; readability, ergonomics and structural are the "
	    "template's placeholders, so the weighted total is not a measurement, the no-conversion verdict and the "
	    "correctness gate are. See qe-sweep(1), EVIDENCE."));
	q = qe_json_check(cJSON_AddObjectToObject(o, "quantitative"));
	cJSON_AddItemToObject(q, "correctness", correctness(d));
	x = qe_json_check(cJSON_AddObjectToObject(q, "readability"));
	qe_json_check(cJSON_AddNumberToObject(x, "delta_prereq_concepts", 0));
	qe_json_check(cJSON_AddNumberToObject(x, "docstring_cov_new", 1));
	qe_json_check(cJSON_AddStringToObject(x, "source", NOT_OURS));
	cJSON_AddItemToObject(q, "efficiency", efficiency(d));
	x = qe_json_check(cJSON_AddObjectToObject(q, "ergonomics"));
	qe_json_check(cJSON_AddNumberToObject(x, "statements_for_one_result", 1));
	qe_json_check(cJSON_AddFalseToObject(x, "fragile_protocol"));
	qe_json_check(cJSON_AddStringToObject(x, "source", NOT_OURS));
	x = qe_json_check(cJSON_AddObjectToObject(o, "structural"));
	cJSON_AddItemToObject(x, "logic_design", structural(logic, 1));
	cJSON_AddItemToObject(x, "style_idiom", structural(style, 0));
	cJSON_AddItemToObject(x, "maintainability", structural(maint, 0));
	return o;
}

/* "Linux-6.1.0-x86_64-with-debian-12": platform.platform()'s parts, from the stamp. */
static void
platform_of(cJSON *o, const cJSON *runner)
{
	char buf[512];

	if (qe_json_str(runner, "os") == NULL)
		return;
	snprintf(buf, sizeof buf, "%s-%s-%s%s%s", qe_json_str(runner, "os"),
	    qe_json_str(runner, "kernel") ? qe_json_str(runner, "kernel") : "", qe_json_str(runner, "arch") ?
	    qe_json_str(runner, "arch") : "", qe_json_str(runner, "distro") ? "-with-" : "",
	    qe_json_str(runner, "distro") ? qe_json_str(runner, "distro") : "");
	qe_json_check(cJSON_AddStringToObject(o, "platform", buf));
}

cJSON *
qe_evidence_env(const struct qe_evidence *ev, int i)
{
	const cJSON *d = cJSON_GetArrayItem(ev->docs, i), *e = cJSON_GetObjectItemCaseSensitive(d, "env");
	const cJSON *k = cJSON_GetObjectItemCaseSensitive(e, "kernel_env"), *p = cJSON_GetObjectItemCaseSensitive(e, "provenance");
	const cJSON *hw = cJSON_GetObjectItemCaseSensitive(p, "hardware"), *m;
	const cJSON *runner = cJSON_GetObjectItemCaseSensitive(p, "runner");
	cJSON *o = qe_json_check(cJSON_CreateObject());

	if (qe_json_str(e, "language_version") != NULL)
		qe_json_check(cJSON_AddStringToObject(o, "python", qe_json_str(e, "language_version")));
	platform_of(o, runner);
	if (qe_json_str(runner, "arch") != NULL)
		qe_json_check(cJSON_AddStringToObject(o, "machine", qe_json_str(runner, "arch")));
	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(k, "modules"))
		if (cJSON_IsString(m) && cJSON_GetObjectItemCaseSensitive(o, m->string) == NULL)
			qe_json_check(cJSON_AddStringToObject(o, m->string, m->valuestring));
	if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(d, "failed")) > 0)
		cJSON_AddItemToObject(o, "steps_failed", qe_json_check(cJSON_Duplicate(
		    cJSON_GetObjectItemCaseSensitive(d, "failed"), 1)));
	if (cJSON_GetObjectItemCaseSensitive(k, "threads") != NULL)
		cJSON_AddItemToObject(o, "threads", qe_json_check(cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(k, "threads"), 1)));
	if (cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(k, "jax"), "x64")))
		qe_json_check(cJSON_AddBoolToObject(o, "jax_x64", cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(k, "jax"), "x64"))));
	qe_json_add_str_or_null(o, "runner_class", qe_json_str(runner, "class"));
	qe_json_add_str_or_null(o, "cpu_model", qe_json_str(hw, "cpu_model"));
	qe_json_add_num_or_null(o, "logical_cpus", isfinite(qe_json_num(hw, "logical_cpus")), qe_json_num(hw, "logical_cpus"));
	qe_json_add_num_or_null(o, "memory_bytes", isfinite(qe_json_num(hw, "memory_bytes")), qe_json_num(hw, "memory_bytes"));
	qe_json_add_str_or_null(o, "fingerprint", qe_json_str(p, "fingerprint"));
	return o;
}

/* mkdir that finds the folder there already. */
static int
folder(const char *path)
{
	if (mkdir(path, 0777) == 0 || errno == EEXIST)
		return 0;
	warn("%s", path);
	return -1;
}

/* DIR/FILE holding o, which it frees; -1 after a message. */
static int
put(const char *dir, const char *file, cJSON *o)
{
	char *s = cJSON_Print(o), path[4096];
	FILE *f;
	int bad;

	cJSON_Delete(o);
	if (s == NULL)
		qe_mem_oom();
	snprintf(path, sizeof path, "%s/%s", dir, file);
	if ((f = fopen(path, "w")) == NULL) {
		warn("%s", path);
		free(s);
		return -1;
	}
	bad = fputs(s, f) == EOF || fputc('\n', f) == EOF;
	bad = fclose(f) != 0 || bad;
	if (bad)
		warn("%s", path);
	free(s);
	return bad ? -1 : 0;
}

/* The folder name of a lecture: its name with '/' as '_', never hidden or empty. */
static void
safe_name(char *buf, size_t size, const char *doc)
{
	snprintf(buf, size, "%s%s", doc[0] == '.' || doc[0] == '\0' ? "_" : "", doc);
	for (char *p = buf; *p != '\0'; p++)
		if (*p == '/')
			*p = '_';
}

int
qe_evidence_write(const struct qe_evidence *ev, const char *dir)
{
	char name[512], path[4096];
	int status = folder(dir);

	for (int i = 0; status == 0 && i < cJSON_GetArraySize(ev->docs); i++) {
		safe_name(name, sizeof name, cJSON_GetArrayItem(ev->docs, i)->string);
		snprintf(path, sizeof path, "%s/%s", dir, name);
		if (folder(path) < 0)
			return -1;
		status |= put(path, "evidence.json", qe_evidence_json(ev, i));
		snprintf(path, sizeof path, "%s/%s/results", dir, name);
		if (folder(path) < 0)
			return -1;
		status |= put(path, "env.json", qe_evidence_env(ev, i));
	}
	return status;
}

void
qe_evidence_free(struct qe_evidence *ev)
{
	cJSON_Delete(ev->docs);
	ev->docs = NULL;
}
