/*
 * qe-cache-extract - one NDJSON record per notebook and per code cell of a
 * jupyter-cache (directory, or inside a zip/tar artifact), or of notebook
 * files. See man/qe-cache-extract.1 for every rule applied here.
 */
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <openssl/evp.h>
#include <sqlite3.h>

#include "qe.h"

enum { OPT_VERSION = 256, OPT_STALE_MARGIN, OPT_MAX_NOTEBOOK, OPT_MAX_ARCHIVE_ENTRIES,
	OPT_MAX_ARCHIVE_BYTES, OPT_MAX_LINE };

static const struct option longopts[] = {
	{ "all",          no_argument,       NULL, 'a' },
	{ "baseline",     required_argument, NULL, 'b' },
	{ "help",         no_argument,       NULL, 'h' },
	{ "max-notebook", required_argument, NULL, OPT_MAX_NOTEBOOK },
	{ "max-archive-entries", required_argument, NULL, OPT_MAX_ARCHIVE_ENTRIES },
	{ "max-archive-bytes", required_argument, NULL, OPT_MAX_ARCHIVE_BYTES },
	{ "max-line", required_argument, NULL, OPT_MAX_LINE },
	{ "root",         required_argument, NULL, 'r' },
	{ "since",        required_argument, NULL, 's' },
	{ "stale-margin", required_argument, NULL, OPT_STALE_MARGIN },
	{ "timings",      required_argument, NULL, 't' },
	{ "version",      no_argument,       NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 }
};

static int aflag;			/* every cache record, not only the current */
static const char *rootdir;		/* --root, without trailing '/' */
static struct qe_time since;		/* --since */
static int have_since;
static char **baseline_keys;		/* --baseline: sorted hashkeys */
static size_t nbaseline_keys;
static int have_baseline;
static int64_t stale_margin_us = 5000000;
static size_t max_notebook = (size_t)256 << 20;
/* an archive's members, and their sizes added up: bounded work for a bomb */
static double max_archive_entries = 200000;
static double max_archive_bytes = 16.0 * (1 << 30);
static int status = QE_EXIT_OK;

#define FIRST_LINE_MAX 80

static void usage(FILE *fp, int code) __attribute__((noreturn));

static void
usage(FILE *fp, int code)
{
	fprintf(fp, "usage: qe-cache-extract [-ah] [--version] [-b baseline] [-r root] "
	    "[-s time] [-t log]\n"
	    "                        [--stale-margin seconds] [--max-notebook bytes]\n"
	    "                        [--max-archive-entries n] [--max-archive-bytes bytes]\n"
	    "                        [--max-line bytes] [path ...]\n");
	exit(code);
}

static void
trouble(void)
{
	status = QE_EXIT_TROUBLE;
}

/* ---- notebook → records ---------------------------------------------- */

/* What a whole notebook contributes to its cells' judgement. */
struct nbctx {
	const char *where;		/* for messages: path, or archive:member */
	const char *document;
	const char *input;		/* "cache" or "ipynb" */
	const char *uri;		/* cache: nbcache.uri */
	const char *cache_key;		/* NULL for files */
	int64_t pk;			/* cache: nbcache.pk, else -1 */
	int current;			/* -1: omit the field */
	const char *origin;		/* NULL: omit */
	int stable_ids;			/* cell ids identify cells across builds */
	double execution_seconds;	/* NAN when unknown */
	struct qe_time created;		/* cache record: the execution window's end */
	int have_created;
	/* results */
	int code_cells, timed_cells, stale_cells, discarded, untimed_executed;
	double cells_seconds;
	struct qe_time last_end;
	int have_last_end;
	char *failure;			/* first untolerated error, "ename: evalue" */
};

/* Join a nbformat multiline string (string, or list of strings). */
static int
join_text(const cJSON *v, struct qe_buf *out)
{
	const cJSON *it;

	qe_buf_reset(out);
	if (v == NULL || cJSON_IsNull(v))
		return 0;
	if (cJSON_IsString(v)) {
		qe_buf_adds(out, v->valuestring);
		return 0;
	}
	if (!cJSON_IsArray(v))
		return -1;
	cJSON_ArrayForEach(it, v) {
		if (!cJSON_IsString(it))
			return -1;
		qe_buf_adds(out, it->valuestring);
	}
	return 0;
}

/* CR LF and lone CR to LF, then trailing ASCII whitespace off (in place). */
static void
normalise_source(struct qe_buf *b)
{
	size_t i, j;

	for (i = j = 0; i < b->len; i++) {
		if (b->data[i] == '\r') {
			b->data[j++] = '\n';
			if (i + 1 < b->len && b->data[i + 1] == '\n')
				i++;
		} else
			b->data[j++] = b->data[i];
	}
	while (j > 0 && strchr(" \t\n\r\f\v", b->data[j - 1]) != NULL)
		j--;
	b->len = j;
	if (b->data)
		b->data[j] = '\0';
}

/* First non-blank line, trimmed, cut to FIRST_LINE_MAX characters. */
static char *
first_line(const struct qe_buf *src)
{
	const char *p = src->data ? src->data : "", *end = p + src->len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end, *s = p;

		while (s < e && (*s == ' ' || *s == '\t'))
			s++;
		while (e > s && strchr(" \t\f\v", e[-1]) != NULL)
			e--;
		if (e > s) {
			size_t n = 0, chars = 0;
			struct qe_buf out = { 0 };

			/* count characters, not bytes: cut on a UTF-8 boundary */
			while (s + n < e && chars < FIRST_LINE_MAX) {
				n++;
				while (s + n < e && ((unsigned char)s[n] & 0xc0) == 0x80)
					n++;
				chars++;
			}
			qe_buf_add(&out, s, n);
			if (s + n < e)
				qe_buf_adds(&out, "\xe2\x80\xa6");	/* … */
			return out.data;
		}
		p = e == end ? end : (nl ? nl + 1 : end);
	}
	return NULL;
}

static int
cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
md_update_str(EVP_MD_CTX *md, const char *s)
{
	EVP_DigestUpdate(md, s, strlen(s) + 1);	/* the NUL separates fields */
}

/* Digest a multiline string as its joined text, without joining it. */
static void
md_update_value(EVP_MD_CTX *md, const cJSON *v)
{
	const cJSON *it;
	int text = cJSON_IsString(v) || cJSON_IsNull(v) || v == NULL;

	if (cJSON_IsArray(v)) {
		text = 1;
		cJSON_ArrayForEach(it, v)
			text &= cJSON_IsString(it);
	}
	if (text && cJSON_IsString(v))
		EVP_DigestUpdate(md, v->valuestring, strlen(v->valuestring));
	else if (text && cJSON_IsArray(v)) {
		cJSON_ArrayForEach(it, v)
			EVP_DigestUpdate(md, it->valuestring, strlen(it->valuestring));
	} else if (!text) {
		char *s = cJSON_PrintUnformatted(v);

		if (s == NULL)
			qe_json_check(NULL);
		EVP_DigestUpdate(md, s, strlen(s));
		cJSON_free(s);
	}
	EVP_DigestUpdate(md, "", 1);
}

/*
 * Digest what an output shows, never how it was serialised: type, stream
 * name and text, each MIME bundle in key order, error name/value/traceback.
 * execution_count and metadata are left out, so re-running a cell with the
 * same result gives the same digest. Sets *err to the first error output.
 */
static void
output_digest(const cJSON *outputs, char hex[QE_SHA256_HEX], const cJSON **err)
{
	unsigned char d[32];
	unsigned int dl;
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	const cJSON *o;
	static const char digits[] = "0123456789abcdef";

	*err = NULL;
	if (md == NULL || !EVP_DigestInit_ex(md, EVP_sha256(), NULL))
		qe_json_check(NULL);
	cJSON_ArrayForEach(o, (cJSON_IsArray(outputs) ? outputs : NULL)) {
		const char *type = qe_json_str(o, "output_type");
		const cJSON *data;

		md_update_str(md, type ? type : "");
		if (type && strcmp(type, "stream") == 0) {
			const char *name = qe_json_str(o, "name");

			md_update_str(md, name ? name : "");
			md_update_value(md, cJSON_GetObjectItemCaseSensitive(o, "text"));
		} else if (type && strcmp(type, "error") == 0) {
			const char *ename = qe_json_str(o, "ename"), *evalue = qe_json_str(o, "evalue");

			if (*err == NULL)
				*err = o;
			md_update_str(md, ename ? ename : "");
			md_update_str(md, evalue ? evalue : "");
			md_update_value(md, cJSON_GetObjectItemCaseSensitive(o, "traceback"));
		} else if (cJSON_IsObject(data = cJSON_GetObjectItemCaseSensitive(o, "data"))) {
			size_t n = 0, i = 0;
			const cJSON *k;
			char **keys;

			cJSON_ArrayForEach(k, data)
				n++;
			keys = qe_xcalloc(n, sizeof *keys);
			cJSON_ArrayForEach(k, data)
				keys[i++] = k->string;
			qsort(keys, n, sizeof *keys, cmpstr);
			for (i = 0; i < n; i++) {
				md_update_str(md, keys[i]);
				md_update_value(md, cJSON_GetObjectItemCaseSensitive(data, keys[i]));
			}
			free(keys);
		}
		EVP_DigestUpdate(md, "\x1e", 1);	/* record separator between outputs */
	}
	EVP_DigestFinal_ex(md, d, &dl);
	EVP_MD_CTX_free(md);
	for (int i = 0; i < 32; i++) {
		hex[2 * i] = digits[d[i] >> 4];
		hex[2 * i + 1] = digits[d[i] & 15];
	}
	hex[64] = '\0';
}

