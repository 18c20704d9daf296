/* A notebook read with the pull reader, outputs digested in place (qe_nbscan.h). */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "qe_json.h"
#include "qe_jscan.h"
#include "qe_nbscan.h"
#include "qe_notebook.h"

/* A piece of a string: n bytes of the text at p, or (p NULL) a decoded escape in e. */
struct piece {
	const char *p;
	size_t n;
	char e[4];
};

/*
 * An output's text values (a string, or a list of strings: a base64 image
 * and its closing "\n", the lines of text/plain or a stream) are kept as
 * their pieces while the one validating walk reads them, and digested from
 * them: no second walk. An output whose pieces pass this many (some 1.5
 * MB of them) has its further values walked again instead.
 */
enum { PIECES_MAX = 1 << 16 };

/* Where a value the digest reads was found by the one validating walk. */
enum { V_NONE, V_PIECES, V_TEXT, V_OTHER };
struct val {
	int kind;		/* V_NONE: absent or null; V_PIECES: a string or list of
				 * strings, as its npiece pieces from nbs.pieces[first];
				 * V_TEXT: the same, pieces past PIECES_MAX: walked again;
				 * V_OTHER: anything else */
	const char *at;		/* the value in the text */
	size_t first, npiece;
};

/* A key of a MIME bundle: its text at koff in nbs.keys, its value vals[vi]. */
struct bkey {
	size_t koff, vi;
};

/* Normalised text fed from a value whose runs lie in the text at [lo, hi). */
struct nsink {
	struct qe_nb_ns ns;
	const char *lo, *hi;
};

struct nbs {
	struct qe_jscan s;
	struct qe_buf key;		/* the member's key, NUL-terminated */
	struct qe_nb_doc *d;
	size_t cap;			/* of d->odig */
	/* one output at a time: what its digest reads, found by one walk */
	struct val *vals;		/* [0] text, [1] traceback, [2...] the bundle's values */
	size_t nvals, capvals;
	struct bkey *bk;
	size_t nbk, capbk;
	struct qe_buf keys;		/* the bundle's keys, each NUL-terminated */
	struct piece *pieces;		/* the output's text values, piece by piece */
	size_t npieces, cappieces;
	EVP_MD *sha;			/* SHA-256 fetched once, not per outputs list */
	EVP_MD_CTX *md;			/* one context, initialised again per outputs list */
	/* a stream's text left open: the next output, a stream of that name, goes on in it */
	struct nsink open;
	struct qe_buf open_name;	/* its name, NUL-terminated */
	int isopen;
};

static int
is(const char *k, size_t n, const char *word)
{
	return strlen(word) == n && memcmp(k, word, n) == 0;
}

/* The value at s's cursor as cJSON's tree (validated by the pull reader first), or NULL. */
static cJSON *
tree(struct qe_jscan *s)
{
	const char *v0;

	if (qe_js_type(s) < 0)
		return NULL;
	v0 = s->p;
	if (qe_js_skip(s) < 0)
		return NULL;
	return cJSON_ParseWithLength(v0, (size_t)(s->p - v0));
}

/* The next member's key into b->key; qe_js_key()'s answer. */
static int
next_key(struct nbs *b, struct qe_jscan *s)
{
	const char *k;
	size_t n;
	int r = qe_js_key(s, &k, &n);

	if (r == 1) {
		qe_buf_reset(&b->key);
		qe_buf_add(&b->key, k, n);
	}
	return r;
}

/*
 * A value that is neither a string nor a list of strings, at `at`, into the
 * digest: printed compact. -1 on failure.
 */
static int
other_digest(EVP_MD_CTX *md, const char *at, const char *end)
{
	struct qe_jscan t = { 0 };
	cJSON *v;
	char *p;

	qe_js_init(&t, at, (size_t)(end - at));
	t.trusted = 1;		/* read whole before */
	v = tree(&t);
	p = v ? qe_json_print(v) : NULL;
	if (p)
		EVP_DigestUpdate(md, p, strlen(p));
	cJSON_free(p);
	cJSON_Delete(v);
	qe_js_free(&t);
	return p ? 0 : -1;
}

/* A string's runs, as value_walk() keeps them: into b->pieces for v. */
struct runs {
	struct nbs *b;
	const char *lo, *hi;	/* the text: a run from elsewhere is a decoded escape */
	struct val *v;
};

