/* qe-cache-extract's operands to records (qe_extract.h). */
#include <err.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "qe.h"
#include "qe_docname.h"
#include "qe_extract.h"
#include "qe_nbrecord.h"

void
qe_extract_init(struct qe_extract *x, void (*emit)(struct qe_buf *))
{
	memset(x, 0, sizeof *x);
	x->stale_margin_us = 5000000;
	x->lim.member_bytes = (size_t)256 << 20;
	/* an archive's members, and their sizes added up: bounded work for a bomb */
	x->lim.entries = 200000;
	x->lim.total_bytes = 16.0 * (1 << 30);
	x->emit = emit;
}

void
qe_extract_free(struct qe_extract *x)
{
	qe_keyset_free(&x->baseline);
	qe_hooklog_free(&x->hooks);
}

/* Whether the build measured made the record: with -s or -b only. */
static const char *
origin_of(const struct qe_extract *x, const struct qe_jcache_entry *e)
{
	int o = -1;

	if (e->pk < 0)			/* a failure is re-executed by every build */
		o = x->have_since || x->have_baseline ? QE_ORIGIN_EXECUTED : -1;
	else if (x->have_baseline)
		o = qe_keyset_same_record(&x->baseline, e) ? QE_ORIGIN_INHERITED : QE_ORIGIN_EXECUTED;
	else if (x->have_since)
		o = e->have_created && qe_time_diff_us(&x->since, &e->created) >= 0 ?
		    QE_ORIGIN_EXECUTED : QE_ORIGIN_INHERITED;
	return qe_vocab_name(&qe_origins, o);
}

/* The notebook context of a cache entry read from `where`. */
static void
entry_ctx(struct qe_extract *x, const struct qe_jcache_entry *e, const char *where,
    struct qe_nbctx *nb)
{
	memset(nb, 0, sizeof *nb);
	nb->where = where;
	nb->document = e->document;
	nb->input = "cache";
	nb->uri = e->uri;
	nb->cache_key = e->hashkey;
	nb->pk = e->pk;
	nb->current = e->current;
	nb->origin = origin_of(x, e);
	/* MyST-NB invents cell ids for .md sources on every read */
	nb->stable_ids = qe_is_ipynb(e->uri);
	nb->execution_seconds = e->execution_seconds;
	nb->created = e->created;
	nb->have_created = e->have_created;
	nb->stale_margin_us = x->stale_margin_us;
	nb->hooks = &x->hooks;
}

static void
failed_record(struct qe_extract *x, const struct qe_jcache_entry *e, struct qe_buf *out)
{
	struct qe_nbctx nb;

	entry_ctx(x, e, NULL, &nb);
	qe_nbrecord_failed(&nb, e->error, out);
}

/* Records of one cached notebook, whose bytes have been read. */
static int
cached_records(struct qe_extract *x, const struct qe_jcache_entry *e, const char *where,
    char *bytes, size_t len, void (*release)(void *), struct qe_buf *out)
{
	struct qe_nbctx nb;
	int r;

	entry_ctx(x, e, where, &nb);
	r = qe_nbrecord_notebook(&nb, bytes, len, release, out);
	x->problems += nb.problems;
	return r;
}

/*
 * Hand one notebook's records on. Every line must be UTF-8: a file name or
 * a stored traceback (\xff\xfe\xc0\xaf) that is not has each bad byte
 * replaced by U+FFFD here, and says so (counted as a problem).
 */
static void
emit_utf8(struct qe_extract *x, const char *where, struct qe_buf *out)
{
	if (qe_utf8_repair_buf(out)) {
		warnx("%s: text not UTF-8 (a file name or stored text): each bad byte written as "
		    "U+FFFD", where);
		x->problems++;
	}
	x->emit(out);
}

