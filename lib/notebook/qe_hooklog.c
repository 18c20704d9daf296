/* The capture hook's log and the join of notebooks to kernel runs (qe_hooklog.h). */
#include <err.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qe_mem.h"
#include "qe_json.h"
#include "qe_ndjson.h"
#include "qe_docname.h"
#include "qe_hooklog.h"

static struct qe_hook_cell *
cell_for(struct qe_hook_run *r, long seq)
{
	for (size_t i = r->n; i-- > 0;)
		if (r->c[i].seq == seq)
			return &r->c[i];
	r->c = qe_xrealloc(r->c, (r->n + 1) * sizeof *r->c);
	memset(&r->c[r->n], 0, sizeof *r->c);
	r->c[r->n].seq = seq;
	return &r->c[r->n++];
}

static struct qe_hook_run *
run_for(struct qe_hooklog *log, const char *id, const char *cwd)
{
	struct qe_hook_run *r;

	for (size_t i = log->n; i-- > 0;)
		if (strcmp(log->runs[i].id, id) == 0) {
			if (log->runs[i].cwd == NULL && cwd != NULL)	/* first seen in an env line */
				log->runs[i].cwd = qe_xstrdup(cwd);
			return &log->runs[i];
		}
	log->runs = qe_xrealloc(log->runs, (log->n + 1) * sizeof *log->runs);
	r = memset(&log->runs[log->n++], 0, sizeof *log->runs);
	r->id = qe_xstrdup(id);
	r->cwd = cwd ? qe_xstrdup(cwd) : NULL;
	return r;
}

/* The fields of a start (isend 0) or end record are there and well-formed. */
static int
well_formed(const cJSON *rec, int isend, struct qe_time *start, struct qe_time *end)
{
	const char *dg = qe_json_str(rec, "source_sha256");
	const cJSON *seq = cJSON_GetObjectItemCaseSensitive(rec, "seq");
	const cJSON *dur = cJSON_GetObjectItemCaseSensitive(rec, "duration_s");

	return qe_json_str(rec, "run") != NULL && cJSON_IsNumber(seq) && seq->valuedouble >= 1 &&
	    seq->valuedouble <= 1e12 && dg != NULL && strlen(dg) == 64 &&
	    strspn(dg, "0123456789abcdef") == 64 && qe_json_time(rec, "start", start) &&
	    (!isend || (qe_json_time(rec, "end", end) && cJSON_IsNumber(dur) &&
	    isfinite(dur->valuedouble) && dur->valuedouble >= 0));
}

/* A memory field of an end line: bytes, or -1 when absent, null or not a count. */
static int64_t
mem_bytes(const cJSON *rec, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(rec, key);

	return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 9e15 ?
	    (int64_t)v->valuedouble : -1;
}

/* An end line's recompile audit (jit_compiles, jit_compile_s, jit_functions) into c. */
static void
jit_of(struct qe_hook_cell *c, const cJSON *rec)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(rec, "jit_compile_s");
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(rec, "jit_functions");

	c->jit_n = mem_bytes(rec, "jit_compiles");
	c->jit_s = c->jit_n >= 0 && cJSON_IsNumber(s) && s->valuedouble >= 0 ? s->valuedouble : 0;
	cJSON_Delete(c->jit_fn);
	c->jit_fn = c->jit_n >= 0 && cJSON_IsObject(f) ? qe_json_check(cJSON_Duplicate(f, 1)) : NULL;
}

/* An "env" line: what the kernel runs with; the run keeps the last one. */
static int
env_line(struct qe_hooklog *log, const cJSON *rec, const char *file, long line)
{
	const char *id = qe_json_str(rec, "run");
	const cJSON *env = cJSON_GetObjectItemCaseSensitive(rec, "env");
	struct qe_hook_run *r;

	if (id == NULL || !cJSON_IsObject(env)) {
		warnx("%s:%ld: hook env record with a missing or bad 'run' or 'env'", file, line);
		return -1;
	}
	r = run_for(log, id, NULL);
	cJSON_Delete(r->env);
	r->env = qe_json_check(cJSON_Duplicate(env, 1));
	return 0;
}

