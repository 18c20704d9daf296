/* Reading cell and notebook records into per-document sides (qe_reader.h). */
#include <err.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qe.h"
#include "qe_align.h"
#include "qe_json.h"
#include "qe_ndjson.h"
#include "qe_sha.h"
#include "qe_prscope.h"
#include "qe_reader.h"
#include "qe_record.h"
#include "qe_recscan.h"
#include "qe_stats.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/*
 * What a record says to the sides, from its struct qe_recline (read from
 * its line, or from its tree where a jq expression needs one).
 */
struct rec {
	const cJSON *tree;	/* the record's tree (for -k), NULL when read from the line */
	const char *cache_key, *status, *input, *error, *origin, *source, *output, *label,
	    *first_line, *name, *tsrc, *tnote, *tc_digest, *result, *warm_note, *warm_error;
	/* NAN when absent, null or not a number */
	double index, dur, exec_s, cells_s, tc_seq, warm_s, peak_growth, rss, warm_nb;
	int has_warm_nb;	/* a warm_seconds member, null or not */
	const cJSON *prov;	/* "provenance", or NULL */
	const cJSON *kenv;	/* "kernel_env" when an object, or NULL */
	const cJSON *values;	/* "values" when an array, or NULL */
	const cJSON *jitfn;	/* "jit_functions" when an object, or NULL */
	double jit_n, jit_s;	/* jit_compiles, jit_compile_s */
	const char *engine;	/* "engine" (mystmd), or NULL */
	const cJSON *concurrent;	/* "concurrent" when an array, or NULL */
	int has_concurrent;	/* a concurrent member, null or not */
};

static uint32_t
text_add(struct qe_reader *r, const char *s)
{
	size_t off;

	if (s == NULL)
		return 0;
	if (r->text.len == 0)
		qe_buf_addc(&r->text, '\0');
	off = r->text.len;
	if (off + strlen(s) + 1 > UINT32_MAX)
		errx(QE_EXIT_TROUBLE, "too much label text to hold");
	qe_buf_add(&r->text, s, strlen(s) + 1);
	return (uint32_t)off;
}

const char *
qe_reader_text(const struct qe_reader *r, uint32_t off)
{
	return off ? r->text.data + off : NULL;
}