/* A notebook file's bytes, or NULL after the message. */
static char *
read_notebook(struct qe_extract *x, const char *path, size_t *len)
{
	/* a FIFO would block the open forever: refused before it */
	char *bytes = qe_file_regular(path) == 0 || errno == EISDIR ?
	    qe_file_slurp(path, x->lim.member_bytes, len) : NULL;

	if (bytes == NULL) {
		if (errno == EFBIG)
			warnx("%s: notebook larger than %zu bytes (see --max-notebook)",
			    path, x->lim.member_bytes);
		else
			qe_file_warn(path);
		x->problems++;
	}
	return bytes;
}

/* qe_jcache_read(), counting its bad rows. */
static int
read_rows(struct qe_extract *x, struct qe_jcache *c, int keys_only)
{
	int r = qe_jcache_read(c, keys_only);

	if (c->bad_rows > 0)
		x->problems++;
	return r;
}

/*
 * 1 when path, symbolic links resolved, lies inside the folder realdir
 * (already resolved); else 0 after the message. Records of a cache come
 * from the cache: executed/<key> linking elsewhere is not followed.
 */
static int
inside_cache(struct qe_extract *x, const char *realdir, const char *path)
{
	char *r = realpath(path, NULL);
	size_t n = realdir ? strlen(realdir) : 0;
	int in = r == NULL || realdir == NULL ||
	    (strncmp(r, realdir, n) == 0 && (r[n] == '/' || (n == 1 && r[0] == '/')));

	if (!in) {
		warnx("%s: a symbolic link out of the cache (to %s): not read", path, r);
		x->problems++;
	}
	free(r);
	return in;
}

/* One selected entry of a cache folder (realdir: the folder, resolved). */
static void
cache_dir_entry(struct qe_extract *x, const char *dir, const char *realdir,
    const struct qe_jcache_entry *e, struct qe_buf *path, struct qe_buf *out)
{
	size_t len;
	char *bytes;

	if (e->pk < 0) {
		failed_record(x, e, out);
		return;
	}
	qe_buf_reset(path);
	qe_buf_addf(path, "%s/executed/%s/base.ipynb", dir, e->hashkey);
	if (!inside_cache(x, realdir, path->data) ||
	    (bytes = read_notebook(x, path->data, &len)) == NULL)
		return;
	if (cached_records(x, e, path->data, bytes, len, free, out) < 0)
		x->problems++;
}

void
qe_extract_cache_dir(struct qe_extract *x, const char *dir, const char *db)
{
	struct qe_jcache c = { .name = dir };
	struct qe_buf path = { 0 }, out = { 0 };
	char *realdir = realpath(dir, NULL);

	if (qe_jcache_open_file(&c, db) < 0 || read_rows(x, &c, 0) < 0) {
		x->problems++;
		goto done;
	}
	qe_jcache_arrange(&c, x->all, x->root);
	for (size_t i = 0; i < c.n; i++) {
		if (!c.e[i].selected)
			continue;
		cache_dir_entry(x, dir, realdir, &c.e[i], &path, &out);
		emit_utf8(x, c.e[i].uri, &out);
	}
done:
	free(realdir);
	qe_buf_free(&path);
	qe_buf_free(&out);
	qe_jcache_free(&c);
}

/* The archive's second pass: which entry a cached notebook is for. */
struct archive_pass {
	struct qe_extract *x;
	struct qe_jcache *c;
};

static void *
want_notebook(void *ctx, const char *hashkey)
{
	struct qe_jcache *c = ((struct archive_pass *)ctx)->c;

	for (size_t i = 0; i < c->n; i++)
		if (c->e[i].pk >= 0 && c->e[i].selected && !c->e[i].done &&
		    strcmp(c->e[i].hashkey, hashkey) == 0) {
			c->e[i].done = 1;
			return &c->e[i];
		}
	return NULL;
}

static int
got_notebook(void *ctx, void *item, const char *where, unsigned char *bytes, size_t len)
{
	struct qe_jcache_entry *e = item;

	return cached_records(((struct archive_pass *)ctx)->x, e, where, (char *)bytes, len,
	    sqlite3_free, &e->out);
}

