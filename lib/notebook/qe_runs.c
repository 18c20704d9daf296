/*
 * qe_runs.c - the records of qe-replicate's run folders (qe_runs.h): the
 * notebook's records as a notebook file's (qe_nbrecord), then what the run
 * adds: its arm, version, replicate and order, the warm pass, the captured
 * values, the sweep point; a profile run gives profile records.
 */
#include <dirent.h>
#include <err.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "qe.h"
#include "qe_file.h"
#include "qe_json.h"
#include "qe_jw.h"
#include "qe_mem.h"
#include "qe_buildnb.h"
#include "qe_hooklog.h"
#include "qe_nbrecord.h"
#include "qe_runs.h"

#define RUN_MAX_BYTES (64u << 20)	/* a run line, a capture, a profile's rows */
#define PROFILE_TOP 25			/* functions kept, by cumulative time */

/* A list of code-cell ordinals (-1 ended when used as a set). */
struct ords {
	long *v;
	size_t n, cap;
};

/* The run line. */
struct run {
	const char *dir;
	char *document, *source, *version, *arm, *error, *warm_error, *values;
	cJSON *env, *sweep, *own;	/* objects, or NULL */
	long replicate, order, warm_error_cell;
	double wall, capture;
	int warm, profiled;
	struct ords warmed, definition, profile;
	char **profile_cells;
	size_t nprofile_cells;
};

static void
ords_add(struct ords *o, long v)
{
	o->v = qe_mem_grow(o->v, o->n, &o->cap, sizeof *o->v, 16);
	o->v[o->n++] = v;
}

static int
ords_has(const struct ords *o, long v)
{
	for (size_t i = 0; i < o->n; i++)
		if (o->v[i] == v)
			return 1;
	return 0;
}

static void
run_free(struct run *r)
{
	free(r->document); free(r->source); free(r->version); free(r->arm);
	free(r->error); free(r->warm_error); free(r->values);
	cJSON_Delete(r->env); cJSON_Delete(r->sweep); cJSON_Delete(r->own);
	free(r->warmed.v); free(r->definition.v); free(r->profile.v);
	for (size_t i = 0; i < r->nprofile_cells; i++)
		free(r->profile_cells[i]);
	free(r->profile_cells);
}

/* A whole number field >= 0 (an ordinal, replicate, order); -1 when not. */
static long
whole(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	return *s >= '0' && *s <= '9' && *end == '\0' && v >= 0 ? v : -1;
}

/* "NAME<TAB>JSON" into object *o; -1 when it is not that. */
static int
named_value(cJSON **o, char *v)
{
	char *tab = strchr(v, '\t');
	cJSON *j;

	if (tab == NULL)
		return -1;
	*tab = '\0';
	if ((j = cJSON_Parse(tab + 1)) == NULL)
		return -1;
	if (*o == NULL)
		*o = qe_json_check(cJSON_CreateObject());
	cJSON_DeleteItemFromObjectCaseSensitive(*o, v);
	cJSON_AddItemToObject(*o, v, j);
	return 0;
}

/* A number field >= 0 into *d; -1 when not. */
static int
seconds(const char *s, double *d)
{
	char *end;

	*d = strtod(s, &end);
	return end != s && *end == '\0' && isfinite(*d) && *d >= 0 ? 0 : -1;
}

/* One string-valued key of the run line; 1 when k is not one of them. */
static int
string_key(struct run *r, const char *k, const char *v)
{
	char **at = strcmp(k, "document") == 0 ? &r->document : strcmp(k, "source") == 0 ? &r->source :
	    strcmp(k, "version") == 0 ? &r->version : strcmp(k, "arm") == 0 ? &r->arm :
	    strcmp(k, "error") == 0 ? &r->error : strcmp(k, "values") == 0 ? &r->values : NULL;

	if (at == NULL)
		return 1;
	free(*at);
	*at = qe_xstrdup(v);
	if (at == &r->arm && r->env == NULL)
		r->env = qe_json_check(cJSON_CreateObject());
	return 0;
}

