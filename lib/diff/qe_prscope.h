/*
 * qe_prscope.h - what a pull request touched and what the user silenced:
 * the paths `git diff --name-only` printed (qe-cell-diff --changed) matched
 * to document names, and the ignore list (qe-cell-diff -i / --ignore) of
 * documents and labelled cells.
 *
 * A path and a document match by qe_align_relname()'s rule (qe_align.h;
 * qe-cell-diff(1), PULL REQUESTS): git's paths are relative to the
 * repository, document names to the book's folder.
 *
 * Invariants and ownership:
 *  - a struct qe_prscope is owned by the caller: zero-initialise it, fill
 *    it with qe_prscope_changed_file(), qe_prscope_ignore() and
 *    qe_prscope_ignore_file(), release it with qe_prscope_free(). It owns
 *    copies of every path, document and label.
 *  - `have_changed` says whether a list of changed paths was given at all:
 *    without one, nothing is known of what the pull request touched.
 *  - a file that cannot be read is reported ("prog: FILE: why") and -1 is
 *    returned; blank lines, and in an ignore file lines starting with '#',
 *    are skipped.
 */
#ifndef QE_PRSCOPE_H
#define QE_PRSCOPE_H

#include <stddef.h>

struct qe_ignore {
	char *doc;	/* a document (matched as above) */
	char *label;	/* a cell label, or NULL for the whole document */
};

struct qe_prscope {
	char **changed;		/* paths the pull request changed */
	size_t nchanged, capchanged;
	int have_changed;
	struct qe_ignore *ign;
	size_t nign, capign;
};

/* Read the changed paths, one a line, from path ("-": standard input). */
int qe_prscope_changed_file(struct qe_prscope *s, const char *path);

/* Add one path the pull request changed. */
void qe_prscope_changed_add(struct qe_prscope *s, const char *path);

/* Add "DOC" or "DOC#LABEL" to the ignore list; -1 (reported) when DOC is empty. */
int qe_prscope_ignore(struct qe_prscope *s, const char *spec);

/* Read ignore entries, one a line, from path. */
int qe_prscope_ignore_file(struct qe_prscope *s, const char *path);

/* 1 when a changed path matches doc; -1 when no list was given. */
int qe_prscope_touched(const struct qe_prscope *s, const char *doc);

/* 1 when the whole document is ignored. */
int qe_prscope_ignored_doc(const struct qe_prscope *s, const char *doc);

/* 1 when the document, or its cell labelled `label` (may be NULL), is ignored. */
int qe_prscope_ignored_cell(const struct qe_prscope *s, const char *doc, const char *label);

void qe_prscope_free(struct qe_prscope *s);

#endif /* QE_PRSCOPE_H */
