/* jupyter-cache's global.db (qe_jcache.h). */
#include <err.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qe_ndjson.h"
#include "qe_file.h"
#include "qe_docname.h"
#include "qe_jcache.h"

static int
sql_error(struct qe_jcache *c, const char *what)
{
	warnx("%s: %s%s%s", c->dbwhere, what, what[0] ? ": " : "", sqlite3_errmsg(c->db));
	return -1;
}

int
qe_jcache_open_file(struct qe_jcache *c, const char *path)
{
	c->dbwhere = qe_xstrdup(path);
	/* a FIFO blocks the open; a folder gave "disk I/O error" */
	if (qe_file_regular(path) != 0) {
		if (errno == EISDIR || errno == QE_ENOTREG)
			warnx("%s: not a jupyter-cache database (not a regular file)", path);
		else
			warn("%s", path);
		return -1;
	}
	if (sqlite3_open_v2(path, &c->db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		return sql_error(c, "");
	return 0;
}

int
qe_jcache_open_memory(struct qe_jcache *c, unsigned char *bytes, size_t len)
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

static struct qe_jcache_entry *
new_entry(struct qe_jcache *c, int64_t pk, const char *uri)
{
	struct qe_jcache_entry *e;

	c->e = qe_mem_grow(c->e, c->n, &c->cap, sizeof *c->e, 64);
	e = memset(&c->e[c->n++], 0, sizeof *e);
	e->pk = pk;
	e->uri = qe_xstrdup(uri);
	e->execution_seconds = NAN;
	return e;
}

/* A row's warning; the row is skipped or read without the bad field. */
static void
bad_row(struct qe_jcache *c)
{
	c->bad_rows++;
}

/* execution_seconds from an nbcache row's 'data' (JSON text, or NULL). */
static void
read_data(struct qe_jcache *c, struct qe_jcache_entry *e, const char *data)
{
	const cJSON *v;
	cJSON *d;

	if (data == NULL)
		return;
	/* a 'data' that is not JSON, or a bad time in it, was silently null */
	if ((d = cJSON_Parse(data)) == NULL || !cJSON_IsObject(d)) {
		warnx("%s: nbcache row %lld: 'data' is not a JSON object", c->dbwhere,
		    (long long)e->pk);
		bad_row(c);
		cJSON_Delete(d);
		return;
	}
	v = cJSON_GetObjectItemCaseSensitive(d, "execution_seconds");
	if (cJSON_IsNumber(v) && isfinite(v->valuedouble) && v->valuedouble >= 0)
		e->execution_seconds = v->valuedouble;
	else if (v != NULL && !cJSON_IsNull(v)) {
		warnx("%s: nbcache row %lld: bad 'execution_seconds' in 'data'",
		    c->dbwhere, (long long)e->pk);
		bad_row(c);
	}
	cJSON_Delete(d);
}

/*
 * Column i of the row as text, or NULL. SQLite text may hold NUL bytes that
 * a C string would cut ('abc\0/../x' read as the key 'abc'). A key or a
 * value read for a time or a number holding one is reported as TABLE row
 * ROW's column NAME and read as NULL, with *bad set; text that is only
 * shown (fix not NULL: a URI, a traceback) has each NUL written as U+FFFD
 * into fix, said, and is read so: the row and its document are kept.
 */
static const char *
col_text(struct qe_jcache *c, sqlite3_stmt *st, int i, const char *table, const char *name,
    int *bad, struct qe_buf *fix)
{
	const char *v = (const char *)sqlite3_column_text(st, i);
	size_t n = (size_t)sqlite3_column_bytes(st, i);

	if (v == NULL || strlen(v) == n)
		return v;
	warnx("%s: %s row %lld: '%s' holds a NUL byte%s", c->dbwhere, table,
	    (long long)sqlite3_column_int64(st, 0), name, fix ? ": each written as U+FFFD" : "");
	bad_row(c);
	if (fix == NULL) {
		*bad = 1;
		return NULL;
	}
	qe_buf_reset(fix);
	for (size_t k = 0; k < n; k++)
		if (v[k] == '\0')
			qe_buf_adds(fix, "\xef\xbf\xbd");	/* U+FFFD */
		else
			qe_buf_addc(fix, v[k]);
	return fix->data;
}

/* One nbcache row: pk, hashkey, uri, data, created. */
static void
read_row(struct qe_jcache *c, sqlite3_stmt *st, int keys_only)
{
	struct qe_jcache_entry *e;
	struct qe_buf fix = { 0 };
	int nul = 0;
	const char *hk = col_text(c, st, 1, "nbcache", "hashkey", &nul, NULL);
	const char *uri = col_text(c, st, 2, "nbcache", "uri", &nul, &fix);
	const char *data = col_text(c, st, 3, "nbcache", "data", &nul, NULL);
	const char *created = col_text(c, st, 4, "nbcache", "created", &nul, NULL);

	if (nul && hk == NULL)
		goto done;	/* reported */
	if (hk == NULL || uri == NULL || strspn(hk, "0123456789abcdefABCDEF") != strlen(hk) ||
	    strlen(hk) == 0 || strlen(hk) > 128) {
		warnx("%s: nbcache row %lld: bad 'hashkey' or 'uri'", c->dbwhere,
		    (long long)sqlite3_column_int64(st, 0));
		bad_row(c);
		goto done;
	}
	e = new_entry(c, sqlite3_column_int64(st, 0), uri);
	e->hashkey = qe_xstrdup(hk);
	if (keys_only) {	/* a baseline's: its creation time tells a copy from a rebuild */
		e->have_created = created && qe_time_parse(created, &e->created) == 0;
		goto done;
	}
	read_data(c, e, data);
	if (created && qe_time_parse(created, &e->created) == 0)
		e->have_created = 1;
	else if (created) {
		warnx("%s: nbcache row %lld: bad 'created' '%.40s'", c->dbwhere,
		    (long long)e->pk, created);
		bad_row(c);
	}
done:
	qe_buf_free(&fix);
}

/* Step through `st` calling row() on each row; -1 after "reading WHAT". */
static int
each_row(struct qe_jcache *c, sqlite3_stmt *st, const char *what,
    void (*row)(struct qe_jcache *, sqlite3_stmt *, int), int arg)
{
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		row(c, st, arg);
	if (rc != SQLITE_DONE) {
		sql_error(c, what);
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	return 0;
}

/* One failed document: pk, uri, traceback (NUL bytes in either written as U+FFFD, said). */
static void
read_failure(struct qe_jcache *c, sqlite3_stmt *st, int unused)
{
	struct qe_buf fu = { 0 }, ft = { 0 };
	int nul = 0;
	const char *uri = col_text(c, st, 1, "project", "uri", &nul, &fu);
	const char *tb = col_text(c, st, 2, "project", "traceback", &nul, &ft);

	(void)unused;
	if (uri != NULL)
		new_entry(c, -1, uri)->error = qe_jcache_exception_line(tb ? tb : "");
	qe_buf_free(&fu);
	qe_buf_free(&ft);
}

int
qe_jcache_read(struct qe_jcache *c, int keys_only)
{
	sqlite3_stmt *st;
	const char *proj;
	char sql[128];
	int t;

	if ((t = has_table(c->db, "nbcache")) < 0) {
		int code = sqlite3_errcode(c->db) & 0xff;

		/* what SQLite says of a file it cannot read as a database at all */
		if (code == SQLITE_READONLY || code == SQLITE_IOERR || code == SQLITE_CANTOPEN) {
			warnx("%s: not a jupyter-cache database (SQLite: %s)", c->dbwhere,
			    sqlite3_errmsg(c->db));
			return -1;
		}
		return sql_error(c, "");
	}
	if (t == 0) {
		warnx("%s: not a jupyter-cache database (no table 'nbcache')", c->dbwhere);
		return -1;
	}
	proj = has_table(c->db, "nbproject") == 1 ? "nbproject" :
	    has_table(c->db, "nbstage") == 1 ? "nbstage" : NULL;
	if (sqlite3_prepare_v2(c->db, "SELECT pk, hashkey, uri, data, created FROM nbcache",
	    -1, &st, NULL) != SQLITE_OK)
		return sql_error(c, "unrecognised 'nbcache' table");
	if (each_row(c, st, "reading 'nbcache'", read_row, keys_only) < 0)
		return -1;
	if (proj == NULL || keys_only)
		return 0;
	snprintf(sql, sizeof sql, "SELECT pk, uri, traceback FROM %s "
	    "WHERE traceback IS NOT NULL AND traceback != '' ORDER BY pk", proj);
	if (sqlite3_prepare_v2(c->db, sql, -1, &st, NULL) != SQLITE_OK)
		return sql_error(c, "unrecognised project table");
	return each_row(c, st, "reading the project table", read_failure, 0);
}

/* tb without its ANSI escape sequences (CSI ... final byte). */
static void
strip_ansi(const char *tb, struct qe_buf *clean)
{
	for (const char *p = tb; *p; p++) {
		if (*p == '\033' && p[1] == '[') {
			p += 2;
			while (*p && !(*p >= 0x40 && *p <= 0x7e))
				p++;
			if (!*p)
				break;
			continue;
		}
		qe_buf_addc(clean, *p);
	}
}

/*
 * 1 when a line starts at column 0 with an exception's (dotted) name and a
 * colon, or is such a name alone: "nbclient.exceptions.CellTimeoutError: ...".
 * The name must say Error, Exception, Interrupt, Exit or Warning, so that
 * "else:" in a cell preview is not taken for one.
 */
static int
names_exception(const char *s)
{
	const char *p = s;
	size_t n;

	while ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
	    *p == '_' || *p == '.')
		p++;
	n = (size_t)(p - s);
	if (n == 0 || (*p != ':' && *p != '\0') || (*p == ':' && p[1] != ' ' && p[1] != '\0'))
		return 0;
	for (const char *w = s; w < p; w++)
		if (!strncmp(w, "Error", 5) || !strncmp(w, "Exception", 9) || !strncmp(w, "Interrupt", 9) ||
		    !strncmp(w, "Exit", 4) || !strncmp(w, "Warning", 7))
			return 1;
	return 0;
}

char *
qe_jcache_exception_line(const char *tb)
{
	struct qe_buf clean = { 0 };
	char *last = NULL, *named = NULL, *s, *e;

	strip_ansi(tb, &clean);
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
		if (t == s && names_exception(s))
			named = s;
		if (!e)
			break;
	}
	if (named != NULL)	/* a nbclient timeout ends in the cell's preview */
		last = named;
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
	const struct qe_jcache_entry *x = a, *y = b;
	int c = strcmp(x->document, y->document);

	if (c)
		return c;
	if (x->pk < 0 && y->pk < 0)	/* this path's failure first */
		return x->moved - y->moved;
	if (x->pk < 0 || y->pk < 0)	/* a failure is newer than any record */
		return (x->pk >= 0) - (y->pk >= 0);
	if (x->have_created && y->have_created && qe_time_diff_us(&x->created, &y->created) != 0)
		return qe_time_diff_us(&x->created, &y->created) > 0 ? 1 : -1;
	return (x->pk < y->pk) - (x->pk > y->pk);
}

/*
 * The current entry of the document at e[i..j): the first, unless that is
 * a failure named from another path and the document has a record of this
 * path; then its newest record.
 */
static size_t
current_of(const struct qe_jcache *c, size_t i, size_t j)
{
	size_t first = j;
	int here = 0;

	if (c->e[i].pk >= 0 || !c->e[i].moved)
		return i;
	for (size_t k = i + 1; k < j; k++)
		if (c->e[k].pk >= 0) {
			if (first == j)
				first = k;
			here |= !c->e[k].moved;
		}
	return here ? first : i;
}

void
qe_jcache_arrange(struct qe_jcache *c, int all, const char *root)
{
	const char *base, **uris;
	char *guess = NULL;
	size_t baselen, newest = c->n - 1;
	int here = 0;

	if (c->n == 0)		/* an empty cache: qsort() must not see NULL */
		return;
	if (root == NULL) {
		/* a cache restored from a build elsewhere: name it as -r would */
		uris = qe_xmalloc(c->n * sizeof *uris);
		for (size_t i = 0; i < c->n; i++) {
			uris[i] = c->e[i].uri;
			if (c->e[i].have_created && (!c->e[newest].have_created ||
			    qe_time_diff_us(&c->e[newest].created, &c->e[i].created) > 0))
				newest = i;
		}
		root = guess = qe_docname_guess(c->e[newest].uri, uris, c->n);
		free(uris);
	}
	base = c->e[0].uri;
	baselen = qe_docname_dir_len(base);
	for (size_t i = 1; i < c->n; i++)
		qe_docname_common(c->e[i].uri, base, &baselen);
	for (size_t i = 0; i < c->n; i++) {
		c->e[i].document = qe_docname(c->e[i].uri, root, base, baselen);
		if (root != NULL)
			qe_docname_under(c->e[i].uri, root, &c->e[i].moved);
	}
	/* a failure at another checkout's path is that checkout's when this one
	 * has records of its own; when none is here, the root only maps paths */
	for (size_t i = 0; i < c->n; i++)
		here |= c->e[i].pk >= 0 && !c->e[i].moved;
	for (size_t i = 0; i < c->n; i++)
		c->e[i].elsewhere = here && c->e[i].pk < 0 && c->e[i].moved;
	qsort(c->e, c->n, sizeof *c->e, entry_cmp);
	for (size_t i = 0, j; i < c->n; i = j) {
		size_t cur;

		for (j = i + 1; j < c->n && strcmp(c->e[j].document, c->e[i].document) == 0; j++)
			;
		cur = current_of(c, i, j);
		for (size_t k = i; k < j; k++) {
			c->e[k].current = k == cur;
			c->e[k].selected = all || c->e[k].current;
		}
	}
	free(guess);
}

void
qe_jcache_free(struct qe_jcache *c)
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
keyent_cmp(const void *a, const void *b)
{
	return strcmp(((const struct qe_keyent *)a)->key, ((const struct qe_keyent *)b)->key);
}

void
qe_jcache_keyset_from_cache(struct qe_keyset *ks, const struct qe_jcache *c)
{
	ks->v = qe_xcalloc(c->n + 1, sizeof *ks->v);
	ks->n = 0;
	for (size_t i = 0; i < c->n; i++)
		if (c->e[i].hashkey)
			ks->v[ks->n++] = (struct qe_keyent){ qe_xstrdup(c->e[i].hashkey), c->e[i].pk,
			    c->e[i].created, c->e[i].have_created };
	qsort(ks->v, ks->n, sizeof *ks->v, keyent_cmp);
}

const struct qe_keyent *
qe_jcache_keyset_find(const struct qe_keyset *ks, const char *key)
{
	struct qe_keyent k = { (char *)key, 0, { 0 }, 0 };

	return ks->n > 0 ? bsearch(&k, ks->v, ks->n, sizeof *ks->v, keyent_cmp) : NULL;
}

int
qe_jcache_keyset_has(const struct qe_keyset *ks, const char *key)
{
	return qe_jcache_keyset_find(ks, key) != NULL;
}

int
qe_jcache_keyset_same_record(const struct qe_keyset *ks, const struct qe_jcache_entry *e)
{
	const struct qe_keyent *k = e->hashkey ? qe_jcache_keyset_find(ks, e->hashkey) : NULL;

	if (k == NULL)
		return 0;
	if (k->have_created && e->have_created && qe_time_diff_us(&k->created, &e->created) != 0)
		return 0;
	return k->pk < 0 || e->pk < 0 || k->pk == e->pk;
}

void
qe_jcache_keyset_free(struct qe_keyset *ks)
{
	for (size_t i = 0; i < ks->n; i++)
		free(ks->v[i].key);
	free(ks->v);
	ks->v = NULL;
	ks->n = 0;
}