/* One "key<TAB>value" of the run line into r; -1 when it is not one. */
static int
run_key(struct run *r, const char *k, char *v)
{
	char *eq, *tab;
	long n;

	if (string_key(r, k, v) == 0)
		return 0;
	if (strcmp(k, "replicate") == 0 || strcmp(k, "order") == 0) {
		*(strcmp(k, "order") == 0 ? &r->order : &r->replicate) = n = whole(v);
		return n < 0 ? -1 : 0;
	}
	if (strcmp(k, "wall") == 0 || strcmp(k, "capture") == 0)
		return seconds(v, strcmp(k, "wall") == 0 ? &r->wall : &r->capture);
	if (strcmp(k, "timed_out") == 0) {	/* the runner shut the kernel down at its bound */
		double bound;

		if (seconds(v, &bound) < 0)
			return -1;
		free(r->error);
		if (asprintf(&r->error, "timed out after %g s", bound) < 0)
			qe_mem_oom();
		return 0;
	}
	if (strcmp(k, "warm") == 0 || strcmp(k, "definition") == 0 || strcmp(k, "profile") == 0) {
		if ((n = whole(v)) < 0)
			return -1;
		ords_add(k[0] == 'w' ? &r->warmed : k[0] == 'd' ? &r->definition : &r->profile, n);
		return 0;
	}
	if (strcmp(k, "pass") == 0) {	/* what the run was: timed, warm, profile */
		r->warm = strcmp(v, "warm") == 0;
		r->profiled = strcmp(v, "profile") == 0;
		return r->warm || r->profiled || strcmp(v, "timed") == 0 ? 0 : -1;
	}
	if (strcmp(k, "warm_error") == 0) {
		if ((tab = strchr(v, '\t')) == NULL)
			return -1;
		*tab = '\0';
		free(r->warm_error);
		r->warm_error = qe_xstrdup(tab + 1);
		return (r->warm_error_cell = whole(v)) < 0 ? -1 : 0;
	}
	if (strcmp(k, "profile_cell") == 0) {
		r->profile_cells = qe_xrealloc(r->profile_cells, (r->nprofile_cells + 1) * sizeof(char *));
		r->profile_cells[r->nprofile_cells++] = qe_xstrdup(v);
		return 0;
	}
	if (strcmp(k, "env") == 0 && (eq = strchr(v, '=')) != NULL) {
		*eq = '\0';
		if (r->env == NULL)
			r->env = qe_json_check(cJSON_CreateObject());
		qe_json_check(cJSON_AddStringToObject(r->env, v, eq + 1));
		return 0;
	}
	if (strcmp(k, "sweep") == 0)
		return named_value(&r->sweep, v);
	if (strcmp(k, "own") == 0)
		return named_value(&r->own, v);
	return -1;
}

/* Read DIR/run into r; -1 after a message. */
static int
run_read(struct run *r, const char *dir)
{
	char *path, *text, *line, *next, *tab;
	size_t len;
	long n = 0;
	int bad = 0;

	memset(r, 0, sizeof *r);
	r->dir = dir;
	r->replicate = r->order = r->warm_error_cell = -1;
	r->wall = r->capture = NAN;
	if (asprintf(&path, "%s/run", dir) < 0)
		qe_mem_oom();
	if ((text = qe_file_slurp(path, RUN_MAX_BYTES, &len)) == NULL) {
		qe_file_warn(path);
		free(path);
		return -1;
	}
	for (line = text; line < text + len && !bad; line = next) {
		next = memchr(line, '\n', (size_t)(text + len - line));
		next = next ? (*next = '\0', next + 1) : text + len;
		n++;
		if ((tab = strchr(line, '\t')) == NULL || (*tab = '\0', run_key(r, line, tab + 1) < 0)) {
			warnx("%s:%ld: not a run line field ('%s')", path, n, line);
			bad = 1;
		}
	}
	if (!bad && (r->document == NULL || r->source == NULL || r->replicate < 0 || r->order < 0)) {
		warnx("%s: the run line lacks document, source, replicate or order", path);
		bad = 1;
	}
	free(text);
	free(path);
	return bad ? -1 : 0;
}

