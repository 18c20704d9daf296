/* Reading the history back: main's builds, documents and cell keys (qe_hload.h). */
#include <err.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qe_record.h"
#include "qe_sha.h"
#include "qe_align.h"
#include "qe_hcells.h"
#include "qe_hload.h"

static int
dberr(sqlite3 *db, const char *path)
{
	warnx("%s: %s", path, sqlite3_errmsg(db));
	return -1;
}

static char *
col_dup(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s ? qe_xstrdup((const char *)s) : NULL;
}

static double
col_num(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

int
qe_hbuilds_load(sqlite3 *db, const char *path, struct qe_hbuilds *bs)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc;

	memset(bs, 0, sizeof *bs);
	if (sqlite3_prepare_v2(db, "SELECT id, build, commit_sha, started_at, runner_class,"
	    " fingerprint, provenance, run_number FROM builds WHERE series = 'main'"
	    " ORDER BY started_at, run_number, id", -1, &st, NULL) != SQLITE_OK)
		return dberr(db, path);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct qe_hbuild_row *r;

		bs->b = qe_mem_grow(bs->b, (size_t)bs->n, &cap, sizeof *bs->b, 64);
		r = &bs->b[bs->n++];
		r->id = sqlite3_column_int64(st, 0);
		r->build = col_dup(st, 1);
		r->commit = col_dup(st, 2);
		r->started_at = col_dup(st, 3);
		r->runner_class = col_dup(st, 4);
		r->fingerprint = col_dup(st, 5);
		r->provenance = col_dup(st, 6);
		r->run_number = (long)sqlite3_column_int64(st, 7);
		if (r->id + 1 > bs->npos)
			bs->npos = r->id + 1;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return dberr(db, path);
	bs->pos = qe_xmalloc(((size_t)bs->npos + 1) * sizeof *bs->pos);
	for (sqlite3_int64 i = 0; i <= bs->npos; i++)
		bs->pos[i] = -1;
	for (int i = 0; i < bs->n; i++)
		bs->pos[bs->b[i].id] = i;
	return 0;
}

void
qe_hbuilds_free(struct qe_hbuilds *bs)
{
	for (int i = 0; i < bs->n; i++) {
		struct qe_hbuild_row *r = &bs->b[i];

		free(r->build);
		free(r->commit);
		free(r->started_at);
		free(r->runner_class);
		free(r->fingerprint);
		free(r->provenance);
	}
	free(bs->b);
	free(bs->pos);
	memset(bs, 0, sizeof *bs);
}

static int
build_pos(const struct qe_hbuilds *bs, sqlite3_int64 id)
{
	return id >= 0 && id < bs->npos ? bs->pos[id] : -1;
}

static void
doc_free(struct qe_hdoc *d)
{
	for (int i = 0; i < d->n; i++) {
		for (int j = 0; j < d->in[i].ncells; j++)
			free(d->in[i].cells[j].key);
		free(d->in[i].cells);
		free(d->in[i].blob);
		free(d->in[i].kenv);
	}
	free(d->in);
	free(d->name);
	memset(d, 0, sizeof *d);
}

/* The build's packed cells (column 4 of st) into in->cells; -1 if corrupt. */
static int
unpack(sqlite3_stmt *st, struct qe_hdocb *in)
{
	size_t n = (size_t)sqlite3_column_bytes(st, 4), off = 0, cap = 0;
	struct qe_hcellrec r;
	int got;

	in->blob = qe_xmalloc(n + 1);
	if (n)
		memcpy(in->blob, sqlite3_column_blob(st, 4), n);
	while ((got = qe_hcells_get(in->blob, n, &off, &r)) > 0) {
		struct qe_hcell *c;

		in->cells = qe_mem_grow(in->cells, (size_t)in->ncells, &cap, sizeof *in->cells, 16);
		c = &in->cells[in->ncells++];
		c->idx = (int)r.idx;
		c->label = r.label;
		c->first_line = r.first_line;
		c->name = qe_record_name(r.name, r.label, r.first_line, NULL);
		c->key = NULL;
		qe_sha_hex(r.sha, 32, c->sha);
		c->status = r.status;
		c->dur = r.dur;
	}
	return got;
}

