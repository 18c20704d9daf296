/*
 * qe_operand.h - what qe-cache-extract's operands are: a jupyter-cache
 * folder (or a _build holding one, or its database named directly), a
 * folder of notebooks, a notebook file, or an artifact archive; and the
 * lists of paths they give.
 *
 * Invariants:
 *  - a struct qe_paths owns its strings: zero-initialise it, free it with
 *    qe_operand_paths_free() (which leaves it empty and reusable).
 *  - a path that cannot be looked at is reported ("prog: path: strerror")
 *    and given as QE_OPERAND_NONE or left out; qe_operand_walk() counts
 *    what it reported in *problems for the caller to judge.
 */
#ifndef QE_OPERAND_H
#define QE_OPERAND_H

#include <stddef.h>
#include <stdio.h>

struct qe_buf;

struct qe_paths {
	char **v;
	size_t n;
};

/* Append a copy of p. */
void qe_operand_paths_add(struct qe_paths *l, const char *p);

/* Append each non-empty line of fp (its '\n' and '\r' removed). */
void qe_operand_paths_read_lines(struct qe_paths *l, FILE *fp);

/* Free the strings and the array; l is left empty. */
void qe_operand_paths_free(struct qe_paths *l);

/* 1 if name ends in ".ipynb" after at least one character. */
int qe_operand_is_ipynb(const char *name);

enum qe_operand {
	QE_OPERAND_NONE,		/* cannot be looked at (reported) */
	QE_OPERAND_CACHE_DIR,		/* a jupyter-cache */
	QE_OPERAND_IPYNB_DIR,		/* a folder without a cache: its notebooks */
	QE_OPERAND_IPYNB,		/* a notebook file */
	QE_OPERAND_ARCHIVE		/* anything else: read as an archive */
};

/*
 * What `path` is. For QE_OPERAND_CACHE_DIR, cachedir gets the
 * .jupyter_cache folder and db its database: global.db there, or the
 * SQLite file named (whatever its name: a copy kept aside). Both buffers
 * are reset first and owned by the caller.
 */
enum qe_operand qe_operand_classify(const char *path, struct qe_buf *cachedir, struct qe_buf *db);

/*
 * path made absolute as given (a new string): a relative one is put after
 * cwd (absolute, no trailing '/'), then "." and empty parts are dropped
 * and ".." takes off the part before it, by the text alone: a symbolic link
 * is not resolved, so a notebook is named from the path the user gave.
 */
char *qe_operand_abspath(const char *path, const char *cwd);

/*
 * Append every *.ipynb file below dir to out, sorted by name at each level;
 * hidden entries (.ipynb_checkpoints) are skipped. A folder met again among
 * its own ancestors (a symbolic link loop: loop -> ., up -> ..) is reported
 * once per link and not followed.
 */
void qe_operand_walk(const char *dir, struct qe_paths *out, int *problems);

#endif /* QE_OPERAND_H */