static void
sink_runs(void *arg, const char *p, size_t n)
{
	struct runs *r = arg;
	struct nbs *b = r->b;
	struct piece *pc;

	if (r->v->kind != V_PIECES)
		return;
	if (b->npieces >= PIECES_MAX || (!(p >= r->lo && p < r->hi) && n > sizeof pc->e)) {
		r->v->kind = V_TEXT;	/* walked again: too many, or an escape longer than UTF-8 */
		return;
	}
	if (b->npieces == b->cappieces)
		b->pieces = qe_mem_grow(b->pieces, b->npieces, &b->cappieces, sizeof *b->pieces, 256);
	pc = &b->pieces[b->npieces++];
	pc->n = n;
	if (p >= r->lo && p < r->hi)
		pc->p = p;
	else {			/* an escape: at most 4 bytes of UTF-8 (most often "\n": no memcpy call) */
		pc->p = NULL;
		for (size_t i = 0; i < n; i++)
			pc->e[i] = p[i];
	}
	r->v->npiece++;
}

/*
 * The value at the cursor, validated and passed, into *v: what it is,
 * where, and a string or list of strings as its pieces (the usual base64
 * image, read once here and digested straight from the text).
 */
static int
value_walk(struct nbs *b, struct val *v)
{
	struct qe_jscan *s = &b->s;
	struct runs rn = { b, s->p, s->end, v };
	int type = qe_js_type(s), r;

	*v = (struct val){ V_PIECES, s->p, b->npieces, 0 };
	if (type == QE_JS_STR)
		r = qe_js_str(s, sink_runs, &rn);
	else if (type == QE_JS_ARR) {
		qe_js_enter(s, QE_JS_ARR);
		while ((r = qe_js_elem(s)) == 1) {
			if (v->kind != V_OTHER && qe_js_type(s) == QE_JS_STR)
				r = qe_js_str(s, sink_runs, &rn);
			else {
				v->kind = V_OTHER;
				r = qe_js_skip(s);
			}
			if (r < 0)
				break;
		}
	} else {
		v->kind = type == QE_JS_NULL ? V_NONE : V_OTHER;
		r = qe_js_skip(s);
	}
	if (v->kind != V_PIECES) {	/* its pieces are not read: given back */
		b->npieces = v->first;
		v->npiece = 0;
	}
	return r < 0 ? -1 : 0;
}

static void
sink_md(void *arg, const char *p, size_t n)
{
	EVP_DigestUpdate(arg, p, n);
}

static void
sink_ns(void *arg, const char *p, size_t n)
{
	struct nsink *k = arg;

	/* a run of the text holds no '\n' (JSON strings hold no raw control character) */
	if (p >= k->lo && p < k->hi)
		qe_nb_ns_run(&k->ns, p, n);
	else
		qe_nb_ns_feed(&k->ns, p, n);
}

/* A string or list of strings at `at`, walked again (trusted: validated before), fed run by run. */
static int
text_walk(const char *at, const char *end, qe_js_sink fn, void *arg)
{
	struct qe_jscan t = { 0 };
	int r = 0, list;

	qe_js_init(&t, at, (size_t)(end - at));
	t.trusted = 1;		/* read whole before */
	if ((list = qe_js_type(&t) == QE_JS_ARR))
		qe_js_enter(&t, QE_JS_ARR);
	while (r >= 0 && (!list || (r = qe_js_elem(&t)) == 1)) {
		r = qe_js_str(&t, fn, arg);
		if (!list)
			break;
	}
	qe_js_free(&t);
	return r < 0 ? -1 : 0;
}

/* A string or list of strings found by value_walk() into fn, run by run (joined). */
static int
value_pieces(struct nbs *b, const struct val *v, qe_js_sink fn, void *arg)
{
	for (size_t i = 0; i < v->npiece; i++) {
		const struct piece *pc = &b->pieces[v->first + i];

		fn(arg, pc->p ? pc->p : pc->e, pc->n);
	}
	return v->kind == V_TEXT ? text_walk(v->at, b->s.end, fn, arg) : 0;
}

/*
 * A value found by value_walk() into the digest: strings fed run by run
 * (joined), normalised when readable; anything but text printed compact.
 */
static int
value_digest(struct nbs *b, EVP_MD_CTX *md, const struct val *v, int readable)
{
	struct nsink ns = { { md, { 0 }, { 0 }, NULL, 0 }, v->at, b->s.end };
	int r = 0;

	qe_js_sink fn = readable ? sink_ns : sink_md;
	void *arg = readable ? (void *)&ns : (void *)md;

	if (v->kind == V_PIECES || v->kind == V_TEXT) {
		r = value_pieces(b, v, fn, arg);
		if (readable)
			qe_nb_ns_end(&ns.ns);
	} else if (v->kind == V_OTHER)
		r = other_digest(md, v->at, b->s.end);
	EVP_DigestUpdate(md, "", 1);
	return r;
}

