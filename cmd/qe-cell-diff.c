/*
 * qe-cell-diff - a screening verdict for each cell and notebook of a build
 * (HEAD) against its baseline (BASE), from two streams of qe-cache-extract
 * records. Both sides are held as small per-cell structs keyed by document
 * (never whole records); documents are compared once both streams are read.
 */
#include <err.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jq.h>
#include <jv.h>

#include "qe.h"

enum { BASE = 0, HEAD = 1 };

/* Defaults: see the man page, THRESHOLDS, for the evidence behind them. */
static double cell_ratio = 1.5, cell_abs = 0.5;
static double nb_ratio = 1.5, nb_abs = 1.0, exec_abs = 3.5;
static double alpha = 0.05;
static double factor_min_s = 0.05;	/* cells shorter than this swing most */
static int factor_min_cells = 3;
static int adjust, eflag;

/* ---- string arena: labels and first lines, offset 0 is "none" ----------- */

static struct qe_buf arena;

static uint32_t
arena_add(const char *s)
{
	size_t off;

	if (s == NULL)
		return 0;
	if (arena.len == 0)
		qe_buf_addc(&arena, '\0');
	off = arena.len;
	if (off + strlen(s) + 1 > UINT32_MAX)
		errx(QE_EXIT_TROUBLE, "too much label text to hold");
	qe_buf_add(&arena, s, strlen(s) + 1);
	return (uint32_t)off;
}

static const char *
arena_get(uint32_t off)
{
	return off ? arena.data + off : NULL;
}

/* ---- per-side data -------------------------------------------------------- */

enum { ST_NONE, ST_OK, ST_ERROR, ST_SKIPPED, ST_NOTRUN };
static const char *const status_names[] = { NULL, "ok", "error", "skipped", "not-run" };

enum { TS_NONE, TS_HOOK, TS_NBCLIENT, TS_JUPYTERLAB, TS_PAPERMILL, TS_EXECUTETIME, TS_OTHER };
static const char *const ts_names[] = { NULL, "hook", "nbclient", "jupyterlab", "papermill", "executetime", "other" };

struct samples {		/* second and later replicate durations */
	int n, cap;
	double v[];
};

struct cell {
	double dur;		/* first sample, NAN when null */
	struct samples *more;
	uint8_t key[16];	/* alignment key (default: source digest) */
	uint8_t src[16];
	uint64_t out;
	int32_t index;
	uint32_t label, first_line;
	uint8_t present, haskey, status, tsrc;
};

struct side {
	int present;		/* any record seen */
	int nb_records;		/* notebook records (replicates when > 1) */
	int origin;		/* 0 unknown, 1 executed, 2 inherited */
	int input_cache;	/* input "cache" */
	int failed;
	char *cache_key;
	char *status;
	const char *fp;		/* interned provenance fingerprint */
	double *exec_s, *cells_s;	/* per notebook record, NAN when null */
	int nexec, capexec;
	struct cell *cells;	/* in arrival order; see side_cell() */
	int ncells, capcells;
	int *slot;		/* hash of index -> position in cells + 1 */
	int capslot;
	int tsrc;		/* common timing source of timed cells, -1 mixed */
};

struct doc {
	char *name;
	struct side s[2];
};

static struct doc **tab;
static size_t tabcap, ndocs;
static long nrecords[2];
static int side_tsrc_mixed = -1;