static int
has_tag(const cJSON *tags, const char *tag)
{
	const cJSON *t;

	cJSON_ArrayForEach(t, (cJSON_IsArray(tags) ? tags : NULL))
		if (cJSON_IsString(t) && strcmp(t->valuestring, tag) == 0)
			return 1;
	return 0;
}

static int
get_time(const cJSON *obj, const char *key, struct qe_time *t)
{
	const char *s = qe_json_str(obj, key);

	return s != NULL && qe_time_parse(s, t) == 0;
}

/* One chosen timing of a cell. */
struct timing {
	const char *source, *method, *note;
	struct qe_time start, end;
	int64_t us;
	int have;
	int approximate;
};

/* b - a; when one stamp is naive and the other zoned, compare wall clocks. */
static int64_t
span(const struct qe_time *a, const struct qe_time *b, int *approximate)
{
	if (a->zone != b->zone) {
		struct qe_time wa = *a, wb = *b;

		wa.sec += a->offset;
		wb.sec += b->offset;
		*approximate = 1;
		return qe_time_diff_us(&wa, &wb);
	}
	return qe_time_diff_us(a, b);
}

static int
pair(struct timing *t, const cJSON *obj, const char *k0, const char *k1,
    const char *source, const char *method)
{
	if (!get_time(obj, k0, &t->start) || !get_time(obj, k1, &t->end))
		return 0;
	t->approximate = 0;
	t->us = span(&t->start, &t->end, &t->approximate);
	t->source = source;
	t->method = method;
	t->have = 1;
	return 1;
}

/*
 * Pick one writer's timing for a cell, in the documented order of
 * preference; never a start from one key family and an end from another.
 */
static void
choose_timing(const cJSON *md, struct timing *t, int64_t *busy_us, int *have_busy)
{
	const cJSON *ex = cJSON_GetObjectItemCaseSensitive(md, "execution");
	const cJSON *pm = cJSON_GetObjectItemCaseSensitive(md, "papermill");
	const cJSON *et = cJSON_GetObjectItemCaseSensitive(md, "ExecuteTime");
	struct qe_time b, i;
	int approx = 0;

	memset(t, 0, sizeof *t);
	*have_busy = 0;
	if (cJSON_IsObject(ex)) {
		const char *src = cJSON_GetObjectItemCaseSensitive(ex, "shell.execute_reply.started") ?
		    "jupyterlab" : "nbclient";

		if (get_time(ex, "iopub.status.busy", &b) && get_time(ex, "iopub.status.idle", &i)) {
			*busy_us = span(&b, &i, &approx);
			*have_busy = *busy_us >= 0;
		}
		if (pair(t, ex, "iopub.execute_input", "shell.execute_reply", src, "input-reply") ||
		    pair(t, ex, "shell.execute_reply.started", "shell.execute_reply", src, "started-reply") ||
		    pair(t, ex, "iopub.status.busy", "iopub.status.idle", src, "busy-idle"))
			return;
	}
	if (cJSON_IsObject(pm)) {
		const cJSON *dur = cJSON_GetObjectItemCaseSensitive(pm, "duration");
		const char *st = qe_json_str(pm, "status");

		if (cJSON_IsNumber(dur) && isfinite(dur->valuedouble) &&
		    (st == NULL || strcmp(st, "pending") != 0)) {
			t->us = llround(dur->valuedouble * 1e6);
			t->source = "papermill";
			t->method = "duration";
			t->have = 1;
			if (!get_time(pm, "start_time", &t->start) || !get_time(pm, "end_time", &t->end))
				t->start.sec = t->end.sec = INT64_MIN;
			return;
		}
	}
	if (cJSON_IsObject(et) && pair(t, et, "start_time", "end_time", "executetime", "start-end"))
		return;
}

static void
add_time(cJSON *o, const char *key, const struct qe_time *t)
{
	char buf[QE_TIME_BUFSZ];

	if (t == NULL || t->sec == INT64_MIN)
		qe_json_check(cJSON_AddNullToObject(o, key));
	else
		qe_json_check(cJSON_AddStringToObject(o, key, qe_time_format(t, buf)));
}

static void
add_num_or_null(cJSON *o, const char *key, int have, double v)
{
	qe_json_check(have ? cJSON_AddNumberToObject(o, key, v) : cJSON_AddNullToObject(o, key));
}

static cJSON *
new_record(const char *kind, const struct nbctx *nb)
{
	cJSON *o = qe_json_check(cJSON_CreateObject());

	qe_json_check(cJSON_AddStringToObject(o, "kind", kind));
	qe_json_check(cJSON_AddNumberToObject(o, "schema_version", QE_SCHEMA_VERSION));
	qe_json_check(cJSON_AddStringToObject(o, "document", nb->document));
	qe_json_check(cJSON_AddStringToObject(o, "input", nb->input));
	return o;
}

static void
add_identity(cJSON *o, const struct nbctx *nb, int notebook)
{
	if (notebook && nb->uri)
		qe_json_check(cJSON_AddStringToObject(o, "uri", nb->uri));
	if (notebook && strcmp(nb->input, "ipynb") == 0)
		qe_json_check(cJSON_AddStringToObject(o, "path", nb->where));
	if (strcmp(nb->input, "cache") == 0)
		qe_json_add_str_or_null(o, "cache_key", nb->cache_key);
	if (notebook && strcmp(nb->input, "cache") == 0)
		add_num_or_null(o, "cache_pk", nb->pk >= 0, (double)nb->pk);
	if (nb->current >= 0)
		qe_json_check(cJSON_AddBoolToObject(o, "current", nb->current));
	if (nb->origin)
		qe_json_check(cJSON_AddStringToObject(o, "origin", nb->origin));
}


/* ---- the capture hook's log (--timings) ---------------------------------- */

static size_t
dir_len(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? (size_t)(s - path) : 0;
}

struct hook_cell {
	long seq;
	char digest[QE_SHA256_HEX];
	struct qe_time start, end;
	int64_t us;
	int has_start, has_end, success;
};

struct hook_run {
	char *id, *cwd;
	struct hook_cell *c;
	size_t n;
	int used;
};

static struct hook_run *runs;
static size_t nruns;
static const char *timings_log;

static struct hook_cell *
hook_cell_for(struct hook_run *r, long seq)
{
	for (size_t i = r->n; i-- > 0;)
		if (r->c[i].seq == seq)
			return &r->c[i];
	r->c = qe_xrealloc(r->c, (r->n + 1) * sizeof *r->c);
	memset(&r->c[r->n], 0, sizeof *r->c);
	r->c[r->n].seq = seq;
	return &r->c[r->n++];
}

static int
hook_line(cJSON *rec, const char *file, long line, void *ctx)
{
	const char *ev = qe_json_str(rec, "event"), *id = qe_json_str(rec, "run");
	const char *dg = qe_json_str(rec, "source_sha256"), *cwd = qe_json_str(rec, "cwd");
	const cJSON *seq = cJSON_GetObjectItemCaseSensitive(rec, "seq");
	const cJSON *dur = cJSON_GetObjectItemCaseSensitive(rec, "duration_s");
	struct qe_time start, end;
	struct hook_run *r = NULL;
	struct hook_cell *c;
	int isend;

	(void)ctx;
	if (!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(rec, "qe_hook")) ||
	    ev == NULL || (strcmp(ev, "start") != 0 && strcmp(ev, "end") != 0)) {
		warnx("%s:%ld: not a qe hook record", file, line);
		return -1;
	}
	isend = strcmp(ev, "end") == 0;
	if (id == NULL || !cJSON_IsNumber(seq) || seq->valuedouble < 1 ||
	    seq->valuedouble > 1e12 || dg == NULL || strlen(dg) != 64 ||
	    strspn(dg, "0123456789abcdef") != 64 || !get_time(rec, "start", &start) ||
	    (isend && (!get_time(rec, "end", &end) || !cJSON_IsNumber(dur) ||
	    !isfinite(dur->valuedouble) || dur->valuedouble < 0))) {
		warnx("%s:%ld: hook record with a missing or bad 'run', 'seq', 'source_sha256', 'start', 'end' or 'duration_s'",
		    file, line);
		return -1;
	}
	for (size_t i = nruns; i-- > 0;)
		if (strcmp(runs[i].id, id) == 0) {
			r = &runs[i];
			break;
		}
	if (r == NULL) {
		runs = qe_xrealloc(runs, (nruns + 1) * sizeof *runs);
		r = memset(&runs[nruns++], 0, sizeof *runs);
		r->id = qe_xstrdup(id);
		r->cwd = cwd ? qe_xstrdup(cwd) : NULL;
	}
	c = hook_cell_for(r, (long)seq->valuedouble);
	if (c->has_start && strcmp(c->digest, dg) != 0) {
		warnx("%s:%ld: run '%s' cell %ld: digest differs from its start record", file, line, id, c->seq);
		return -1;
	}
	memcpy(c->digest, dg, QE_SHA256_HEX);
	c->start = start;
	c->has_start = 1;
	if (isend) {
		c->end = end;
		c->us = llround(dur->valuedouble * 1e6);
		c->success = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "success"));
		c->has_end = 1;
	}
	return 0;
}

