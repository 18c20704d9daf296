/* jupyter-cache artifacts read in memory (qe_archive.h). */
#include <err.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "qe_mem.h"
#include "qe_file.h"
#include "qe_archive.h"

/*
 * "where: libarchive's error": some of its messages end in '\n' ("ZIP
 * uncompressed data is wrong size (...)\n"), which warnx's own made a stray
 * empty line; trailing blanks are dropped.
 */
static void
archive_warn(struct archive *a, const char *where)
{
	const char *e = archive_error_string(a);
	size_t n;

	if (e == NULL)
		e = "unreadable archive";
	n = strlen(e);
	while (n > 0 && (e[n - 1] == '\n' || e[n - 1] == '\r' || e[n - 1] == ' '))
		n--;
	warnx("%s: %.*s", where, (int)n, e);
}

struct archive *
qe_archive_open(const char *path)
{
	struct archive *a;

	if (qe_file_regular(path) != 0) {	/* a FIFO would block the open */
		qe_file_warn(path);
		return NULL;
	}
	if ((a = archive_read_new()) == NULL)
		qe_mem_oom();
	archive_read_support_filter_all(a);
	archive_read_support_format_all(a);
	if (archive_read_open_filename(a, path, 1 << 16) != ARCHIVE_OK) {
		archive_warn(a, path);
		archive_read_free(a);
		return NULL;
	}
	return a;
}

const char *
qe_archive_safe_name(const char *name)
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

unsigned char *
qe_archive_read_member(struct archive *a, struct archive_entry *ae, const char *where,
    size_t limit, size_t *len)
{
	unsigned char *buf = NULL;
	size_t cap = 0, n = 0;
	la_ssize_t r;

	/* the size in the header is a hint: one allocation when it is true */
	if (archive_entry_size_is_set(ae) && archive_entry_size(ae) >= 0 &&
	    (uintmax_t)archive_entry_size(ae) <= limit) {
		cap = (size_t)archive_entry_size(ae) + 1;
		if ((buf = sqlite3_malloc64(cap)) == NULL)
			qe_mem_oom();
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
				qe_mem_oom();
		}
		r = archive_read_data(a, buf + n, cap - n);
		if (r == 0)
			break;
		if (r < 0) {
			archive_warn(a, where);
			sqlite3_free(buf);
			return NULL;
		}
		n += (size_t)r;
	}
	*len = n;
	return buf ? buf : sqlite3_malloc(1);
}

/* What the first pass has seen so far. */
struct scan {
	const char *path;
	const struct qe_archive_limits *lim;
	double members, expanded;
	int saw_build;
	char *nested;			/* the first member that is itself an archive */
	int *problems;
};

/* "ARCHIVE:member" */
static char *
where_of(const char *path, const char *name)
{
	struct qe_buf b = { 0 };

	qe_buf_addf(&b, "%s:%s", path, name);
	return b.data;
}

/* Count a member against the bounds; -1 after the message when one is crossed. */
static int
bounded(struct scan *s, struct archive_entry *ae)
{
	/* the second pass reads the same members: bounding the first is enough */
	if (++s->members > s->lim->entries) {
		warnx("%s: more than %.0f members (see --max-archive-entries)", s->path,
		    s->lim->entries);
		return -1;
	}
	if (archive_entry_size_is_set(ae) && archive_entry_size(ae) > 0)
		s->expanded += (double)archive_entry_size(ae);
	if (s->expanded > s->lim->total_bytes) {
		warnx("%s: members of more than %.0f bytes in all (see --max-archive-bytes)",
		    s->path, s->lim->total_bytes);
		return -1;
	}
	return 0;
}

/*
 * A member larger than --max-notebook is never read; in a compressed stream
 * (tar.gz...) going past it still means decompressing all of it (44 s for
 * 12 GiB), so the archive's reading stops at its header instead (what was
 * read before it is kept). Plain tar and zip skip it by seeking. -1 after
 * the message.
 */
static int
too_big_to_skip(struct scan *s, struct archive *a, struct archive_entry *ae, const char *name)
{
	la_int64_t stored, off, len;

	if (!archive_entry_size_is_set(ae) || archive_entry_size(ae) <= 0 ||
	    archive_filter_code(a, 0) == ARCHIVE_FILTER_NONE)
		return 0;
	stored = archive_entry_size(ae);
	if (archive_entry_sparse_reset(ae) > 0)	/* a sparse file: only its extents are stored */
		for (stored = 0; archive_entry_sparse_next(ae, &off, &len) == ARCHIVE_OK;)
			stored += len;
	if ((uintmax_t)stored <= s->lim->member_bytes)
		return 0;
	warnx("%s: member '%s' of %jd bytes: larger than %zu bytes (see --max-notebook), and "
	    "passing it would mean decompressing it; the archive's reading stops here", s->path,
	    name, (intmax_t)archive_entry_size(ae), s->lim->member_bytes);
	return -1;
}