/* The NDJSON records in b, parsed, into *out (a cJSON array). */
static cJSON *
records_of(const struct qe_buf *b)
{
	cJSON *arr = qe_json_check(cJSON_CreateArray()), *rec;
	const char *p = b->data, *end = p ? p + b->len : NULL, *nl;

	while (p != NULL && p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if ((rec = cJSON_ParseWithLength(p, (size_t)((nl ? nl : end) - p))) != NULL)
			cJSON_AddItemToArray(arr, rec);
		p = nl ? nl + 1 : NULL;
	}
	return arr;
}

/* Set key of rec to v (replacing it in place, or appended). */
static void
put(cJSON *rec, const char *key, cJSON *v)
{
	qe_json_check(v);
	if (cJSON_GetObjectItemCaseSensitive(rec, key) != NULL)
		cJSON_ReplaceItemInObjectCaseSensitive(rec, key, v);
	else
		cJSON_AddItemToObject(rec, key, v);
}

static cJSON *
rounded(double v)
{
	return isfinite(v) ? cJSON_CreateNumber(qe_jw_round(v, 6)) : cJSON_CreateNull();
}

/* A copy of rec's key, or null. */
static cJSON *
copy_or_null(const cJSON *rec, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(rec, key);

	return v ? cJSON_Duplicate(v, 1) : cJSON_CreateNull();
}

/* The records of a notebook file of the run: nbfile's with the hook log. */
static cJSON *
notebook_records(struct qe_runs *x, const struct run *r, const char *nbfile, int until_mark,
    int failed)
{
	struct qe_hooklog hooks = { .until_mark = until_mark };
	struct qe_nbctx nb = { .where = failed ? r->source : nbfile, .document = r->document,
	    .input = "ipynb", .pk = -1, .current = -1, .stable_ids = 1,
	    .execution_seconds = failed || until_mark ? r->wall : NAN,
	    .stale_margin_us = x->stale_margin_us, .hooks = &hooks };
	struct qe_buf out = { 0 }, bwhere = { 0 };
	char *log, *bytes;
	size_t len;
	cJSON *recs;

	if (asprintf(&log, "%s/hook.log", r->dir ? r->dir : ".") < 0)
		qe_mem_oom();
	/* a cache's notebook (qe-replicate -d) is named as the cache's records name it */
	if (!failed)
		qe_buildnb_stored(x->max_notebook, r->source, &bwhere, &nb);
	if (failed)
		qe_nbrecord_failed(&nb, r->error, &out);
	else if (r->dir != NULL && qe_hooklog_load(&hooks, log) != QE_EXIT_OK)
		x->problems++;
	if (!failed && (bytes = qe_file_slurp(nbfile, x->max_notebook, &len)) == NULL) {
		qe_file_warn(nbfile);
		x->problems++;
	} else if (!failed && qe_nbrecord_notebook(&nb, bytes, len, free, &out) < 0)
		x->problems++;
	x->problems += nb.problems;
	recs = records_of(&out);
	free(nb.build_bytes);	/* not handed over when the notebook was not read */
	qe_buf_free(&bwhere);
	qe_buf_free(&out);
	qe_hooklog_free(&hooks);
	free(log);
	return recs;
}

/* A cell record's "index" (its code-cell ordinal), -1 when it has none. */
static long
ordinal_of(const cJSON *c)
{
	double v = qe_json_num(c, "index");

	return v >= 0 && v < 1e9 ? (long)v : -1;
}

/* The n-th cell record of recs (0-based among cells), or NULL. */
static cJSON *
nth_cell(cJSON *recs, long n)
{
	cJSON *rec;

	cJSON_ArrayForEach(rec, recs)
		if (qe_mem_streq(qe_json_str(rec, "kind"), "cell") && n-- == 0)
			return rec;
	return NULL;
}