/* Open the database found by the first pass; c takes what it needs of db. */
static int
open_archive_db(struct qe_extract *x, struct qe_jcache *c, struct qe_archive_db *db,
    int keys_only)
{
	int r;

	c->dbwhere = db->where;
	c->rootpfx = db->rootpfx;
	db->where = db->rootpfx = NULL;
	/*
	 * SQLite owns the bytes from here, whether or not the open succeeds:
	 * it frees them on close, or at once on failure. Freeing them again
	 * was a double free for any archive whose global.db opens but is not
	 * a cache (found by fuzz-archive).
	 */
	r = qe_jcache_open_memory(c, db->bytes, db->len);
	db->bytes = NULL;
	if (r < 0 || read_rows(x, c, keys_only) < 0)
		return -1;
	return 0;
}

int
qe_extract_archive_cache(struct qe_extract *x, const char *path, struct qe_jcache *c,
    int keys_only)
{
	struct qe_archive_db db = { 0 };
	struct archive_pass pass = { x, c };
	struct qe_archive_nb_fn fn = { want_notebook, got_notebook, &pass };
	int r, problems = 0;

	c->name = path;
	r = qe_archive_find_db(path, &x->lim, &db, &problems);
	if (r == 0)
		r = open_archive_db(x, c, &db, keys_only);
	qe_archive_db_free(&db);
	if (r == 0 && !keys_only) {
		qe_jcache_arrange(c, x->all, x->root);
		r = qe_archive_each_notebook(path, c->rootpfx, x->lim.member_bytes, &fn, &problems);
	}
	x->problems += problems > 0;
	return r;
}

void
qe_extract_archive(struct qe_extract *x, const char *path)
{
	struct qe_jcache c = { 0 };

	if (qe_extract_archive_cache(x, path, &c, 0) < 0) {
		x->problems++;
		qe_jcache_free(&c);
		return;
	}
	for (size_t i = 0; i < c.n; i++) {
		struct qe_jcache_entry *e = &c.e[i];

		if (!e->selected)
			continue;
		if (e->pk < 0)
			failed_record(x, e, &e->out);
		else if (!e->done) {
			warnx("%s: member '%sexecuted/%s/base.ipynb' missing", path, c.rootpfx, e->hashkey);
			x->problems++;
		}
		emit_utf8(x, path, &e->out);
	}
	qe_jcache_free(&c);
}

/*
 * The notebooks' paths made absolute as given (symbolic links kept: a
 * symlinked notebook no longer renames the others), and their common
 * directory base[0..baselen), which only the notebooks that can be read
 * take part in (base NULL when none can).
 */
/* 1 when the absolute path p lies below the folder root. */
static int
below(const char *p, const char *root)
{
	size_t n = strlen(root);

	return strncmp(p, root, n) == 0 && (p[n] == '/' || (n == 1 && root[0] == '/'));
}

/*
 * path absolute as given; with a root (made absolute with its links
 * resolved) that the path as given is not below, the path resolved as
 * before: a root reached through a symbolic link still names its notebooks.
 */
static char *
given_abspath(const char *path, const char *cwd, const char *root)
{
	char *a = qe_operand_abspath(path, cwd ? cwd : "/"), *r;

	if (root == NULL || below(a, root) || (r = realpath(path, NULL)) == NULL)
		return a;
	if (!below(r, root)) {
		free(r);
		return a;
	}
	free(a);
	return r;
}

static void
common_dir(const struct qe_paths *files, const char *root, struct qe_paths *abs,
    const char **base, size_t *baselen)
{
	char *cwd = getcwd(NULL, 0);

	*base = NULL;
	*baselen = 0;
	for (size_t i = 0; i < files->n; i++) {
		char *a = given_abspath(files->v[i], cwd, root);

		qe_paths_add(abs, a);
		free(a);
		if (qe_file_regular(files->v[i]) != 0)
			continue;
		if (*base == NULL) {
			*base = abs->v[i];
			*baselen = qe_docname_dir_len(*base);
		} else
			qe_docname_common(abs->v[i], *base, baselen);
	}
	free(cwd);
}