static int
bkey_cmp(const void *x, const void *y, void *arg)
{
	const struct bkey *a = x, *c = y;
	const char *keys = arg;
	int r = strcmp(keys + a->koff, keys + c->koff);

	return r ? r : (a->vi > c->vi) - (a->vi < c->vi);
}

/* The MIME bundle at the cursor, validated and passed: its keys into b->bk, values into b->vals. */
static int
bundle_walk(struct nbs *b)
{
	struct qe_jscan *s = &b->s;
	int r;

	qe_js_enter(s, QE_JS_OBJ);
	while ((r = next_key(b, s)) == 1) {
		b->bk = qe_mem_grow(b->bk, b->nbk, &b->capbk, sizeof *b->bk, 8);
		b->vals = qe_mem_grow(b->vals, b->nvals, &b->capvals, sizeof *b->vals, 8);
		b->bk[b->nbk++] = (struct bkey){ b->keys.len, b->nvals };
		qe_buf_add(&b->keys, b->key.data, b->key.len + 1);	/* with its NUL */
		if (value_walk(b, &b->vals[b->nvals++]) < 0)
			return -1;
	}
	return r;
}

/* The bundle bundle_walk() found, key by key in byte order (a repeated key: its first value). */
static int
bundle_digest(struct nbs *b, EVP_MD_CTX *md)
{
	struct bkey *k = b->bk;
	size_t n = b->nbk, i, vi;
	int sorted = 1;

	for (i = 1; sorted && i < n; i++)	/* the usual order: no sort */
		sorted = strcmp(b->keys.data + k[i - 1].koff, b->keys.data + k[i].koff) < 0;
	if (!sorted)
		qsort_r(k, n, sizeof *k, bkey_cmp, b->keys.data);
	for (i = vi = 0; i < n; i++) {
		const char *key = b->keys.data + k[i].koff;

		if (i == 0 || strcmp(key, b->keys.data + k[i - 1].koff) != 0)
			vi = k[i].vi;
		qe_nb_md_str(md, key);
		if (value_digest(b, md, &b->vals[vi], strncmp(key, "text/", 5) == 0) < 0)
			return -1;
	}
	return 0;
}

enum { F_TYPE, F_NAME, F_ENAME, F_EVALUE, F_TEXT, F_TB, F_DATA, F_N };
static const char *const fkeys[F_N] = { "output_type", "name", "ename", "evalue", "text",
	"traceback", "data" };

/*
 * One output object at the cursor, validated and passed in one walk: the
 * small fields into `red`, where the text, traceback and data are into
 * b->vals and b->bk (nothing digested yet: "output_type" may come last).
 */
static int
output_fields(struct nbs *b, cJSON *red)
{
	struct qe_jscan *s = &b->s;
	int r, f, seen[F_N] = { 0 };

	b->nbk = b->keys.len = b->npieces = 0;
	b->vals = qe_mem_grow(b->vals, 0, &b->capvals, sizeof *b->vals, 8);
	b->vals[0].kind = b->vals[1].kind = V_NONE;
	b->nvals = 2;
	qe_js_enter(s, QE_JS_OBJ);
	while ((r = next_key(b, s)) == 1) {
		for (f = 0; f < F_N && !is(b->key.data, b->key.len, fkeys[f]); f++)
			;
		if (f < F_N && !seen[f]++ && qe_js_type(s) > 0) {	/* cJSON finds the first only */
			if (f <= F_EVALUE) {
				cJSON *v = tree(s);

				if (v == NULL)
					return -1;
				cJSON_AddItemToObject(red, fkeys[f], v);
				continue;
			}
			if (f == F_TEXT || f == F_TB) {
				if (value_walk(b, &b->vals[f == F_TEXT ? 0 : 1]) < 0)
					return -1;
				continue;
			}
			if (qe_js_type(s) == QE_JS_OBJ) {	/* F_DATA */
				if (bundle_walk(b) < 0)
					return -1;
				continue;
			}
		}
		if (qe_js_skip(s) < 0)
			return -1;
	}
	return r;
}

/* The open stream's text (stream_digest()) ended into md: the output is whole. */
static void
stream_close(struct nbs *b, EVP_MD_CTX *md)
{
	if (!b->isopen)
		return;
	qe_nb_ns_end(&b->open.ns);
	EVP_DigestUpdate(md, "\0\x1e", 2);
	b->isopen = 0;
}