/* 1 when a member's name says it is an archive itself (not opened here). */
static int
is_archive_name(const char *name)
{
	static const char *const ext[] = { ".zip", ".tar", ".tar.gz", ".tgz", ".tar.bz2",
	    ".tar.xz", ".tar.zst", ".7z", NULL };
	size_t n = strlen(name);

	for (int i = 0; ext[i]; i++)
		if (n > strlen(ext[i]) && strcmp(name + n - strlen(ext[i]), ext[i]) == 0)
			return 1;
	return 0;
}

/*
 * One member of the first pass: 0 to go on, -1 to give the archive up, 1
 * to stop before this member keeping what was read (both reported).
 */
static int
scan_member(struct scan *s, struct archive *a, struct archive_entry *ae,
    struct qe_archive_db *db)
{
	const char *raw = archive_entry_pathname(ae);
	const char *name = raw ? qe_archive_safe_name(raw) : NULL, *base;

	if (bounded(s, ae) < 0)
		return -1;
	if (name == NULL) {
		warnx("%s: member '%s': absolute or '..' name, skipped", s->path, raw ? raw : "");
		++*s->problems;
		return 0;
	}
	if (too_big_to_skip(s, a, ae, name) < 0)
		return 1;
	if (strstr(name, "jupyter_execute/") || strncmp(name, "html/", 5) == 0)
		s->saw_build = 1;
	if (s->nested == NULL && archive_entry_filetype(ae) == AE_IFREG && is_archive_name(name))
		s->nested = qe_xstrdup(name);
	base = strrchr(name, '/');
	base = base ? base + 1 : name;
	if (strcmp(base, "global.db") != 0 || archive_entry_filetype(ae) != AE_IFREG)
		return 0;
	if (db->name != NULL) {
		warnx("%s: two caches: '%s' and '%s'", s->path, db->name, name);
		return -1;
	}
	db->name = qe_xstrdup(name);
	db->where = where_of(s->path, name);
	db->bytes = qe_archive_read_member(a, ae, db->where, s->lim->member_bytes, &db->len);
	return db->bytes ? 0 : -1;
}

int
qe_archive_find_db(const char *path, const struct qe_archive_limits *lim,
    struct qe_archive_db *db, int *problems)
{
	struct scan s = { .path = path, .lim = lim, .problems = problems };
	struct archive *a;
	struct archive_entry *ae;
	int r, m = 0, ret = -1;

	db->stop = -1;
	if ((a = qe_archive_open(path)) == NULL)
		return -1;
	for (long i = 0; (r = archive_read_next_header(a, &ae)) == ARCHIVE_OK || r == ARCHIVE_WARN; i++) {
		if ((m = scan_member(&s, a, ae, db)) < 0)
			goto out;
		if (m > 0) {
			db->stop = i;
			break;
		}
	}
	if (m > 0 && db->name == NULL)
		;	/* reported: the reading stopped before any cache */
	else if (m == 0 && r != ARCHIVE_EOF)
		archive_warn(a, path);
	else if (db->name == NULL && s.nested != NULL)
		warnx("%s: no jupyter-cache (no global.db) in the archive; it holds the archive "
		    "'%s': archives inside archives are not opened (unpack it first)", path, s.nested);
	else if (db->name == NULL)
		warnx("%s: no jupyter-cache (no global.db) in the archive%s", path, s.saw_build ?
		    "; an artifact of _build made without 'include-hidden-files: true' has no .jupyter_cache" : "");
	else {
		db->rootpfx = qe_xstrndup(db->name, strlen(db->name) - strlen("global.db"));
		db->member_bytes = s.expanded;
		*s.problems += m > 0;	/* the cache and the members before the stop are read */
		ret = 0;
	}
out:
	free(s.nested);
	archive_read_free(a);
	return ret;
}

void
qe_archive_db_free(struct qe_archive_db *db)
{
	free(db->name);
	free(db->where);
	free(db->rootpfx);
	sqlite3_free(db->bytes);
	memset(db, 0, sizeof *db);
}

