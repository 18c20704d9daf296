/*
 * qe_diffrec.h - the records qe-cell-diff writes (schema/diff.json): per
 * document a notebook-diff record followed by its cell-diff records, in
 * document name order, and one diff-summary record last.
 *
 * Invariants:
 *  - records go to stdout through qe_json_emit (one compact line each); a write
 *    error ends the program there, as everywhere.
 *  - cell-diff and notebook-diff lines are written member by member by the
 *    one writer (qe_jw.h): a million of them must print fast. The one
 *    diff-summary record is a cJSON object, printed by the same writer.
 *    Numbers are rounded (seconds to 6 decimals, ratios and shares to 4)
 *    and written in the one number form.
 *  - nothing is kept between calls: the caller owns the reader and options.
 */
#ifndef QE_DIFFREC_H
#define QE_DIFFREC_H

#include "qe_mem.h"
#include "qe_diff.h"
#include "qe_reader.h"

/* The writer of qe-cell-diff's records: the caller's, given to qe_diff_all() as its emitter. */
struct qe_diffrec {
	const struct qe_diff_opts *o;
	const struct qe_reader *r;
	const char *basename, *headname;	/* the inputs, as the summary names them */
	struct qe_buf cells;	/* the cell-diff lines of the current document */
	struct qe_buf line;	/* its notebook-diff line */
	double scale;		/* what HEAD's durations are divided by (qe_diff_scale) */
	int reps, mem;		/* a replicate test was written; memory fields were */
};

/*
 * The emitter that writes each document's notebook-diff record, then its
 * cell-diff records, then the diff-summary naming basename and headname,
 * into w (zeroed here); release it with qe_diffrec_free().
 */
struct qe_diff_emit qe_diffrec_emitter(struct qe_diffrec *w, const struct qe_diff_opts *o,
    const struct qe_reader *r, const char *basename, const char *headname);

void qe_diffrec_free(struct qe_diffrec *w);

/*
 * Write every default of o's rules, and of the constants beside them
 * (qe_diff.h), as one JSON object on stdout: qe-cell-diff --defaults.
 */
void qe_diffrec_defaults(const struct qe_diff_opts *o);

#endif /* QE_DIFFREC_H */