/*
 * A stream output whose text is a string or list of strings into md, its
 * text left open: consecutive streams of one name are one output, as a
 * reader sees them and nbformat's merge of streams joins them (a kernel
 * may send one print in two messages).
 */
static int
stream_digest(struct nbs *b, EVP_MD_CTX *md, const char *name)
{
	const struct val *v = &b->vals[0];

	name = name ? name : "";
	if (b->isopen && strcmp(b->open_name.data, name) != 0)
		stream_close(b, md);
	if (!b->isopen) {
		qe_nb_md_str(md, "stream");
		qe_nb_md_str(md, name);
		b->open = (struct nsink){ { md, { 0 }, { 0 }, NULL, 0 }, NULL, NULL };
		qe_buf_reset(&b->open_name);
		qe_buf_add(&b->open_name, name, strlen(name) + 1);
		b->isopen = 1;
	}
	b->open.lo = v->at;
	b->open.hi = b->s.end;
	return value_pieces(b, v, sink_ns, &b->open);
}

/* One output object at the cursor into md (*open: its text left open); its reduced tree, or NULL. */
static cJSON *
output_read(struct nbs *b, EVP_MD_CTX *md, int *open)
{
	const char *type;
	cJSON *red = qe_json_check(cJSON_CreateObject());
	int r, stream;

	if (output_fields(b, red) < 0) {
		cJSON_Delete(red);
		return NULL;
	}
	type = qe_json_str(red, "output_type");
	stream = type && strcmp(type, "stream") == 0;
	if (stream && (b->vals[0].kind == V_PIECES || b->vals[0].kind == V_TEXT)) {
		*open = 1;
		if (stream_digest(b, md, qe_json_str(red, "name")) < 0) {
			cJSON_Delete(red);
			return NULL;
		}
		return red;
	}
	stream_close(b, md);
	qe_nb_md_str(md, type ? type : "");
	if (stream) {		/* a text that is no string: not joined */
		qe_nb_md_str(md, qe_json_str(red, "name") ? qe_json_str(red, "name") : "");
		r = value_digest(b, md, &b->vals[0], 1);
	} else if (type && strcmp(type, "error") == 0) {
		qe_nb_md_str(md, qe_json_str(red, "ename") ? qe_json_str(red, "ename") : "");
		qe_nb_md_str(md, qe_json_str(red, "evalue") ? qe_json_str(red, "evalue") : "");
		r = value_digest(b, md, &b->vals[1], 1);
	} else
		r = bundle_digest(b, md);
	if (r < 0) {
		cJSON_Delete(red);
		return NULL;
	}
	return red;
}

/* The outputs list at the cursor: its digest into hex, its reduced tree. */
static cJSON *
outputs_read(struct nbs *b, char hex[QE_SHA256_HEX])
{
	EVP_MD_CTX *md = b->md;
	cJSON *arr = qe_json_check(cJSON_CreateArray()), *o;
	unsigned char d[32];
	unsigned int dl;
	int r;

	if (!EVP_DigestInit_ex(md, b->sha, NULL))
		qe_mem_oom();
	qe_js_enter(&b->s, QE_JS_ARR);
	while ((r = qe_js_elem(&b->s)) == 1) {
		int open = 0;

		if (qe_js_type(&b->s) == QE_JS_OBJ)
			o = output_read(b, md, &open);
		else {
			stream_close(b, md);
			o = qe_js_skip(&b->s) > 0 ? qe_json_check(cJSON_CreateNull()) : NULL;
			qe_nb_md_str(md, "");	/* no output_type */
		}
		if (o == NULL)
			break;
		cJSON_AddItemToArray(arr, o);
		if (!open)
			EVP_DigestUpdate(md, "\x1e", 1);
	}
	stream_close(b, md);
	EVP_DigestFinal_ex(md, d, &dl);
	qe_sha_hex(d, sizeof d, hex);
	if (r != 0) {
		cJSON_Delete(arr);
		return NULL;
	}
	return arr;
}