static void
free_runs(void)
{
	for (size_t i = 0; i < nruns; i++) {
		free(runs[i].id);
		free(runs[i].cwd);
		free(runs[i].c);
	}
	free(runs);
	runs = NULL;
	nruns = 0;
}

static int
hook_cell_cmp(const void *a, const void *b)
{
	const struct hook_cell *x = a, *y = b;

	return (x->seq > y->seq) - (x->seq < y->seq);
}

static int
load_timings(const char *log)
{
	char *argv1[] = { (char *)log };
	int st = qe_each_record(1, argv1, hook_line, NULL);

	for (size_t i = 0; i < nruns; i++)
		qsort(runs[i].c, runs[i].n, sizeof *runs[i].c, hook_cell_cmp);
	return st;
}

/* The code cells a kernel is sent: not blank, not tagged skip-execution. */
struct expected {
	char (*digest)[QE_SHA256_HEX];
	int *index;
	size_t n;
};

/*
 * Find the one kernel run that executed this notebook: its digests equal the
 * notebook's in order (a prefix ending in a failed cell for a notebook file
 * that stopped at an error), inside the record's execution window; the
 * kernel's working directory breaks ties between identical notebooks.
 * Returns NULL when none or several match (*ambiguous says which).
 */
static struct hook_run *
match_run(const struct nbctx *nb, const struct expected *x, int *ambiguous)
{
	struct hook_run *found = NULL;
	size_t nfound = 0, ncwd = 0;
	struct hook_run *bycwd = NULL;
	char *dir = NULL;

	*ambiguous = 0;
	if (x->n == 0)
		return NULL;
	if (nb->uri || nb->where) {
		const char *p = nb->uri ? nb->uri : nb->where;
		char *real = nb->uri ? NULL : realpath(p, NULL);

		dir = qe_xstrndup(real ? real : p, dir_len(real ? real : p));
		free(real);
	}
	for (size_t i = 0; i < nruns; i++) {
		struct hook_run *r = &runs[i];
		size_t k;

		if (r->n == 0 || r->n > x->n)
			continue;
		for (k = 0; k < r->n; k++)
			if (r->c[k].seq != (long)k + 1 || strcmp(r->c[k].digest, x->digest[k]) != 0)
				break;
		if (k < r->n)
			continue;
		if (r->n < x->n && (nb->have_created || !r->c[r->n - 1].has_end || r->c[r->n - 1].success))
			continue;	/* a cached notebook ran to the end */
		if (nb->have_created && !isnan(nb->execution_seconds)) {
			struct qe_time lo = nb->created;
			int64_t w = llround(nb->execution_seconds * 1e6) + stale_margin_us;

			lo.sec -= w / 1000000;
			lo.nsec -= (int32_t)(w % 1000000) * 1000;
			if (lo.nsec < 0)
				lo.nsec += 1000000000, lo.sec--;
			if (qe_time_diff_us(&lo, &r->c[0].start) < 0 ||
			    (r->c[r->n - 1].has_end &&
			    qe_time_diff_us(&nb->created, &r->c[r->n - 1].end) > stale_margin_us))
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

/* Build one cell record; updates the notebook's tallies. */
static cJSON *
cell_record(struct nbctx *nb, const cJSON *cell, int index, struct qe_buf *src,
    const struct hook_cell *hk, int ambiguous)
{
	const cJSON *md = cJSON_GetObjectItemCaseSensitive(cell, "metadata");
	const cJSON *tags = cJSON_GetObjectItemCaseSensitive(md, "tags");
	const cJSON *outputs = cJSON_GetObjectItemCaseSensitive(cell, "outputs");
	const cJSON *count = cJSON_GetObjectItemCaseSensitive(cell, "execution_count");
	const cJSON *pm = cJSON_GetObjectItemCaseSensitive(md, "papermill");
	const cJSON *errout, *t;
	const char *label, *pmstatus = qe_json_str(pm, "status");
	const char *cstatus, *note = NULL;
	char shex[QE_SHA256_HEX], ohex[QE_SHA256_HEX], *fl;
	struct timing tm;
	int64_t busy_us = 0;
	int have_busy, blank, executed, have_dur = 0, stale = 0;
	cJSON *o = new_record("cell", nb), *arr;

	if (join_text(cJSON_GetObjectItemCaseSensitive(cell, "source"), src) < 0) {
		warnx("%s: code cell %d: 'source' is not a string or a list of strings",
		    nb->where, index);
		trouble();
		qe_buf_reset(src);
	}
	normalise_source(src);
	qe_sha256_hex(src->data ? src->data : "", src->len, shex);
	blank = src->len == 0;
	output_digest(outputs, ohex, &errout);

	add_identity(o, nb, 0);
	qe_json_check(cJSON_AddNumberToObject(o, "index", index));
	qe_json_add_str_or_null(o, "cell_id", nb->stable_ids ? qe_json_str(cell, "id") : NULL);
	label = qe_json_str(md, "name");
	if (label == NULL)
		label = qe_json_str(cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(md, "mystnb"), "figure"), "name");
	qe_json_add_str_or_null(o, "label", label);
	arr = qe_json_check(cJSON_AddArrayToObject(o, "tags"));
	cJSON_ArrayForEach(t, (cJSON_IsArray(tags) ? tags : NULL))
		if (cJSON_IsString(t))
			cJSON_AddItemToArray(arr, qe_json_check(cJSON_CreateString(t->valuestring)));
	qe_json_check(cJSON_AddStringToObject(o, "source_sha256", shex));
	qe_json_check(cJSON_AddStringToObject(o, "output_sha256", ohex));
	fl = first_line(src);
	qe_json_add_str_or_null(o, "first_line", fl);
	free(fl);

	choose_timing(md, &tm, &busy_us, &have_busy);
	if (hk != NULL && hk->has_end) {	/* the in-kernel clock comes first */
		tm.start = hk->start;
		tm.end = hk->end;
		tm.us = hk->us;
		tm.source = "hook";
		tm.method = "in-kernel";
		tm.approximate = 0;
		tm.have = 1;
		have_busy = 0;
	} else if (ambiguous && !tm.have)
		note = "ambiguous";
	executed = cJSON_IsNumber(count) || tm.have ||
	    (cJSON_IsArray(outputs) && cJSON_GetArraySize(outputs) > 0);
	if (has_tag(tags, "skip-execution")) {
		cstatus = "skipped";
		note = "skipped";
	} else if (blank || (pmstatus && strcmp(pmstatus, "pending") == 0) || !executed) {
		cstatus = "not-run";
		note = "not-executed";
	} else if (errout != NULL || (pmstatus && strcmp(pmstatus, "failed") == 0)) {
		cstatus = "error";
	} else
		cstatus = "ok";
	qe_json_check(cJSON_AddStringToObject(o, "status", cstatus));
	if (errout != NULL) {
		const char *en = qe_json_str(errout, "ename"), *ev = qe_json_str(errout, "evalue");
		struct qe_buf e = { 0 };

		qe_buf_adds(&e, en ? en : "Error");
		if (ev && *ev) {
			qe_buf_adds(&e, ": ");
			qe_buf_adds(&e, ev);
		}
		qe_json_check(cJSON_AddStringToObject(o, "error", e.data));
		if (nb->failure == NULL && !has_tag(tags, "raises-exception"))
			nb->failure = qe_xstrdup(e.data);
		qe_buf_free(&e);
	} else
		qe_json_check(cJSON_AddNullToObject(o, "error"));
	if (cJSON_IsNumber(count))
		qe_json_check(cJSON_AddNumberToObject(o, "execution_count", count->valuedouble));
	else
		qe_json_check(cJSON_AddNullToObject(o, "execution_count"));

	if (note == NULL && !tm.have) {
		note = "no-timing";
	} else if (note == NULL) {
		int64_t exec_us = isnan(nb->execution_seconds) ? -1 :
		    llround(nb->execution_seconds * 1e6);

		if (nb->have_created && tm.start.sec != INT64_MIN) {
			struct qe_time lo = nb->created;
			int64_t window = (exec_us < 0 ? 0 : exec_us) + stale_margin_us;

			/* created - execution_seconds - margin <= start, end <= created + margin */
			lo.sec -= window / 1000000;
			lo.nsec -= (int32_t)(window % 1000000) * 1000;
			if (lo.nsec < 0)
				lo.nsec += 1000000000, lo.sec--;
			if ((exec_us >= 0 && qe_time_diff_us(&lo, &tm.start) < 0) ||
			    qe_time_diff_us(&nb->created, &tm.end) > stale_margin_us)
				stale = 1;
		}
		if (stale) {
			note = "stale";
			nb->stale_cells++;
		} else if (tm.us < 0 || (exec_us >= 0 && tm.us > exec_us + stale_margin_us)) {
			note = "invalid";
			nb->discarded++;
		} else {
			have_dur = 1;
			if (tm.approximate)
				note = "approximate";
		}
	}
	add_num_or_null(o, "duration_s", have_dur, (double)tm.us / 1e6);
	qe_json_add_str_or_null(o, "timing_source", have_dur ? tm.source : NULL);
	qe_json_add_str_or_null(o, "timing_method", have_dur ? tm.method : NULL);
	qe_json_add_str_or_null(o, "timing_note", note);
	add_num_or_null(o, "busy_s", have_dur && have_busy, (double)busy_us / 1e6);
	if (stale)
		qe_json_check(cJSON_AddNumberToObject(o, "stale_duration_s", (double)tm.us / 1e6));
	add_time(o, "start", have_dur ? &tm.start : NULL);
	add_time(o, "end", have_dur ? &tm.end : NULL);

	if (have_dur) {
		nb->timed_cells++;
		nb->cells_seconds += (double)tm.us / 1e6;
		if (tm.end.sec != INT64_MIN &&
		    (!nb->have_last_end || qe_time_diff_us(&nb->last_end, &tm.end) > 0)) {
			nb->last_end = tm.end;
			nb->have_last_end = 1;
		}
	} else if (strcmp(cstatus, "ok") == 0 || strcmp(cstatus, "error") == 0)
		nb->untimed_executed++;
	return o;
}

/* Serialise a record as one NDJSON line onto `out`, and free it. */
static void
append_record(struct qe_buf *out, cJSON *rec)
{
	char *line = cJSON_PrintUnformatted(rec);

	if (line == NULL)
		qe_json_check(NULL);
	qe_buf_adds(out, line);
	qe_buf_addc(out, '\n');
	cJSON_free(line);
	cJSON_Delete(rec);
}

/*
 * Parse one notebook and append its records (notebook first) to `out` as
 * NDJSON lines. `bytes` is handed over: release() frees it as soon as it is
 * parsed, so the text and its tree are never both held longer than needed.
 * Returns -1 after a diagnostic if it is not a notebook.
 */
static int
notebook_records(struct nbctx *nb, char *bytes, size_t len, void (*release)(void *),
    struct qe_buf *out)
{
	const char *end = NULL;
	cJSON *doc, *cells, *cell, *rec, *md, *ks, *li, *pmv, *nbf;
	cJSON **crecs = NULL;
	struct qe_buf src = { 0 };
	size_t ncrecs = 0, k = 0;
	int index = 0, ambiguous = 0;
	struct expected x = { 0 };
	struct hook_run *run = NULL;

	size_t bad, lead = 0;

	if (memchr(bytes, '\0', len) != NULL) {
		warnx("%s: not a notebook: NUL byte", nb->where);
		release(bytes);
		return -1;
	}
	/* an empty file, text that is not UTF-8: clear words, never records */
	/* bytes need not end in a NUL: bounded scans only */
	while (lead < len && strchr(" \t\r\n", bytes[lead]))
		lead++;
	if (lead == len) {
		warnx("%s: not a notebook: empty file", nb->where);
		release(bytes);
		return -1;
	}
	if ((bad = qe_utf8_valid(bytes, len)) != len) {
		warnx("%s: not a notebook: invalid UTF-8 at byte %zu", nb->where, bad + 1);
		release(bytes);
		return -1;
	}
	doc = cJSON_ParseWithLengthOpts(bytes, len, &end, 0);
	while (doc && end < bytes + len && strchr(" \t\r\n", *end))
		end++;
	if (doc == NULL || end != bytes + len) {
		long ln = 1, col = 1, deep = doc ? -1 : qe_json_too_deep(bytes, end ? (size_t)(end - bytes) + 1 : len);
		const char *at = deep >= 0 ? bytes + deep : end;

		for (const char *p = bytes; at && p < at; p++)
			if (*p == '\n')
				ln++, col = 1;
			else
				col++;
		/* trailing data: a truncated or concatenated file, never half-read */
		warnx("%s:%ld: %s at column %ld", nb->where, ln, doc ? "trailing data after the notebook" :
		    deep >= 0 ? "nesting deeper than 1000 levels" : "invalid JSON", col);
		cJSON_Delete(doc);
		release(bytes);
		return -1;
	}
	release(bytes);
	if (qe_json_nonfinite(doc)) {
		warnx("%s: not a notebook: number out of range (beyond a double's 1.8e308)", nb->where);
		cJSON_Delete(doc);
		return -1;
	}
	nbf = cJSON_GetObjectItemCaseSensitive(doc, "nbformat");
	cells = cJSON_GetObjectItemCaseSensitive(doc, "cells");
	if (!cJSON_IsObject(doc) || !cJSON_IsArray(cells) || !cJSON_IsNumber(nbf)) {
		warnx("%s: not a notebook: %s", nb->where,
		    cJSON_GetObjectItemCaseSensitive(doc, "worksheets") ?
		    "nbformat 3 is not supported" : "no 'nbformat' and 'cells'");
		cJSON_Delete(doc);
		return -1;
	}
	if (nbf->valuedouble != 4) {
		warnx("%s: not a notebook: nbformat %g is not supported", nb->where, nbf->valuedouble);
		cJSON_Delete(doc);
		return -1;
	}
	if (nruns > 0) {	/* which kernel run of the hook's log was this? */
		int i = 0;

		cJSON_ArrayForEach(cell, cells) {
			const char *ct = qe_json_str(cell, "cell_type");
			const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(cell, "metadata");

			if (ct == NULL || strcmp(ct, "code") != 0)
				continue;
			if (join_text(cJSON_GetObjectItemCaseSensitive(cell, "source"), &src) == 0) {
				normalise_source(&src);
				if (src.len > 0 && !has_tag(cJSON_GetObjectItemCaseSensitive(cmd, "tags"),
				    "skip-execution")) {
					x.digest = qe_xrealloc(x.digest, (x.n + 1) * sizeof *x.digest);
					x.index = qe_xrealloc(x.index, (x.n + 1) * sizeof *x.index);
					qe_sha256_hex(src.data, src.len, x.digest[x.n]);
					x.index[x.n++] = i;
				}
			}
			i++;
		}
		run = match_run(nb, &x, &ambiguous);
		if (run != NULL)
			run->used = 1;
		else if (ambiguous)
			warnx("%s: several runs in '%s' match '%s': no hook timing taken",
			    nb->where, timings_log, nb->document);
	}
	cJSON_ArrayForEach(cell, cells) {
		const char *ct = qe_json_str(cell, "cell_type");
		const struct hook_cell *hk = NULL;

		if (ct == NULL || strcmp(ct, "code") != 0)
			continue;	/* timing on markdown/raw cells is ignored */
		while (run != NULL && k < run->n && x.index[k] < index)
			k++;
		if (run != NULL && k < run->n && x.index[k] == index)
			hk = &run->c[k];
		crecs = qe_xrealloc(crecs, (ncrecs + 1) * sizeof *crecs);
		crecs[ncrecs++] = cell_record(nb, cell, index++, &src, hk, ambiguous);
	}
	free(x.digest);
	free(x.index);
	nb->code_cells = index;
	qe_buf_free(&src);

	md = cJSON_GetObjectItemCaseSensitive(doc, "metadata");
	ks = cJSON_GetObjectItemCaseSensitive(md, "kernelspec");
	li = cJSON_GetObjectItemCaseSensitive(md, "language_info");
	pmv = cJSON_GetObjectItemCaseSensitive(md, "papermill");
	if (strcmp(nb->input, "ipynb") == 0) {
		const cJSON *d = cJSON_GetObjectItemCaseSensitive(pmv, "duration");

		if (cJSON_IsNumber(d) && isfinite(d->valuedouble) && d->valuedouble >= 0)
			nb->execution_seconds = d->valuedouble;
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pmv, "exception")) && nb->failure == NULL)
			nb->failure = qe_xstrdup("papermill reported an exception");
	}

	rec = new_record("notebook", nb);
	add_identity(rec, nb, 1);
	qe_json_check(cJSON_AddStringToObject(rec, "status",
	    strcmp(nb->input, "ipynb") == 0 && nb->failure ? "failed" : "ok"));
	qe_json_add_str_or_null(rec, "error", strcmp(nb->input, "ipynb") == 0 ? nb->failure : NULL);
	add_num_or_null(rec, "execution_seconds", !isnan(nb->execution_seconds), nb->execution_seconds);
	add_num_or_null(rec, "cells_seconds", nb->timed_cells > 0, round(nb->cells_seconds * 1e6) / 1e6);
	add_num_or_null(rec, "overhead_seconds",
	    nb->timed_cells > 0 && nb->untimed_executed == 0 && !isnan(nb->execution_seconds),
	    round((nb->execution_seconds - nb->cells_seconds) * 1e6) / 1e6);
	if (nb->have_created)
		add_time(rec, "created", &nb->created);
	else
		add_time(rec, "created", nb->have_last_end ? &nb->last_end : NULL);
	qe_json_check(cJSON_AddNumberToObject(rec, "code_cells", nb->code_cells));
	qe_json_check(cJSON_AddNumberToObject(rec, "timed_cells", nb->timed_cells));
	qe_json_check(cJSON_AddNumberToObject(rec, "stale_cells", nb->stale_cells));
	qe_json_check(cJSON_AddNumberToObject(rec, "discarded_timings", nb->discarded));
	qe_json_add_str_or_null(rec, "kernel", qe_json_str(ks, "name"));
	qe_json_add_str_or_null(rec, "language", qe_json_str(li, "name") ? qe_json_str(li, "name") :
	    qe_json_str(ks, "language"));
	qe_json_add_str_or_null(rec, "language_version", qe_json_str(li, "version"));

	append_record(out, rec);
	for (size_t i = 0; i < ncrecs; i++)
		append_record(out, crecs[i]);
	free(crecs);
	free(nb->failure);
	nb->failure = NULL;
	cJSON_Delete(doc);
	return 0;
}

