/*
 * qe_nbrecord.h - the records of one notebook: a "notebook" record, then a
 * "cell" record per code cell (schema/notebook.json, schema/cell.json), as
 * qe-cache-extract prints them.
 *
 * Invariants:
 *  - a notebook gives all its records or none: they are built in memory
 *    and appended to the caller's buffer as NDJSON lines (compact JSON,
 *    '\n') only once the whole notebook has been read.
 *  - the notebook record comes first, though it is written last: its
 *    totals (timed cells, cells_seconds, the first failure) come from the
 *    cells.
 *  - a struct qe_nbctx is filled by the caller and only read here, except
 *    `problems` (and the `used` mark of a hook run that matched). Its
 *    strings are borrowed and must outlive the call.
 *  - problems that still give records (a cell whose source is not text)
 *    are reported and counted in nb->problems; the caller decides what they
 *    mean for its exit status.
 */
#ifndef QE_NBRECORD_H
#define QE_NBRECORD_H

#include <stddef.h>
#include <stdint.h>

#include "qe_hooklog.h"
#include "qe_time.h"

struct qe_buf;

/* What a whole notebook contributes to its cells' judgement. */
struct qe_nbctx {
	const char *where;		/* for messages: path, or archive:member */
	const char *document;
	const char *input;		/* "cache", "ipynb" or "mystmd" (a notebook made of a page, qe_mystmd.h) */
	const char *uri;		/* cache: nbcache.uri */
	const char *cache_key;		/* NULL for files */
	int64_t pk;			/* cache: nbcache.pk, else -1 */
	int current;			/* -1: omit the field */
	const char *origin;		/* NULL: omit */
	int stable_ids;			/* cell ids identify cells across builds */
	double execution_seconds;	/* NAN when unknown */
	struct qe_time created;		/* cache record: the execution window's end */
	int have_created;
	int64_t stale_margin_us;	/* --stale-margin */
	struct qe_hooklog *hooks;	/* --timings, or NULL */
	/*
	 * mystmd: the document as a Jupyter server's session names it (the
	 * source path relative to the project folder `hook_root`): its hook
	 * run is the one whose `document` names it, and the notebook record
	 * lists the documents that ran beside it ("concurrent"). NULL: the
	 * join by digests alone.
	 */
	const char *hook_document;
	const char *hook_root;
	const char *engine;		/* "engine": what executed it, or NULL: no field */
	/*
	 * A cache's notebook as the build wrote it (_build/jupyter_execute),
	 * whose markdown cells name the code cells: its bytes are handed over
	 * (freed), or NULL. An ipynb names its cells from its own, unless it
	 * is a cache's copy given its build's notebook (qe-replicate -d).
	 */
	const char *build_where;
	char *build_bytes;
	size_t build_len;
	int build_myst;			/* build_bytes are the MyST source (DOC.md), not a notebook */
	int problems;			/* out: reported, records still given */
};

/*
 * Read a notebook (qe_nbscan_read: `bytes` is handed over and released with
 * release()) and append its records to `out`. Returns -1 after a
 * diagnostic if it is not a notebook (nothing appended).
 */
int qe_nbrecord_notebook(struct qe_nbctx *nb, char *bytes, size_t len, void (*release)(void *),
    struct qe_buf *out);

/*
 * Append the notebook record of a document whose last execution failed
 * and left no notebook: status "failed", `error` (may be NULL), no cells,
 * nb->execution_seconds (NAN for a cache's failure, which has none).
 */
void qe_nbrecord_failed(const struct qe_nbctx *nb, const char *error, struct qe_buf *out);

#endif /* QE_NBRECORD_H */
