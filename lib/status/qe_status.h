/*
 * qe_status.h - a build's documents from qe-cache-extract / qe-stamp
 * records (kind "notebook" and "cell"), the newest record of each, and the
 * two documents qe-exec-status writes from them: the execution status
 * document (schema/execution-status.json) and the exec-time lookup the
 * Sphinx extension reads (schema/exec-times.json).
 *
 * Invariants and ownership:
 *  - a struct qe_status is owned by the caller: zero-initialise it (set
 *    `times` to keep cell durations), fill it with qe_status_record() (a
 *    qe_record_fn: pass it as ctx), release it with qe_status_free().
 *  - the newest rule is decided here only (qe_status_newer): per document
 *    the newest current notebook record wins, by the stamped build's time
 *    when both records carry one and they differ, else by "created", a
 *    failed record (which has none) counting as newest, as qe-cache-extract
 *    orders them. A record with "current": false is never one.
 *  - the cells of a document are the cell records of its document that
 *    follow its winning notebook record in the same file; each label's
 *    first cell counts (labels name one cell).
 *  - a record whose fields read here have another type (a string where a
 *    number belongs), or that has no "kind" or no "document", is rejected
 *    as "prog: file:line: why"; records of other kinds are skipped.
 *  - one measurement (the same created and cache_key) in two records: the
 *    one that is not inherited wins (the build that measured it), and an
 *    inherited record never lends its provenance to a time: it is the
 *    provenance of a later build that re-reported it.
 *  - counts of the status document are this build's: a cache hit's cells
 *    are not timed in it (cells_timed 0, cells_seconds null); the totals'
 *    runtime_s is the sum of the runtime_s the document lists (every
 *    document, whichever build ran it), executed_runtime_s and cells_timed
 *    add what this build executed only; each entry's `times` says where its
 *    times come from (this build, a stored report, the cache).
 *  - cell entries: a cell's label; an exercise/solution block's label
 *    (block_label) sums its cells (a label of its own wins).
 *  - documents come out in name order (bytes, so code point order).
 *  - nothing here prints but the rejections; the documents are appended to
 *    a struct qe_buf by the one writer (qe_jw).
 */
#ifndef QE_STATUS_H
#define QE_STATUS_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "qe_mem.h"

struct qe_status_doc {
	char *name;
	char *file;		/* the file its notebook record came from */
	cJSON *nb;		/* that record (owned) */
	cJSON *cells;		/* with times: {label: {duration_s, start, timing_source}} */
};

struct qe_status {
	int times;			/* keep the cells' durations (qe_status_times) */
	struct qe_status_doc *docs;	/* in arrival order */
	size_t ndocs, cap;
	long cur;			/* the document the next cells belong to, or -1 */
	char *file;			/* the file of the last record */
};

/* What the status document says of the build beside its records. */
struct qe_status_build {
	const char *generator;		/* "qe-exec-status 0.1.0" */
	const char *started, *finished;	/* NULL: null */
	char *const *inputs;		/* what was read, ninputs of them */
	int ninputs;
	const cJSON *provenance;	/* NULL: the records' own */
	const struct qe_status *reports;	/* stored reports a cache hit's times come from, or NULL */
};

/* The qe_record_fn of qe_ndjson_each(): take `rec` into the status `ctx`. */
int qe_status_record(cJSON *rec, const char *file, long line, void *ctx);

/* 1 when notebook record a replaces b as its document's newest, else 0. */
int qe_status_newer(const cJSON *a, const cJSON *b);

/* The provenance of the records: the first document's (by name) that has one, or NULL. */
const cJSON *qe_status_provenance(const struct qe_status *s);

/* Append the execution status document, compact, and a newline. */
void qe_status_document(struct qe_buf *out, struct qe_status *s, const struct qe_status_build *b);

/*
 * Append the execution block of QuantEcon's status dashboard
 * (status-lectures' qe.status.json; schema/qe-status.json), compact, and a
 * newline: {"execution": {documents, succeeded, failed, failed_documents
 * (names, in name order), total_run_time_seconds (the sum of the documents'
 * runtime_s, as the status document's totals.runtime_s), slowest
 * {document, run_time_seconds} (null when no document has a runtime)}}.
 * The same records give it whichever engine built them.
 */
void qe_status_dashboard(struct qe_buf *out, struct qe_status *s);

/* How the lookup prints durations (qe_extime.h). */
struct qe_status_form {
	int digits;	/* of the seconds form, 0 to QE_EXTIME_DIGITS_MAX */
	int style;	/* QE_EXTIME_SI or QE_EXTIME_EN */
};

/*
 * Append the exec-time lookup, compact, and a newline: the build's
 * provenance (prov, else the records'), then per document its status,
 * execution, runtime_s, cells_seconds, created, provenance, the file it
 * came from, the printed forms of its runtime_s (text) and its labelled
 * cells' duration_s, start, timing_source and printed forms (text, with the
 * share of the document's cells_seconds, else of its runtime_s).
 */
void qe_status_times(struct qe_buf *out, struct qe_status *s, const cJSON *prov, const struct qe_status_form *f);

void qe_status_free(struct qe_status *s);

#endif /* QE_STATUS_H */