/* warm_s, compile_s, warm_note (and warm_error) of cell record c, warm its copy's record. */
static void
warm_cell(const struct run *r, cJSON *c, const cJSON *warm)
{
	const char *st = qe_json_str(c, "status");
	long index = ordinal_of(c);
	double cold = qe_json_num(c, "duration_s"), w = warm ? qe_json_num(warm, "duration_s") : NAN;
	const char *note = NULL;

	put(c, "warm_s", cJSON_CreateNull());
	put(c, "compile_s", cJSON_CreateNull());
	put(c, "warm_note", cJSON_CreateNull());
	if (!qe_mem_streq(st, "ok") && !qe_mem_streq(st, "error"))
		return;	/* never sent to the kernel */
	if (r->warm_error != NULL && index == r->warm_error_cell) {
		put(c, "warm_note", cJSON_CreateString("raised"));
		put(c, "warm_error", cJSON_CreateString(r->warm_error));
		return;
	}
	note = ords_has(&r->definition, index) ? "definition" : !isfinite(w) ? "not-run" : NULL;
	if (note != NULL) {
		put(c, "warm_note", cJSON_CreateString(note));
		return;
	}
	put(c, "warm_s", cJSON_CreateNumber(w));
	if (isfinite(cold))
		put(c, "compile_s", rounded(cold - w));
}

/* The warm pass's fields: each cell's, and the notebook's warm_seconds. */
static void
warm_fields(struct qe_runs *x, const struct run *r, cJSON *recs, cJSON *nbrec)
{
	char *wfile;
	cJSON *again, *c, *copy;
	long ncode = 0, missed = 0;
	double sum = 0;

	if (asprintf(&wfile, "%s/warm.ipynb", r->dir) < 0)
		qe_mem_oom();
	again = notebook_records(x, r, wfile, 0, 0);
	cJSON_ArrayForEach(c, recs)
		ncode += qe_mem_streq(qe_json_str(c, "kind"), "cell");
	cJSON_ArrayForEach(c, recs) {
		long index = ordinal_of(c);
		size_t k;

		if (!qe_mem_streq(qe_json_str(c, "kind"), "cell"))
			continue;
		for (k = 0; k < r->warmed.n && r->warmed.v[k] != index; k++)
			;
		copy = k < r->warmed.n ? nth_cell(again, ncode + (long)k) : NULL;
		warm_cell(r, c, copy);
		if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(c, "warm_s")))
			sum += qe_json_num(c, "warm_s");
		else if (!qe_mem_streq(qe_json_str(c, "warm_note"), "definition") &&
		    (qe_mem_streq(qe_json_str(c, "status"), "ok") || qe_mem_streq(qe_json_str(c, "status"), "error")))
			missed++;
	}
	put(nbrec, "warm_error", r->warm_error ? cJSON_CreateString(r->warm_error) : cJSON_CreateNull());
	put(nbrec, "warm_seconds", r->warm_error || missed ? cJSON_CreateNull() : rounded(sum));
	cJSON_Delete(again);
	free(wfile);
}

/*
 * The captured values: --compare's summaries (values.json, an array), then
 * each labelled cell's (cells.ndjson); null when the captures were asked
 * for and did not come back (the run failed, or a capture raised).
 */
static cJSON *
values_of(const struct run *r)
{
	char *vf, *cf, *text;
	size_t len;
	cJSON *got = NULL;
	struct qe_buf b = { 0 };

	if (asprintf(&vf, "%s/values.json", r->dir) < 0 || asprintf(&cf, "%s/cells.ndjson", r->dir) < 0)
		qe_mem_oom();
	if (r->error != NULL)
		;
	else if (strcmp(r->values, "compare") != 0)
		got = qe_json_check(cJSON_CreateArray());
	else if ((text = qe_file_slurp(vf, RUN_MAX_BYTES, &len)) != NULL) {
		got = cJSON_ParseWithLength(text, len);
		free(text);
		if (!cJSON_IsArray(got)) {
			cJSON_Delete(got);
			got = NULL;
		}
	}
	if (got != NULL && qe_file_read(cf, RUN_MAX_BYTES, &b) == 0) {
		cJSON *lines = records_of(&b), *one;

		while ((one = cJSON_DetachItemFromArray(lines, 0)) != NULL)
			cJSON_AddItemToArray(got, one);
		cJSON_Delete(lines);
	}
	qe_buf_free(&b);
	free(vf);
	free(cf);
	return got ? got : qe_json_check(cJSON_CreateNull());
}