/* ---- document names ---------------------------------------------------- */

/* Longest common directory of two paths' directories (prefix in *len). */
static void
common_dir(const char *path, const char *prefix, size_t *len)
{
	size_t i = 0, lastslash = 0;

	while (i < *len && path[i] && path[i] == prefix[i]) {
		if (path[i] == '/')
			lastslash = i;
		i++;
	}
	/* whole prefix matched and path continues with a separator */
	if (i == *len && path[i] == '/')
		return;
	*len = lastslash;
}

/*
 * Document name: the path relative to --root (when under it) or to the
 * common directory `base` of `baselen` bytes, extension dropped.
 */
static char *
document_name(const char *path, const char *base, size_t baselen)
{
	const char *rel = path, *slash, *dot;
	size_t rl;

	if (rootdir != NULL && strncmp(path, rootdir, strlen(rootdir)) == 0 &&
	    path[strlen(rootdir)] == '/')
		rel = path + strlen(rootdir) + 1;
	else if (rootdir == NULL && baselen > 0 && strncmp(path, base, baselen) == 0 &&
	    path[baselen] == '/')
		rel = path + baselen + 1;
	else if (rootdir == NULL && baselen == 0 && path[0] == '/' && base && base[0] == '/')
		rel = path + 1;
	slash = strrchr(rel, '/');
	dot = strrchr(rel, '.');
	rl = dot && dot > (slash ? slash : rel) ? (size_t)(dot - rel) : strlen(rel);
	return qe_xstrndup(rel, rl);
}