/* The hashkey of ROOTPFX"executed/HASHKEY/base.ipynb" (new string), or NULL. */
static char *
notebook_key(const char *name, const char *rootpfx)
{
	size_t pl = strlen(rootpfx);
	const char *hk, *slash;

	if (strncmp(name, rootpfx, pl) != 0 || strncmp(name + pl, "executed/", 9) != 0)
		return NULL;
	hk = name + pl + 9;
	if ((slash = strchr(hk, '/')) == NULL || strcmp(slash, "/base.ipynb") != 0)
		return NULL;
	return qe_xstrndup(hk, (size_t)(slash - hk));
}

/* Where the second pass is. */
struct pass2 {
	const char *path, *rootpfx;
	size_t limit;
	const struct qe_archive_nb_fn *fn;
	int *problems;
	int by_index;			/* fn->at, on an archive compressed member by member */
	long index;			/* of the member */
	double seen;			/* declared sizes up to it */
};

/* One member of the second pass. */
static void
notebook_member(struct pass2 *s, struct archive *a, struct archive_entry *ae)
{
	const struct qe_archive_nb_fn *fn = s->fn;
	double size = archive_entry_size_is_set(ae) && archive_entry_size(ae) > 0 ?
	    (double)archive_entry_size(ae) : 0;
	const char *raw = archive_entry_pathname(ae);
	const char *name = raw ? qe_archive_safe_name(raw) : NULL;
	unsigned char *bytes;
	char *hk, *where;
	void *item;
	size_t len;

	s->seen += size;
	if (name == NULL || archive_entry_filetype(ae) != AE_IFREG ||
	    (hk = notebook_key(name, s->rootpfx)) == NULL)
		return;
	if ((item = fn->want(fn->ctx, hk)) != NULL) {
		where = where_of(s->path, name);
		if (s->by_index) {
			if (fn->at(fn->ctx, item, where, s->index, size, s->seen) < 0)
				++*s->problems;
		} else if ((bytes = qe_archive_read_member(a, ae, where, s->limit, &len)) == NULL)
			++*s->problems;
		else if (fn->got(fn->ctx, item, where, bytes, len) < 0)
			++*s->problems;
		free(where);
	}
	free(hk);
}

int
qe_archive_each_notebook(const char *path, const char *rootpfx, size_t limit, long stop,
    const struct qe_archive_nb_fn *fn, int *problems)
{
	struct pass2 s = { path, rootpfx, limit, fn, problems, 0, 0, 0 };
	struct archive *a;
	struct archive_entry *ae;
	int r = ARCHIVE_EOF;

	if ((a = qe_archive_open(path)) == NULL)
		return -1;
	/* the first pass stopped at member `stop` (reported there): never read past it */
	for (; (stop < 0 || s.index < stop) && ((r = archive_read_next_header(a, &ae)) == ARCHIVE_OK ||
	    r == ARCHIVE_WARN); s.index++) {
		/* the filter is known once the first header is read */
		if (s.index == 0)
			s.by_index = fn->at != NULL && archive_filter_code(a, 0) == ARCHIVE_FILTER_NONE;
		notebook_member(&s, a, ae);
	}
	if ((stop < 0 || s.index < stop) && r != ARCHIVE_EOF) {
		archive_warn(a, path);
		++*problems;
	}
	archive_read_free(a);
	return 0;
}

unsigned char *
qe_archive_cursor_read(struct qe_archive_cursor *cur, const char *path, long index,
    const char *where, size_t limit, size_t *len)
{
	struct archive_entry *ae = NULL;
	int r = ARCHIVE_OK;

	if (cur->a != NULL && index <= cur->index)
		qe_archive_cursor_close(cur);	/* an earlier member: from the start */
	if (cur->a == NULL) {
		if ((cur->a = qe_archive_open(path)) == NULL)
			return NULL;
		cur->index = -1;
	}
	/* passing a member of a zip or plain tar seeks past it */
	while (cur->index < index &&
	    ((r = archive_read_next_header(cur->a, &ae)) == ARCHIVE_OK || r == ARCHIVE_WARN))
		cur->index++;
	if (cur->index < index) {
		if (r == ARCHIVE_EOF)
			warnx("%s: member not found on reading it again", where);
		else
			archive_warn(cur->a, where);
		qe_archive_cursor_close(cur);
		return NULL;
	}
	return qe_archive_read_member(cur->a, ae, where, limit, len);
}

void
qe_archive_cursor_close(struct qe_archive_cursor *cur)
{
	if (cur->a != NULL)
		archive_read_free(cur->a);
	cur->a = NULL;
	cur->index = -1;
}