/* What every record of the run carries: version, replicate, order, arm, sweep. */
static void
run_tag(const struct run *r, cJSON *rec, int notebook)
{
	put(rec, "document", cJSON_CreateString(r->document));
	if (r->version != NULL)
		put(rec, "version", cJSON_CreateString(r->version));
	put(rec, "replicate", cJSON_CreateNumber((double)r->replicate));
	put(rec, "run_order", cJSON_CreateNumber((double)r->order));
	if (r->arm != NULL)
		put(rec, "arm", cJSON_CreateString(r->arm));
	if (notebook && r->arm != NULL)
		put(rec, "arm_env", cJSON_Duplicate(r->env, 1));
	if (notebook && r->values != NULL) {
		put(rec, "values", values_of(r));
		if (cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(rec, "values")))
			put(rec, "capture_seconds", rounded(isfinite(r->capture) ? r->capture : 0));
	}
}

/* A timed run's records: the notebook's, tagged; the warm pass's fields. */
static cJSON *
timed_records(struct qe_runs *x, const struct run *r)
{
	char *nbfile;
	cJSON *recs, *rec, *nbrec = NULL;

	if (asprintf(&nbfile, "%s/notebook.ipynb", r->dir) < 0)
		qe_mem_oom();
	recs = notebook_records(x, r, nbfile, 1, r->error != NULL);
	free(nbfile);
	cJSON_ArrayForEach(rec, recs) {
		int isnb = qe_mem_streq(qe_json_str(rec, "kind"), "notebook");

		if (isnb && nbrec == NULL)
			nbrec = rec;
		if (isnb && r->error == NULL)
			put(rec, "path", cJSON_CreateString(r->source));
		if (!isnb)	/* the build's output digest: one normaliser, the extraction's */
			put(rec, "result_sha256", copy_or_null(rec, "output_sha256"));
		run_tag(r, rec, isnb);
	}
	if (r->warm && r->error == NULL && nbrec != NULL)
		warm_fields(x, r, recs, nbrec);
	cJSON_ArrayForEach(rec, recs) {
		if (r->sweep != NULL)
			put(rec, "sweep", cJSON_Duplicate(r->sweep, 1));
		if (r->sweep != NULL && qe_mem_streq(qe_json_str(rec, "kind"), "notebook"))
			put(rec, "lecture_parameters", r->own ? cJSON_Duplicate(r->own, 1) :
			    cJSON_CreateObject());
	}
	return recs;
}

/* rec as a line of out, through the one writer. */
static void
append(struct qe_buf *out, const cJSON *rec)
{
	char *s = qe_json_print(rec);

	qe_buf_adds(out, s);
	qe_buf_addc(out, '\n');
	cJSON_free(s);
}

/* One row of cProfile's (profile/N.tsv): file, line, function, calls, own, cumulative. */
struct prow {
	char *file, *fn;
	long line, calls;
	double own, cum;
};

static int
prow_cmp(const void *a, const void *b)
{
	const struct prow *x = a, *y = b;
	int c;

	if (x->cum != y->cum)
		return x->cum > y->cum ? -1 : 1;
	if ((c = strcmp(x->file, y->file)) != 0)
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return strcmp(x->fn, y->fn);
}

/*
 * A profiled function's file as shown: "cell" for the notebook's own cells
 * (%%prun compiles a cell as <string>, ipykernel to a file of its own),
 * null for a builtin ("~"), else its last two path components.
 */
static cJSON *
shown_file(const char *file)
{
	const char *p = file + strlen(file);
	int slashes = 0;

	if (strcmp(file, "~") == 0)
		return cJSON_CreateNull();
	if (strcmp(file, "<string>") == 0 || strstr(file, "ipykernel_") != NULL)
		return cJSON_CreateString("cell");
	while (p > file && slashes < 2)
		slashes += *--p == '/';
	return cJSON_CreateString(p + (*p == '/'));
}