/* ---- caches -------------------------------------------------------------- */

struct entry {
	int64_t pk;			/* -1: a failed notebook (nbproject only) */
	char *hashkey, *uri, *document, *error;
	double execution_seconds;
	struct qe_time created;
	int have_created, current, selected, done;
	struct qe_buf out;		/* records, when read out of order */
};

struct cache {
	const char *name;		/* the operand */
	char *dbwhere;			/* "DIR/global.db" or "ARCHIVE:member" */
	char *rootpfx;			/* archive: member prefix of the cache root */
	sqlite3 *db;
	struct entry *e;
	size_t n;
};

static void
cache_free(struct cache *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->e[i].hashkey);
		free(c->e[i].uri);
		free(c->e[i].document);
		free(c->e[i].error);
		qe_buf_free(&c->e[i].out);
	}
	free(c->e);
	free(c->dbwhere);
	free(c->rootpfx);
	if (c->db)
		sqlite3_close(c->db);
	memset(c, 0, sizeof *c);
}

static int
has_table(sqlite3 *db, const char *name)
{
	sqlite3_stmt *st;
	int found = 0;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
	    -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	if (sqlite3_finalize(st) != SQLITE_OK)
		return -1;
	return found;
}

/* The last non-blank line of a traceback, ANSI escapes removed. */
static char *
exception_line(const char *tb)
{
	struct qe_buf clean = { 0 };
	const char *p;
	char *last = NULL, *s, *e;

	for (p = tb; *p; p++) {
		if (*p == '\033' && p[1] == '[') {	/* CSI ... final byte */
			p += 2;
			while (*p && !(*p >= 0x40 && *p <= 0x7e))
				p++;
			if (!*p)
				break;
			continue;
		}
		qe_buf_addc(&clean, *p);
	}
	if (clean.data == NULL)
		return NULL;
	for (s = clean.data; s && *s; s = e ? e + 1 : NULL) {
		char *t = s;

		e = strchr(s, '\n');
		if (e)
			*e = '\0';
		while (*t == ' ' || *t == '\t' || *t == '\r')
			t++;
		if (*t)
			last = s;
		if (!e)
			break;
	}
	if (last != NULL) {
		size_t n = strlen(last);

		while (n > 0 && strchr(" \t\r", last[n - 1]))
			n--;
		last = qe_xstrndup(last, n);
	}
	qe_buf_free(&clean);
	return last;
}

static int
entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c = strcmp(x->document, y->document);

	if (c)
		return c;
	if (x->pk < 0 || y->pk < 0)	/* a failure is newer than any record */
		return (x->pk >= 0) - (y->pk >= 0);
	if (x->have_created && y->have_created && qe_time_diff_us(&x->created, &y->created) != 0)
		return qe_time_diff_us(&x->created, &y->created) > 0 ? 1 : -1;
	return (x->pk < y->pk) - (x->pk > y->pk);
}

static int
sql_error(struct cache *c, const char *what)
{
	warnx("%s: %s%s%s", c->dbwhere, what, what[0] ? ": " : "", sqlite3_errmsg(c->db));
	return -1;
}

/*
 * Read the rows: every nbcache record, and each document whose last run
 * failed (a traceback in nbproject, or nbstage before jupyter-cache 0.5).
 */
