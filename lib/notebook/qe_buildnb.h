/*
 * qe_buildnb.h - the build's notebook of a jupyter-cache record: the
 * notebook MyST-NB wrote for the document, with the markdown cells a
 * cache's copy lacks, so the cache's cells are named by their exercise and
 * solution blocks (qe_cellname.h). One finding for both ways a cache's
 * notebook is read: the cache's records (qe_extract_cache_dir) and a
 * stored notebook run again (qe-replicate -d, read by qe_runs).
 *
 * Invariants:
 *  - a record's build notebook is DIR/TAIL.ipynb for the longest tail of
 *    its URI (extension dropped) found in the build's folder DIR, else the
 *    MyST source its URI names where it is a .md file here; a URI with a
 *    ".." component names nothing.
 *  - the bytes found are handed to nb (nb->build_bytes, freed by
 *    qe_nbrecord_notebook) with their path in `where` (nb->build_where
 *    points into it); nothing found leaves nb as it was.
 */
#ifndef QE_BUILDNB_H
#define QE_BUILDNB_H

#include <stddef.h>

struct qe_buf;
struct qe_nbctx;

/*
 * The build's notebook of the record with URI uri, looked for in the
 * folder dir (NULL: none, the MyST source only), at most max bytes; one
 * that cannot be read is said (counted in nb->problems).
 */
void qe_buildnb_find(size_t max, const char *dir, const char *uri, struct qe_buf *where,
    struct qe_nbctx *nb);

/*
 * The build's notebook of a cache's stored notebook, `path` being
 * DIR/executed/KEY/base.ipynb (what qe-cache-extract --stored names and
 * qe-replicate -d runs): found for the cache's record KEY as the cache's
 * own records find it, the folder being DIR/../jupyter_execute. Nothing,
 * silently, for any other path, a cache that cannot be read, or no such
 * record: the cells are then named from the notebook itself.
 */
void qe_buildnb_stored(size_t max, const char *path, struct qe_buf *where, struct qe_nbctx *nb);

#endif /* QE_BUILDNB_H */