/* Parse the rows of a profile file; the count, or -1 after a message. */
static long
prow_read(const char *path, struct prow **rows, char **text)
{
	size_t len, cap = 0, n = 0;
	char *line, *next, *f[6];

	if ((*text = qe_file_slurp(path, RUN_MAX_BYTES, &len)) == NULL) {
		qe_file_warn(path);
		return -1;
	}
	*rows = NULL;
	for (line = *text; line < *text + len; line = next) {
		next = memchr(line, '\n', (size_t)(*text + len - line));
		next = next ? (*next = '\0', next + 1) : *text + len;
		f[0] = line;
		for (int k = 1; k < 6; k++)
			if ((f[k] = f[k - 1] ? strchr(f[k - 1], '\t') : NULL) != NULL)
				*f[k]++ = '\0';
		if (f[5] == NULL) {
			warnx("%s:%zu: not a profile row (6 tab-separated fields)", path, n + 1);
			free(*rows);
			free(*text);
			return -1;
		}
		*rows = qe_mem_grow(*rows, n, &cap, sizeof **rows, 64);
		(*rows)[n++] = (struct prow){ f[0], f[2], strtol(f[1], NULL, 10), strtol(f[3], NULL, 10),
		    strtod(f[4], NULL), strtod(f[5], NULL) };
	}
	return (long)n;
}

/* The profile record of cell record c: its top functions by cumulative time. */
static void
profile_record(struct qe_runs *x, const struct run *r, const cJSON *c, const char *name,
    struct qe_buf *out)
{
	long index = ordinal_of(c), n;
	char *path, *text;
	struct prow *rows;
	double total = 0;
	cJSON *rec, *fns;

	if (asprintf(&path, "%s/profile/%ld.tsv", r->dir, index) < 0)
		qe_mem_oom();
	if (qe_file_regular(path) != 0 || (n = prow_read(path, &rows, &text)) < 0) {
		x->problems += qe_file_regular(path) == 0;
		free(path);
		return;	/* the cell was not profiled (a cell magic of its own, or empty) */
	}
	for (long i = 0; i < n; i++)
		total += rows[i].own;
	qsort(rows, (size_t)n, sizeof *rows, prow_cmp);
	rec = qe_json_record_new("profile");
	qe_json_check(cJSON_AddStringToObject(rec, "document", r->document));
	put(rec, "version", r->version ? cJSON_CreateString(r->version) : cJSON_CreateNull());
	put(rec, "index", cJSON_CreateNumber((double)index));
	put(rec, "name", name ? cJSON_CreateString(name) : cJSON_CreateNull());
	put(rec, "cell_s", copy_or_null(c, "duration_s"));
	put(rec, "profile_s", rounded(total));
	fns = qe_json_check(cJSON_AddArrayToObject(rec, "functions"));
	for (long i = 0; i < n && i < PROFILE_TOP; i++) {
		cJSON *f = qe_json_check(cJSON_CreateObject());

		qe_json_check(cJSON_AddStringToObject(f, "function", rows[i].fn));
		put(f, "file", shown_file(rows[i].file));
		put(f, "line", cJSON_CreateNumber((double)rows[i].line));
		put(f, "calls", cJSON_CreateNumber((double)rows[i].calls));
		put(f, "own_s", rounded(rows[i].own));
		put(f, "cumulative_s", rounded(rows[i].cum));
		cJSON_AddItemToArray(fns, f);
	}
	append(out, rec);
	cJSON_Delete(rec);
	free(rows);
	free(text);
	free(path);
}