/* One cell object at the cursor: its tree, outputs reduced, their digest into hex. */
static cJSON *
cell_read(struct nbs *b, char hex[QE_SHA256_HEX])
{
	cJSON *cell = qe_json_check(cJSON_CreateObject()), *v;
	int r, outputs = 0, isout;

	memcpy(hex, QE_SHA256_EMPTY, QE_SHA256_HEX);	/* no outputs list: no outputs */
	qe_js_enter(&b->s, QE_JS_OBJ);
	while ((r = next_key(b, &b->s)) == 1) {
		if ((isout = is(b->key.data, b->key.len, "outputs"))) {
			if (outputs++) {	/* cJSON finds the first only */
				if (qe_js_skip(&b->s) < 0)
					break;
				continue;
			}
			v = qe_js_type(&b->s) == QE_JS_ARR ? outputs_read(b, hex) : tree(&b->s);
		} else
			v = tree(&b->s);
		if (v == NULL) {
			r = -1;
			break;
		}
		/* b->key was the outputs' own keys meanwhile */
		cJSON_AddItemToObject(cell, isout ? "outputs" : b->key.data, v);
	}
	if (r != 0) {
		cJSON_Delete(cell);
		return NULL;
	}
	return cell;
}

/* The "cells" list at the cursor, a digest per element into b->d->odig. */
static cJSON *
cells_read(struct nbs *b)
{
	cJSON *arr = qe_json_check(cJSON_CreateArray()), *c;
	struct qe_nb_doc *d = b->d;
	int r;

	qe_js_enter(&b->s, QE_JS_ARR);
	while ((r = qe_js_elem(&b->s)) == 1) {
		d->odig = qe_mem_grow(d->odig, d->ncells, &b->cap, sizeof *d->odig, 64);
		memcpy(d->odig[d->ncells], QE_SHA256_EMPTY, QE_SHA256_HEX);
		c = qe_js_type(&b->s) == QE_JS_OBJ ? cell_read(b, d->odig[d->ncells]) : tree(&b->s);
		if (c == NULL)
			break;
		cJSON_AddItemToArray(arr, c);
		d->ncells++;
	}
	if (r != 0) {
		cJSON_Delete(arr);
		return NULL;
	}
	return arr;
}

/* What a notebook needs of the document's members, each at its first occurrence. */
struct seen {
	int obj;			/* the text is an object */
	int cells, nbf, worksheets;	/* those keys are there */
	int cells_list, nbf_num;	/* "cells" is a list (read), "nbformat" a number */
	double nbf_val;
};

/* The document's members into doc, what it is into *w; 0, or -1 (the walk failed). */
static int
doc_read(struct nbs *b, cJSON *doc, struct seen *w)
{
	int r;
	cJSON *v;

	if (qe_js_type(&b->s) != QE_JS_OBJ)	/* valid JSON first, then what it is */
		return qe_js_skip(&b->s) < 0 || qe_js_done(&b->s) < 0 ? -1 : 0;
	w->obj = 1;
	qe_js_enter(&b->s, QE_JS_OBJ);
	while ((r = next_key(b, &b->s)) == 1) {
		int iscells = is(b->key.data, b->key.len, "cells");

		w->worksheets |= is(b->key.data, b->key.len, "worksheets");
		/* cJSON finds the first only; "cells" not a list is not read */
		if (iscells && (w->cells++ || qe_js_type(&b->s) != QE_JS_ARR)) {
			if (qe_js_skip(&b->s) < 0)
				return -1;
			continue;
		}
		if ((v = iscells ? cells_read(b) : tree(&b->s)) == NULL)
			return -1;
		w->cells_list |= iscells;
		if (is(b->key.data, b->key.len, "nbformat") && !w->nbf++) {
			w->nbf_num = cJSON_IsNumber(v);
			w->nbf_val = v->valuedouble;
		}
		cJSON_AddItemToObject(doc, iscells ? "cells" : b->key.data, v);
	}
	return r == 0 && qe_js_done(&b->s) == 0 ? 0 : -1;
}

/* Why a document read whole is no notebook (the words after "not a notebook: "), or NULL. */
static const char *
doc_refusal(const struct seen *w, char *buf, size_t size)
{
	if (!w->obj)
		return "not a JSON object";
	if (!w->cells && (!w->nbf || w->worksheets))
		return w->worksheets ? "nbformat 3 is not supported" : "no 'nbformat' and 'cells'";
	/* both keys there with the wrong types read as if missing */
	if (!w->cells_list || !w->nbf_num)
		return !w->cells ? "no 'cells'" : !w->nbf ? "no 'nbformat'" :
		    !w->cells_list ? "'cells' is not a list" : "'nbformat' is not a number";
	if (w->nbf_val != 4) {
		snprintf(buf, size, "nbformat %g is not supported", w->nbf_val);
		return buf;
	}
	return NULL;
}

