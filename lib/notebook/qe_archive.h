/*
 * qe_archive.h - build artifacts (zip, tar, compressed or not: whatever
 * libarchive reads) holding a jupyter-cache, read in memory and never
 * extracted.
 *
 * Invariants:
 *  - a member name that is absolute or has a ".." part is reported and
 *    skipped, never used; "./" prefixes are dropped.
 *  - work is bounded before it is done: at most `entries` members and
 *    `total_bytes` of declared member sizes per archive, and `member_bytes`
 *    per member read (struct qe_archive_limits). Crossing a bound is
 *    reported and ends the reading of that archive, except a member over
 *    `member_bytes` in a stream compressed as a whole (passing it means
 *    decompressing it): the reading stops at its header, and the cache and
 *    notebooks before it are read (qe_archive_db.stop), never past it.
 *  - functions returning int return 0, or -1 after a message naming the
 *    archive. Problems that do not end the reading (a skipped member, a
 *    member that could not be read) are reported and counted in *problems;
 *    the caller decides what they mean for its exit status.
 *  - member bytes come from sqlite3_malloc64() (so a database can be handed
 *    to sqlite3_deserialize()); release them with sqlite3_free().
 */
#ifndef QE_ARCHIVE_H
#define QE_ARCHIVE_H

#include <stddef.h>

#include <archive.h>
#include <archive_entry.h>

struct qe_archive_limits {
	size_t member_bytes;		/* one member read into memory (--max-notebook) */
	double entries;			/* members of an archive */
	double total_bytes;		/* declared sizes of its members added up */
};

/* Open `path` for reading with every filter and format; NULL after a message. */
struct archive *qe_archive_open(const char *path);

/* Member name without leading "./"; NULL if absolute, empty or with a ".." part. */
const char *qe_archive_safe_name(const char *name);

/*
 * Read the current member into memory, at most `limit` bytes ("where:
 * member larger than LIMIT bytes (see --max-notebook)" and NULL beyond).
 * Returns the bytes (sqlite3_free() them) and their number in *len.
 */
unsigned char *qe_archive_read_member(struct archive *a, struct archive_entry *ae,
    const char *where, size_t limit, size_t *len);

/* The cache of an archive: its global.db, read. */
struct qe_archive_db {
	char *name;			/* the member, e.g. "_build/.jupyter_cache/global.db" */
	char *where;			/* "ARCHIVE:member", for messages */
	char *rootpfx;			/* the member prefix of the cache root */
	unsigned char *bytes;		/* sqlite3_malloc64()'d; NULL once handed over */
	size_t len;
	double member_bytes;		/* the declared sizes of all the members */
	long stop;			/* the member (index from 0) the reading stopped
					 * before (reported, a problem), or -1 */
};

/*
 * First pass: find the one global.db at any depth and read it into db
 * (zero-initialised; qe_archive_db_free() it). -1 when the archive has no
 * cache, two caches, a bound is crossed or it cannot be read; 0 with
 * db->stop set (and counted in *problems) when the reading stopped at a
 * member too large to pass after the cache was found.
 */
int qe_archive_find_db(const char *path, const struct qe_archive_limits *lim,
    struct qe_archive_db *db, int *problems);

/* Free what db still owns (the bytes unless handed over); db is left zeroed. */
void qe_archive_db_free(struct qe_archive_db *db);

/*
 * Called for each member ROOTPFX"executed/HASHKEY/base.ipynb": want()
 * returns what the notebook is for (any pointer), or NULL to skip it. Then
 * got() is handed that pointer and the bytes (it owns them: release them
 * with sqlite3_free()) and returns -1 for a problem it reported. `where`
 * is "ARCHIVE:member".
 */
struct qe_archive_nb_fn {
	void *(*want)(void *ctx, const char *hashkey);
	int (*got)(void *ctx, void *item, const char *where, unsigned char *bytes, size_t len);
	void *ctx;
	/*
	 * May be NULL. When set and the archive is not compressed as a whole
	 * (zip, plain tar: passing a member is a seek, not a decompression),
	 * members are not read: at() is handed the member's index among the
	 * archive's members (from 0), its declared size and the declared
	 * sizes of the members up to it added up, for someone to read it with
	 * a struct qe_archive_cursor (a worker process). Returns -1 for a
	 * problem it reported.
	 */
	int (*at)(void *ctx, void *item, const char *where, long index, double size, double seen);
};

/*
 * Second pass: hand the cached notebooks below `rootpfx` to fn, in the
 * archive's order, up to member `stop` (the first pass's db->stop; -1:
 * all). Members that cannot be read are reported and counted. Returns -1
 * if the archive cannot be opened again.
 */
int qe_archive_each_notebook(const char *path, const char *rootpfx, size_t limit, long stop,
    const struct qe_archive_nb_fn *fn, int *problems);

/*
 * Members read by their index (qe_archive_nb_fn.at), each archive opened
 * once for members read in increasing order (again for an earlier one).
 * Zero-initialised; owned by its user, who closes it.
 */
struct qe_archive_cursor {
	struct archive *a;		/* NULL until the first read */
	long index;			/* the member the header was read of */
};

/*
 * The member of `path` at `index`, read as qe_archive_read_member() does
 * (the same messages); NULL after a message when it cannot be read or
 * reached.
 */
unsigned char *qe_archive_cursor_read(struct qe_archive_cursor *cur, const char *path, long index,
    const char *where, size_t limit, size_t *len);

void qe_archive_cursor_close(struct qe_archive_cursor *cur);

#endif /* QE_ARCHIVE_H */