static int
read_cache(struct cache *c, int keys_only)
{
	sqlite3_stmt *st;
	const char *proj;
	int t, rc;

	if ((t = has_table(c->db, "nbcache")) < 0)
		return sql_error(c, "");
	if (t == 0) {
		warnx("%s: not a jupyter-cache database (no table 'nbcache')", c->dbwhere);
		return -1;
	}
	proj = has_table(c->db, "nbproject") == 1 ? "nbproject" :
	    has_table(c->db, "nbstage") == 1 ? "nbstage" : NULL;
	if (sqlite3_prepare_v2(c->db, "SELECT pk, hashkey, uri, data, created FROM nbcache",
	    -1, &st, NULL) != SQLITE_OK)
		return sql_error(c, "unrecognised 'nbcache' table");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct entry *e;
		const char *hk = (const char *)sqlite3_column_text(st, 1);
		const char *uri = (const char *)sqlite3_column_text(st, 2);
		const char *data = (const char *)sqlite3_column_text(st, 3);
		const char *created = (const char *)sqlite3_column_text(st, 4);
		cJSON *d;

		if (hk == NULL || uri == NULL || strspn(hk, "0123456789abcdefABCDEF") != strlen(hk) ||
		    strlen(hk) == 0 || strlen(hk) > 128) {
			warnx("%s: nbcache row %lld: bad 'hashkey' or 'uri'", c->dbwhere,
			    (long long)sqlite3_column_int64(st, 0));
			trouble();
			continue;
		}
		c->e = qe_xrealloc(c->e, (c->n + 1) * sizeof *c->e);
		e = memset(&c->e[c->n++], 0, sizeof *e);
		e->pk = sqlite3_column_int64(st, 0);
		e->hashkey = qe_xstrdup(hk);
		e->uri = qe_xstrdup(uri);
		e->execution_seconds = NAN;
		if (keys_only)
			continue;
		/* a 'data' that is not JSON, or a bad time in it, was silently null */
		if (data && ((d = cJSON_Parse(data)) == NULL || !cJSON_IsObject(d))) {
			warnx("%s: nbcache row %lld: 'data' is not a JSON object", c->dbwhere,
			    (long long)e->pk);
			trouble();
			cJSON_Delete(d);
		} else if (data) {
			const cJSON *v = cJSON_GetObjectItemCaseSensitive(d, "execution_seconds");

			if (cJSON_IsNumber(v) && isfinite(v->valuedouble) && v->valuedouble >= 0)
				e->execution_seconds = v->valuedouble;
			else if (v != NULL && !cJSON_IsNull(v)) {
				warnx("%s: nbcache row %lld: bad 'execution_seconds' in 'data'",
				    c->dbwhere, (long long)e->pk);
				trouble();
			}
			cJSON_Delete(d);
		}
		if (created && qe_time_parse(created, &e->created) == 0)
			e->have_created = 1;
		else if (created) {
			warnx("%s: nbcache row %lld: bad 'created' '%.40s'", c->dbwhere,
			    (long long)e->pk, created);
			trouble();
		}
	}
	if (rc != SQLITE_DONE) {
		sql_error(c, "reading 'nbcache'");
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	if (proj == NULL || keys_only)
		return 0;
	{
		char sql[128];

		snprintf(sql, sizeof sql, "SELECT uri, traceback FROM %s "
		    "WHERE traceback IS NOT NULL AND traceback != '' ORDER BY pk", proj);
		if (sqlite3_prepare_v2(c->db, sql, -1, &st, NULL) != SQLITE_OK)
			return sql_error(c, "unrecognised project table");
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *uri = (const char *)sqlite3_column_text(st, 0);
		const char *tb = (const char *)sqlite3_column_text(st, 1);
		struct entry *e;

		if (uri == NULL)
			continue;
		c->e = qe_xrealloc(c->e, (c->n + 1) * sizeof *c->e);
		e = memset(&c->e[c->n++], 0, sizeof *e);
		e->pk = -1;
		e->uri = qe_xstrdup(uri);
		e->error = exception_line(tb ? tb : "");
		e->execution_seconds = NAN;
	}
	if (rc != SQLITE_DONE) {
		sql_error(c, "reading the project table");
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	return 0;
}

static int
baseline_has(const char *key)
{
	return bsearch(&key, baseline_keys, nbaseline_keys, sizeof *baseline_keys, cmpstr) != NULL;
}

/* Names, order (by document, newest first), `current` and what to print. */
static void
arrange(struct cache *c)
{
	const char *base;
	size_t baselen;

	if (c->n == 0)		/* an empty cache: qsort() must not see NULL */
		return;
	base = c->e[0].uri;
	baselen = dir_len(base);
	for (size_t i = 1; i < c->n; i++)
		common_dir(c->e[i].uri, base, &baselen);
	for (size_t i = 0; i < c->n; i++)
		c->e[i].document = document_name(c->e[i].uri, base, baselen);
	qsort(c->e, c->n, sizeof *c->e, entry_cmp);
	for (size_t i = 0; i < c->n; i++) {
		c->e[i].current = i == 0 || strcmp(c->e[i].document, c->e[i - 1].document) != 0;
		c->e[i].selected = aflag || c->e[i].current;
	}
}

static const char *
origin_of(const struct entry *e)
{
	if (e->pk < 0)			/* a failure is re-executed by every build */
		return have_since || have_baseline ? "executed" : NULL;
	if (have_baseline)
		return baseline_has(e->hashkey) ? "inherited" : "executed";
	if (have_since)
		return e->have_created && qe_time_diff_us(&since, &e->created) >= 0 ?
		    "executed" : "inherited";
	return NULL;
}

static void
failed_record(const struct entry *e, struct qe_buf *out)
{
	struct nbctx nb = { .document = e->document, .input = "cache", .uri = e->uri,
	    .pk = -1, .current = e->current, .origin = origin_of(e) };
	cJSON *rec = new_record("notebook", &nb);

	add_identity(rec, &nb, 1);
	qe_json_check(cJSON_AddStringToObject(rec, "status", "failed"));
	qe_json_add_str_or_null(rec, "error", e->error);
	qe_json_check(cJSON_AddNullToObject(rec, "execution_seconds"));
	qe_json_check(cJSON_AddNullToObject(rec, "cells_seconds"));
	qe_json_check(cJSON_AddNullToObject(rec, "overhead_seconds"));
	qe_json_check(cJSON_AddNullToObject(rec, "created"));
	qe_json_check(cJSON_AddNullToObject(rec, "code_cells"));
	qe_json_check(cJSON_AddNumberToObject(rec, "timed_cells", 0));
	qe_json_check(cJSON_AddNumberToObject(rec, "stale_cells", 0));
	qe_json_check(cJSON_AddNumberToObject(rec, "discarded_timings", 0));
	qe_json_check(cJSON_AddNullToObject(rec, "kernel"));
	qe_json_check(cJSON_AddNullToObject(rec, "language"));
	qe_json_check(cJSON_AddNullToObject(rec, "language_version"));
	append_record(out, rec);
}

/* Records of one cached notebook, whose bytes have been read. */
static int
cached_records(const struct entry *e, const char *where, char *bytes, size_t len,
    void (*release)(void *), struct qe_buf *out)
{
	size_t ul = strlen(e->uri);
	struct nbctx nb = { .where = where, .document = e->document, .input = "cache",
	    .uri = e->uri, .cache_key = e->hashkey, .pk = e->pk, .current = e->current,
	    .origin = origin_of(e), .execution_seconds = e->execution_seconds,
	    .created = e->created, .have_created = e->have_created };

	/* MyST-NB invents cell ids for .md sources on every read */
	nb.stable_ids = ul > 6 && strcmp(e->uri + ul - 6, ".ipynb") == 0;
	return notebook_records(&nb, bytes, len, release, out);
}

static char *
read_file(const char *path, size_t limit, size_t *len)
{
	struct qe_buf b = { 0 };
	char chunk[65536];
	struct stat sb;
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return NULL;
	/* one exact allocation for a regular file: no doubling, no copies */
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && (uintmax_t)sb.st_size <= limit) {
		b.cap = (size_t)sb.st_size + 1;
		b.data = qe_xmalloc(b.cap);
		b.data[0] = '\0';
	}
	while ((n = read(fd, chunk, sizeof chunk)) > 0) {
		if (b.len + (size_t)n > limit) {
			close(fd);
			qe_buf_free(&b);
			errno = EFBIG;
			return NULL;
		}
		qe_buf_add(&b, chunk, (size_t)n);
	}
	if (n < 0) {
		int saved = errno;

		close(fd);
		qe_buf_free(&b);
		errno = saved;
		return NULL;
	}
	close(fd);
	*len = b.len;
	if (b.data == NULL)
		b.data = qe_xcalloc(1, 1);
	return b.data;
}