static uint64_t
fnv(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static void
doc_rehash(struct qe_reader *r)
{
	size_t ncap = r->tabcap ? r->tabcap * 2 : 1024, i;
	struct qe_doc **nt = qe_xcalloc(ncap, sizeof *nt);

	for (size_t k = 0; k < r->tabcap; k++)
		if (r->tab[k]) {
			for (i = fnv(r->tab[k]->name) & (ncap - 1); nt[i]; i = (i + 1) & (ncap - 1))
				;
			nt[i] = r->tab[k];
		}
	free(r->tab);
	r->tab = nt;
	r->tabcap = ncap;
}

static struct qe_doc *
doc_get(struct qe_reader *r, const char *name)
{
	size_t i;
	struct qe_doc *d;

	/* a document's records come together: its last one's document first */
	if (r->last && strcmp(r->last->name, name) == 0)
		return r->last;
	if (r->ndocs * 2 >= r->tabcap)
		doc_rehash(r);
	for (i = fnv(name) & (r->tabcap - 1); r->tab[i]; i = (i + 1) & (r->tabcap - 1))
		if (strcmp(r->tab[i]->name, name) == 0)
			return r->last = r->tab[i];
	d = r->last = r->tab[i] = qe_xcalloc(1, sizeof *d);
	d->name = qe_xstrdup(name);
	for (int w = 0; w < 2; w++) {
		d->s[w].tsrc = QE_SIDE_TS_NONE;
		d->s[w].origin = -1;
	}
	r->ndocs++;
	return d;
}

#ifdef __SSE2__
/* 1 when the 16 bytes at p are hex digits (either case), their values in *v; else 0. */
static int
hex16(const char *p, __m128i *v)
{
	__m128i c = _mm_loadu_si128((const __m128i *)(const void *)p);
	__m128i l = _mm_or_si128(c, _mm_set1_epi8(0x20));	/* 'A'..'F' to 'a'..'f', digits kept */
	__m128i dig = _mm_and_si128(_mm_cmpgt_epi8(c, _mm_set1_epi8('0' - 1)),
	    _mm_cmplt_epi8(c, _mm_set1_epi8('9' + 1)));
	__m128i alp = _mm_and_si128(_mm_cmpgt_epi8(l, _mm_set1_epi8('a' - 1)),
	    _mm_cmplt_epi8(l, _mm_set1_epi8('f' + 1)));

	*v = _mm_sub_epi8(l, _mm_or_si128(_mm_and_si128(dig, _mm_set1_epi8('0')),
	    _mm_andnot_si128(dig, _mm_set1_epi8('a' - 10))));
	return _mm_movemask_epi8(_mm_or_si128(dig, alp)) == 0xffff;
}

/* Two nibbles a byte: 16 values of hex16() to 8 bytes, in the low half of the result's lanes. */
static __m128i
nibbles(__m128i v)
{
	return _mm_or_si128(_mm_slli_epi16(_mm_and_si128(v, _mm_set1_epi16(0xff)), 4), _mm_srli_epi16(v, 8));
}
#endif

/*
 * The first 16 bytes of a 64-hex digest; -1 if s is not one (as
 * qe_sha_unhex() of all 64 digits would say: per cell and side, so in SSE2).
 */
static int
digest16(const char *s, uint8_t out[16])
{
#ifdef __SSE2__
	__m128i a, b, c, d;

	if (s == NULL || strnlen(s, 65) != 64 || !hex16(s, &a) || !hex16(s + 16, &b) ||
	    !hex16(s + 32, &c) || !hex16(s + 48, &d))
		return -1;
	_mm_storeu_si128((__m128i *)(void *)out, _mm_packus_epi16(nibbles(a), nibbles(b)));
	return 0;
#else
	unsigned char raw[32];

	if (s == NULL || strlen(s) != 64 || qe_sha_unhex(s, 32, raw) < 0)
		return -1;
	memcpy(out, raw, 16);
	return 0;
#endif
}

static void
hash16(const char *s, uint8_t out[16])
{
	char hex[QE_SHA256_HEX];

	qe_sha256_hex(s, strlen(s), hex);
	digest16(hex, out);
}

static void
samples_push(struct qe_samples **s, double v)
{
	if (*s == NULL || (*s)->n == (*s)->cap) {
		int cap = *s ? (*s)->cap * 2 : 4;
		struct qe_samples *m = qe_xrealloc(*s, sizeof *m + (size_t)cap * sizeof(double));

		if (*s == NULL)
			m->n = 0;
		m->cap = cap;
		*s = m;
	}
	(*s)->v[(*s)->n++] = v;
}

static void
samples_add(struct qe_cell *c, double v)
{
	samples_push(&c->more, v);
}

/* What a notebook or cell record says of its side as a whole. */
static void
side_common(struct qe_reader *r, struct qe_side *sd, const struct rec *rec)
{
	const cJSON *prov = rec->prov;
	const char *f, *o = rec->origin;

	sd->present = 1;
	if (o != NULL) {
		if (qe_vocab_lookup(&qe_vocab_origins, o) != QE_ORIGIN_INHERITED)
			sd->origin = QE_ORIGIN_EXECUTED;	/* any executed record wins */
		else if (sd->origin < 0)
			sd->origin = QE_ORIGIN_INHERITED;
	}
	/* the side's first fingerprint only (looked up once a side, not once a record) */
	if (sd->fp == NULL && (f = qe_json_str(prov, "fingerprint")) != NULL)
		sd->fp = qe_fp_intern(&r->fps, f, cJSON_GetObjectItemCaseSensitive(prov, "fingerprint_facts"));
	if (r->runner_mem[r->side] <= 0) {
		double m = qe_json_num(cJSON_GetObjectItemCaseSensitive(prov, "hardware"), "memory_bytes");

		if (m > 0)	/* NAN is not */
			r->runner_mem[r->side] = m;
	}
	if (r->packages[r->side] == NULL) {
		const cJSON *pk = cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(prov, "environment"), "packages");

		if (cJSON_IsObject(pk))
			r->packages[r->side] = qe_json_check(cJSON_Duplicate(pk, 1));
	}
	r->nrecords[r->side]++;
}

static void
slot_rehash(struct qe_side *sd)
{
	int ncap = sd->capslot ? sd->capslot * 2 : 16;
	int *ns = qe_xcalloc((size_t)ncap, sizeof *ns);
	uint32_t h, mask = (uint32_t)ncap - 1;

	for (int k = 0; k < sd->ncells; k++) {
		for (h = ((uint32_t)sd->cells[k].index * 2654435761u) & mask; ns[h]; h = (h + 1) & mask)
			;
		ns[h] = k + 1;
	}
	free(sd->slot);
	sd->slot = ns;
	sd->capslot = ncap;
}