/* The document's main notebooks: d->in, in position order; at[pos] = index. */
static int
load_notebooks(sqlite3 *db, const struct qe_hbuilds *bs, struct qe_hdoc *d, int *at)
{
	sqlite3_stmt *st;
	int rc, n = 0;

	if (sqlite3_prepare_v2(db, "SELECT build, status, execution_s, cells_s, cells, kernel_env FROM notebooks"
	    " WHERE doc = ?", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, d->id);
	for (int i = 0; i < bs->n; i++)
		at[i] = -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int p = build_pos(bs, sqlite3_column_int64(st, 0));

		if (p >= 0) {
			at[p] = 1;
			n++;
		}
	}
	d->in = qe_xcalloc((size_t)n + 1, sizeof *d->in);
	for (int p = 0; p < bs->n; p++)
		if (at[p] > 0) {
			at[p] = d->n;
			d->in[d->n++].pos = p;
		}
	sqlite3_reset(st);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int p = build_pos(bs, sqlite3_column_int64(st, 0));
		struct qe_hdocb *in;
		double ex = col_num(st, 2), cs = col_num(st, 3);

		if (p < 0)
			continue;
		in = &d->in[at[p]];
		in->ok = sqlite3_column_type(st, 1) == SQLITE_NULL ||
		    strcmp((const char *)sqlite3_column_text(st, 1), "ok") == 0;
		in->lecture_s = isnan(cs) ? ex : cs;
		in->exec_s = isnan(ex) ? cs : ex;
		in->kenv = col_dup(st, 5);
		if (unpack(st, in) < 0) {
			sqlite3_finalize(st);
			return -2;
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* The two builds' cells, for qe_align's callback. */
struct pair_arg {
	const struct qe_hdocb *b, *h;
};

static int
same(void *arg, int level, int b, int h)
{
	const struct pair_arg *a = arg;
	const struct qe_hcell *x = &a->b->cells[b], *y = &a->h->cells[h];

	if (level == 0)
		return x->label && y->label && strcmp(x->label, y->label) == 0;
	return strcmp(x->sha, y->sha) == 0;
}

/* Is `key` taken by one of cells[0..n)? */
static int
taken(const struct qe_hcell *cells, int n, const char *key)
{
	for (int i = 0; i < n; i++)
		if (cells[i].key && strcmp(cells[i].key, key) == 0)
			return 1;
	return 0;
}

/* A key for a cell with no predecessor, unique in its build. */
static char *
new_key(const struct qe_hdocb *in, const struct qe_hcell *c)
{
	struct qe_buf k = { 0 };
	size_t len;

	if (c->label)
		qe_buf_addf(&k, "label:%s", c->label);
	else
		qe_buf_addf(&k, "sha256:%s", c->sha);
	len = k.len;
	for (int n = 2; taken(in->cells, in->ncells, k.data); n++) {
		k.len = len;
		qe_buf_addf(&k, "/%d", n);
	}
	return k.data;
}

/* The same cells, in the same order, with the same labels and digests? */
static int
unchanged(const struct qe_hdocb *b, const struct qe_hdocb *h)
{
	if (b->ncells != h->ncells)
		return 0;
	for (int j = 0; j < h->ncells; j++) {
		const struct qe_hcell *x = &b->cells[j], *y = &h->cells[j];

		if (memcmp(x->sha, y->sha, sizeof x->sha) != 0 || (x->label == NULL) != (y->label == NULL) ||
		    (x->label && strcmp(x->label, y->label) != 0))
			return 0;
	}
	return 1;
}

/* Give h's cells the keys of the cells of b they pair with (b may be NULL). */
static void
assign_keys(const struct qe_hdocb *b, struct qe_hdocb *h)
{
	struct pair_arg arg = { b, h };
	struct qe_pair *p = NULL;
	int np = 0;

	if (b != NULL && unchanged(b, h)) {	/* the common case: no edit */
		for (int j = 0; j < h->ncells; j++)
			h->cells[j].key = qe_xstrdup(b->cells[j].key);
		return;
	}
	if (b != NULL && b->ncells > 0 && h->ncells > 0)
		p = qe_align(b->ncells, h->ncells, 2, same, &arg, &np);
	for (int i = 0; i < np; i++) {
		const struct qe_hcell *x;
		struct qe_hcell *y;

		if (p[i].b < 0 || p[i].h < 0)
			continue;
		x = &b->cells[p[i].b];
		y = &h->cells[p[i].h];
		if (x->label && y->label && strcmp(x->label, y->label) != 0)
			continue;	/* two different labels: two cells */
		/* b's keys are unique and pairs are one to one: so are these */
		y->key = qe_xstrdup(x->key);
	}
	free(p);
	for (int j = 0; j < h->ncells; j++)
		if (h->cells[j].key == NULL)
			h->cells[j].key = new_key(h, &h->cells[j]);
}

const struct qe_hcell *
qe_hdoc_cell(const struct qe_hdocb *in, const char *key)
{
	for (int j = 0; j < in->ncells; j++)
		if (strcmp(in->cells[j].key, key) == 0)
			return &in->cells[j];
	return NULL;
}

/* Load document d (id and name set) with its keys; 0, -1 (database) or -2 (corrupt). */
static int
load_doc(sqlite3 *db, const struct qe_hbuilds *bs, struct qe_hdoc *d, int *at)
{
	int rc = load_notebooks(db, bs, d, at);

	if (rc < 0)
		return rc;
	for (int i = 0; i < d->n; i++)
		assign_keys(i > 0 ? &d->in[i - 1] : NULL, &d->in[i]);
	return 0;
}

int
qe_hdocs_each(sqlite3 *db, const char *path, const struct qe_hbuilds *bs, const char *only,
    qe_hdoc_fn fn, void *ctx)
{
	sqlite3_stmt *st;
	int rc, *at = qe_xmalloc(((size_t)bs->n + 1) * sizeof *at), ret = 0;

	if (sqlite3_prepare_v2(db, only ? "SELECT id, name FROM docs WHERE name = ?" :
	    "SELECT id, name FROM docs ORDER BY name", -1, &st, NULL) != SQLITE_OK) {
		free(at);
		return dberr(db, path);
	}
	if (only)
		sqlite3_bind_text(st, 1, only, -1, SQLITE_STATIC);
	while (ret == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct qe_hdoc d = { .id = sqlite3_column_int64(st, 0), .name = col_dup(st, 1) };

		int r = load_doc(db, bs, &d, at);

		if (r == -2) {
			warnx("%s: document %s: its packed cells are corrupt", path, d.name);
			ret = -1;
		} else if (r < 0)
			ret = dberr(db, path);
		else if (d.n > 0)
			ret = fn(&d, ctx);
		doc_free(&d);
	}
	if (ret == 0 && rc != SQLITE_DONE)
		ret = dberr(db, path);
	sqlite3_finalize(st);
	free(at);
	return ret;
}

static size_t
hash(const char *s)
{
	size_t h = 14695981039346656037u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211u;
	return h;
}

/* The slot of key in the table (size a power of two): its entry or an empty one. */
static int *
slot(int *tab, size_t size, const struct qe_hkeyed *k, const char *key)
{
	size_t i = hash(key) & (size - 1);

	while (tab[i] >= 0 && strcmp(k[tab[i]].key, key) != 0)
		i = (i + 1) & (size - 1);
	return &tab[i];
}

static void
keyed_add(struct qe_hkeyed *k, int in, const struct qe_hcell *c, size_t cap)
{
	if (k->n == 0) {	/* a key is in a build at most once: cap = builds */
		k->in = qe_xrealloc(k->in, cap * sizeof *k->in);
		k->cell = qe_xrealloc(k->cell, cap * sizeof *k->cell);
	}
	k->in[k->n] = in;
	k->cell[k->n++] = c;
}

int
qe_hdoc_keys(const struct qe_hdoc *d, struct qe_hkeyed **out)
{
	size_t rows = 0, size = 16, cap = (size_t)d->n;
	struct qe_hkeyed *k;
	int *tab, n = 0;

	for (int i = 0; i < d->n; i++)
		rows += (size_t)d->in[i].ncells;
	while (size < 2 * rows + 2)
		size *= 2;
	tab = qe_xmalloc(size * sizeof *tab);
	for (size_t i = 0; i < size; i++)
		tab[i] = -1;
	k = qe_xcalloc(rows + 1, sizeof *k);
	for (int i = 0; i < d->n; i++)
		for (int j = 0; j < d->in[i].ncells; j++) {
			const struct qe_hcell *c = &d->in[i].cells[j];
			int *t = slot(tab, size, k, c->key);

			if (*t < 0) {
				*t = n;
				k[n++].key = c->key;
			}
			keyed_add(&k[*t], i, c, cap);
		}
	free(tab);
	*out = k;
	return n;
}

void
qe_hkeyed_free(struct qe_hkeyed *k, int n)
{
	for (int i = 0; i < n; i++) {
		free(k[i].in);
		free(k[i].cell);
	}
	free(k);
}

int
qe_hdocb_cells_differ(const struct qe_hdocb *x, const struct qe_hdocb *y)
{
	if (x->ncells != y->ncells)
		return 1;
	for (int i = 0; i < x->ncells; i++)
		if (strcmp(x->cells[i].sha, y->cells[i].sha) != 0)
			return 1;
	return 0;
}