/* Whether cell record c is one to profile: a flagged ordinal, or named (label, name, 1-based number). */
static int
wanted(const struct run *r, const cJSON *c, const char *name)
{
	long index = ordinal_of(c);
	char number[32];

	if (ords_has(&r->profile, index))
		return 1;
	snprintf(number, sizeof number, "%ld", index + 1);
	for (size_t i = 0; i < r->nprofile_cells; i++)
		if (qe_mem_streq(r->profile_cells[i], qe_json_str(c, "label")) ||
		    qe_mem_streq(r->profile_cells[i], name) || strcmp(r->profile_cells[i], number) == 0)
			return 1;
	return 0;
}

/*
 * A profile run's records: a profile record for each cell wanted, named as
 * the lecture's own notebook names it (the run's cells carry %%prun).
 */
static void
profile_records(struct qe_runs *x, const struct run *r, struct qe_buf *out)
{
	char *nbfile;
	cJSON *recs, *own, *c;

	if (asprintf(&nbfile, "%s/notebook.ipynb", r->dir) < 0)
		qe_mem_oom();
	recs = notebook_records(x, r, nbfile, 1, 0);
	own = notebook_records(x, r, r->source, 0, 0);
	cJSON_ArrayForEach(c, recs) {
		const cJSON *o;
		const char *name;

		if (!qe_mem_streq(qe_json_str(c, "kind"), "cell"))
			continue;
		o = nth_cell(own, ordinal_of(c));
		name = o ? qe_json_str(o, "name") : NULL;
		if (wanted(r, c, name))
			profile_record(x, r, c, name, out);
	}
	cJSON_Delete(recs);
	cJSON_Delete(own);
	free(nbfile);
}

int
qe_runs_is_run(const char *dir)
{
	char *path;
	int yes;

	if (asprintf(&path, "%s/run", dir) < 0)
		qe_mem_oom();
	yes = qe_file_regular(path) == 0;
	free(path);
	return yes;
}

void
qe_runs_extract_run(struct qe_runs *x, const char *dir)
{
	struct run r;
	struct qe_buf out = { 0 };
	cJSON *recs, *rec;

	if (run_read(&r, dir) < 0) {
		x->problems++;
		run_free(&r);
		return;
	}
	if (r.profiled && r.error == NULL)
		profile_records(x, &r, &out);
	else if (r.profiled)
		;	/* a failed profile run profiled nothing (the runner said so) */
	else {
		recs = timed_records(x, &r);
		cJSON_ArrayForEach(rec, recs)
			append(&out, rec);
		cJSON_Delete(recs);
	}
	x->emit(&out);
	qe_buf_free(&out);
	run_free(&r);
}

static int
dir_only(const struct dirent *e)
{
	return e->d_name[0] != '.';
}

void
qe_runs_extract(struct qe_runs *x, const char *dir)
{
	struct dirent **e;
	int n;

	if (qe_runs_is_run(dir)) {
		qe_runs_extract_run(x, dir);
		return;
	}
	if ((n = scandir(dir, &e, dir_only, alphasort)) < 0) {
		warn("%s", dir);
		x->problems++;
		return;
	}
	for (int i = 0; i < n; i++) {
		char *sub;

		if (asprintf(&sub, "%s/%s", dir, e[i]->d_name) < 0)
			qe_mem_oom();
		if (qe_runs_is_run(sub))
			qe_runs_extract_run(x, sub);
		free(sub);
		free(e[i]);
	}
	free(e);
}

int
qe_runs_labels(struct qe_runs *x, const char *nbfile, struct qe_buf *out)
{
	struct run r = { .dir = NULL, .document = (char *)"", .source = (char *)nbfile };
	cJSON *recs = notebook_records(x, &r, nbfile, 0, 0), *c;
	int problems = x->problems;

	cJSON_ArrayForEach(c, recs) {
		const char *name = qe_json_str(c, "name");

		if (qe_mem_streq(qe_json_str(c, "kind"), "cell") && qe_json_str(c, "label") != NULL &&
		    name != NULL) {
			qe_buf_addf(out, "%ld", ordinal_of(c));
			qe_buf_add(out, "", 1);
			qe_buf_add(out, name, strlen(name) + 1);
		}
	}
	cJSON_Delete(recs);
	return x->problems > problems ? -1 : 0;
}