/*
 * The cell with index i of a side, made if new. One line with "index":
 * 99999999 used to make a 7 GB array (found by fuzz-cell-diff).
 */
static struct qe_cell *
side_cell(struct qe_side *sd, int i)
{
	uint32_t h, mask;
	struct qe_cell *c;

	if (sd->ncells * 2 >= sd->capslot)
		slot_rehash(sd);
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

/* "a, b, c or d": the words of a table, for a message. */
static void
words_of(struct qe_buf *b, const struct qe_vocab *v)
{
	for (int i = 0; i < v->n; i++)
		qe_buf_addf(b, "%s%s", i == 0 ? "" : i == v->n - 1 ? " or " : ", ", v->names[i]);
}

/*
 * 1 (after the message) when a field read has the wrong type or word: the
 * first member in the record's order of a wrong type, every occurrence of
 * a repeated member counted.
 */
static int
bad_field(const struct qe_recline *l, int iscell, const char *kind, const char *file, long line)
{
	const char *st = l->str[QE_RK_STATUS];

	if (qe_record_bad_line(l, iscell ? QE_RKIND_CELL : QE_RKIND_NOTEBOOK, QE_RREAD_DIFF, kind, file, line))
		return 1;
	if (iscell && st != NULL && qe_vocab_lookup(&qe_vocab_cell_statuses, st) < 0) {
		struct qe_buf w = { 0 };

		words_of(&w, &qe_vocab_cell_statuses);
		warnx("%s:%ld: cell record with an invalid 'status' (not %s)", file, line, w.data);
		qe_buf_free(&w);
		return 1;
	}
	return 0;
}

/* Why a cell record cannot be read, or NULL. */
static const char *
bad_cell(const struct qe_recline *l)
{
	double i = l->num[QE_RK_INDEX], d = l->num[QE_RK_DURATION];
	uint8_t src[16];

	if (l->type[QE_RK_INDEX] != QE_JS_NUM || i < 0 || i > 1e8 || i != floor(i))
		return "without a valid 'index'";
	if (digest16(l->str[QE_RK_SOURCE], src) < 0)
		return "without a valid 'source_sha256'";
	if (l->type[QE_RK_DURATION] != QE_JS_NULL && !(l->type[QE_RK_DURATION] == QE_JS_NUM && d >= 0))
		return "with an invalid 'duration_s'";
	return NULL;
}

/*
 * The document a record counts for: 0 with *name (*own: what to free),
 * 1 to skip the record, -1 to reject it (reported). The expressions read
 * the tree, which is there when one is set (qe_reader_read()).
 */
static int
record_document(struct qe_reader *r, const struct qe_recline *l, const cJSON *tree, const char *kind,
    const char *file, long line, const char **name, char **own)
{
	int keep;

	*name = *own = NULL;
	if (r->filter && (keep = r->filter(r->filter_arg, tree, file, line)) <= 0)
		return keep < 0 ? -1 : 1;
	if (r->document) {
		if (r->document(r->document_arg, tree, file, line, own) < 0)
			return -1;
		*name = *own;
	} else
		*name = l->str[QE_RK_DOCUMENT];
	if (*name == NULL) {
		warnx("%s:%ld: %s record without 'document'", file, line, kind);
		return -1;
	}
	return 0;
}

/*
 * A notebook record's "values" (qe-replicate --compare): the first run's
 * kept; a later run whose digests differ marks the side's values as varying.
 */
static void
read_values(struct qe_side *sd, const cJSON *values)
{
	const cJSON *a, *b;

	if (values == NULL)
		return;
	if (sd->values == NULL) {
		sd->values = qe_json_check(cJSON_Duplicate(values, 1));
		return;
	}
	if (cJSON_GetArraySize(values) != cJSON_GetArraySize(sd->values)) {
		sd->values_vary = 1;
		return;
	}
	for (a = values->child, b = sd->values->child; a && b; a = a->next, b = b->next) {
		const char *x = qe_json_str(a, "sha256"), *y = qe_json_str(b, "sha256");

		if ((x == NULL) != (y == NULL) || (x && strcmp(x, y) != 0))
			sd->values_vary = 1;
	}
}

/*
 * What ran the document (its "engine", else jupyter-cache for a cache
 * record: the side's first says) and the documents that ran beside it
 * (the first record with a "concurrent" member says).
 */
static void
read_engine(struct qe_reader *r, struct qe_side *sd, const struct rec *rec)
{
	int e = qe_vocab_lookup(&qe_vocab_engines, rec->engine);

	if (rec->engine != NULL)
		r->engine_named = 1;
	if (e < 0 && rec->input && strcmp(rec->input, "cache") == 0)
		e = QE_EN_JCACHE;
	if (r->engine[r->side] == 0 && e >= 0)
		r->engine[r->side] = e + 1;
	if (!sd->has_concurrent && rec->has_concurrent) {
		sd->has_concurrent = 1;
		if (rec->concurrent != NULL)
			sd->concurrent = qe_json_check(cJSON_Duplicate(rec->concurrent, 1));
	}
}

static void
read_notebook(struct qe_reader *r, struct qe_side *sd, const struct rec *rec)
{
	const char *ck = rec->cache_key, *st = rec->status, *in = rec->input;
	int failed = st && qe_vocab_lookup(&qe_vocab_nb_statuses, st) == QE_NB_FAILED;

	sd->nb_records++;
	if (sd->kenv == NULL && rec->kenv != NULL)
		sd->kenv = qe_json_check(cJSON_Duplicate(rec->kenv, 1));
	read_values(sd, rec->values);
	if (sd->nexec == sd->capexec) {
		sd->capexec = sd->capexec ? sd->capexec * 2 : 1;
		sd->exec_s = qe_xrealloc(sd->exec_s, (size_t)sd->capexec * sizeof(double));
		sd->cells_s = qe_xrealloc(sd->cells_s, (size_t)sd->capexec * sizeof(double));
		sd->warm_s = qe_xrealloc(sd->warm_s, (size_t)sd->capexec * sizeof(double));
	}
	sd->warm_s[sd->nexec] = rec->warm_nb;
	sd->nwarm += rec->has_warm_nb;
	if (sd->warm_error == NULL && rec->warm_error)
		sd->warm_error = qe_xstrdup(rec->warm_error);
	sd->exec_s[sd->nexec] = rec->exec_s;
	sd->cells_s[sd->nexec++] = rec->cells_s;
	if (ck && sd->cache_key == NULL)
		sd->cache_key = qe_xstrdup(ck);
	if (st && (sd->status == NULL || failed)) {
		free(sd->status);
		sd->status = qe_xstrdup(st);
	}
	if (failed) {
		double seq = rec->tc_seq;
		const char *dg = rec->tc_digest;

		sd->failed = 1;
		if (sd->error == NULL && rec->error)
			sd->error = qe_xstrdup(rec->error);
		if (sd->timeout_seq == 0 && seq >= 1 && seq <= 1e9 && seq == floor(seq) && dg) {
			sd->timeout_seq = (long)seq;
			sd->timeout_digest = qe_xstrdup(dg);
		}
	}
	sd->input_cache = in && strcmp(in, "cache") == 0;
	read_engine(r, sd, rec);
	side_common(r, sd, rec);
}

/* The cell's alignment key: 0, or -1 after the key expression failed. */
static int
cell_key(struct qe_reader *r, const struct rec *rec, const char *file, long line, const uint8_t src[16],
    uint8_t key[16], int *haskey)
{
	char *k;

	*haskey = 1;
	if (r->key == NULL) {
		memcpy(key, src, 16);
		return 0;
	}
	if (r->key(r->key_arg, rec->tree, file, line, &k) < 0)
		return -1;
	if (k == NULL)
		*haskey = 0;
	else
		hash16(k, key);
	free(k);
	return 0;
}

/* The first sight of a cell: everything but its replicate durations. */
static void
cell_first(struct qe_reader *r, struct qe_side *sd, struct qe_cell *c, const struct rec *rec)
{
	const char *ts = rec->tsrc;
	int t = qe_vocab_lookup(&qe_vocab_timing_sources, ts);
	uint8_t o[16];

	/* qe-replicate's result digest (streams merged, volatile text
	 * normalised) when there is one: a print split in two stream outputs
	 * must not read as a changed output */
	if (digest16(rec->result, o) == 0 ||
	    digest16(rec->output, o) == 0)
		memcpy(&c->out, o, 8);
	/* bad_field() let only null or a known status through */
	c->status = (int8_t)qe_vocab_lookup(&qe_vocab_cell_statuses, rec->status);
	c->tsrc = (int8_t)(ts == NULL ? -1 : t < 0 ? QE_TS_OTHER : t);
	c->label = text_add(r, rec->label);
	c->first_line = text_add(r, rec->first_line);
	c->name = text_add(r, rec->name);
	c->error = text_add(r, rec->error);
	c->note = (int8_t)qe_vocab_lookup(&qe_vocab_timing_notes, rec->tnote);
	if (!isnan(c->dur) && c->tsrc >= 0) {
		if (sd->tsrc == QE_SIDE_TS_NONE)
			sd->tsrc = c->tsrc;
		else if (sd->tsrc != c->tsrc)
			sd->tsrc = QE_SIDE_TS_MIXED;
	}
}

/*
 * The recompile audit of a cell record (the hook's jit_compiles,
 * jit_compile_s, jit_functions) into its cell: a replicate's counts, and
 * the function compiled most often.
 */
static void
read_jit(struct qe_reader *r, struct qe_cell *c, const struct rec *rec)
{
	const cJSON *f;

	if (isnan(rec->jit_n) || rec->jit_n < 0)
		return;
	samples_push(&c->jitn, rec->jit_n);
	samples_push(&c->jits, isnan(rec->jit_s) || rec->jit_s < 0 ? 0 : rec->jit_s);
	cJSON_ArrayForEach(f, rec->jitfn) {
		if (cJSON_IsNumber(f) && f->valuedouble > c->jit_top_n && f->valuedouble < 1e9) {
			c->jit_top_n = (int)f->valuedouble;
			c->jit_top = text_add(r, f->string);
		}
	}
}

/* A cell record of document d, checked by bad_cell(): 0, or -1 (reported). */
static int
read_cell(struct qe_reader *r, struct qe_doc *d, const struct rec *rec, const char *file, long line)
{
	struct qe_side *sd = &d->s[r->side];
	double dv = rec->dur;
	int i = (int)rec->index, haskey;
	uint8_t src[16], key[16] = { 0 };
	struct qe_cell *c;

	digest16(rec->source, src);
	if (cell_key(r, rec, file, line, src, key, &haskey) < 0)
		return -1;
	c = side_cell(sd, i);
	side_common(r, sd, rec);
	if (!isnan(rec->warm_s))
		samples_push(&c->warm, rec->warm_s);
	if (!isnan(rec->peak_growth))
		samples_push(&c->mem, rec->peak_growth);
	if (!isnan(rec->rss))
		samples_push(&c->rss, rec->rss);
	if (c->warm_error == 0 && rec->warm_note && strcmp(rec->warm_note, "raised") == 0)
		c->warm_error = text_add(r, rec->warm_error ? rec->warm_error : "an error");
	read_jit(r, c, rec);
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
	cell_first(r, sd, c, rec);
	return 0;
}

static double
line_num(const struct qe_recline *l, int id)
{
	return l->type[id] == QE_JS_NUM ? l->num[id] : NAN;
}

/* What the record l says to the sides (tree: its tree, for -k, or NULL). */
static void
rec_of(const struct qe_recline *l, const cJSON *tree, struct rec *f)
{
	*f = (struct rec){ .tree = tree, .cache_key = l->str[QE_RK_CACHE_KEY], .status = l->str[QE_RK_STATUS],
	    .input = l->str[QE_RK_INPUT], .error = l->str[QE_RK_ERROR], .origin = l->str[QE_RK_ORIGIN],
	    .source = l->str[QE_RK_SOURCE], .output = l->str[QE_RK_OUTPUT],
	    .label = l->str[QE_RK_LABEL], .first_line = l->str[QE_RK_FIRST_LINE],
	    .name = l->str[QE_RK_NAME],
	    .tsrc = l->str[QE_RK_TSRC], .tnote = l->str[QE_RK_TNOTE],
	    .tc_digest = qe_json_str(l->tc, "source_sha256"), .tc_seq = qe_json_num(l->tc, "seq"),
	    .index = line_num(l, QE_RK_INDEX), .dur = line_num(l, QE_RK_DURATION),
	    .exec_s = line_num(l, QE_RK_EXEC_S), .cells_s = line_num(l, QE_RK_CELLS_S),
	    .result = l->str[QE_RK_RESULT], .warm_s = line_num(l, QE_RK_WARM_S),
	    .peak_growth = line_num(l, QE_RK_PEAK_GROWTH), .kenv = l->kenv, .prov = l->prov,
	    .rss = line_num(l, QE_RK_RSS), .warm_note = l->str[QE_RK_WARM_NOTE],
	    .warm_error = l->str[QE_RK_WARM_ERROR], .warm_nb = line_num(l, QE_RK_WARM_NB),
	    .has_warm_nb = l->type[QE_RK_WARM_NB] != 0, .values = l->values, .jitfn = l->jitfn,
	    .jit_n = line_num(l, QE_RK_JIT_N), .jit_s = line_num(l, QE_RK_JIT_S),
	    .engine = l->str[QE_RK_ENGINE], .concurrent = l->concurrent,
	    .has_concurrent = l->type[QE_RK_CONCURRENT] != 0 };
}

/*
 * A qe-replicate record names the version it ran: 1 when it belongs to the
 * other side (skipped), 0 when to this one or it names none, -1 (reported)
 * for a word that is not a version. With --arms its "arm" decides instead
 * (another arm's is skipped); without, an arm's record that names no
 * version (a third arm on) belongs to neither side.
 */
static int
other_version(const struct qe_reader *r, const struct qe_recline *l, const char *file, long line)
{
	int w, arm = l->type[QE_RK_ARM] == QE_JS_STR;

	if (arm && r->arms[0] != NULL)
		return strcmp(l->str[QE_RK_ARM], r->arms[r->side == QE_BASE ? 0 : 1]) != 0;
	if (l->type[QE_RK_VERSION] == 0 || l->type[QE_RK_VERSION] == QE_JS_NULL)
		return arm;
	if ((w = qe_vocab_lookup(&qe_vocab_versions, l->str[QE_RK_VERSION])) < 0) {
		warnx("%s:%ld: 'version' is not base or head", file, line);
		return -1;
	}
	return w != (r->side == QE_BASE ? QE_VER_BASE : QE_VER_HEAD);
}

/* A record checked in full: its document's side takes it. */
static int
take(struct qe_reader *r, const struct rec *f, int iscell, const char *name, const char *file, long line)
{
	struct qe_doc *d = doc_get(r, name);

	if (iscell)
		return read_cell(r, d, f, file, line);
	read_notebook(r, &d->s[r->side], f);
	return 0;
}

/* One record, read from its line or its tree into l, checked once: 0, or -1 (reported). */
static int
read_record(struct qe_reader *r, const struct qe_recline *l, const cJSON *tree, const char *file, long line)
{
	const char *kind = l->str[QE_RK_KIND], *why, *name;
	char *own;
	struct rec f;
	int iscell, s;

	if (kind == NULL) {
		warnx("%s:%ld: record without 'kind'", file, line);
		return -1;
	}
	iscell = strcmp(kind, "cell") == 0;
	if (!iscell && strcmp(kind, "notebook") != 0)
		return 0;	/* provenance and other records: not ours */
	if (bad_field(l, iscell, kind, file, line))
		return -1;
	if (l->type[QE_RK_CURRENT] == QE_JS_FALSE)
		return 0;
	if ((s = other_version(r, l, file, line)) != 0)
		return s < 0 ? -1 : 0;
	if ((s = record_document(r, l, tree, kind, file, line, &name, &own)) != 0)
		return s < 0 ? -1 : 0;
	/* before doc_get(): a rejected record must not leave its document behind */
	if (iscell && (why = bad_cell(l)) != NULL) {
		warnx("%s:%ld: cell record %s", file, line, why);
		free(own);
		return -1;
	}
	rec_of(l, tree, &f);
	s = take(r, &f, iscell, name, file, line);
	free(own);
	return s;
}

int
qe_reader_record(cJSON *rec, const char *file, long line, void *ctx)
{
	struct qe_reader *r = ctx;
	struct qe_recline l;

	qe_recscan_tree(&r->scan, rec, &l);
	return read_record(r, &l, rec, file, line);
}

int
qe_reader_line(const char *s, size_t n, const char *file, long line, void *ctx)
{
	struct qe_reader *r = ctx;
	struct qe_recline l;

	if (qe_recscan_line(&r->scan, s, n, &l) != 0)
		return QE_LINE_REFUSED;	/* qe_ndjson says why */
	return read_record(r, &l, NULL, file, line);
}

int
qe_reader_read(struct qe_reader *r, int side, const char *path)
{
	char *argv[1] = { (char *)path };

	r->side = side;
	/* jq expressions read trees */
	if (r->filter || r->document || r->key || r->tree)
		return qe_ndjson_each(1, argv, qe_reader_record, r);
	return qe_ndjson_each_lines(1, argv, qe_reader_line, NULL, r);
}

static int
doc_cmp(const void *a, const void *b)
{
	return strcmp((*(struct qe_doc *const *)a)->name, (*(struct qe_doc *const *)b)->name);
}

struct qe_doc **
qe_reader_docs(const struct qe_reader *r, size_t *np)
{
	struct qe_doc **docs = qe_xmalloc(sizeof *docs * (r->ndocs + 1));
	size_t n = 0;

	for (size_t i = 0; i < r->tabcap; i++)
		if (r->tab[i] && (r->tab[i]->s[QE_BASE].present || r->tab[i]->s[QE_HEAD].present))
			docs[n++] = r->tab[i];
	if (n > 1)
		qsort(docs, n, sizeof *docs, doc_cmp);
	*np = n;
	return docs;
}

static int
cellp_cmp(const void *a, const void *b)
{
	const struct qe_cell *x = *(const struct qe_cell *const *)a, *y = *(const struct qe_cell *const *)b;

	return (x->index > y->index) - (x->index < y->index);
}

int
qe_reader_side_cells(const struct qe_side *sd, const struct qe_cell ***out)
{
	int n = 0, sorted = 1;
	const struct qe_cell **v = qe_xmalloc(sizeof *v * (size_t)(sd->ncells + 1));

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

int
qe_reader_cell_samples(const struct qe_cell *c, double **out)
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

double
qe_reader_cell_median(const struct qe_cell *c)
{
	double *v, m;
	int n = qe_reader_cell_samples(c, &v);

	m = qe_stats_median(v, n);
	free(v);
	return m;
}

static void
side_free(struct qe_side *sd)
{
	for (int k = 0; k < sd->ncells; k++)
		free(sd->cells[k].more), free(sd->cells[k].warm), free(sd->cells[k].mem), free(sd->cells[k].rss),
		    free(sd->cells[k].jitn), free(sd->cells[k].jits);
	free(sd->cells);
	free(sd->slot);
	free(sd->cache_key);
	free(sd->status);
	free(sd->error);
	free(sd->timeout_digest);
	free(sd->exec_s);
	free(sd->cells_s);
	free(sd->warm_s);
	free(sd->warm_error);
	cJSON_Delete(sd->kenv);
	cJSON_Delete(sd->values);
	cJSON_Delete(sd->concurrent);
}

void
qe_reader_free(struct qe_reader *r)
{
	for (size_t i = 0; i < r->tabcap; i++)
		if (r->tab[i]) {
			side_free(&r->tab[i]->s[QE_BASE]);
			side_free(&r->tab[i]->s[QE_HEAD]);
			free(r->tab[i]->name);
			free(r->tab[i]);
		}
	free(r->tab);
	r->tab = NULL;
	r->last = NULL;
	r->tabcap = r->ndocs = 0;
	r->nrecords[QE_BASE] = r->nrecords[QE_HEAD] = 0;
	qe_buf_free(&r->text);
	qe_recscan_free(&r->scan);
	qe_fingerprints_free(&r->fps);
	for (int w = 0; w < 2; w++) {
		cJSON_Delete(r->packages[w]);
		r->packages[w] = NULL;
		r->engine[w] = 0;
	}
	r->engine_named = 0;
}

/* A side as doc_get() makes it: nothing read. */
static void
side_clear(struct qe_side *sd)
{
	memset(sd, 0, sizeof *sd);
	sd->tsrc = QE_SIDE_TS_NONE;
	sd->origin = -1;
}

/*
 * The document named relatively that a's side w belongs to: the longest
 * name a ends in by qe_align_relname's rule whose other side was read (what
 * would otherwise be removed or new), or NULL.
 */
static struct qe_doc *
relative_match(struct qe_doc *const *docs, size_t n, const struct qe_doc *a, int w)
{
	struct qe_doc *best = NULL;

	for (size_t i = 0; i < n; i++) {
		struct qe_doc *d = docs[i];

		if (d->name[0] == '/' || !d->s[!w].present || !qe_align_relname(a->name, d->name))
			continue;
		if (best == NULL || strlen(d->name) > strlen(best->name))
			best = d;
	}
	return best;
}

static void
relayout_warn(int w, long moved, long twice, long alone, const char *example)
{
	const char *side = w == QE_BASE ? "base" : "head", *other = w == QE_BASE ? "head" : "base";

	if (moved + twice > 0)
		warnx("%s: %ld document%s named by absolute path (built in another folder?), matched to "
		    "%s's by their relative layout (%ld of them also read by name, listed once): e.g. %s", side,
		    moved + twice, moved + twice == 1 ? "" : "s", other, twice, example);
	if (alone > 0)
		warnx("%s: %ld document%s named by absolute path match%s none of %s's", side, alone,
		    alone == 1 ? "" : "s", alone == 1 ? "es" : "", other);
}

/* Move side w of a to the document `name`, or drop it when that has one (listed once). */
static void
side_move(struct qe_reader *r, struct qe_doc *a, int w, const char *name)
{
	struct qe_doc *d = doc_get(r, name);

	if (d->s[w].present)
		side_free(&a->s[w]);
	else
		d->s[w] = a->s[w];
	side_clear(&a->s[w]);
}

/*
 * Step 1: the documents named by absolute path read on side w only, joined
 * to those named relatively; what matched none is left in lone[w].
 */
static void
relayout_relative(struct qe_reader *r, struct qe_doc **docs, size_t n, int w, long *moved,
    long *twice, const char **example, struct qe_doc **lone, size_t *nlone)
{
	for (size_t i = 0; i < n; i++) {
		struct qe_doc *a = docs[i], *d;

		if (a->name[0] != '/' || !a->s[w].present || a->s[!w].present)
			continue;
		if ((d = relative_match(docs, n, a, w)) == NULL) {
			lone[(*nlone)++] = a;
			continue;
		}
		if (*example == NULL)
			*example = a->name;
		if (d->s[w].present)
			(*twice)++;
		else
			(*moved)++;
		side_move(r, a, w, d->name);
	}
}

/*
 * Step 2: both sides' lone documents named by absolute path, in two
 * folders (qe_align_folders): renamed below their folder, so pairs join
 * by name; warned once. Returns how many pairs were matched; the lone
 * counts drop by the documents renamed.
 */
static long
relayout_folders(struct qe_reader *r, struct qe_doc **lone[2], size_t nlone[2], long alone[2])
{
	const char **names[2];
	struct qe_align_dirs dirs;
	long dirs_matched;
	int rc;

	if (nlone[QE_BASE] == 0 || nlone[QE_HEAD] == 0)
		return 0;
	for (int w = 0; w < 2; w++) {
		names[w] = qe_xcalloc(nlone[w], sizeof *names[w]);
		for (size_t i = 0; i < nlone[w]; i++)
			names[w][i] = lone[w][i]->name;
	}
	rc = qe_align_folders(names[QE_BASE], nlone[QE_BASE], names[QE_HEAD], nlone[QE_HEAD], &dirs);
	free(names[QE_BASE]), free(names[QE_HEAD]);
	if (rc == -1)
		warnx("documents named by absolute path on both sides (built in two folders?) match by "
		    "their relative layout in more than one way (base's %s/ with head's %s/, or base's %s/ "
		    "with head's %s/): not matched", dirs.base, dirs.head, dirs.base2, dirs.head2);
	else if (rc == -2)
		warnx("documents named by absolute path on both sides: too many to match by their relative "
		    "layout (%zu by %zu): not matched", nlone[QE_BASE], nlone[QE_HEAD]);
	if (rc != 1) {
		qe_align_dirs_free(&dirs);
		return 0;
	}
	dirs_matched = dirs.matched;
	warnx("base and head were built in different folders: %ld document%s matched by their relative "
	    "layout, base's %s/ with head's %s/", dirs.matched, dirs.matched == 1 ? "" : "s", dirs.base,
	    dirs.head);
	for (int w = 0; w < 2; w++)
		for (size_t i = 0; i < nlone[w]; i++) {
			const char *rel = qe_align_below(lone[w][i]->name, w == QE_BASE ? dirs.base : dirs.head);

			if (rel != NULL) {
				side_move(r, lone[w][i], w, rel);
				alone[w]--;
			}
		}
	qe_align_dirs_free(&dirs);
	return dirs_matched;
}

long
qe_reader_relayout(struct qe_reader *r)
{
	size_t n, nlone[2] = { 0, 0 };
	struct qe_doc **docs = qe_reader_docs(r, &n), **lone[2];
	long total = 0, moved[2] = { 0, 0 }, twice[2] = { 0, 0 }, alone[2];
	const char *example[2] = { NULL, NULL };

	for (int w = 0; w < 2; w++) {
		lone[w] = qe_xcalloc(n + 1, sizeof *lone[w]);
		relayout_relative(r, docs, n, w, &moved[w], &twice[w], &example[w], lone[w], &nlone[w]);
		alone[w] = (long)nlone[w];
	}
	total += relayout_folders(r, lone, nlone, alone);
	for (int w = 0; w < 2; w++) {
		relayout_warn(w, moved[w], twice[w], alone[w], example[w]);
		total += moved[w] + twice[w];
		free(lone[w]);
	}
	free(docs);
	return total;
}
