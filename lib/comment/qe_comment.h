/*
 * qe_comment.h - the diff comment as a whole: a pull-request comment (with
 * a hidden marker for updating it in place) or a job summary, assembled
 * from qe_mdprose and qe_mdtable pieces under GitHub's size limit.
 *
 * Invariants and ownership:
 *  - the document never exceeds the limit (for a limit of at least
 *    QE_COMMENT_MIN_LIMIT): the marker, title and headline are always kept;
 *    the warnings, the tables' rows, the list of cached lectures and the
 *    summary's sources are dropped or cut, in that order of preference from
 *    the end, and a table that lost rows says how many. The footer goes
 *    last and only if it fits.
 *  - the output is well-formed UTF-8 without NUL bytes (see qe_gfm.h).
 *  - the caller owns the struct qe_buf written to and the options; nothing
 *    else is allocated beyond the call.
 */
#ifndef QE_COMMENT_H
#define QE_COMMENT_H

#include <stddef.h>

#include "qe_diffread.h"
#include "qe_evalmd.h"
#include "qe_ghrun.h"
#include "qe_mem.h"
#include "qe_review.h"

#define QE_COMMENT_LIMIT	65536		/* GitHub: characters per comment */
#define QE_SUMMARY_LIMIT	(1024 * 1024)	/* GitHub: bytes per step summary */
#define QE_COMMENT_MIN_LIMIT	4096		/* below it, the fixed parts may not fit */

struct qe_comment_opts {
	int summary;		/* the job summary flavour: no marker, more rows, sources */
	long max_rows;		/* rows of the top table; -1: 25 (summary) or 10 */
	size_t limit;		/* bytes; 0: QE_SUMMARY_LIMIT or QE_COMMENT_LIMIT */
	const char *title;	/* untrusted; NULL or blank: "Lecture execution times" */
	struct qe_ghrun run;	/* checked values (qe_ghrun.h), each may be NULL */
	const struct qe_evalset *eval;	/* sweep and hotspot records (qe_evalmd.h), or NULL */
};

/*
 * Append the document for review `r` to out. `input_trouble`: some input
 * lines were rejected, which the document warns about.
 */
void qe_comment_render(struct qe_buf *out, const struct qe_comment_opts *o,
    const struct qe_review *r, int input_trouble);

/*
 * --facts: what a workflow step decides on, as "key=value" lines (keys
 * and values plain ASCII): regression (the summary says a regression
 * gates), changed (a notebook or cell has a verdict other than unchanged
 * or cached), each true or false; false without a summary.
 */
void qe_comment_facts(struct qe_buf *out, const struct qe_diffset *d);

/*
 * --flagged: the lectures a replicate run should decide (notebook-diff
 * verdict regression or improvement), in the diff's order, as three
 * fields each ended by a NUL byte: the document name as its bytes, then
 * its base and head execution seconds rounded up to whole seconds (0 when
 * null or negative).
 */
void qe_comment_flagged(struct qe_buf *out, const struct qe_diffset *d);

/*
 * --flagged-cells: the cells qe-replicate --profile profiles (cell-diff
 * verdict regression, improvement or inconclusive: any not decided
 * unchanged), their head index (code-cell ordinal) in the diff's order, one
 * a line. A cell with no head index (removed) is not one.
 */
void qe_comment_flagged_cells(struct qe_buf *out, const struct qe_diffset *d);

#endif /* QE_COMMENT_H */