static uint64_t
fnv(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static struct doc *
doc_get(const char *name)
{
	size_t i;

	if (ndocs * 2 >= tabcap) {
		size_t ncap = tabcap ? tabcap * 2 : 1024;
		struct doc **nt = qe_xcalloc(ncap, sizeof *nt);

		for (size_t k = 0; k < tabcap; k++)
			if (tab[k]) {
				for (i = fnv(tab[k]->name) & (ncap - 1); nt[i]; i = (i + 1) & (ncap - 1))
					;
				nt[i] = tab[k];
			}
		free(tab);
		tab = nt;
		tabcap = ncap;
	}
	for (i = fnv(name) & (tabcap - 1); tab[i]; i = (i + 1) & (tabcap - 1))
		if (strcmp(tab[i]->name, name) == 0)
			return tab[i];
	tab[i] = qe_xcalloc(1, sizeof **tab);
	tab[i]->name = qe_xstrdup(name);
	tab[i]->s[BASE].tsrc = tab[i]->s[HEAD].tsrc = TS_NONE;
	ndocs++;
	return tab[i];
}

/* Fingerprints are few: intern them with their facts. */
struct fp {
	char *fp;
	cJSON *facts;
};
static struct fp *fps;
static int nfps;

static const char *
fp_intern(const char *s, const cJSON *facts)
{
	for (int i = 0; i < nfps; i++)
		if (strcmp(fps[i].fp, s) == 0)
			return fps[i].fp;
	fps = qe_xrealloc(fps, (size_t)(nfps + 1) * sizeof *fps);
	fps[nfps].fp = qe_xstrdup(s);
	fps[nfps].facts = facts ? qe_json_check(cJSON_Duplicate(facts, 1)) : NULL;
	return fps[nfps++].fp;
}

static const cJSON *
fp_facts(const char *s)
{
	for (int i = 0; i < nfps; i++)
		if (fps[i].fp == s)
			return fps[i].facts;
	return NULL;
}

/* ---- jq expressions (-k, -d, -f) ----------------------------------------- */

struct jqx {
	const char *text;
	jq_state *jq;
};
static struct jqx keyx, docx, filterx;
static struct qe_buf jqerr;

static void
jq_errcb(void *data, jv msg)
{
	(void)data;
	/* keep the first line of the first message: the detail, not the count */
	if (jv_get_kind(msg) == JV_KIND_STRING && jqerr.len == 0) {
		const char *m = jv_string_value(msg);

		qe_buf_add(&jqerr, m, strcspn(m, "\n"));
	}
	jv_free(msg);
}

static void
jqx_compile(struct jqx *x, const char *opt)
{
	x->jq = jq_init();
	if (x->jq == NULL)
		errx(QE_EXIT_TROUBLE, "out of memory");
	jq_set_error_cb(x->jq, jq_errcb, NULL);
	qe_buf_reset(&jqerr);
	if (!jq_compile(x->jq, x->text))
		errx(QE_EXIT_TROUBLE, "%s: cannot compile '%s'%s%s", opt, x->text,
		    jqerr.len ? ": " : "", jqerr.len ? jqerr.data : "");
}

/*
 * Run x on rec; the first output. Returns 0 with *out set (caller frees),
 * or -1 after reporting a jq error.
 */
static int
jqx_run(struct jqx *x, const cJSON *rec, const char *file, long line, jv *out)
{
	char *s = cJSON_PrintUnformatted(rec);
	jv in, r;

	if (s == NULL)
		qe_json_check(NULL);
	in = jv_parse(s);
	cJSON_free(s);
	jq_start(x->jq, in, 0);
	r = jq_next(x->jq);
	if (!jv_is_valid(r)) {
		if (jv_invalid_has_msg(jv_copy(r))) {
			jv msg = jv_invalid_get_msg(r);

			if (jv_get_kind(msg) == JV_KIND_STRING)
				warnx("%s:%ld: '%s': %s", file, line, x->text, jv_string_value(msg));
			else
				warnx("%s:%ld: '%s': error", file, line, x->text);
			jv_free(msg);
			return -1;
		}
		jv_free(r);
		r = jv_null();		/* no output */
	}
	*out = r;
	return 0;
}

/* A jq result as a key string (caller frees), or NULL for null. */
static char *
jv_keystr(jv v)
{
	char *s = NULL;

	if (jv_get_kind(v) == JV_KIND_NULL) {
		jv_free(v);
		return NULL;
	}
	if (jv_get_kind(v) == JV_KIND_STRING) {
		s = qe_xstrdup(jv_string_value(v));
		jv_free(v);
		return s;
	}
	v = jv_dump_string(v, JV_PRINT_SORTED);
	s = qe_xstrdup(jv_string_value(v));
	jv_free(v);
	return s;
}

/* ---- reading --------------------------------------------------------------- */

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The first 16 bytes of a 64-hex digest; -1 if s is not one. */
static int
digest16(const char *s, uint8_t out[16])
{
	if (s == NULL || strlen(s) != 64)
		return -1;
	for (int i = 0; i < 64; i++)
		if (hexval(s[i]) < 0)
			return -1;
	for (int i = 0; i < 16; i++)
		out[i] = (uint8_t)(hexval(s[2 * i]) << 4 | hexval(s[2 * i + 1]));
	return 0;
}

static void
hash16(const char *s, uint8_t out[16])
{
	char hex[QE_SHA256_HEX];

	qe_sha256_hex(s, strlen(s), hex);
	digest16(hex, out);
}

static int
lookup(const char *s, const char *const *names, int n)
{
	if (s == NULL)
		return 0;
	for (int i = 1; i < n; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return n - 1;
}

static double
num_or_nan(const cJSON *rec, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(rec, key);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static void
samples_add(struct cell *c, double v)
{
	if (c->more == NULL || c->more->n == c->more->cap) {
		int cap = c->more ? c->more->cap * 2 : 4;
		struct samples *m = qe_xrealloc(c->more, sizeof *m + (size_t)cap * sizeof(double));

		if (c->more == NULL)
			m->n = 0;
		m->cap = cap;
		c->more = m;
	}
	c->more->v[c->more->n++] = v;
}

static void
side_fingerprint(struct side *sd, const cJSON *rec)
{
	const cJSON *prov = cJSON_GetObjectItemCaseSensitive(rec, "provenance");
	const char *f = qe_json_str(prov, "fingerprint");

	if (f != NULL && sd->fp == NULL)
		sd->fp = fp_intern(f, cJSON_GetObjectItemCaseSensitive(prov, "fingerprint_facts"));
}

static void
side_origin(struct side *sd, const cJSON *rec)
{
	const char *o = qe_json_str(rec, "origin");

	if (o == NULL)
		return;
	if (strcmp(o, "inherited") == 0) {
		if (sd->origin == 0)
			sd->origin = 2;
	} else
		sd->origin = 1;	/* any executed record wins */
}

/*
 * The cell with index i of a side, made if new. Cells are kept in arrival
 * order and found through a hash of their index, so memory follows the
 * records read, never the largest index: one line with "index": 99999999
 * used to make a 7 GB array (found by fuzz-cell-diff).
 */
static struct cell *
side_cell(struct side *sd, int i)
{
	uint32_t h, mask;
	struct cell *c;

	if (sd->ncells * 2 >= sd->capslot) {
		int ncap = sd->capslot ? sd->capslot * 2 : 16;
		int *ns = qe_xcalloc((size_t)ncap, sizeof *ns);

		mask = (uint32_t)ncap - 1;
		for (int k = 0; k < sd->ncells; k++) {
			for (h = ((uint32_t)sd->cells[k].index * 2654435761u) & mask; ns[h]; h = (h + 1) & mask)
				;
			ns[h] = k + 1;
		}
		free(sd->slot);
		sd->slot = ns;
		sd->capslot = ncap;
	}
	mask = (uint32_t)sd->capslot - 1;
	for (h = ((uint32_t)i * 2654435761u) & mask; sd->slot[h]; h = (h + 1) & mask)
		if (sd->cells[sd->slot[h] - 1].index == i)
			return &sd->cells[sd->slot[h] - 1];
	if (sd->ncells == sd->capcells) {
		sd->capcells = sd->capcells ? sd->capcells * 2 : 8;
		sd->cells = qe_xrealloc(sd->cells, (size_t)sd->capcells * sizeof *sd->cells);
	}
	c = &sd->cells[sd->ncells];
	memset(c, 0, sizeof *c);
	c->index = i;
	sd->slot[h] = ++sd->ncells;
	return c;
}

/*
 * The fields read beyond kind, document, index, source_sha256 and
 * duration_s (checked where they are read). Present with another type they
 * reject the record: read as null, "execution_seconds": "slow" was a silent
 * change. null is always accepted.
 */
enum { T_STR, T_NUM, T_BOOL, T_OBJ };
static const struct field {
	const char *key;
	uint8_t type, kinds;	/* 1 notebook, 2 cell */
} fields[] = {
	{ "cache_key", T_STR, 1 }, { "cells_seconds", T_NUM, 1 }, { "current", T_BOOL, 3 },
	{ "execution_seconds", T_NUM, 1 }, { "first_line", T_STR, 2 }, { "input", T_STR, 1 },
	{ "label", T_STR, 2 }, { "origin", T_STR, 3 }, { "output_sha256", T_STR, 2 },
	{ "provenance", T_OBJ, 3 }, { "status", T_STR, 3 }, { "timing_source", T_STR, 2 },
};
static const char *const type_names[] = { "a string", "a number", "true or false", "an object" };

static int
bad_field(const cJSON *rec, int iscell, const char *kind, const char *file, long line)
{
	const cJSON *v;

	cJSON_ArrayForEach(v, rec) {
		const struct field *f = NULL;
		int ok;

		for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
			if (fields[i].key[0] == v->string[0] && strcmp(fields[i].key, v->string) == 0) {
				f = &fields[i];
				break;
			}
		if (f == NULL || !(f->kinds & (iscell ? 2 : 1)) || cJSON_IsNull(v))
			continue;
		switch (f->type) {
		case T_STR:
			ok = cJSON_IsString(v);
			break;
		case T_NUM:
			ok = cJSON_IsNumber(v);
			break;
		case T_BOOL:
			ok = cJSON_IsBool(v);
			break;
		default:
			ok = cJSON_IsObject(v);
			break;
		}
		if (!ok) {
			warnx("%s:%ld: %s record with an invalid '%s' (not %s)", file, line, kind,
			    f->key, type_names[f->type]);
			return 1;
		}
	}
	return 0;
}

static int
read_record(cJSON *rec, const char *file, long line, void *ctx)
{
	int who = *(int *)ctx;
	const char *kind = qe_json_str(rec, "kind");
	const cJSON *cur = cJSON_GetObjectItemCaseSensitive(rec, "current");
	char *docname = NULL;
	struct doc *d;
	struct side *sd;
	int iscell;

	if (kind == NULL) {
		warnx("%s:%ld: record without 'kind'", file, line);
		return -1;
	}
	iscell = strcmp(kind, "cell") == 0;
	if (!iscell && strcmp(kind, "notebook") != 0)
		return 0;	/* provenance and other records: not ours */
	if (bad_field(rec, iscell, kind, file, line))
		return -1;
	if (cJSON_IsFalse(cur))
		return 0;
	if (filterx.jq) {
		jv r;

		if (jqx_run(&filterx, rec, file, line, &r) < 0)
			return -1;
		int keep = jv_get_kind(r) != JV_KIND_NULL && jv_get_kind(r) != JV_KIND_FALSE;
		jv_free(r);
		if (!keep)
			return 0;
	}
	if (docx.jq) {
		jv r;

		if (jqx_run(&docx, rec, file, line, &r) < 0)
			return -1;
		docname = jv_keystr(r);
	} else if (qe_json_str(rec, "document"))
		docname = qe_xstrdup(qe_json_str(rec, "document"));
	if (docname == NULL) {
		warnx("%s:%ld: %s record without 'document'", file, line, kind);
		return -1;
	}
	/* before doc_get(): a rejected record must not leave its document behind */
	if (iscell) {
		const cJSON *idx = cJSON_GetObjectItemCaseSensitive(rec, "index");
		const cJSON *dur = cJSON_GetObjectItemCaseSensitive(rec, "duration_s");
		uint8_t src[16];
		const char *why = NULL;

		if (!cJSON_IsNumber(idx) || idx->valuedouble < 0 || idx->valuedouble > 1e8 ||
		    idx->valuedouble != floor(idx->valuedouble))
			why = "without a valid 'index'";
		else if (digest16(qe_json_str(rec, "source_sha256"), src) < 0)
			why = "without a valid 'source_sha256'";
		else if (!cJSON_IsNull(dur) && !(cJSON_IsNumber(dur) && dur->valuedouble >= 0))
			why = "with an invalid 'duration_s'";
		if (why) {
			warnx("%s:%ld: cell record %s", file, line, why);
			free(docname);
			return -1;
		}
	}
	d = doc_get(docname);
	free(docname);
	sd = &d->s[who];

	if (!iscell) {
		const char *ck = qe_json_str(rec, "cache_key");
		const char *st = qe_json_str(rec, "status");
		const char *in = qe_json_str(rec, "input");

		sd->present = 1;
		sd->nb_records++;
		if (sd->nexec == sd->capexec) {
			sd->capexec = sd->capexec ? sd->capexec * 2 : 1;
			sd->exec_s = qe_xrealloc(sd->exec_s, (size_t)sd->capexec * sizeof(double));
			sd->cells_s = qe_xrealloc(sd->cells_s, (size_t)sd->capexec * sizeof(double));
		}
		sd->exec_s[sd->nexec] = num_or_nan(rec, "execution_seconds");
		sd->cells_s[sd->nexec++] = num_or_nan(rec, "cells_seconds");
		if (ck && sd->cache_key == NULL)
			sd->cache_key = qe_xstrdup(ck);
		if (st && (sd->status == NULL || strcmp(st, "failed") == 0)) {
			free(sd->status);
			sd->status = qe_xstrdup(st);
		}
		if (st && strcmp(st, "failed") == 0)
			sd->failed = 1;
		sd->input_cache = in && strcmp(in, "cache") == 0;
		side_origin(sd, rec);
		side_fingerprint(sd, rec);
		nrecords[who]++;
		return 0;
	}

	/* a cell */
	const cJSON *idx = cJSON_GetObjectItemCaseSensitive(rec, "index");
	const cJSON *dur = cJSON_GetObjectItemCaseSensitive(rec, "duration_s");
	uint8_t src[16], key[16];
	int haskey = 1;
	struct cell *c;
	double dv;

	digest16(qe_json_str(rec, "source_sha256"), src);	/* checked above */
	dv = cJSON_IsNumber(dur) ? dur->valuedouble : NAN;
	if (keyx.jq) {
		jv r;
		char *k;

		if (jqx_run(&keyx, rec, file, line, &r) < 0)
			return -1;
		k = jv_keystr(r);
		if (k == NULL)
			haskey = 0;
		else
			hash16(k, key);
		free(k);
	} else
		memcpy(key, src, 16);

	int i = (int)idx->valuedouble;

	c = side_cell(sd, i);
	sd->present = 1;
	side_origin(sd, rec);
	side_fingerprint(sd, rec);
	nrecords[who]++;
	if (c->present) {
		/* a replicate run of the same cell */
		if (memcmp(c->src, src, 16) != 0) {
			warnx("%s:%ld: document '%s' cell %d: replicate has another source",
			    file, line, d->name, i);
			return -1;
		}
		if (!isnan(dv)) {
			if (isnan(c->dur))
				c->dur = dv;
			else
				samples_add(c, dv);
		}
		return 0;
	}
	c->present = 1;
	c->dur = dv;
	memcpy(c->src, src, 16);
	memcpy(c->key, key, 16);
	c->haskey = (uint8_t)haskey;
	{
		uint8_t o[16];

		if (digest16(qe_json_str(rec, "output_sha256"), o) == 0)
			memcpy(&c->out, o, 8);
	}
	c->status = (uint8_t)lookup(qe_json_str(rec, "status"), status_names, 5);
	c->tsrc = (uint8_t)lookup(qe_json_str(rec, "timing_source"), ts_names, 7);
	c->label = arena_add(qe_json_str(rec, "label"));
	c->first_line = arena_add(qe_json_str(rec, "first_line"));
	if (!isnan(dv) && c->tsrc != TS_NONE) {
		if (sd->tsrc == TS_NONE)
			sd->tsrc = c->tsrc;
		else if (sd->tsrc != c->tsrc)
			sd->tsrc = side_tsrc_mixed;
	}
	return 0;
}

/* ---- statistics ------------------------------------------------------------- */

static int
dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of v[0..n) (sorts v). */
static double
median(double *v, int n)
{
	if (n == 0)
		return NAN;
	qsort(v, (size_t)n, sizeof *v, dcmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A cell's samples into a fresh array; returns how many. */
static int
cell_samples(const struct cell *c, double **out)
{
	int n = 0;
	double *v;

	if (!c || isnan(c->dur)) {
		*out = NULL;
		return 0;
	}
	v = qe_xmalloc(sizeof(double) * (size_t)(1 + (c->more ? c->more->n : 0)));
	v[n++] = c->dur;
	for (int i = 0; c->more && i < c->more->n; i++)
		v[n++] = c->more->v[i];
	*out = v;
	return n;
}

/*
 * Two-sided Mann-Whitney U test of x (n1) against y (n2): the p value.
 * Exact null distribution (Gaussian binomial coefficients) without ties and
 * with n1 + n2 <= 40; otherwise the normal approximation with tie and
 * continuity corrections.
 */
static double
mann_whitney(const double *x, int n1, const double *y, int n2)
{
	double u = 0, tiesum = 0;
	int N = n1 + n2, ties = 0;
	double *all = qe_xmalloc(sizeof(double) * (size_t)N);

	for (int i = 0; i < n1; i++)
		for (int j = 0; j < n2; j++)
			u += x[i] > y[j] ? 1 : x[i] == y[j] ? 0.5 : 0;
	memcpy(all, x, sizeof(double) * (size_t)n1);
	memcpy(all + n1, y, sizeof(double) * (size_t)n2);
	qsort(all, (size_t)N, sizeof *all, dcmp);
	for (int i = 0; i < N;) {
		int j = i;

		while (j < N && all[j] == all[i])
			j++;
		if (j - i > 1) {
			double t = j - i;

			ties = 1;
			tiesum += t * t * t - t;
		}
		i = j;
	}
	free(all);
	if (!ties && N <= 40) {
		int m = n1, n = n2, top = m * n;
		double *f = qe_xcalloc((size_t)top + 1, sizeof *f), lo = 0, hi = 0, tot = 0;

		/* coefficients of [m+n choose m]_q */
		f[0] = 1;
		for (int i = 1; i <= m; i++) {
			int deg = (i - 1) * n;	/* degree before this step */

			for (int k = deg + n + i; k >= n + i; k--)	/* * (1 - q^(n+i)) */
				if (k <= top)
					f[k] -= f[k - (n + i)];
			for (int k = i; k <= top; k++)	/* / (1 - q^i) */
				f[k] += f[k - i];
		}
		for (int k = 0; k <= top; k++) {
			tot += f[k];
			if (k <= u)
				lo += f[k];
			if (k >= u)
				hi += f[k];
		}
		free(f);
		double p = 2 * fmin(lo, hi) / tot;
		return p > 1 ? 1 : p;
	}
	double mu = n1 * (double)n2 / 2;
	double var = n1 * (double)n2 / 12 * ((N + 1) - tiesum / ((double)N * (N - 1)));

	if (var <= 0)
		return 1;
	double z = (fabs(u - mu) - 0.5) / sqrt(var);

	if (z < 0)
		z = 0;
	return erfc(z / sqrt(2));
}

/* ---- verdicts ------------------------------------------------------------- */

enum {
	V_REGRESSION, V_IMPROVEMENT, V_UNCHANGED, V_INCONCLUSIVE, V_NEW, V_REMOVED,
	V_NOTIMING, V_NOTCOMPARABLE, V_CACHED, V_NV
};
static const char *const verdict_names[] = {
	"regression", "improvement", "unchanged", "inconclusive", "new", "removed",
	"no-timing", "not-comparable", "cached"
};

enum { F_SOURCE = 1, F_UPSTREAM = 2, F_OUTPUT = 4, F_STATUS = 8, F_NOTCOMP = 16 };
static const char *const flag_names[] = {
	"source-changed", "upstream-changed", "output-changed", "status-changed", "not-comparable"
};
#define NFLAGS 5

static long cell_counts[V_NV], nb_counts[V_NV], cell_flag_counts[NFLAGS], nb_flag_counts[NFLAGS];
static long gate_regressions;
static double runner_factor = NAN;
static int runner_factor_cells;

static double
r4(double x)
{
	return round(x * 1e4) / 1e4;
}

static double
r6(double x)
{
	return round(x * 1e6) / 1e6;
}

static void
add_num(cJSON *o, const char *k, double v, double (*rnd)(double))
{
	if (isnan(v) || isinf(v))
		qe_json_check(cJSON_AddNullToObject(o, k));
	else
		qe_json_check(cJSON_AddNumberToObject(o, k, rnd(v)));
}

static void
add_flags(cJSON *o, int flags)
{
	cJSON *a = qe_json_check(cJSON_AddArrayToObject(o, "flags"));

	for (int i = 0; i < NFLAGS; i++)
		if (flags & (1 << i))
			cJSON_AddItemToArray(a, qe_json_check(cJSON_CreateString(flag_names[i])));
}

/* Are two timing sources comparable? nbclient and JupyterLab write the same keys. */
static int
ts_comparable(int a, int b)
{
	if (a == b)
		return 1;
	return (a == TS_NBCLIENT || a == TS_JUPYTERLAB) && (b == TS_NBCLIENT || b == TS_JUPYTERLAB);
}

struct judgement {
	int verdict;
	double b, h, ratio, delta, p;
	int nb, nh;
	const char *answer;	/* replicate answer, or NULL */
};

/*
 * Judge head samples against base samples with thresholds (R, A): medians;
 * n=1 rule unless both sides have at least two samples.
 */
static void
judge(double *bv, int nb, double *hv, int nh, double R, double A, double scale, struct judgement *j)
{
	double h;

	j->nb = nb;
	j->nh = nh;
	j->p = NAN;
	j->answer = NULL;
	j->b = median(bv, nb);
	j->h = median(hv, nh);	/* as measured */
	for (int i = 0; i < nh; i++)
		hv[i] /= scale;
	h = j->h / scale;	/* judged after removing the runner factor */
	j->delta = h - j->b;
	j->ratio = j->b > 0 ? h / j->b : h > 0 ? INFINITY : 1;
	int up = h >= j->b * R && j->delta >= A;
	int down = j->b >= h * R && -j->delta >= A;

	if (nb >= 2 && nh >= 2) {
		j->p = mann_whitney(hv, nh, bv, nb);
		if (up && j->p < alpha)
			j->verdict = V_REGRESSION, j->answer = "regressed";
		else if (down && j->p < alpha)
			j->verdict = V_IMPROVEMENT, j->answer = "improved";
		else if (!up && !down)
			j->verdict = V_UNCHANGED, j->answer = "same";
		else
			j->verdict = V_INCONCLUSIVE, j->answer = "inconclusive";
		return;
	}
	j->verdict = up ? V_REGRESSION : down ? V_IMPROVEMENT : V_UNCHANGED;
}

static void
add_test(cJSON *o, const struct judgement *j)
{
	if (j->answer == NULL) {
		qe_json_check(cJSON_AddNullToObject(o, "test"));
		return;
	}
	cJSON *t = qe_json_check(cJSON_AddObjectToObject(o, "test"));

	qe_json_check(cJSON_AddStringToObject(t, "method", "mann-whitney"));
	qe_json_check(cJSON_AddStringToObject(t, "answer", j->answer));
	add_num(t, "p", j->p, r6);
	qe_json_check(cJSON_AddNumberToObject(t, "n_base", j->nb));
	qe_json_check(cJSON_AddNumberToObject(t, "n_head", j->nh));
}

/* ---- alignment -------------------------------------------------------------- */

struct pair {
	int b, h;		/* cell positions, -1 when absent */
};

/*
 * Equality at each alignment level: the key (default the source digest);
 * then, to pair the cells left between two key matches, the label, then the
 * first line, then position.
 */
enum { EQ_KEY, EQ_LABEL, EQ_FIRSTLINE, EQ_POSITION };

static int
same(int level, const struct cell *x, const struct cell *y)
{
	switch (level) {
	case EQ_KEY:
		return x->haskey && y->haskey && memcmp(x->key, y->key, 16) == 0;
	case EQ_LABEL:
		return x->label && y->label && strcmp(arena_get(x->label), arena_get(y->label)) == 0;
	case EQ_FIRSTLINE:
		return x->first_line && y->first_line &&
		    strcmp(arena_get(x->first_line), arena_get(y->first_line)) == 0;
	}
	return 0;
}

struct aligner {
	struct cell **B, **H;
	struct pair *out;
	int n;
};

/*
 * Align B[b0..b1) with H[h0..h1) at `level`: common prefix and suffix, then
 * a longest common subsequence of the middle (a dynamic programme while it
 * fits in 64 Mi entries; beyond, nothing matches at this level). The cells
 * between two matches go to the next level; at the last level they pair by
 * position, and the rest are removed (placed at their base position) or new.
 */
static void
align_level(struct aligner *a, int level, int b0, int b1, int h0, int h1)
{
	struct cell **B = a->B, **H = a->H;
	int pre = 0, suf = 0;

	if (level == EQ_POSITION) {
		int g = b1 - b0 < h1 - h0 ? b1 - b0 : h1 - h0;

		for (int t = 0; t < g; t++)
			a->out[a->n++] = (struct pair){ b0 + t, h0 + t };
		for (int t = b0 + g; t < b1; t++)
			a->out[a->n++] = (struct pair){ t, -1 };
		for (int t = h0 + g; t < h1; t++)
			a->out[a->n++] = (struct pair){ -1, t };
		return;
	}
	if (b0 == b1 || h0 == h1) {
		align_level(a, EQ_POSITION, b0, b1, h0, h1);
		return;
	}
	while (b0 + pre < b1 && h0 + pre < h1 && same(level, B[b0 + pre], H[h0 + pre]))
		pre++;
	while (suf < b1 - b0 - pre && suf < h1 - h0 - pre && same(level, B[b1 - 1 - suf], H[h1 - 1 - suf]))
		suf++;
	for (int t = 0; t < pre; t++)
		a->out[a->n++] = (struct pair){ b0 + t, h0 + t };

	int lb = b0 + pre, mb = b1 - suf - lb, lh = h0 + pre, mh = h1 - suf - lh;
	int *match = qe_xmalloc(sizeof(int) * (size_t)(mb + 1));

	for (int i = 0; i < mb; i++)
		match[i] = -1;
	if (mb > 0 && mh > 0 && (uint64_t)(mb + 1) * (uint64_t)(mh + 1) <= (64u << 20)) {
		uint32_t *L = qe_xmalloc(sizeof(uint32_t) * (size_t)(mb + 1) * (size_t)(mh + 1));
#define LL(i, k) L[(size_t)(i) * (size_t)(mh + 1) + (size_t)(k)]
		for (int i = mb; i >= 0; i--)
			for (int k = mh; k >= 0; k--) {
				if (i == mb || k == mh)
					LL(i, k) = 0;
				else if (same(level, B[lb + i], H[lh + k]))
					LL(i, k) = LL(i + 1, k + 1) + 1;
				else
					LL(i, k) = LL(i + 1, k) >= LL(i, k + 1) ? LL(i + 1, k) : LL(i, k + 1);
			}
		for (int i = 0, k = 0; i < mb && k < mh;) {
			if (same(level, B[lb + i], H[lh + k]) && LL(i, k) == LL(i + 1, k + 1) + 1)
				match[i++] = k++;
			else if (LL(i + 1, k) >= LL(i, k + 1))
				i++;
			else
				k++;
		}
#undef LL
		free(L);
	}
	/* the gaps between matches go one level down */
	for (int i = 0, k = 0; i < mb || k < mh;) {
		int ni = i, nk;

		while (ni < mb && match[ni] < 0)
			ni++;
		nk = ni < mb ? match[ni] : mh;
		align_level(a, level + 1, lb + i, lb + ni, lh + k, lh + nk);
		if (ni < mb) {
			a->out[a->n++] = (struct pair){ lb + ni, lh + nk };
			ni++;
			nk++;
		}
		i = ni;
		k = nk;
	}
	free(match);
	for (int t = 0; t < suf; t++)
		a->out[a->n++] = (struct pair){ b1 - suf + t, h1 - suf + t };
}

static struct pair *
align(struct cell **B, int nb, struct cell **H, int nh, int *np)
{
	struct aligner a = { B, H, qe_xmalloc(sizeof(struct pair) * (size_t)(nb + nh + 1)), 0 };

	align_level(&a, EQ_KEY, 0, nb, 0, nh);
	*np = a.n;
	return a.out;
}

/* ---- comparing one document --------------------------------------------- */

static int
cellp_cmp(const void *a, const void *b)
{
	const struct cell *x = *(struct cell *const *)a, *y = *(struct cell *const *)b;

	return (x->index > y->index) - (x->index < y->index);
}

/* The present cells of a side in index order (usually their arrival order). */
static int
side_cells(struct side *sd, struct cell ***out)
{
	int n = 0, sorted = 1;
	struct cell **v = qe_xmalloc(sizeof *v * (size_t)(sd->ncells + 1));

	for (int i = 0; i < sd->ncells; i++)
		if (sd->cells[i].present) {
			if (n > 0 && v[n - 1]->index > sd->cells[i].index)
				sorted = 0;
			v[n++] = &sd->cells[i];
		}
	if (!sorted)
		qsort(v, (size_t)n, sizeof *v, cellp_cmp);
	*out = v;
	return n;
}

static double
cell_median(const struct cell *c)
{
	double *v, m;
	int n = cell_samples(c, &v);

	m = median(v, n);
	free(v);
	return m;
}

/* Differing fingerprints: the differing facts go to the summary. */
struct factdiff {
	char *fact, *base, *head;
};
static struct factdiff *factdiffs;
static int nfactdiffs;
static char **fp_seen[2];
static int nfp_seen[2];

static void
fp_note(int who, const char *fp)
{
	for (int i = 0; i < nfp_seen[who]; i++)
		if (strcmp(fp_seen[who][i], fp) == 0)
			return;
	fp_seen[who] = qe_xrealloc(fp_seen[who], sizeof(char *) * (size_t)(nfp_seen[who] + 1));
	fp_seen[who][nfp_seen[who]++] = (char *)fp;
}

static char *
fact_text(const cJSON *v)
{
	if (v == NULL)
		return qe_xstrdup("(absent)");
	if (cJSON_IsString(v))
		return qe_xstrdup(v->valuestring);
	char *s = cJSON_PrintUnformatted(v), *r;

	r = qe_xstrdup(s ? s : "?");
	cJSON_free(s);
	return r;
}

static void
factdiff_add(const char *fact, char *b, char *h)
{

	for (int i = 0; i < nfactdiffs; i++)
		if (!strcmp(factdiffs[i].fact, fact) && !strcmp(factdiffs[i].base, b) &&
		    !strcmp(factdiffs[i].head, h)) {
			free(b);
			free(h);
			return;
		}
	factdiffs = qe_xrealloc(factdiffs, sizeof *factdiffs * (size_t)(nfactdiffs + 1));
	factdiffs[nfactdiffs++] = (struct factdiff){ qe_xstrdup(fact), b, h };
}

/* Name the facts that differ; objects (packages) one level down as a.b. */
static int
facts_compare(const cJSON *b, const cJSON *h, const char *prefix)
{
	const cJSON *it;
	int any = 0;
	char name[512];

	for (it = b ? b->child : NULL; it; it = it->next) {
		const cJSON *o = h ? cJSON_GetObjectItemCaseSensitive(h, it->string) : NULL;

		snprintf(name, sizeof name, "%s%s", prefix, it->string);
		if (o && cJSON_IsObject(it) && cJSON_IsObject(o) && !*prefix) {
			char sub[512];

			snprintf(sub, sizeof sub, "%s.", it->string);
			any |= facts_compare(it, o, sub);
		} else if (o == NULL || !cJSON_Compare(it, o, 1))
			factdiff_add(name, fact_text(it), fact_text(o)), any = 1;
	}
	for (it = h ? h->child : NULL; it; it = it->next)
		if (!b || cJSON_GetObjectItemCaseSensitive(b, it->string) == NULL) {
			snprintf(name, sizeof name, "%s%s", prefix, it->string);
			factdiff_add(name, fact_text(NULL), fact_text(it)), any = 1;
		}
	return any;
}

static void
fp_compare(const char *bf, const char *hf)
{
	if (!facts_compare(fp_facts(bf), fp_facts(hf), ""))
		factdiff_add("fingerprint", qe_xstrdup(bf), qe_xstrdup(hf));
}

static int
factdiff_cmp(const void *a, const void *b)
{
	const struct factdiff *x = a, *y = b;
	int c = strcmp(x->fact, y->fact);

	if (c == 0)
		c = strcmp(x->base, y->base);
	return c ? c : strcmp(x->head, y->head);
}

/* Was this document executed by HEAD? Sets *how. */
static int
head_executed(const struct doc *d, const char **how)
{
	const struct side *b = &d->s[BASE], *h = &d->s[HEAD];

	if (h->origin) {
		*how = "origin";
		return h->origin == 1;
	}
	*how = "cache-key";
	if (!b->present || !h->input_cache || !b->input_cache)
		return 1;
	if (h->cache_key == NULL || b->cache_key == NULL)
		return 1;
	return strcmp(h->cache_key, b->cache_key) != 0;
}

/* Pass 1 over a document's cells, for the runner factor. */
struct cellres {
	struct pair p;
	int flags;
};

static struct cellres *
doc_pairs(struct doc *d, int *np, struct cell ***Bout, struct cell ***Hout)
{
	struct cell **B, **H;
	int nb = side_cells(&d->s[BASE], &B), nh = side_cells(&d->s[HEAD], &H), n;
	struct pair *p = align(B, nb, H, nh, &n);
	struct cellres *r = qe_xmalloc(sizeof *r * (size_t)(n + 1));
	int changed = 0;

	for (int i = 0; i < n; i++) {
		int f = 0;
		struct cell *b = p[i].b >= 0 ? B[p[i].b] : NULL, *h = p[i].h >= 0 ? H[p[i].h] : NULL;

		if (changed)
			f |= F_UPSTREAM;
		if (b && h) {
			if (memcmp(b->src, h->src, 16) != 0)
				f |= F_SOURCE;
			if (b->out != h->out)
				f |= F_OUTPUT;
			if (b->status != h->status)
				f |= F_STATUS;
		}
		if (!b || !h || (f & F_SOURCE))
			changed = 1;
		r[i].p = p[i];
		r[i].flags = f;
	}
	free(p);
	*np = n;
	*Bout = B;
	*Hout = H;
	return r;
}

static int
compared(const struct doc *d)
{
	const char *how;

	return d->s[BASE].present && d->s[HEAD].present && head_executed(d, &how);
}

static int
doc_not_comparable(const struct doc *d)
{
	const char *bf = d->s[BASE].fp, *hf = d->s[HEAD].fp;

	return bf && hf && bf != hf;
}

static void
estimate_factor(struct doc **docs, size_t n)
{
	double *logs = NULL;
	int nl = 0, cap = 0;

	for (size_t k = 0; k < n; k++) {
		struct doc *d = docs[k];
		struct cell **B, **H;
		int np;

		if (!compared(d))
			continue;
		struct cellres *r = doc_pairs(d, &np, &B, &H);

		for (int i = 0; i < np; i++) {
			struct cell *b, *h;
			double mb, mh;

			if (r[i].p.b < 0 || r[i].p.h < 0 || (r[i].flags & (F_SOURCE | F_UPSTREAM | F_STATUS)))
				continue;
			b = B[r[i].p.b];
			h = H[r[i].p.h];
			if (b->status != ST_OK || !ts_comparable(b->tsrc, h->tsrc))
				continue;
			mb = cell_median(b);
			mh = cell_median(h);
			if (isnan(mb) || isnan(mh) || mb < factor_min_s || mh < factor_min_s)
				continue;
			if (nl == cap) {
				cap = cap ? cap * 2 : 64;
				logs = qe_xrealloc(logs, sizeof(double) * (size_t)cap);
			}
			logs[nl++] = log(mh / mb);
		}
		free(r);
		free(B);
		free(H);
	}
	runner_factor_cells = nl;
	if (nl >= factor_min_cells)
		runner_factor = exp(median(logs, nl));
	free(logs);
}

static double
share(double v, double tot)
{
	return isnan(v) || !(tot > 0) ? NAN : v / tot;
}

/*
 * A minimal JSON writer for cell-diff records, byte for byte what cJSON
 * prints for the same values (strings escaped alike; numbers rounded to a
 * fixed number of decimals, trailing zeros dropped).
 */
static struct qe_buf cellbuf;

static void
jw_str(struct qe_buf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	if (s == NULL) {
		qe_buf_adds(b, "null");
		return;
	}
	qe_buf_addc(b, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		const unsigned char *q = p;

		while (*q >= 0x20 && *q != '"' && *q != '\\')
			q++;
		if (q > p) {
			qe_buf_add(b, p, (size_t)(q - p));
			p = q;
			if (*p == '\0')
				break;
		}
		switch (*p) {
		case '"': qe_buf_adds(b, "\\\""); break;
		case '\\': qe_buf_adds(b, "\\\\"); break;
		case '\b': qe_buf_adds(b, "\\b"); break;
		case '\f': qe_buf_adds(b, "\\f"); break;
		case '\n': qe_buf_adds(b, "\\n"); break;
		case '\r': qe_buf_adds(b, "\\r"); break;
		case '\t': qe_buf_adds(b, "\\t"); break;
		default:
			qe_buf_adds(b, "\\u00");
			qe_buf_addc(b, hex[*p >> 4]);
			qe_buf_addc(b, hex[*p & 15]);
		}
	}
	qe_buf_addc(b, '"');
}

static void
jw_num(struct qe_buf *b, double x, int decimals)
{
	static const long long pow10[] = { 1, 10, 100, 1000, 10000, 100000, 1000000 };
	char tmp[48];
	long long v, ip, fp;
	int n = 0;

	if (isnan(x) || isinf(x) || fabs(x) > 1e12) {
		if (isnan(x) || isinf(x))
			qe_buf_adds(b, "null");
		else {
			snprintf(tmp, sizeof tmp, "%1.15g", x);
			qe_buf_adds(b, tmp);
		}
		return;
	}
	v = llround(x * (double)pow10[decimals]);
	if (v < 0) {
		qe_buf_addc(b, '-');
		v = -v;
	}
	ip = v / pow10[decimals];
	fp = v % pow10[decimals];
	n = snprintf(tmp, sizeof tmp, "%lld", ip);
	if (fp) {
		int d = decimals;

		while (fp % 10 == 0)
			fp /= 10, d--;
		n += snprintf(tmp + n, sizeof tmp - (size_t)n, ".%0*lld", d, fp);
	}
	qe_buf_add(b, tmp, (size_t)n);
}

static void
jw_key(struct qe_buf *b, const char *k)
{
	qe_buf_addc(b, ',');
	jw_str(b, k);
	qe_buf_addc(b, ':');
}

static void
jw_begin(struct qe_buf *b, const char *kind)
{
	qe_buf_adds(b, "{\"kind\":");
	jw_str(b, kind);
	qe_buf_adds(b, ",\"schema_version\":1");
}

static void
emit_doc(struct doc *d)
{
	struct side *bs = &d->s[BASE], *hs = &d->s[HEAD];
	const char *how = NULL;
	int executed = hs->present ? head_executed(d, &how) : 0;
	int nbverdict, nbflags = 0, ncells_out = 0;
	long counts[V_NV] = { 0 };
	int notcomp;
	double scale = adjust && !isnan(runner_factor) ? runner_factor : 1;
	const char *nbreason = NULL;

	/* a cached notebook was not measured by HEAD: its stamp says nothing */
	notcomp = executed && bs->present && doc_not_comparable(d);
	if (bs->fp)
		fp_note(BASE, bs->fp);
	if (hs->fp)
		fp_note(HEAD, hs->fp);
	if (notcomp) {
		nbflags |= F_NOTCOMP;
		fp_compare(bs->fp, hs->fp);
	}

	int want_cells = (!hs->present || executed) && !(hs->present && hs->failed && hs->ncells == 0) &&
	    !(bs->present && bs->failed && bs->ncells == 0 && hs->present);

	if (hs->present && !executed)
		nbverdict = V_CACHED;
	else if (!bs->present)
		nbverdict = V_NEW;
	else if (!hs->present)
		nbverdict = V_REMOVED;
	else
		nbverdict = -1;	/* decided below */

	double sumb = 0, sumh = 0;

	if (want_cells) {
		struct cell **B, **H;
		int np;
		struct cellres *r = doc_pairs(d, &np, &B, &H);

		for (int i = 0; i < np; i++) {
			double m;

			if (r[i].p.b >= 0 && !isnan(m = cell_median(B[r[i].p.b])))
				sumb += m;
			if (r[i].p.h >= 0 && !isnan(m = cell_median(H[r[i].p.h])))
				sumh += m;
		}
		qe_buf_reset(&cellbuf);
		for (int i = 0; i < np; i++) {
			struct cell *b = r[i].p.b >= 0 ? B[r[i].p.b] : NULL;
			struct cell *h = r[i].p.h >= 0 ? H[r[i].p.h] : NULL;
			int flags = r[i].flags | (notcomp ? F_NOTCOMP : 0);
			const char *reason = notcomp ? "provenance fingerprints differ" : NULL;
			struct judgement j = { .b = NAN, .h = NAN, .ratio = NAN, .delta = NAN, .p = NAN };
			double *bv = NULL, *hv = NULL;
			int nbv = cell_samples(b, &bv), nhv = cell_samples(h, &hv);

			j.nb = nbv;
			j.nh = nhv;
			if (!b)
				j.verdict = V_NEW, j.h = median(hv, nhv);
			else if (!h)
				j.verdict = V_REMOVED, j.b = median(bv, nbv);
			else if (nbv == 0 || nhv == 0) {
				j.verdict = V_NOTIMING;
				j.b = median(bv, nbv);
				j.h = median(hv, nhv);
				reason = reason ? reason : nbv ? "no head timing" : nhv ? "no base timing" : "no timing";
			} else if (!ts_comparable(b->tsrc, h->tsrc)) {
				j.verdict = V_NOTCOMPARABLE;
				flags |= F_NOTCOMP;
				j.b = median(bv, nbv);
				j.h = median(hv, nhv);
				reason = "timing sources differ";
			} else
				judge(bv, nbv, hv, nhv, cell_ratio, cell_abs, scale, &j);
			free(bv);
			free(hv);
			counts[j.verdict]++;
			cell_counts[j.verdict]++;
			for (int f = 0; f < NFLAGS; f++)
				if (flags & (1 << f))
					cell_flag_counts[f]++;
			if (j.verdict == V_REGRESSION && !(flags & F_NOTCOMP))
				gate_regressions++;
			if (flags & (F_OUTPUT | F_STATUS))
				nbflags |= flags & (F_OUTPUT | F_STATUS);
			if (j.verdict == V_NEW || j.verdict == V_REMOVED || (flags & F_SOURCE))
				nbflags |= F_SOURCE;

			struct cell *c = h ? h : b;
			const char *label = arena_get(h && h->label ? h->label : b && b->label ? b->label : 0);

			/* written by hand: a million of these must print fast */
			jw_begin(&cellbuf, "cell-diff");
			jw_key(&cellbuf, "document"), jw_str(&cellbuf, d->name);
			/* (double): int ? int : NAN is a float, exact only to 2^24 */
			jw_key(&cellbuf, "base_index"), jw_num(&cellbuf, b ? (double)b->index : NAN, 0);
			jw_key(&cellbuf, "head_index"), jw_num(&cellbuf, h ? (double)h->index : NAN, 0);
			jw_key(&cellbuf, "label"), jw_str(&cellbuf, label);
			jw_key(&cellbuf, "first_line"), jw_str(&cellbuf, arena_get(c->first_line));
			jw_key(&cellbuf, "verdict"), jw_str(&cellbuf, verdict_names[j.verdict]);
			jw_key(&cellbuf, "flags");
			qe_buf_addc(&cellbuf, '[');
			for (int f = 0, first = 1; f < NFLAGS; f++)
				if (flags & (1 << f)) {
					if (!first)
						qe_buf_addc(&cellbuf, ',');
					jw_str(&cellbuf, flag_names[f]);
					first = 0;
				}
			qe_buf_addc(&cellbuf, ']');
			jw_key(&cellbuf, "reason"), jw_str(&cellbuf, reason);
			jw_key(&cellbuf, "base_s"), jw_num(&cellbuf, j.b, 6);
			jw_key(&cellbuf, "head_s"), jw_num(&cellbuf, j.h, 6);
			jw_key(&cellbuf, "ratio"), jw_num(&cellbuf, b && h && j.b > 0 ? j.h / j.b : NAN, 4);
			jw_key(&cellbuf, "delta_s"), jw_num(&cellbuf, b && h ? j.h - j.b : NAN, 6);
			if (adjust)
				jw_key(&cellbuf, "adjusted_ratio"),
				jw_num(&cellbuf, j.verdict <= V_INCONCLUSIVE && j.b > 0 ? j.ratio : NAN, 4);
			jw_key(&cellbuf, "share_base"), jw_num(&cellbuf, share(j.b, sumb), 4);
			jw_key(&cellbuf, "share_head"), jw_num(&cellbuf, share(j.h, sumh), 4);
			jw_key(&cellbuf, "status_base"), jw_str(&cellbuf, b ? status_names[b->status] : NULL);
			jw_key(&cellbuf, "status_head"), jw_str(&cellbuf, h ? status_names[h->status] : NULL);
			jw_key(&cellbuf, "timing_source_base"), jw_str(&cellbuf, b ? ts_names[b->tsrc] : NULL);
			jw_key(&cellbuf, "timing_source_head"), jw_str(&cellbuf, h ? ts_names[h->tsrc] : NULL);
			jw_key(&cellbuf, "n_base"), jw_num(&cellbuf, nbv, 0);
			jw_key(&cellbuf, "n_head"), jw_num(&cellbuf, nhv, 0);
			jw_key(&cellbuf, "test");
			if (j.answer) {
				qe_buf_adds(&cellbuf, "{\"method\":\"mann-whitney\",\"answer\":");
				jw_str(&cellbuf, j.answer);
				jw_key(&cellbuf, "p"), jw_num(&cellbuf, j.p, 6);
				jw_key(&cellbuf, "n_base"), jw_num(&cellbuf, j.nb, 0);
				jw_key(&cellbuf, "n_head"), jw_num(&cellbuf, j.nh, 0);
				qe_buf_addc(&cellbuf, '}');
			} else
				qe_buf_adds(&cellbuf, "null");
			qe_buf_adds(&cellbuf, "}\n");
			ncells_out++;
		}
		free(r);
		free(B);
		free(H);
	}

	/* the notebook itself */
	cJSON *o = qe_json_check(cJSON_CreateObject());
	struct judgement j = { .b = NAN, .h = NAN, .ratio = NAN, .delta = NAN, .p = NAN };
	const char *measure = NULL;
	double *bv = qe_xmalloc(sizeof(double) * (size_t)(bs->nexec + 1));
	double *hv = qe_xmalloc(sizeof(double) * (size_t)(hs->nexec + 1));
	int nbv = 0, nhv = 0;

	if ((bs->status && hs->status && strcmp(bs->status, hs->status) != 0))
		nbflags |= F_STATUS;
	if (nbverdict < 0) {
		int cellsok = bs->tsrc > TS_NONE && hs->tsrc > TS_NONE && ts_comparable(bs->tsrc, hs->tsrc);

		if (cellsok) {
			for (int i = 0; i < bs->nexec; i++)
				if (!isnan(bs->cells_s[i]))
					bv[nbv++] = bs->cells_s[i];
			for (int i = 0; i < hs->nexec; i++)
				if (!isnan(hs->cells_s[i]))
					hv[nhv++] = hs->cells_s[i];
			if (nbv == 0 && sumb > 0)
				bv[nbv++] = sumb;
			if (nhv == 0 && sumh > 0)
				hv[nhv++] = sumh;
		}
		if (nbv > 0 && nhv > 0) {
			measure = "cells_seconds";
			judge(bv, nbv, hv, nhv, nb_ratio, nb_abs, scale, &j);
		} else {
			nbv = nhv = 0;
			for (int i = 0; i < bs->nexec; i++)
				if (!isnan(bs->exec_s[i]))
					bv[nbv++] = bs->exec_s[i];
			for (int i = 0; i < hs->nexec; i++)
				if (!isnan(hs->exec_s[i]))
					hv[nhv++] = hs->exec_s[i];
			if (nbv > 0 && nhv > 0) {
				measure = "execution_seconds";
				judge(bv, nbv, hv, nhv, nb_ratio, exec_abs, 1, &j);
				if (bs->tsrc != TS_NONE && hs->tsrc != TS_NONE)
					nbreason = "cell timing sources differ; compared execution_seconds";
			} else {
				j.verdict = V_NOTIMING;
				nbreason = hs->failed && bs->failed ? "failed in base and head" :
				    hs->failed ? "head failed" : bs->failed ? "base failed" : "no timing";
			}
		}
		nbverdict = j.verdict;
	}
	if (notcomp)
		nbreason = "provenance fingerprints differ";
	else if (nbverdict == V_CACHED)
		nbreason = "head did not re-execute this document";
	nb_counts[nbverdict]++;
	for (int f = 0; f < NFLAGS; f++)
		if (nbflags & (1 << f))
			nb_flag_counts[f]++;
	if (nbverdict == V_REGRESSION && !notcomp)
		gate_regressions++;

	qe_json_check(cJSON_AddStringToObject(o, "kind", "notebook-diff"));
	qe_json_check(cJSON_AddNumberToObject(o, "schema_version", QE_SCHEMA_VERSION));
	qe_json_check(cJSON_AddStringToObject(o, "document", d->name));
	qe_json_check(cJSON_AddStringToObject(o, "verdict", verdict_names[nbverdict]));
	add_flags(o, nbflags);
	qe_json_add_str_or_null(o, "reason", nbreason);
	qe_json_add_str_or_null(o, "measure", measure);
	add_num(o, "base_s", j.b, r6);
	add_num(o, "head_s", j.h, r6);
	add_num(o, "ratio", measure && j.b > 0 ? j.h / j.b : NAN, r4);
	add_num(o, "delta_s", measure ? j.h - j.b : NAN, r6);
	{
		double t;

		for (int i = 0; i < nbv; i++)
			bv[i] = NAN;
		nbv = 0;
		for (int i = 0; i < bs->nexec; i++)
			if (!isnan(bs->exec_s[i]))
				bv[nbv++] = bs->exec_s[i];
		t = median(bv, nbv);
		add_num(o, "base_execution_seconds", t, r6);
		nhv = 0;
		for (int i = 0; i < hs->nexec; i++)
			if (!isnan(hs->exec_s[i]))
				hv[nhv++] = hs->exec_s[i];
		add_num(o, "head_execution_seconds", median(hv, nhv), r6);
		nbv = 0;
		for (int i = 0; i < bs->nexec; i++)
			if (!isnan(bs->cells_s[i]))
				bv[nbv++] = bs->cells_s[i];
		add_num(o, "base_cells_seconds", nbv ? median(bv, nbv) : sumb > 0 ? sumb : NAN, r6);
		nhv = 0;
		for (int i = 0; i < hs->nexec; i++)
			if (!isnan(hs->cells_s[i]))
				hv[nhv++] = hs->cells_s[i];
		add_num(o, "head_cells_seconds", nhv ? median(hv, nhv) : sumh > 0 ? sumh : NAN, r6);
	}
	free(bv);
	free(hv);
	qe_json_add_str_or_null(o, "status_base", bs->status);
	qe_json_add_str_or_null(o, "status_head", hs->status);
	qe_json_add_str_or_null(o, "cache_key_base", bs->cache_key);
	qe_json_add_str_or_null(o, "cache_key_head", hs->cache_key);
	qe_json_add_str_or_null(o, "head_origin", !hs->present ? NULL : executed ? "executed" : "inherited");
	qe_json_add_str_or_null(o, "origin_from", how);
	qe_json_add_str_or_null(o, "fingerprint_base", bs->fp);
	qe_json_add_str_or_null(o, "fingerprint_head", hs->fp);
	{
		cJSON *c = qe_json_check(cJSON_AddObjectToObject(o, "cells"));

		for (int v = 0; v < V_CACHED; v++)
			qe_json_check(cJSON_AddNumberToObject(c, verdict_names[v], (double)counts[v]));
	}
	add_test(o, &j);
	qe_emit(o);
	cJSON_Delete(o);
	if (ncells_out > 0)
		qe_emit_line(cellbuf.data, cellbuf.len - 1);
}

static int
doc_cmp(const void *a, const void *b)
{
	return strcmp((*(struct doc *const *)a)->name, (*(struct doc *const *)b)->name);
}

static void
add_counts(cJSON *o, const char *key, const long *c, int nv)
{
	cJSON *x = qe_json_check(cJSON_AddObjectToObject(o, key));

	for (int v = 0; v < nv; v++)
		qe_json_check(cJSON_AddNumberToObject(x, verdict_names[v], (double)c[v]));
}

static void
add_flag_counts(cJSON *o, const char *key, const long *c)
{
	cJSON *x = qe_json_check(cJSON_AddObjectToObject(o, key));

	for (int f = 0; f < NFLAGS; f++)
		qe_json_check(cJSON_AddNumberToObject(x, flag_names[f], (double)c[f]));
}

static int
strp_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
emit_summary(const char *basename, const char *headname)
{
	cJSON *o = qe_json_check(cJSON_CreateObject());
	const char *machines;

	if (nfactdiffs > 1)
		qsort(factdiffs, (size_t)nfactdiffs, sizeof *factdiffs, factdiff_cmp);
	for (int w = 0; w < 2; w++)
		if (nfp_seen[w] > 1)
			qsort(fp_seen[w], (size_t)nfp_seen[w], sizeof(char *), strp_cmp);
	if (nfactdiffs > 0)
		machines = "different";
	else if (nfp_seen[BASE] > 0 && nfp_seen[HEAD] > 0)
		machines = "same";
	else
		machines = "unknown";
	qe_json_check(cJSON_AddStringToObject(o, "kind", "diff-summary"));
	qe_json_check(cJSON_AddNumberToObject(o, "schema_version", QE_SCHEMA_VERSION));
	qe_json_check(cJSON_AddStringToObject(o, "base", basename));
	qe_json_check(cJSON_AddStringToObject(o, "head", headname));
	qe_json_check(cJSON_AddNumberToObject(o, "base_records", (double)nrecords[BASE]));
	qe_json_check(cJSON_AddNumberToObject(o, "head_records", (double)nrecords[HEAD]));
	qe_json_check(cJSON_AddBoolToObject(o, "regression", gate_regressions > 0));
	add_counts(o, "notebooks", nb_counts, V_NV);
	add_counts(o, "cells", cell_counts, V_CACHED);
	add_flag_counts(o, "notebook_flags", nb_flag_counts);
	add_flag_counts(o, "cell_flags", cell_flag_counts);
	add_num(o, "runner_factor", runner_factor, r4);
	qe_json_check(cJSON_AddNumberToObject(o, "runner_factor_cells", runner_factor_cells));
	qe_json_check(cJSON_AddBoolToObject(o, "adjusted", adjust && !isnan(runner_factor)));
	qe_json_check(cJSON_AddStringToObject(o, "machines", machines));
	for (int w = 0; w < 2; w++) {
		cJSON *a = qe_json_check(cJSON_AddArrayToObject(o, w ? "fingerprints_head" : "fingerprints_base"));

		for (int i = 0; i < nfp_seen[w]; i++)
			cJSON_AddItemToArray(a, qe_json_check(cJSON_CreateString(fp_seen[w][i])));
	}
	{
		cJSON *a = qe_json_check(cJSON_AddArrayToObject(o, "differing_facts"));

		for (int i = 0; i < nfactdiffs; i++) {
			cJSON *f = qe_json_check(cJSON_CreateObject());

			qe_json_check(cJSON_AddStringToObject(f, "fact", factdiffs[i].fact));
			qe_json_check(cJSON_AddStringToObject(f, "base", factdiffs[i].base));
			qe_json_check(cJSON_AddStringToObject(f, "head", factdiffs[i].head));
			cJSON_AddItemToArray(a, f);
		}
	}
	{
		cJSON *t = qe_json_check(cJSON_AddObjectToObject(o, "thresholds"));

		qe_json_check(cJSON_AddNumberToObject(t, "cell_ratio", cell_ratio));
		qe_json_check(cJSON_AddNumberToObject(t, "cell_abs_s", cell_abs));
		qe_json_check(cJSON_AddNumberToObject(t, "notebook_ratio", nb_ratio));
		qe_json_check(cJSON_AddNumberToObject(t, "notebook_abs_s", nb_abs));
		qe_json_check(cJSON_AddNumberToObject(t, "execution_abs_s", exec_abs));
		qe_json_check(cJSON_AddNumberToObject(t, "alpha", alpha));
	}
	qe_emit(o);
	cJSON_Delete(o);
}

/* ---- main -------------------------------------------------------------------- */

enum { OPT_VERSION = 256, OPT_NB_RATIO, OPT_NB_ABS, OPT_EXEC_ABS, OPT_ALPHA, OPT_MAX_LINE };

static const struct option longopts[] = {
	{ "abs",           required_argument, NULL, 'a' },
	{ "adjust",        no_argument,       NULL, 'A' },
	{ "alpha",         required_argument, NULL, OPT_ALPHA },
	{ "document-key",  required_argument, NULL, 'd' },
	{ "exit-code",     no_argument,       NULL, 'e' },
	{ "exec-abs",      required_argument, NULL, OPT_EXEC_ABS },
	{ "filter",        required_argument, NULL, 'f' },
	{ "help",          no_argument,       NULL, 'h' },
	{ "key",           required_argument, NULL, 'k' },
	{ "max-line",      required_argument, NULL, OPT_MAX_LINE },
	{ "nb-abs",        required_argument, NULL, OPT_NB_ABS },
	{ "nb-ratio",      required_argument, NULL, OPT_NB_RATIO },
	{ "ratio",         required_argument, NULL, 'r' },
	{ "version",       no_argument,       NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 }
};

static void usage(FILE *fp, int status) __attribute__((noreturn));

static void
usage(FILE *fp, int status)
{
	fprintf(fp, "usage: qe-cell-diff [-Aeh] [--version] [-a seconds] [-d expr] [-f expr] [-k expr]\n"
	    "                    [-r ratio] [--alpha p] [--exec-abs seconds] [--nb-abs seconds]\n"
	    "                    [--nb-ratio ratio] [--max-line bytes] base head\n");
	exit(status);
}

static double
number_arg(const char *opt, const char *s, double min, int strict)
{
	char *end;
	double v = strtod(s, &end);

	if (*s == '\0' || *end != '\0' || isnan(v) || isinf(v) || v < min || (strict && v == min)) {
		warnx("%s: invalid value '%s'", opt, s);
		usage(stderr, QE_EXIT_TROUBLE);
	}
	return v;
}

/* Judge every document read so far, in name order, then the summary. */
static void
compare_all(const char *basename, const char *headname)
{
	struct doc **docs = qe_xmalloc(sizeof *docs * (ndocs + 1));
	size_t n = 0;

	for (size_t i = 0; i < tabcap; i++)
		if (tab[i])
			docs[n++] = tab[i];
	if (n > 1)
		qsort(docs, n, sizeof *docs, doc_cmp);
	estimate_factor(docs, n);
	for (size_t i = 0; i < n; i++)
		emit_doc(docs[i]);
	emit_summary(basename, headname);
	free(docs);
}

int
main(int argc, char **argv)
{
	int ch, status = QE_EXIT_OK, s;
	int sides[2] = { BASE, HEAD };

	/* getopt's messages name argv[0]: the same short name as warnx's */
	argv[0] = (char *)qe_progname();
	while ((ch = getopt_long(argc, argv, "Aa:d:ef:hk:r:", longopts, NULL)) != -1)
		switch (ch) {
		case 'A':
			adjust = 1;
			break;
		case 'a':
			cell_abs = number_arg("-a", optarg, 0, 0);
			break;
		case 'd':
			docx.text = optarg;
			break;
		case 'e':
			eflag = 1;
			break;
		case 'f':
			filterx.text = optarg;
			break;
		case 'h':
			usage(stdout, QE_EXIT_OK);
		case 'k':
			keyx.text = optarg;
			break;
		case 'r':
			cell_ratio = number_arg("-r", optarg, 1, 0);
			break;
		case OPT_ALPHA:
			alpha = number_arg("--alpha", optarg, 0, 1);
			if (alpha >= 1) {
				warnx("--alpha: invalid value '%s'", optarg);
				usage(stderr, QE_EXIT_TROUBLE);
			}
			break;
		case OPT_EXEC_ABS:
			exec_abs = number_arg("--exec-abs", optarg, 0, 0);
			break;
		case OPT_NB_ABS:
			nb_abs = number_arg("--nb-abs", optarg, 0, 0);
			break;
		case OPT_NB_RATIO:
			nb_ratio = number_arg("--nb-ratio", optarg, 1, 0);
			break;
		case OPT_MAX_LINE:
			if (qe_set_max_line(optarg) < 0)
				usage(stderr, QE_EXIT_TROUBLE);
			break;
		case OPT_VERSION:
			printf("qe-cell-diff %s\n", QE_VERSION);
			return QE_EXIT_OK;
		default:
			usage(stderr, QE_EXIT_TROUBLE);
		}
	argc -= optind;
	argv += optind;
	if (argc != 2)
		usage(stderr, QE_EXIT_TROUBLE);
	if (strcmp(argv[0], "-") == 0 && strcmp(argv[1], "-") == 0) {
		warnx("only one of base and head may be '-'");
		usage(stderr, QE_EXIT_TROUBLE);
	}
	if (keyx.text)
		jqx_compile(&keyx, "-k");
	if (docx.text)
		jqx_compile(&docx, "-d");
	if (filterx.text)
		jqx_compile(&filterx, "-f");

	for (int w = 0; w < 2; w++)
		if ((s = qe_each_record(1, &argv[w], read_record, &sides[w])) != QE_EXIT_OK)
			status = s;
	if (nrecords[BASE] == 0) {
		warnx("%s: no baseline records", strcmp(argv[0], "-") ? argv[0] : "<stdin>");
		status = QE_EXIT_TROUBLE;
	}

	compare_all(strcmp(argv[0], "-") ? argv[0] : "<stdin>", strcmp(argv[1], "-") ? argv[1] : "<stdin>");
	if (keyx.jq)
		jq_teardown(&keyx.jq);
	if (docx.jq)
		jq_teardown(&docx.jq);
	if (filterx.jq)
		jq_teardown(&filterx.jq);
	if (status == QE_EXIT_OK && eflag && gate_regressions > 0)
		status = QE_EXIT_ANSWER;
	return qe_finish(status);
}