static int
open_db_file(struct cache *c, const char *path)
{
	c->dbwhere = qe_xstrdup(path);
	if (access(path, R_OK) != 0) {
		warn("%s", path);
		return -1;
	}
	if (sqlite3_open_v2(path, &c->db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		return sql_error(c, "");
	return 0;
}

static int
open_db_memory(struct cache *c, unsigned char *bytes, size_t len)
{
	if (sqlite3_open_v2(":memory:", &c->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		sqlite3_free(bytes);
		return sql_error(c, "");
	}
	if (sqlite3_deserialize(c->db, "main", bytes, (sqlite3_int64)len, (sqlite3_int64)len,
	    SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY) != SQLITE_OK)
		return sql_error(c, "");
	return 0;
}

static void
emit_buf(struct qe_buf *b)
{
	if (b->len && fwrite(b->data, 1, b->len, stdout) != b->len) {
		warn("stdout");
		exit(QE_EXIT_TROUBLE);
	}
	qe_buf_reset(b);
}

/* A .jupyter_cache directory: records in order, one notebook in memory. */
static void
do_cache_dir(const char *dir, const char *db)
{
	struct cache c = { .name = dir };
	struct qe_buf path = { 0 }, out = { 0 };

	if (open_db_file(&c, db) < 0 || read_cache(&c, 0) < 0) {
		trouble();
		goto done;
	}
	arrange(&c);
	for (size_t i = 0; i < c.n; i++) {
		struct entry *e = &c.e[i];
		size_t len;
		char *bytes;

		if (!e->selected)
			continue;
		if (e->pk < 0) {
			failed_record(e, &out);
			emit_buf(&out);
			continue;
		}
		qe_buf_reset(&path);
		qe_buf_adds(&path, dir);
		qe_buf_adds(&path, "/executed/");
		qe_buf_adds(&path, e->hashkey);
		qe_buf_adds(&path, "/base.ipynb");
		if ((bytes = read_file(path.data, max_notebook, &len)) == NULL) {
			if (errno == EFBIG)
				warnx("%s: notebook larger than %zu bytes (see --max-notebook)",
				    path.data, max_notebook);
			else
				warn("%s", path.data);
			trouble();
			continue;
		}
		if (cached_records(e, path.data, bytes, len, free, &out) < 0)
			trouble();
		emit_buf(&out);
	}
done:
	qe_buf_free(&path);
	qe_buf_free(&out);
	cache_free(&c);
}

/* ---- archives -------------------------------------------------------------- */

static struct archive *
archive_open(const char *path)
{
	struct archive *a = archive_read_new();

	if (a == NULL)
		qe_json_check(NULL);
	archive_read_support_filter_all(a);
	archive_read_support_format_all(a);
	if (archive_read_open_filename(a, path, 1 << 16) != ARCHIVE_OK) {
		warnx("%s: %s", path, archive_error_string(a));
		archive_read_free(a);
		return NULL;
	}
	return a;
}

/* Member name without leading "./"; NULL if absolute or with a ".." part. */
static const char *
safe_name(const char *name)
{
	const char *p;

	while (name[0] == '.' && name[1] == '/')
		name += 2;
	if (name[0] == '/' || name[0] == '\0')
		return NULL;
	for (p = name; p; p = strchr(p, '/')) {
		if (*p == '/')
			p++;
		if (p[0] == '.' && p[1] == '.' && (p[2] == '/' || p[2] == '\0'))
			return NULL;
	}
	return name;
}

/* Read the current member into memory, at most `limit` bytes. */
static unsigned char *
read_member(struct archive *a, struct archive_entry *ae, const char *where, size_t limit,
    size_t *len)
{
	unsigned char *buf = NULL;
	size_t cap = 0, n = 0;
	la_ssize_t r;

	/* the size in the header is a hint: one allocation when it is true */
	if (archive_entry_size_is_set(ae) && archive_entry_size(ae) >= 0 &&
	    (uintmax_t)archive_entry_size(ae) <= limit) {
		cap = (size_t)archive_entry_size(ae) + 1;
		if ((buf = sqlite3_malloc64(cap)) == NULL)
			qe_json_check(NULL);
	}
	for (;;) {
		if (n == cap) {
			if (cap >= limit + 1) {
				warnx("%s: member larger than %zu bytes (see --max-notebook)", where, limit);
				sqlite3_free(buf);
				return NULL;
			}
			cap = cap ? cap * 2 : 65536;
			if (cap > limit + 1)
				cap = limit + 1;
			if ((buf = sqlite3_realloc64(buf, cap)) == NULL)
				qe_json_check(NULL);
		}
		r = archive_read_data(a, buf + n, cap - n);
		if (r == 0)
			break;
		if (r < 0) {
			warnx("%s: %s", where, archive_error_string(a));
			sqlite3_free(buf);
			return NULL;
		}
		n += (size_t)r;
	}
	*len = n;
	return buf ? buf : sqlite3_malloc(1);
}

static struct entry *
find_entry(struct cache *c, const char *hashkey)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->e[i].pk >= 0 && c->e[i].selected && !c->e[i].done &&
		    strcmp(c->e[i].hashkey, hashkey) == 0)
			return &c->e[i];
	return NULL;
}

/*
 * An artifact archive, read twice and never extracted: first for global.db
 * (at any depth; its folder is the cache root), then for the notebooks.
 * Records are kept per notebook so the output order matches a directory's.
 */
static int
archive_cache(const char *path, struct cache *c, int keys_only)
{
	struct archive *a;
	struct archive_entry *ae;
	unsigned char *db = NULL;
	size_t dblen = 0;
	char *dbname = NULL;
	int r, saw_build = 0, ret = -1;
	struct qe_buf where = { 0 }, want = { 0 };
	double members = 0, expanded = 0;

	c->name = path;
	if ((a = archive_open(path)) == NULL)
		return -1;
	while ((r = archive_read_next_header(a, &ae)) == ARCHIVE_OK || r == ARCHIVE_WARN) {
		const char *raw = archive_entry_pathname(ae), *name = raw ? safe_name(raw) : NULL;
		const char *base;

		/* the second pass reads the same members: bounding the first is enough */
		if (++members > max_archive_entries) {
			warnx("%s: more than %.0f members (see --max-archive-entries)", path,
			    max_archive_entries);
			goto out;
		}
		if (archive_entry_size_is_set(ae) && archive_entry_size(ae) > 0)
			expanded += (double)archive_entry_size(ae);
		if (expanded > max_archive_bytes) {
			warnx("%s: members of more than %.0f bytes in all (see --max-archive-bytes)",
			    path, max_archive_bytes);
			goto out;
		}
		if (name == NULL) {
			warnx("%s: member '%s': absolute or '..' name, skipped", path, raw ? raw : "");
			trouble();
			continue;
		}
		if (strstr(name, "jupyter_execute/") || strncmp(name, "html/", 5) == 0)
			saw_build = 1;
		base = strrchr(name, '/');
		base = base ? base + 1 : name;
		if (strcmp(base, "global.db") != 0 || archive_entry_filetype(ae) != AE_IFREG)
			continue;
		if (dbname != NULL) {
			warnx("%s: two caches: '%s' and '%s'", path, dbname, name);
			goto out;
		}
		dbname = qe_xstrdup(name);
		qe_buf_reset(&where);
		qe_buf_adds(&where, path);
		qe_buf_addc(&where, ':');
		qe_buf_adds(&where, name);
		if ((db = read_member(a, ae, where.data, max_notebook, &dblen)) == NULL)
			goto out;
	}
	if (r != ARCHIVE_EOF) {
		warnx("%s: %s", path, archive_error_string(a));
		goto out;
	}
	if (dbname == NULL) {
		warnx("%s: no jupyter-cache (no global.db) in the archive%s", path, saw_build ?
		    "; an artifact of _build made without 'include-hidden-files: true' has no .jupyter_cache" : "");
		goto out;
	}
	c->dbwhere = qe_xstrdup(where.data);
	c->rootpfx = qe_xstrndup(dbname, strlen(dbname) - strlen("global.db"));
	/*
	 * SQLite owns db from here, whether or not the open succeeds: it frees
	 * it on close, or at once on failure. Freeing it again at out: was a
	 * double free for any archive whose global.db opens but is not a cache
	 * (found by fuzz-archive).
	 */
	r = open_db_memory(c, db, dblen);
	db = NULL;
	if (r < 0 || read_cache(c, keys_only) < 0)
		goto out;
	ret = 0;
	if (keys_only)
		goto out;
	arrange(c);
	archive_read_free(a);
	if ((a = archive_open(path)) == NULL)
		return -1;
	while ((r = archive_read_next_header(a, &ae)) == ARCHIVE_OK || r == ARCHIVE_WARN) {
		const char *raw = archive_entry_pathname(ae), *name = raw ? safe_name(raw) : NULL;
		size_t pl = strlen(c->rootpfx), len;
		const char *hk, *slash;
		struct entry *e;
		unsigned char *bytes;

		if (name == NULL || archive_entry_filetype(ae) != AE_IFREG ||
		    strncmp(name, c->rootpfx, pl) != 0 || strncmp(name + pl, "executed/", 9) != 0)
			continue;
		hk = name + pl + 9;
		if ((slash = strchr(hk, '/')) == NULL || strcmp(slash, "/base.ipynb") != 0)
			continue;
		qe_buf_reset(&want);
		qe_buf_add(&want, hk, (size_t)(slash - hk));
		if ((e = find_entry(c, want.data)) == NULL)
			continue;
		qe_buf_reset(&where);
		qe_buf_adds(&where, path);
		qe_buf_addc(&where, ':');
		qe_buf_adds(&where, name);
		e->done = 1;
		if ((bytes = read_member(a, ae, where.data, max_notebook, &len)) == NULL) {
			trouble();
			continue;
		}
		if (cached_records(e, where.data, (char *)bytes, len, sqlite3_free, &e->out) < 0)
			trouble();
	}
	if (r != ARCHIVE_EOF) {
		warnx("%s: %s", path, archive_error_string(a));
		trouble();
	}
out:
	if (a)
		archive_read_free(a);
	sqlite3_free(db);
	free(dbname);
	qe_buf_free(&where);
	qe_buf_free(&want);
	return ret;
}

static void
do_archive(const char *path)
{
	struct cache c = { 0 };

	if (archive_cache(path, &c, 0) < 0) {
		trouble();
		cache_free(&c);
		return;
	}
	for (size_t i = 0; i < c.n; i++) {
		struct entry *e = &c.e[i];

		if (!e->selected)
			continue;
		if (e->pk < 0)
			failed_record(e, &e->out);
		else if (!e->done) {
			warnx("%s: member '%sexecuted/%s/base.ipynb' missing", path, c.rootpfx, e->hashkey);
			trouble();
		}
		emit_buf(&e->out);
	}
	cache_free(&c);
}

/* ---- notebook files --------------------------------------------------------- */

struct pathlist {
	char **v;
	size_t n;
};

static void
pathlist_add(struct pathlist *l, const char *p)
{
	l->v = qe_xrealloc(l->v, (l->n + 1) * sizeof *l->v);
	l->v[l->n++] = qe_xstrdup(p);
}

static void
pathlist_free(struct pathlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof *l);
}

static int
is_ipynb(const char *name)
{
	size_t n = strlen(name);

	return n > 6 && strcmp(name + n - 6, ".ipynb") == 0;
}

/* Every *.ipynb below dir, sorted; hidden folders (.ipynb_checkpoints) skipped. */
static void
walk(const char *dir, struct pathlist *out)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort);

	if (n < 0) {
		warn("%s", dir);
		trouble();
		return;
	}
	for (int i = 0; i < n; i++) {
		struct qe_buf p = { 0 };
		struct stat sb;

		if (ents[i]->d_name[0] != '.') {
			qe_buf_adds(&p, dir);
			if (p.len == 0 || p.data[p.len - 1] != '/')
				qe_buf_addc(&p, '/');
			qe_buf_adds(&p, ents[i]->d_name);
			if (stat(p.data, &sb) != 0) {
				warn("%s", p.data);
				trouble();
			} else if (S_ISDIR(sb.st_mode))
				walk(p.data, out);
			else if (S_ISREG(sb.st_mode) && is_ipynb(ents[i]->d_name))
				pathlist_add(out, p.data);
		}
		qe_buf_free(&p);
		free(ents[i]);
	}
	free(ents);
}

/* Notebook files, named relative to their common directory (or --root). */
static void
do_ipynb(struct pathlist *files)
{
	struct qe_buf out = { 0 };
	struct pathlist abs = { 0 };
	size_t baselen;

	if (files->n == 0)
		return;
	for (size_t i = 0; i < files->n; i++) {
		char *r = realpath(files->v[i], NULL);

		pathlist_add(&abs, r ? r : files->v[i]);
		free(r);
	}
	baselen = dir_len(abs.v[0]);
	for (size_t i = 1; i < abs.n; i++)
		common_dir(abs.v[i], abs.v[0], &baselen);
	for (size_t i = 0; i < files->n; i++) {
		char *doc = document_name(abs.v[i], abs.v[0], baselen), *bytes;
		struct nbctx nb = { .where = files->v[i], .document = doc, .input = "ipynb",
		    .pk = -1, .current = -1, .stable_ids = 1, .execution_seconds = NAN };
		size_t len;

		if ((bytes = read_file(files->v[i], max_notebook, &len)) == NULL) {
			if (errno == EFBIG)
				warnx("%s: notebook larger than %zu bytes (see --max-notebook)",
				    files->v[i], max_notebook);
			else
				warn("%s", files->v[i]);
			trouble();
		} else if (notebook_records(&nb, bytes, len, free, &out) < 0)
			trouble();
		free(doc);
		emit_buf(&out);
	}
	qe_buf_free(&out);
	pathlist_free(&abs);
}