/* Read bytes[0..len) into d and w: 0, or -1 with *e the walk's refusal (d left empty). */
static int
scan(const char *bytes, size_t len, struct qe_nb_doc *d, struct seen *w, struct qe_js_error *e)
{
	struct nbs b = { .d = d };
	int r;

	memset(d, 0, sizeof *d);
	memset(w, 0, sizeof *w);
	d->doc = qe_json_check(cJSON_CreateObject());
	qe_js_init(&b.s, bytes, len);
	if ((b.sha = EVP_MD_fetch(NULL, "SHA256", NULL)) == NULL || (b.md = EVP_MD_CTX_new()) == NULL)
		qe_mem_oom();
	r = doc_read(&b, d->doc, w);
	*e = b.s.err;
	if (b.s.err.reason == b.s.err.buf)	/* words kept in the reader's own buffer */
		e->reason = e->buf;
	EVP_MD_CTX_free(b.md);
	EVP_MD_free(b.sha);
	qe_js_free(&b.s);
	qe_buf_free(&b.key);
	qe_buf_free(&b.keys);
	qe_buf_free(&b.open_name);
	free(b.vals);
	free(b.bk);
	free(b.pieces);
	if (r < 0)
		qe_nbscan_doc_free(d);
	return r;
}

/*
 * Say why bytes[0..len) is refused, in the words the tool has always
 * printed: qe_jscan's reason, in the order qe_js_check() finds them, at
 * the byte it names (counted from the file's start, a BOM's bytes too).
 */
static void
say_refusal(const char *where, const char *bytes, size_t len, size_t bom,
    const struct qe_js_error *walk)
{
	struct qe_js_error e;
	const struct qe_js_error *w = &e;
	size_t lead = 0, at;
	long ln = 1, col = 1;

	/* bytes need not end in a NUL: bounded scans only */
	while (lead < len && strchr(" \t\r\n", bytes[lead]))
		lead++;
	if (lead == len) {
		warnx("%s: not a notebook: empty file", where);
		return;
	}
	if (qe_js_check(bytes + bom, len - bom, 0, &e) == 0)
		w = walk;	/* the whole text is JSON: what the walk found */
	at = bom + w->offset;
	switch (w->code) {
	case QE_JSE_NUL:
	case QE_JSE_RANGE:
		warnx("%s: not a notebook: %s", where, w->reason);
		return;
	case QE_JSE_UTF8:
	case QE_JSE_CTRL:
	case QE_JSE_NULESC:
		warnx("%s: not a notebook: %s at byte %zu", where, w->reason, at + 1);
		return;
	}
	for (const char *p = bytes; p < bytes + at && p < bytes + len; p++)
		if (*p == '\n')
			ln++, col = 1;
		else
			col++;
	/* trailing data: a truncated or concatenated file, never half-read */
	warnx("%s:%ld: %s at column %ld", where, ln, w->code == QE_JSE_TRAILING ?
	    "trailing data after the notebook" : w->code == QE_JSE_NONE ? "invalid JSON" : w->reason,
	    col);
}

int
qe_nbscan_read(const char *where, char *bytes, size_t len, void (*release)(void *), int *problems,
    struct qe_nb_doc *d)
{
	/* a BOM is passed before a text of two bytes or more (so cJSON did: columns stay) */
	size_t bom = len >= 5 ? qe_js_bom(bytes, len) : 0, nuls;
	struct qe_js_error e;
	struct seen w;
	const char *why;
	char buf[64];
	int r = scan(bytes + bom, len - bom, d, &w, &e);

	/* \u0000: a C string would end there, a source or label cut; U+FFFD, said */
	if (r < 0 && memchr(bytes, '\0', len) == NULL && (nuls = qe_json_nul_to_fffd(bytes, len)) > 0) {
		warnx("%s: \\u0000 in %zu string%s: read as U+FFFD", where, nuls, nuls == 1 ? "" : "s");
		++*problems;
		r = scan(bytes + bom, len - bom, d, &w, &e);
	}
	if (r < 0)
		say_refusal(where, bytes, len, bom, &e);
	else if ((why = doc_refusal(&w, buf, sizeof buf)) != NULL) {
		warnx("%s: not a notebook: %s", where, why);
		qe_nbscan_doc_free(d);
		r = -1;
	}
	release(bytes);
	return r;
}

void
qe_nbscan_doc_free(struct qe_nb_doc *d)
{
	cJSON_Delete(d->doc);
	free(d->odig);
	memset(d, 0, sizeof *d);
}
