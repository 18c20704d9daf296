/* qe-cache-extract's operands to records (qe_extract.h). */
#include <err.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "qe_utf8.h"
#include "qe_file.h"
#include "qe_record.h"
#include "qe_docname.h"
#include "qe_buildnb.h"
#include "qe_extract.h"
#include "qe_mystmd.h"
#include "qe_runs.h"
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
	x->jobs = 1;
	x->execution_seconds = NAN;
}

void
qe_extract_free(struct qe_extract *x)
{
	qe_jcache_keyset_free(&x->baseline);
	qe_hooklog_free(&x->hooks);
}

/* Whether the build measured made the record: with -s or -b only. */
static const char *
origin_of(const struct qe_extract *x, const struct qe_jcache_entry *e)
{
	int o = -1;

	if (e->pk < 0 && e->elsewhere)	/* another checkout's failure: not run at this path */
		o = x->have_since || x->have_baseline ? QE_ORIGIN_INHERITED : -1;
	else if (e->pk < 0)		/* a failure is re-executed by every build */
		o = x->have_since || x->have_baseline ? QE_ORIGIN_EXECUTED : -1;
	else if (x->have_baseline)
		o = qe_jcache_keyset_same_record(&x->baseline, e) ? QE_ORIGIN_INHERITED : QE_ORIGIN_EXECUTED;
	else if (x->have_since)
		o = e->have_created && qe_time_diff_us(&x->since, &e->created) >= 0 ?
		    QE_ORIGIN_EXECUTED : QE_ORIGIN_INHERITED;
	return qe_vocab_name(&qe_vocab_origins, o);
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
	nb->stable_ids = qe_operand_is_ipynb(e->uri);
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

/* Records of one cached notebook, whose bytes have been read; bdir: the build's notebooks. */
static int
cached_records(struct qe_extract *x, const struct qe_jcache_entry *e, const char *where,
    const char *bdir, char *bytes, size_t len, void (*release)(void *), struct qe_buf *out)
{
	struct qe_nbctx nb;
	struct qe_buf bwhere = { 0 };
	int r;

	entry_ctx(x, e, where, &nb);
	qe_buildnb_find(x->lim.member_bytes, bdir, e->uri, &bwhere, &nb);
	r = qe_nbrecord_notebook(&nb, bytes, len, release, out);
	qe_buf_free(&bwhere);
	x->problems += nb.problems;
	return r;
}

/*
 * Every line must be UTF-8: a file name or a stored traceback
 * (\xff\xfe\xc0\xaf) that is not has each bad byte replaced by U+FFFD
 * here, and says so (counted as a problem).
 */
static void
repair_utf8(struct qe_extract *x, const char *where, struct qe_buf *out)
{
	if (qe_utf8_repair_buf(out)) {
		warnx("%s: text not UTF-8 (a file name or stored text): each bad byte written as "
		    "U+FFFD", where);
		x->problems++;
	}
}

/* Hand one notebook's records on, repaired. */
static void
emit_utf8(struct qe_extract *x, const char *where, struct qe_buf *out)
{
	repair_utf8(x, where, out);
	x->emit(out);
}

/*
 * One notebook is a task (qe_par.h): done in a worker process with -j N,
 * here with -j 1. What it changes in the worker's copy of x comes back:
 * the problems it counted and the hook runs it matched (their indices in
 * `note`), applied in operand order by task_done(). Everything else a
 * worker reads (options, baseline, the cache's rows and their selection,
 * the hook log) was decided before the task was submitted.
 */
static int
task_end(struct qe_extract *x, int problems_before, struct qe_buf *note)
{
	int problems = x->problems - problems_before;

	x->problems = problems_before;
	for (size_t i = 0; i < x->hooks.n; i++)
		if (x->hooks.runs[i].used)
			qe_buf_add(note, &i, sizeof i);
	return problems;
}

/* In operand order: the task's problems (a dead worker is one) and hook marks. */
static void
task_done(struct qe_extract *x, const struct qe_buf *note, int problems)
{
	size_t i;

	x->problems += problems < 0 ? 1 : problems;
	for (size_t k = 0; k + sizeof i <= note->len; k += sizeof i) {
		memcpy(&i, note->data + k, sizeof i);
		if (i < x->hooks.n)
			x->hooks.runs[i].used = 1;
	}
}

/*
 * For workers kept from batch to batch (qe_par_fn.keep): a task allocated
 * before its operand's first submission (a row of its cache, a path of
 * its list), which a kept worker reads in its own copy.
 */
static size_t
task_in_place(void *task)
{
	(void)task;
	return 0;
}

/* Queue a task on x->par, or do it now when there is none (-j 1 outside operands). */
static void
submit(struct qe_extract *x, const struct qe_par_fn *fn, void *task, int inparent)
{
	struct qe_par one;

	if (x->par != NULL) {
		qe_par_submit(x->par, fn, task, inparent);
		return;
	}
	qe_par_open(&one, 1);
	qe_par_submit(&one, fn, task, inparent);
	qe_par_close(&one);
}

/*
 * What a notebook at `path` weighs for the batches of the workers
 * (qe_par_batch_full): its bytes, and a page for the work of any file.
 * Nothing is said here: a file that cannot be read is the worker's to
 * report.
 */
static double
weight_of(const char *path)
{
	struct stat sb;

	return 4096.0 + (stat(path, &sb) == 0 && S_ISREG(sb.st_mode) ? (double)sb.st_size : 0);
}

/*
 * Tasks of one fn sized by their weights w[0..n), in the order they are
 * submitted, for workers (qe_par_submit_sized); `next` is the next one's.
 */
struct sizing {
	double *w, left;
	size_t n, cap, next;
};

/* The next task's weight, from its path; fn->total grows. Nothing without workers. */
static void
sizing_add(const struct qe_extract *x, struct sizing *s, struct qe_par_fn *fn, const char *path)
{
	if (x->par == NULL || x->par->jobs <= 1)
		return;
	s->w = qe_mem_grow(s->w, s->n, &s->cap, sizeof *s->w, 16);
	s->w[s->n] = weight_of(path);
	fn->total += s->w[s->n++];
	s->left = fn->total;
}

/* Queue the next sized task (submit() when there are no weights). */
static void
submit_sized(struct qe_extract *x, const struct qe_par_fn *fn, void *task, struct sizing *s)
{
	double w;

	if (s->next >= s->n) {
		submit(x, fn, task, 0);
		return;
	}
	w = s->w[s->next++];
	s->left -= w;
	qe_par_submit_sized(x->par, fn, task, 0, w, s->left > 0 ? s->left : 0);
}

/* Wait for every task of the operand (they point into its state). */
static void
drain(struct qe_extract *x)
{
	if (x->par != NULL)
		qe_par_drain(x->par);
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
cache_dir_entry(struct qe_extract *x, const char *dir, const char *realdir, const char *bdir,
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
	if (cached_records(x, e, path->data, bdir, bytes, len, free, out) < 0)
		x->problems++;
}

/* A cache folder's tasks: its entries. */
struct dirjob {
	struct qe_extract *x;
	const char *dir, *realdir;
	char *bdir;			/* the build's notebooks (jupyter_execute), or NULL */
};

static int
dir_work(void *ctx, void *task, struct qe_buf *out, struct qe_buf *note)
{
	struct dirjob *j = ctx;
	const struct qe_jcache_entry *e = task;
	struct qe_buf path = { 0 };
	int p0 = j->x->problems;

	cache_dir_entry(j->x, j->dir, j->realdir, j->bdir, e, &path, out);
	repair_utf8(j->x, e->uri, out);
	qe_buf_free(&path);
	return task_end(j->x, p0, note);
}

static void
dir_done(void *ctx, void *task, struct qe_buf *out, struct qe_buf *note, int problems)
{
	struct dirjob *j = ctx;

	(void)task;
	task_done(j->x, note, problems);
	j->x->emit(out);
}

/* Once a run: the cells of `where` are named from their code alone. */
static void
names_from_code(struct qe_extract *x, const char *where, const char *why)
{
	if (x->names_said)
		return;
	x->names_said = 1;
	warnx("note: %s: %s: cells are named from their code alone (no exercise or solution "
	    "blocks); not an error", where, why);
}

/* 1 when the cache folder dir is a book's: DIR/_build/.jupyter_cache. */
static int
in_build(const char *dir)
{
	char *r = realpath(dir, NULL), *slash;
	int in = 0;

	if (r != NULL && (slash = strrchr(r, '/')) != NULL) {
		*slash = '\0';
		in = (slash = strrchr(r, '/')) != NULL && strcmp(slash + 1, "_build") == 0;
	}
	free(r);
	return in;
}

/* 1 when a selected entry's source (its URI) is a file here: names can come from it. */
static int
have_sources(const struct qe_jcache *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->e[i].selected && c->e[i].pk >= 0 && qe_file_regular(c->e[i].uri) == 0)
			return 1;
	return 0;
}

/*
 * The folder of the build's notebooks for the cache folder dir, or NULL:
 * said once where it was asked for or belongs, unless the sources are here.
 */
static char *
build_dir_of(struct qe_extract *x, const char *dir, const struct qe_jcache *c)
{
	struct qe_buf b = { 0 };
	struct stat sb;

	if (x->build_dir != NULL)
		qe_buf_adds(&b, x->build_dir);
	else
		qe_buf_addf(&b, "%s/../jupyter_execute", dir);
	if (stat(b.data, &sb) == 0 && S_ISDIR(sb.st_mode))
		return b.data;
	qe_buf_free(&b);
	if (have_sources(c))
		return NULL;
	/* said where the folder was asked for or belongs (a build's _build); records say names_from */
	if (x->build_dir != NULL)
		names_from_code(x, dir, "no folder at --jupyter-execute");
	else if (in_build(dir))
		names_from_code(x, dir, "no jupyter_execute folder beside it (--jupyter-execute names one)");
	return NULL;
}

void
qe_extract_cache_dir(struct qe_extract *x, const char *dir, const char *db)
{
	struct qe_jcache c = { .name = dir };
	struct dirjob j = { x, dir, realpath(dir, NULL), NULL };
	struct qe_par_fn fn = { dir_work, NULL, dir_done, &j, 0, 0, task_in_place };
	struct sizing sz = { 0 };
	struct qe_buf path = { 0 };

	if (qe_jcache_open_file(&c, db) < 0 || read_rows(x, &c, 0) < 0) {
		x->problems++;
		goto done;
	}
	qe_jcache_arrange(&c, x->all, x->root);
	j.bdir = build_dir_of(x, dir, &c);
	for (size_t i = 0; i < c.n; i++)
		if (c.e[i].selected && c.e[i].pk >= 0) {
			qe_buf_reset(&path);
			qe_buf_addf(&path, "%s/executed/%s/base.ipynb", dir, c.e[i].hashkey);
			sizing_add(x, &sz, &fn, path.data);
		}
	/* a failed record joins the hook log's unmatched runs: in order, here */
	for (size_t i = 0; i < c.n; i++)
		if (c.e[i].selected && c.e[i].pk < 0)
			submit(x, &fn, &c.e[i], 1);
		else if (c.e[i].selected)
			submit_sized(x, &fn, &c.e[i], &sz);
	drain(x);
done:
	free(sz.w);
	qe_buf_free(&path);
	free((char *)j.realdir);
	free(j.bdir);
	qe_jcache_free(&c);
}

/* The archive's second pass: which entry a cached notebook is for. */
struct archive_pass {
	struct qe_extract *x;
	struct qe_jcache *c;
	struct qe_par_fn fn;		/* its tasks (archive_work...), bytes read here */
	struct qe_par_fn fnat;		/* the same, members read by kept workers */
	const char *path;		/* the archive */
	double total;			/* its members' declared sizes (for workers) */
	struct qe_archive_cursor cur;	/* members read by index: the reader's (a worker's) */
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

/*
 * One notebook of an archive, for a worker: its bytes, read in the parent
 * (an archive compressed as a whole), or its index, read by the worker.
 */
struct archive_task {
	struct qe_jcache_entry *e;
	unsigned char *bytes;		/* NULL once a worker took them, or to be read */
	size_t len;
	long index;			/* the member to read, or -1 */
	char where[];			/* in the task: a kept worker gets a copy of it */
};

/* A task with a copy of where, bytes NULL. */
static struct archive_task *
archive_task_new(struct qe_jcache_entry *e, const char *where, long index)
{
	size_t n = strlen(where) + 1;
	struct archive_task *t = qe_xcalloc(1, sizeof *t + n);

	t->e = e;
	memcpy(t->where, where, n);
	t->index = index;
	return t;
}

/* What a kept worker needs of a task (member `index`): all of it (e is the cache's row). */
static size_t
archive_keep(void *task)
{
	return sizeof(struct archive_task) + strlen(((struct archive_task *)task)->where) + 1;
}

static int
archive_work(void *ctx, void *task, struct qe_buf *out, struct qe_buf *note)
{
	struct archive_pass *pass = ctx;
	struct qe_extract *x = pass->x;
	struct archive_task *t = task;
	int p0 = x->problems;

	if (t->index >= 0 && (t->bytes = qe_archive_cursor_read(&pass->cur, pass->path, t->index,
	    t->where, x->lim.member_bytes, &t->len)) == NULL)
		x->problems++;
	else if (cached_records(x, t->e, t->where, NULL, (char *)t->bytes, t->len, sqlite3_free, out) < 0)
		x->problems++;
	t->bytes = NULL;
	return task_end(x, p0, note);
}

/* The parent's copy of the bytes, once a worker has its own. */
static void
archive_forked(void *ctx, void *task)
{
	struct archive_task *t = task;

	(void)ctx;
	sqlite3_free(t->bytes);
	t->bytes = NULL;
}

/* The records wait in their entry until the cache's order gives their turn. */
static void
archive_done(void *ctx, void *task, struct qe_buf *out, struct qe_buf *note, int problems)
{
	struct archive_task *t = task;

	task_done(((struct archive_pass *)ctx)->x, note, problems);
	qe_buf_add(&t->e->out, out->data, out->len);
	free(t);
}

static int
got_notebook(void *ctx, void *item, const char *where, unsigned char *bytes, size_t len)
{
	struct archive_pass *pass = ctx;
	struct archive_task *t = archive_task_new(item, where, -1);

	t->bytes = bytes;
	t->len = len;
	submit(pass->x, &pass->fn, t, 0);
	return 0;
}

/* A notebook for a worker to read itself (member `index`), in batches by size. */
static int
at_notebook(void *ctx, void *item, const char *where, long index, double size, double seen)
{
	struct archive_pass *pass = ctx;
	struct archive_task *t = archive_task_new(item, where, index);
	double left = pass->total - seen;

	qe_par_submit_sized(pass->x->par, &pass->fnat, t, 0, 4096 + size, left > 0 ? left : 0);
	return 0;
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
	struct archive_pass pass = { x, c, { archive_work, archive_forked, archive_done, NULL, 1, 0, NULL },
	    { archive_work, NULL, archive_done, NULL, 1, 0, archive_keep }, path, 0, { NULL, -1 } };
	struct qe_archive_nb_fn fn = { want_notebook, got_notebook, &pass, NULL };
	int r, problems = 0;
	long stop;

	c->name = path;
	r = qe_archive_find_db(path, &x->lim, &db, &problems);
	if (r == 0)
		r = open_archive_db(x, c, &db, keys_only);
	pass.total = db.member_bytes;
	stop = db.stop;
	c->partial = stop >= 0;
	qe_archive_db_free(&db);
	if (r == 0 && !keys_only) {
		qe_jcache_arrange(c, x->all, x->root);
		pass.fn.ctx = pass.fnat.ctx = &pass;
		/* workers read their members themselves where passing one is a seek */
		if (x->par != NULL && x->par->jobs > 1) {
			fn.at = at_notebook;
			pass.fnat.total = pass.total;
		}
		r = qe_archive_each_notebook(path, c->rootpfx, x->lim.member_bytes, stop, &fn, &problems);
		drain(x);
		qe_archive_cursor_close(&pass.cur);	/* read here if a fork failed */
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
		else if (!e->done && !c.partial) {	/* else past the stop, which was said */
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

		qe_operand_paths_add(abs, a);
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

/* Notebook files' tasks: files->v[i], named from abs->v[i] and their common folder. */
struct filejob {
	struct qe_extract *x;
	const struct qe_paths *files, *abs;
	const char *base;
	size_t baselen;
};

static int
file_work(void *ctx, void *task, struct qe_buf *out, struct qe_buf *note)
{
	struct filejob *j = ctx;
	struct qe_extract *x = j->x;
	size_t i = (size_t)((char **)task - j->files->v), len;
	char *doc = qe_docname(j->abs->v[i], x->root, j->base ? j->base : j->abs->v[i],
	    j->base ? j->baselen : qe_docname_dir_len(j->abs->v[i])), *bytes;
	struct qe_nbctx nb = { .where = j->files->v[i], .document = doc, .input = "ipynb",
	    .pk = -1, .current = -1, .stable_ids = 1, .execution_seconds = x->execution_seconds,
	    .stale_margin_us = x->stale_margin_us, .hooks = &x->hooks };
	int p0 = x->problems;

	if (x->failed != NULL)	/* its runner saw it fail: what ran is not a build's record */
		qe_nbrecord_failed(&nb, x->failed, out);
	else if ((bytes = read_notebook(x, j->files->v[i], &len)) != NULL &&
	    qe_nbrecord_notebook(&nb, bytes, len, free, out) < 0)
		x->problems++;
	x->problems += nb.problems;
	free(doc);
	repair_utf8(x, j->files->v[i], out);
	return task_end(x, p0, note);
}

static void
file_done(void *ctx, void *task, struct qe_buf *out, struct qe_buf *note, int problems)
{
	struct filejob *j = ctx;

	(void)task;
	task_done(j->x, note, problems);
	j->x->emit(out);
}

void
qe_extract_ipynb(struct qe_extract *x, const struct qe_paths *files)
{
	struct qe_paths abs = { 0 };
	struct filejob j = { x, files, &abs, NULL, 0 };
	struct qe_par_fn fn = { file_work, NULL, file_done, &j, 0, 0, task_in_place };
	struct sizing sz = { 0 };

	if (files->n == 0)
		return;
	common_dir(files, x->root, &abs, &j.base, &j.baselen);
	for (size_t i = 0; i < files->n; i++)
		sizing_add(x, &sz, &fn, files->v[i]);
	for (size_t i = 0; i < files->n; i++)
		submit_sized(x, &fn, &files->v[i], &sz);
	drain(x);
	free(sz.w);
	qe_operand_paths_free(&abs);
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
		qe_jcache_keyset_from_cache(&x->baseline, &c);
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

	if (qe_runs_is_run(op)) {	/* qe-replicate's run folder */
		struct qe_runs rs = QE_RUNS_OF(x);

		qe_runs_extract_run(&rs, op);
		x->problems += rs.problems;
		return;
	}
	if (qe_mystmd_is_project(op, dir)) {	/* a mystmd project or its _build */
		struct qe_mystmd ms = QE_MYSTMD_OF(x);

		qe_mystmd_extract(&ms, dir->data);
		x->problems += ms.problems;
		return;
	}
	switch (qe_operand_classify(op, dir, db)) {
	case QE_OPERAND_NONE:
		x->problems++;
		break;
	case QE_OPERAND_CACHE_DIR:
		qe_extract_cache_dir(x, dir->data, db->data);
		break;
	case QE_OPERAND_IPYNB:
		qe_extract_ipynb(x, files);	/* all of them, once */
		qe_operand_paths_free(files);
		break;
	case QE_OPERAND_IPYNB_DIR:
		qe_operand_walk(op, &tree, &x->problems);
		if (tree.n == 0) {
			warnx("%s: no jupyter-cache and no notebooks found", op);
			x->problems++;
		}
		qe_extract_ipynb(x, &tree);
		qe_operand_paths_free(&tree);
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
	struct qe_par par;

	qe_par_open(&par, x->jobs);
	x->par = &par;
	/* notebook files named on their own share one common directory */
	for (size_t i = 0; i < ops->n; i++) {
		struct stat sb;

		if (qe_operand_is_ipynb(ops->v[i]) && stat(ops->v[i], &sb) == 0 && !S_ISDIR(sb.st_mode))
			qe_operand_paths_add(&files, ops->v[i]);
	}
	for (size_t i = 0; i < ops->n; i++)
		operand(x, ops->v[i], &files, &dir, &db);
	qe_par_close(&par);
	x->par = NULL;
	qe_operand_paths_free(&files);
	qe_buf_free(&dir);
	qe_buf_free(&db);
}

/* The newest cache record of `document` with a stored notebook, or NULL. */
static const struct qe_jcache_entry *
stored_entry(const struct qe_jcache *c, const char *document)
{
	/* arranged newest first: a failure before them has no notebook */
	for (size_t i = 0; i < c->n; i++)
		if (c->e[i].pk >= 0 && strcmp(c->e[i].document, document) == 0)
			return &c->e[i];
	return NULL;
}

/*
 * No document of that name: the newest record whose source path, its
 * extension dropped, ends with "/document" (a name relative to another
 * root), when those records are of one document; NULL (said when several).
 */
static const struct qe_jcache_entry *
stored_by_source(const struct qe_jcache *c, const char *path, const char *document)
{
	const struct qe_jcache_entry *found = NULL;
	size_t n = strlen(document);
	int several = 0;

	for (size_t i = 0; i < c->n; i++) {
		char *stem = c->e[i].pk >= 0 ? qe_docname(c->e[i].uri, NULL, "/", 1) : NULL;
		size_t len = stem ? strlen(stem) : 0;

		if (stem && len > n && stem[len - n - 1] == '/' && strcmp(stem + len - n, document) == 0) {
			several |= found != NULL && strcmp(found->document, c->e[i].document) != 0;
			found = found ? found : &c->e[i];
		}
		free(stem);
	}
	if (several)
		warnx("%s: '%s' ends the source path of several documents: name one as the "
		    "records do", path, document);
	return several ? NULL : found;
}

int
qe_extract_stored(struct qe_extract *x, const char *path, const char *document,
    struct qe_buf *out)
{
	struct qe_buf dir = { 0 }, db = { 0 }, nb = { 0 };
	struct qe_jcache c = { .name = path };
	const struct qe_jcache_entry *e = NULL;
	char *realdir = NULL;
	int r = -1;

	switch (qe_operand_classify(path, &dir, &db)) {
	case QE_OPERAND_NONE:
		goto done;
	case QE_OPERAND_CACHE_DIR:
		break;
	case QE_OPERAND_ARCHIVE:
		warnx("%s: an archive holds no notebook file to name: --stored reads a cache folder", path);
		goto done;
	default:
		warnx("%s: not a jupyter-cache (no global.db)", path);
		goto done;
	}
	if (qe_jcache_open_file(&c, db.data) < 0 || read_rows(x, &c, 0) < 0)
		goto done;
	qe_jcache_arrange(&c, 1, x->root);
	if ((e = stored_entry(&c, document)) == NULL &&
	    (e = stored_by_source(&c, path, document)) == NULL) {
		warnx("%s: no record of document '%s'", path, document);
		goto done;
	}
	qe_buf_addf(&nb, "%s/executed/%s/base.ipynb", dir.data, e->hashkey);
	realdir = realpath(dir.data, NULL);
	if (!inside_cache(x, realdir, nb.data))
		goto done;
	if (qe_file_regular(nb.data) != 0) {
		warnx("%s: record %s of '%s' has no stored notebook (%s)", path, e->hashkey, document,
		    nb.data);
		goto done;
	}
	qe_buf_add(out, nb.data, nb.len + 1);
	qe_buf_add(out, e->uri, strlen(e->uri) + 1);
	r = 0;
done:
	free(realdir);
	qe_jcache_free(&c);
	qe_buf_free(&dir);
	qe_buf_free(&db);
	qe_buf_free(&nb);
	return r;
}
