/*
 * qe_docname.h - the "document" of a record: a notebook's path named
 * relative to the book's root, extension dropped ("lectures/intro").
 *
 * Invariants:
 *  - names are derived from the text of paths only: nothing here touches
 *    the file system, prints or fails. Paths are taken as given (the caller
 *    makes them absolute with realpath(3) when that matters).
 *  - `root` is a directory without a trailing '/' (or NULL): a path below it
 *    is named relative to it. A path outside it that holds the root's last
 *    folders ("R/R/lectures" of /home/runner/_work/R/R/lectures) is named
 *    relative to the first place it holds the longest run of them: it is
 *    the same book built at another absolute path (jupyter-cache stores
 *    absolute URIs, and runners put the workspace at /home/runner/work/R/R,
 *    /home/runner/_work/R/R or /__w/R/R). Any other path keeps its text.
 *    Without a root a path is named relative to the common directory of
 *    every path of its set (qe_docname_common), so the same book gives the
 *    same names wherever it was built.
 *  - A set of paths from several checkouts of one book (a cache restored
 *    from a build at another path) has no root of its own: the common
 *    directory is above the book. qe_docname_guess() finds the folder of the
 *    newest path's checkout that makes every other path either below it or
 *    the same book elsewhere (as a root given would), so such a set is named
 *    as one checkout's set is. Its work is bounded: a set whose bytes
 *    times the newest path's folders squared pass QE_DOCNAME_GUESS_WORK
 *    (1e9, well under a second: 10,000 URIs of 200 bytes in 20 folders are
 *    8e8) gets no guess.
 *  - qe_docname() and qe_docname_guess() return new strings the caller frees.
 */
#ifndef QE_DOCNAME_H
#define QE_DOCNAME_H

#include <stddef.h>

#define QE_DOCNAME_GUESS_WORK 1e9

/* Length of the directory part of `path` (up to its last '/'), 0 if none. */
size_t qe_docname_dir_len(const char *path);

/*
 * Shorten *len, the length of a directory prefix of `base`, to the longest
 * directory `path` shares with it. Start with *len = qe_docname_dir_len(base)
 * and call it once per other path of the set.
 */
void qe_docname_common(const char *path, const char *base, size_t *len);

/*
 * The part of `path` relative to `root` (a pointer into path), or NULL when
 * path is neither below root nor below a folder ending in the root's last
 * folders (see above). *moved is set to 1 for the latter, else 0.
 */
const char *qe_docname_under(const char *path, const char *root, int *moved);

/*
 * The root the set paths[0..n) was built from when it holds several
 * checkouts: the deepest folder of `newest` (one of the paths, the last
 * written) below the set's common directory that every path is below, or
 * holds the last folders of at a place that is neither its ancestor nor below
 * it, with at least one path of the latter kind. NULL when there is none (one
 * checkout: its common directory names it).
 */
char *qe_docname_guess(const char *newest, const char *const *paths, size_t n);

/*
 * The document name of `path`: relative to `root` when below it or below
 * the same book elsewhere (qe_docname_under); without a root, relative to
 * the common directory base[0..baselen) when below it (or to "/" when the
 * common directory is the file system's root). The last extension is
 * dropped.
 */
char *qe_docname(const char *path, const char *root, const char *base, size_t baselen);

#endif /* QE_DOCNAME_H */