void
qe_extract_ipynb(struct qe_extract *x, const struct qe_paths *files)
{
	struct qe_buf out = { 0 };
	struct qe_paths abs = { 0 };
	const char *base;
	size_t baselen;

	if (files->n == 0)
		return;
	common_dir(files, x->root, &abs, &base, &baselen);
	for (size_t i = 0; i < files->n; i++) {
		char *doc = qe_docname(abs.v[i], x->root, base ? base : abs.v[i],
		    base ? baselen : qe_docname_dir_len(abs.v[i])), *bytes;
		struct qe_nbctx nb = { .where = files->v[i], .document = doc, .input = "ipynb",
		    .pk = -1, .current = -1, .stable_ids = 1, .execution_seconds = NAN,
		    .stale_margin_us = x->stale_margin_us, .hooks = &x->hooks };
		size_t len;

		if ((bytes = read_notebook(x, files->v[i], &len)) != NULL &&
		    qe_nbrecord_notebook(&nb, bytes, len, free, &out) < 0)
			x->problems++;
		x->problems += nb.problems;
		free(doc);
		emit_utf8(x, files->v[i], &out);
	}
	qe_buf_free(&out);
	qe_paths_free(&abs);
}

int
qe_extract_baseline(struct qe_extract *x, const char *path)
{
	struct qe_buf dir = { 0 }, db = { 0 };
	struct qe_jcache c = { 0 };
	int ret = -1;

	switch (qe_operand_classify(path, &dir, &db)) {
	case QE_OPERAND_CACHE_DIR:
		if (qe_jcache_open_file(&c, db.data) == 0 && read_rows(x, &c, 1) == 0)
			ret = 0;
		break;
	case QE_OPERAND_ARCHIVE:
		ret = qe_extract_archive_cache(x, path, &c, 1);
		break;
	case QE_OPERAND_NONE:
		break;
	default:
		warnx("%s: not a jupyter-cache", path);
	}
	if (ret == 0) {
		qe_keyset_from_cache(&x->baseline, &c);
		x->have_baseline = 1;
	}
	qe_jcache_free(&c);
	qe_buf_free(&dir);
	qe_buf_free(&db);
	return ret;
}

/* One operand; `files` are the notebook files named on their own. */
static void
operand(struct qe_extract *x, const char *op, struct qe_paths *files, struct qe_buf *dir,
    struct qe_buf *db)
{
	struct qe_paths tree = { 0 };

	switch (qe_operand_classify(op, dir, db)) {
	case QE_OPERAND_NONE:
		x->problems++;
		break;
	case QE_OPERAND_CACHE_DIR:
		qe_extract_cache_dir(x, dir->data, db->data);
		break;
	case QE_OPERAND_IPYNB:
		qe_extract_ipynb(x, files);	/* all of them, once */
		qe_paths_free(files);
		break;
	case QE_OPERAND_IPYNB_DIR:
		qe_operand_walk(op, &tree, &x->problems);
		if (tree.n == 0) {
			warnx("%s: no jupyter-cache and no notebooks found", op);
			x->problems++;
		}
		qe_extract_ipynb(x, &tree);
		qe_paths_free(&tree);
		break;
	case QE_OPERAND_ARCHIVE:
		qe_extract_archive(x, op);
		break;
	}
}

void
qe_extract_operands(struct qe_extract *x, const struct qe_paths *ops)
{
	struct qe_paths files = { 0 };
	struct qe_buf dir = { 0 }, db = { 0 };

	/* notebook files named on their own share one common directory */
	for (size_t i = 0; i < ops->n; i++) {
		struct stat sb;

		if (qe_is_ipynb(ops->v[i]) && stat(ops->v[i], &sb) == 0 && !S_ISDIR(sb.st_mode))
			qe_paths_add(&files, ops->v[i]);
	}
	for (size_t i = 0; i < ops->n; i++)
		operand(x, ops->v[i], &files, &dir, &db);
	qe_paths_free(&files);
	qe_buf_free(&dir);
	qe_buf_free(&db);
}
