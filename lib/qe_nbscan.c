/* A notebook read with the pull reader, outputs digested in place (qe_nbscan.h). */
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "qe.h"
#include "qe_jscan.h"
#include "qe_nbscan.h"
#include "qe_notebook.h"

struct nbs {
	struct qe_jscan s;
	struct qe_buf key;		/* the member's key, NUL-terminated */
	struct qe_nb_doc *d;
	size_t cap;			/* of d->odig */
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

static void
sink_md(void *arg, const char *p, size_t n)
{
	EVP_DigestUpdate(arg, p, n);
}

static void
sink_ns(void *arg, const char *p, size_t n)
{
	qe_nb_ns_feed(arg, p, n);
}

/* 1 when the list at the cursor holds strings only (the cursor is not moved). */
static int
all_strings(const char *at, const char *end)
{
	struct qe_jscan t = { 0 };
	int r, ok = 1;

	qe_js_init(&t, at, (size_t)(end - at));
	t.trusted = 1;		/* read whole before */
	qe_js_enter(&t, QE_JS_ARR);
	while (ok && (r = qe_js_elem(&t)) == 1)
		ok = qe_js_type(&t) == QE_JS_STR && qe_js_skip(&t) > 0;
	qe_js_free(&t);
	return ok;
}

/*
 * A multiline value at `at` (NULL: absent) into the digest as md_update_value
 * of qe_notebook.c takes it from cJSON's tree: strings fed run by run,
 * normalised when readable; anything but text printed compact. -1 on failure.
 */
static int
value_digest(EVP_MD_CTX *md, const char *at, const char *end, int readable)
{
	struct qe_jscan t = { 0 };
	struct qe_nb_ns ns = { md, { 0 }, { 0 } };
	int type, r = 0;

	qe_js_init(&t, at ? at : end, (size_t)(end - (at ? at : end)));
	t.trusted = 1;		/* read whole before */
	type = at ? qe_js_type(&t) : QE_JS_NULL;
	if (type == QE_JS_STR || (type == QE_JS_ARR && all_strings(at, end))) {
		int list = type == QE_JS_ARR;

		if (list)
			qe_js_enter(&t, QE_JS_ARR);
		while (r >= 0 && (!list || (r = qe_js_elem(&t)) == 1)) {
			r = qe_js_str(&t, readable ? sink_ns : sink_md, readable ? (void *)&ns : (void *)md);
			if (!list)
				break;
		}
		if (readable)
			qe_nb_ns_end(&ns);
	} else if (type != QE_JS_NULL) {
		cJSON *v = tree(&t);
		char *p = v ? qe_json_print(v) : NULL;

		if (p)
			EVP_DigestUpdate(md, p, strlen(p));
		r = p ? 0 : -1;
		cJSON_free(p);
		cJSON_Delete(v);
	}
	qe_js_free(&t);
	EVP_DigestUpdate(md, "", 1);
	return r < 0 ? -1 : 0;
}

struct bkey {
	char *key;
	const char *at;
	size_t i;
};

static int
bkey_cmp(const void *a, const void *b)
{
	const struct bkey *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* The MIME bundle at `at`, key by key in byte order (a repeated key: its first value). */
static int
bundle_digest(struct nbs *b, EVP_MD_CTX *md, const char *at, const char *end)
{
	struct qe_jscan t = { 0 };
	struct bkey *k = NULL;
	size_t n = 0, cap = 0, i;
	int r;

	qe_js_init(&t, at, (size_t)(end - at));
	t.trusted = 1;		/* read whole before */
	qe_js_enter(&t, QE_JS_OBJ);
	while ((r = next_key(b, &t)) == 1 && qe_js_type(&t) > 0) {
		k = qe_grow(k, n, &cap, sizeof *k, 8);
		k[n] = (struct bkey){ qe_xstrdup(b->key.data), t.p, n };
		n++;
		if (qe_js_skip(&t) < 0)
			break;
	}
	if (n > 1)
		qsort(k, n, sizeof *k, bkey_cmp);
	for (i = 0; r == 0 && i < n; i++) {
		if (i > 0 && strcmp(k[i].key, k[i - 1].key) == 0)
			k[i].at = k[i - 1].at;
		qe_nb_md_str(md, k[i].key);
		if (value_digest(md, k[i].at, end, strncmp(k[i].key, "text/", 5) == 0) < 0)
			r = -1;
	}
	for (i = 0; i < n; i++)
		free(k[i].key);
	free(k);
	qe_js_free(&t);
	return r;
}

enum { F_TYPE, F_NAME, F_ENAME, F_EVALUE, F_TEXT, F_TB, F_DATA, F_N };
static const char *const fkeys[F_N] = { "output_type", "name", "ename", "evalue", "text",
	"traceback", "data" };

/* What the digest of an output reads: in `red` the small fields, in at[] where the others are. */
static int
output_fields(struct nbs *b, cJSON *red, const char *at[F_N])
{
	struct qe_jscan *s = &b->s;
	int r, f;

	qe_js_enter(s, QE_JS_OBJ);
	while ((r = next_key(b, s)) == 1) {
		for (f = 0; f < F_N && !is(b->key.data, b->key.len, fkeys[f]); f++)
			;
		if (f < F_N && at[f] == NULL && qe_js_type(s) > 0) {
			at[f] = s->p;
			if (f <= F_EVALUE) {
				cJSON *v = tree(s);

				if (v == NULL)
					return -1;
				cJSON_AddItemToObject(red, fkeys[f], v);
				continue;
			}
		}
		if (qe_js_skip(s) < 0)
			return -1;
	}
	return r;
}

/* One output object at the cursor into md; its reduced tree, or NULL. */
static cJSON *
output_read(struct nbs *b, EVP_MD_CTX *md)
{
	const char *at[F_N] = { 0 }, *type, *end = b->s.end;
	cJSON *red = qe_json_check(cJSON_CreateObject());
	int r;

	if (output_fields(b, red, at) < 0) {
		cJSON_Delete(red);
		return NULL;
	}
	type = qe_json_str(red, "output_type");
	qe_nb_md_str(md, type ? type : "");
	if (type && strcmp(type, "stream") == 0) {
		qe_nb_md_str(md, qe_json_str(red, "name") ? qe_json_str(red, "name") : "");
		r = value_digest(md, at[F_TEXT], end, 1);
	} else if (type && strcmp(type, "error") == 0) {
		qe_nb_md_str(md, qe_json_str(red, "ename") ? qe_json_str(red, "ename") : "");
		qe_nb_md_str(md, qe_json_str(red, "evalue") ? qe_json_str(red, "evalue") : "");
		r = value_digest(md, at[F_TB], end, 1);
	} else
		r = at[F_DATA] && *at[F_DATA] == '{' ? bundle_digest(b, md, at[F_DATA], end) : 0;
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
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	cJSON *arr = qe_json_check(cJSON_CreateArray()), *o;
	unsigned char d[32];
	unsigned int dl;
	int r;

	if (md == NULL || !EVP_DigestInit_ex(md, EVP_sha256(), NULL))
		qe_oom();
	qe_js_enter(&b->s, QE_JS_ARR);
	while ((r = qe_js_elem(&b->s)) == 1) {
		if (qe_js_type(&b->s) == QE_JS_OBJ)
			o = output_read(b, md);
		else {
			o = qe_js_skip(&b->s) > 0 ? qe_json_check(cJSON_CreateNull()) : NULL;
			qe_nb_md_str(md, "");	/* no output_type */
		}
		if (o == NULL)
			break;
		cJSON_AddItemToArray(arr, o);
		EVP_DigestUpdate(md, "\x1e", 1);
	}
	EVP_DigestFinal_ex(md, d, &dl);
	EVP_MD_CTX_free(md);
	qe_hex(d, sizeof d, hex);
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

	qe_sha256_hex("", 0, hex);	/* no outputs list: no outputs */
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
		d->odig = qe_grow(d->odig, d->ncells, &b->cap, sizeof *d->odig, 64);
		qe_sha256_hex("", 0, d->odig[d->ncells]);
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

/* The document's members; 0 when it is a notebook qe_nb_parse() takes. */
static int
doc_read(struct nbs *b, cJSON *doc)
{
	int r, cells = 0, nbf = 0, nbf4 = 0;
	cJSON *v;

	if (qe_js_enter(&b->s, QE_JS_OBJ) < 0)
		return -1;
	while ((r = next_key(b, &b->s)) == 1) {
		int iscells = is(b->key.data, b->key.len, "cells");

		if (iscells && cells++) {	/* cJSON finds the first only */
			if (qe_js_skip(&b->s) < 0)
				return -1;
			continue;
		}
		if (iscells && qe_js_type(&b->s) != QE_JS_ARR)
			return -1;
		if ((v = iscells ? cells_read(b) : tree(&b->s)) == NULL)
			return -1;
		if (is(b->key.data, b->key.len, "nbformat") && !nbf++)
			nbf4 = cJSON_IsNumber(v) && v->valuedouble == 4;
		cJSON_AddItemToObject(doc, iscells ? "cells" : b->key.data, v);
	}
	return r == 0 && qe_js_done(&b->s) == 0 && cells && nbf4 ? 0 : -1;
}

int
qe_nbscan(const char *bytes, size_t len, struct qe_nb_doc *d)
{
	struct nbs b = { .d = d };
	int r;

	memset(d, 0, sizeof *d);
	d->doc = qe_json_check(cJSON_CreateObject());
	qe_js_init(&b.s, bytes, len);
	r = doc_read(&b, d->doc);
	qe_js_free(&b.s);
	qe_buf_free(&b.key);
	if (r < 0)
		qe_nb_doc_free(d);
	return r;
}