/* ---- operands ------------------------------------------------------------------ */

enum kind { K_NONE, K_CACHE_DIR, K_IPYNB_DIR, K_IPYNB, K_ARCHIVE };

/* A SQLite database whatever its name (a copy of global.db kept aside). */
static int
is_sqlite_file(const char *path)
{
	static const char magic[16] = "SQLite format 3";
	char head[16];
	struct stat sb;
	int fd, ok;

	if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode) || (fd = open(path, O_RDONLY)) < 0)
		return 0;
	ok = read(fd, head, sizeof head) == (ssize_t)sizeof head &&
	    memcmp(head, magic, sizeof head) == 0;
	close(fd);
	return ok;
}

/*
 * What an operand is. For K_CACHE_DIR, *cachedir gets the .jupyter_cache
 * folder and *db its database: global.db there, or the file named.
 */
static enum kind
classify(const char *path, struct qe_buf *cachedir, struct qe_buf *db)
{
	struct stat sb;
	const char *base;

	qe_buf_reset(cachedir);
	qe_buf_reset(db);
	if (stat(path, &sb) != 0) {
		warn("%s", path);
		return K_NONE;
	}
	if (S_ISDIR(sb.st_mode)) {
		for (int i = 0; i < 2; i++) {	/* the cache itself, or a _build holding it */
			qe_buf_reset(cachedir);
			qe_buf_adds(cachedir, path);
			if (i == 1)
				qe_buf_adds(cachedir, "/.jupyter_cache");
			qe_buf_reset(db);
			qe_buf_adds(db, cachedir->data);
			qe_buf_adds(db, "/global.db");
			if (access(db->data, F_OK) == 0)
				return K_CACHE_DIR;
		}
		qe_buf_reset(cachedir);
		qe_buf_reset(db);
		return K_IPYNB_DIR;
	}
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (strcmp(base, "global.db") == 0 || is_sqlite_file(path)) {
		qe_buf_add(cachedir, path, (size_t)(base - path));
		if (cachedir->len > 1)
			cachedir->data[--cachedir->len] = '\0';
		else if (cachedir->len == 0)
			qe_buf_adds(cachedir, ".");
		qe_buf_adds(db, path);
		return K_CACHE_DIR;
	}
	if (is_ipynb(path))
		return K_IPYNB;
	return K_ARCHIVE;
}

/* --baseline: the hashkeys of the baseline's cache are "inherited". */
static int
load_baseline(const char *path)
{
	struct qe_buf dir = { 0 }, db = { 0 };
	struct cache c = { 0 };
	int ret = -1;

	switch (classify(path, &dir, &db)) {
	case K_CACHE_DIR:
		if (open_db_file(&c, db.data) == 0 && read_cache(&c, 1) == 0)
			ret = 0;
		break;
	case K_ARCHIVE:
		ret = archive_cache(path, &c, 1);
		break;
	case K_NONE:
		break;
	default:
		warnx("%s: not a jupyter-cache", path);
	}
	if (ret == 0) {
		baseline_keys = qe_xcalloc(c.n, sizeof *baseline_keys);
		for (size_t i = 0; i < c.n; i++)
			if (c.e[i].hashkey)
				baseline_keys[nbaseline_keys++] = qe_xstrdup(c.e[i].hashkey);
		qsort(baseline_keys, nbaseline_keys, sizeof *baseline_keys, cmpstr);
	}
	cache_free(&c);
	qe_buf_free(&dir);
	qe_buf_free(&db);
	return ret;
}

static double
number_arg(const char *opt, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < 0) {
		warnx("%s: '%s' is not a number >= 0", opt, s);
		usage(stderr, QE_EXIT_TROUBLE);
	}
	return v;
}

int
main(int argc, char *argv[])
{
	struct pathlist ops = { 0 }, files = { 0 }, tree = { 0 };
	struct qe_buf dir = { 0 }, db = { 0 };
	const char *baseline = NULL;
	int ch;

	/* getopt's messages name argv[0]: the same short name as warnx's */
	argv[0] = (char *)qe_progname();
	while ((ch = getopt_long(argc, argv, "ab:hr:s:t:", longopts, NULL)) != -1)
		switch (ch) {
		case 'a':
			aflag = 1;
			break;
		case 'b':
			baseline = optarg;
			break;
		case 'h':
			usage(stdout, QE_EXIT_OK);
		case 'r': {
			char *r = realpath(optarg, NULL);
			size_t n;

			/* the build's root need not exist here: keep it as written */
			rootdir = r ? r : qe_xstrdup(optarg);
			n = strlen(rootdir);
			while (n > 1 && rootdir[n - 1] == '/')
				((char *)rootdir)[--n] = '\0';
			break;
		}
		case 's':
			if (qe_time_parse(optarg, &since) != 0) {
				warnx("--since: '%s' is not a timestamp (YYYY-MM-DDTHH:MM:SS[.f][Z|+HH:MM])", optarg);
				usage(stderr, QE_EXIT_TROUBLE);
			}
			have_since = 1;
			break;
		case 't':
			timings_log = optarg;
			break;
		case OPT_STALE_MARGIN:
			stale_margin_us = llround(number_arg("--stale-margin", optarg) * 1e6);
			break;
		case OPT_MAX_NOTEBOOK:
			/* (size_t) of a double beyond SIZE_MAX is undefined: clamp */
			max_notebook = (size_t)fmin(number_arg("--max-notebook", optarg), 1e18);
			break;
		case OPT_MAX_ARCHIVE_ENTRIES:
			max_archive_entries = number_arg("--max-archive-entries", optarg);
			break;
		case OPT_MAX_ARCHIVE_BYTES:
			max_archive_bytes = number_arg("--max-archive-bytes", optarg);
			break;
		case OPT_MAX_LINE:
			if (qe_set_max_line(optarg) < 0)
				usage(stderr, QE_EXIT_TROUBLE);
			break;
		case OPT_VERSION:
			printf("qe-cache-extract %s\n", QE_VERSION);
			return qe_finish(QE_EXIT_OK);
		default:
			usage(stderr, QE_EXIT_TROUBLE);
		}
	argc -= optind;
	argv += optind;

	if (timings_log != NULL && load_timings(timings_log) != QE_EXIT_OK)
		trouble();	/* bad lines were reported; the good ones still join */
	if (baseline != NULL) {
		if (load_baseline(baseline) < 0)
			return qe_finish(QE_EXIT_TROUBLE);
		have_baseline = 1;
	}
	for (int i = 0; i < argc; i++)
		if (strcmp(argv[i], "-") != 0)
			pathlist_add(&ops, argv[i]);
	if (argc == 0 || ops.n < (size_t)argc) {	/* paths, one per line, on stdin */
		char *line = NULL;
		size_t cap = 0;
		ssize_t n;

		while ((n = getline(&line, &cap, stdin)) > 0) {
			while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
				line[--n] = '\0';
			if (n > 0)
				pathlist_add(&ops, line);
		}
		free(line);
	}

	/* notebook files named on their own share one common directory */
	for (size_t i = 0; i < ops.n; i++) {
		struct stat sb;

		if (is_ipynb(ops.v[i]) && stat(ops.v[i], &sb) == 0 && !S_ISDIR(sb.st_mode))
			pathlist_add(&files, ops.v[i]);
	}
	for (size_t i = 0; i < ops.n; i++) {
		switch (classify(ops.v[i], &dir, &db)) {
		case K_NONE:
			trouble();
			break;
		case K_CACHE_DIR:
			do_cache_dir(dir.data, db.data);
			break;
		case K_IPYNB:
			do_ipynb(&files);	/* all of them, once */
			pathlist_free(&files);
			break;
		case K_IPYNB_DIR:
			walk(ops.v[i], &tree);
			if (tree.n == 0) {
				warnx("%s: no jupyter-cache and no notebooks found", ops.v[i]);
				trouble();
			}
			do_ipynb(&tree);
			pathlist_free(&tree);
			break;
		case K_ARCHIVE:
			do_archive(ops.v[i]);
			break;
		}
	}
	for (size_t i = 0; i < nruns; i++) {
		const struct hook_cell *last = runs[i].n ? &runs[i].c[runs[i].n - 1] : NULL;

		/* a run that stopped at an error belongs to a failed notebook */
		if (!runs[i].used && last && last->has_end && last->success)
			warnx("%s: run '%s' (%zu cell%s, cwd '%s') matches no notebook", timings_log,
			    runs[i].id, runs[i].n, runs[i].n == 1 ? "" : "s",
			    runs[i].cwd ? runs[i].cwd : "");
	}
	free_runs();
	pathlist_free(&ops);
	qe_buf_free(&dir);
	qe_buf_free(&db);
	return qe_finish(status);
}