static int
hook_line(cJSON *rec, const char *file, long line, void *ctx)
{
	struct qe_hooklog *log = ctx;
	const char *ev = qe_json_str(rec, "event"), *id = qe_json_str(rec, "run");
	const char *dg = qe_json_str(rec, "source_sha256");
	struct qe_time start, end;
	struct qe_hook_run *r;
	struct qe_hook_cell *c;
	int isend;

	if (log->marked)
		return 0;	/* past the mark: the warm pass, not asked for */
	if (ev != NULL && strcmp(ev, "mark") == 0 && cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(rec, "qe_hook"))) {
		log->marked = log->until_mark;
		return 0;
	}
	if (!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(rec, "qe_hook")) || ev == NULL ||
	    (strcmp(ev, "start") != 0 && strcmp(ev, "end") != 0 && strcmp(ev, "env") != 0)) {
		warnx("%s:%ld: not a qe hook record", file, line);
		return -1;
	}
	if (strcmp(ev, "env") == 0)
		return env_line(log, rec, file, line);
	isend = strcmp(ev, "end") == 0;
	if (!well_formed(rec, isend, &start, &end)) {
		warnx("%s:%ld: hook record with a missing or bad 'run', 'seq', 'source_sha256', 'start', 'end' or 'duration_s'",
		    file, line);
		return -1;
	}
	r = run_for(log, id, qe_json_str(rec, "cwd"));
	if (!r->has_kernel_start && qe_json_time(rec, "kernel_start", &r->kernel_start))
		r->has_kernel_start = 1;
	if (r->document == NULL && qe_json_str(rec, "document") != NULL)
		r->document = qe_xstrdup(qe_json_str(rec, "document"));
	c = cell_for(r, (long)cJSON_GetObjectItemCaseSensitive(rec, "seq")->valuedouble);
	if (c->has_start && strcmp(c->digest, dg) != 0) {
		warnx("%s:%ld: run '%s' cell %ld: digest differs from its start record", file, line, id, c->seq);
		return -1;
	}
	memcpy(c->digest, dg, QE_SHA256_HEX);
	c->start = start;
	c->has_start = 1;
	if (isend) {
		c->end = end;
		c->us = llround(cJSON_GetObjectItemCaseSensitive(rec, "duration_s")->valuedouble * 1e6);
		c->success = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "success"));
		c->rss = mem_bytes(rec, "rss_bytes");
		c->peak_growth = mem_bytes(rec, "peak_growth_bytes");
		jit_of(c, rec);
		c->has_end = 1;
	}
	return 0;
}

static int
cell_cmp(const void *a, const void *b)
{
	const struct qe_hook_cell *x = a, *y = b;

	return (x->seq > y->seq) - (x->seq < y->seq);
}

int
qe_hooklog_load(struct qe_hooklog *log, const char *path)
{
	char *argv1[] = { (char *)path };
	int st;

	log->path = path;
	st = qe_ndjson_each(1, argv1, hook_line, log);
	for (size_t i = 0; i < log->n; i++)
		qsort(log->runs[i].c, log->runs[i].n, sizeof *log->runs[i].c, cell_cmp);
	return st;
}

/* 1 if run r executed the wanted cells (or the prefix of a failed run). */
static int
same_cells(const struct qe_hook_run *r, const struct qe_hook_want *w)
{
	const struct qe_hook_cell *last;
	size_t k;

	if (r->n == 0 || r->n > w->n)
		return 0;
	for (k = 0; k < r->n; k++)
		if (r->c[k].seq != (long)k + 1 || strcmp(r->c[k].digest, w->digest[k]) != 0)
			return 0;
	last = &r->c[r->n - 1];
	if (r->n < w->n && (w->window->have_created || !last->has_end || last->success))
		return 0;	/* a cached notebook ran to the end */
	if (w->window->exec_us >= 0 &&
	    qe_timing_window_outside(w->window, &r->c[0].start, last->has_end ? &last->end : NULL))
		return 0;
	return 1;
}

/* The notebook's folder, to compare with a kernel's working directory. */
static char *
want_dir(const struct qe_hook_want *w)
{
	const char *p = w->uri ? w->uri : w->path;
	char *real, *dir;

	if (p == NULL)
		return NULL;
	real = w->uri ? NULL : realpath(p, NULL);
	p = real ? real : p;
	dir = qe_xstrndup(p, qe_docname_dir_len(p));
	free(real);
	return dir;
}

/* 1 when run a's kernel started after run b's. */
static int
newer(const struct qe_hook_run *a, const struct qe_hook_run *b)
{
	return a->has_kernel_start && b->has_kernel_start &&
	    qe_time_diff_us(&b->kernel_start, &a->kernel_start) > 0;
}

const char *
qe_hooklog_docpath(const char *doc, const char *root)
{
	size_t n = root ? strlen(root) : 0;

	if (doc[0] != '/')
		return doc;
	if (n > 0 && strncmp(doc, root, n) == 0 && doc[n] == '/' && doc[n + 1] != '\0')
		return doc + n + 1;
	return NULL;
}

