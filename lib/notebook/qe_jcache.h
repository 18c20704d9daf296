/*
 * qe_jcache.h - jupyter-cache's database (global.db): which notebooks it
 * holds, under which hashkey, when they ran and for how long, and which
 * documents last failed.
 *
 * Invariants:
 *  - a struct qe_jcache is owned by its caller: zero-initialise it (setting
 *    `name` if wanted), open it with qe_jcache_open_file() or
 *    qe_jcache_open_memory(), read it with qe_jcache_read(), release it
 *    with qe_jcache_free() whatever happened. It owns its entries and every
 *    string in them, the database handle, `dbwhere` and `rootpfx`.
 *  - the database is opened read-only and never written; a path that is not
 *    a regular file (a FIFO would block the open, a folder gave "disk I/O
 *    error") is "not a jupyter-cache database" before SQLite sees it.
 *  - text is never cut at a NUL byte: a value holding one is reported as
 *    "'COLUMN' holds a NUL byte" (a bad row). A key, a time or 'data' is
 *    then not used (a row without its key is skipped); text that is only
 *    shown, a URI or a traceback, is kept with each NUL written as U+FFFD
 *    (the message says so), so a failing document never vanishes.
 *  - functions returning int return 0, or -1 after a message naming
 *    `dbwhere`. A bad row is reported, skipped (or read without the bad
 *    field) and counted in `bad_rows`, and reading goes on: the caller
 *    decides what that means for its exit status.
 *  - after qe_jcache_arrange(), entries are sorted by document, newest
 *    first, a failure before every record of its document (one found at
 *    the root's own path before one named from another path). The current
 *    entry of a document is its first, except that a failure named from
 *    another path (a build of the same book elsewhere, whose project row
 *    nothing here clears) does not hide a record of this path.
 */
#ifndef QE_JCACHE_H
#define QE_JCACHE_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "qe_time.h"
#include "qe_mem.h"

/* One nbcache row, or (pk -1) a document whose last execution failed. */
struct qe_jcache_entry {
	int64_t pk;			/* -1: a failed notebook (nbproject only) */
	char *hashkey, *uri;		/* hashkey NULL for a failure */
	char *document;			/* set by qe_jcache_arrange() */
	int moved;			/* named from another absolute path of the root */
	int elsewhere;			/* a failure of another checkout than the one that has records here */
	char *error;			/* failure: the traceback's exception line */
	double execution_seconds;	/* NAN when unknown */
	struct qe_time created;
	int have_created;
	int current;			/* the newest of its document */
	int selected;			/* to be printed (current, or every one with -a) */
	int done;			/* its notebook has been read (archives) */
	struct qe_buf out;		/* its records, when read out of order */
};

struct qe_jcache {
	const char *name;		/* the operand (borrowed) */
	char *dbwhere;			/* "DIR/global.db" or "ARCHIVE:member" */
	char *rootpfx;			/* archive: member prefix of the cache root */
	int partial;			/* archive: its reading stopped before the end, so
					 * an entry not done may lie past the stop */
	sqlite3 *db;
	struct qe_jcache_entry *e;
	size_t n, cap;			/* cap: e's room (grows geometrically) */
	size_t bad_rows;		/* rows reported and skipped or read in part */
};

/* Open the database file at `path`, read-only. */
int qe_jcache_open_file(struct qe_jcache *c, const char *path);

/*
 * Open a database from its bytes (from sqlite3_malloc64(); c->dbwhere set
 * by the caller). SQLite owns `bytes` from here, whether or not the open
 * succeeds: the caller must not free them.
 */
int qe_jcache_open_memory(struct qe_jcache *c, unsigned char *bytes, size_t len);

/*
 * Read the rows: every nbcache record, and each document whose last run
 * failed (a traceback in nbproject, or nbstage before jupyter-cache 0.5).
 * With keys_only, only pk, hashkey and uri of the nbcache rows.
 */
int qe_jcache_read(struct qe_jcache *c, int keys_only);

/*
 * Name the entries' documents (relative to `root`, or to their URIs'
 * common directory), sort them and set `current`; `selected` is every
 * entry with `all`, else the current ones.
 */
void qe_jcache_arrange(struct qe_jcache *c, int all, const char *root);

/* The last non-blank line of a traceback, ANSI escapes removed (free() it), or NULL. */
char *qe_jcache_exception_line(const char *tb);

/* Close the database and free everything c owns; c is left zeroed. */
void qe_jcache_free(struct qe_jcache *c);

/* A baseline's cache record: its hashkey, pk and creation time. */
struct qe_keyent {
	char *key;
	int64_t pk;
	struct qe_time created;
	int have_created;
};

/* The records of a baseline sorted by hashkey, owned by whoever declared it. */
struct qe_keyset {
	struct qe_keyent *v;
	size_t n;
};

/* Every cache record of c into ks (zero-initialised), sorted. */
void qe_jcache_keyset_from_cache(struct qe_keyset *ks, const struct qe_jcache *c);

/* The baseline's record with hashkey key, or NULL. */
const struct qe_keyent *qe_jcache_keyset_find(const struct qe_keyset *ks, const char *key);

/* 1 if key is in the set. */
int qe_jcache_keyset_has(const struct qe_keyset *ks, const char *key);

/*
 * 1 when e is the baseline's own record, inherited by a copy of its cache:
 * the same hashkey AND the same creation time to the microsecond (when both
 * have one) AND the same pk. A rebuild from scratch with equal sources has
 * the same hashkey but a new creation time. No clock is compared with
 * another machine's, so skew between them does not matter.
 */
int qe_jcache_keyset_same_record(const struct qe_keyset *ks, const struct qe_jcache_entry *e);

/* Free the keys; ks is left empty. */
void qe_jcache_keyset_free(struct qe_keyset *ks);

#endif /* QE_JCACHE_H */