/* A run's interval: its first cell's start to its last cell's end; 0 without one. */
static int
interval(const struct qe_hook_run *r, struct qe_time *a, struct qe_time *b)
{
	int have = 0;

	for (size_t k = 0; k < r->n; k++) {
		const struct qe_hook_cell *c = &r->c[k];

		if (!c->has_start)
			continue;
		if (!have || qe_time_diff_us(a, &c->start) < 0)
			*a = c->start;
		if (!have || qe_time_diff_us(b, c->has_end ? &c->end : &c->start) > 0)
			*b = c->has_end ? c->end : c->start;
		have = 1;
	}
	return have;
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void
qe_hooklog_beside(const struct qe_hooklog *log, const struct qe_hook_run *run, const char *root,
    cJSON *names)
{
	struct qe_time a, b, c, d;
	char **v = qe_xcalloc(log->n + 1, sizeof *v);
	const char *own = run->document ? qe_hooklog_docpath(run->document, root) : NULL;
	size_t n = 0;

	if (own == NULL || !interval(run, &a, &b))
		goto out;
	for (size_t i = 0; i < log->n; i++) {
		const struct qe_hook_run *r = &log->runs[i];
		const char *p = r->document ? qe_hooklog_docpath(r->document, root) : NULL;
		size_t len;

		/* overlapping: each starts before the other ends */
		if (r == run || r->old || p == NULL || strcmp(p, own) == 0 || !interval(r, &c, &d) ||
		    qe_time_diff_us(&c, &b) <= 0 || qe_time_diff_us(&a, &d) <= 0)
			continue;
		len = strlen(p);
		for (size_t k = len; k-- > 0 && p[k] != '/';)
			if (p[k] == '.') {
				len = k;
				break;
			}
		v[n++] = qe_xstrndup(p, len);
	}
	qsort(v, n, sizeof *v, name_cmp);
	for (size_t i = 0; i < n; i++)
		if (i == 0 || strcmp(v[i], v[i - 1]) != 0)
			cJSON_AddItemToArray(names, qe_json_check(cJSON_CreateString(v[i])));
out:
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

struct qe_hook_run *
qe_hooklog_match(struct qe_hooklog *log, const struct qe_hook_want *w, int *ambiguous)
{
	struct qe_hook_run *found = NULL, *bycwd = NULL;
	size_t nfound = 0, ncwd = 0;
	char *dir;

	*ambiguous = 0;
	if (w->n == 0)
		return NULL;
	dir = want_dir(w);
	for (size_t i = 0; i < log->n; i++) {
		struct qe_hook_run *r = &log->runs[i];

		if (r->old || !same_cells(r, w))
			continue;
		if (w->document != NULL) {
			const char *d = r->document ? qe_hooklog_docpath(r->document, w->root) : NULL;

			if (d == NULL || strcmp(d, w->document) != 0)
				continue;
			if (found == NULL || newer(r, found))
				found = r;
			nfound = 1;
			continue;
		}
		nfound++;
		found = r;
		if (dir && r->cwd && strcmp(r->cwd, dir) == 0) {
			ncwd++;
			bycwd = r;
		}
	}
	free(dir);
	if (nfound > 1 && ncwd == 1)
		return bycwd;
	if (nfound > 1) {
		*ambiguous = 1;
		return NULL;
	}
	return found;
}

const struct qe_hook_cell *
qe_hooklog_unfinished(struct qe_hooklog *log, const char *uri, const struct qe_hook_run **run,
    int *ambiguous)
{
	struct qe_hook_want w = { .uri = uri };
	struct qe_hook_run *found = NULL;
	size_t nfound = 0;
	char *dir = uri ? want_dir(&w) : NULL;

	*ambiguous = 0;
	*run = NULL;
	for (size_t i = 0; dir && i < log->n; i++) {
		struct qe_hook_run *r = &log->runs[i];
		const struct qe_hook_cell *last = r->n ? &r->c[r->n - 1] : NULL;

		if (!r->used && !r->old && last && last->has_start && !last->has_end && r->cwd &&
		    strcmp(r->cwd, dir) == 0)
			found = r, nfound++;
	}
	free(dir);
	if (nfound != 1) {
		*ambiguous = nfound > 1;
		return NULL;
	}
	found->used = 1;
	*run = found;
	return &found->c[found->n - 1];
}

void
qe_hooklog_report_unused(const struct qe_hooklog *log)
{
	for (size_t i = 0; i < log->n; i++) {
		const struct qe_hook_run *r = &log->runs[i];
		const struct qe_hook_cell *last = r->n ? &r->c[r->n - 1] : NULL;

		/* a run that stopped at an error belongs to a failed notebook */
		if (!r->used && !r->old && last && last->has_end && last->success)
			warnx("%s: run '%s' (%zu cell%s, cwd '%s') matches no notebook", log->path,
			    r->id, r->n, r->n == 1 ? "" : "s", r->cwd ? r->cwd : "");
	}
}

size_t
qe_hooklog_drop_before(struct qe_hooklog *log, const struct qe_time *since)
{
	size_t n = 0;

	for (size_t i = 0; i < log->n; i++) {
		struct qe_hook_run *r = &log->runs[i];
		const struct qe_time *t = r->has_kernel_start ? &r->kernel_start :
		    r->n && r->c[0].has_start ? &r->c[0].start : NULL;

		/* qe_time_diff_us(a, b) is b - a: the kernel started before since */
		if (t != NULL && qe_time_diff_us(since, t) < 0) {
			r->old = 1;
			n++;
		}
	}
	return n;
}

void
qe_hooklog_free(struct qe_hooklog *log)
{
	for (size_t i = 0; i < log->n; i++) {
		free(log->runs[i].id);
		free(log->runs[i].cwd);
		free(log->runs[i].document);
		for (size_t k = 0; k < log->runs[i].n; k++)
			cJSON_Delete(log->runs[i].c[k].jit_fn);
		free(log->runs[i].c);
		cJSON_Delete(log->runs[i].env);
	}
	free(log->runs);
	log->runs = NULL;
	log->n = 0;
}
