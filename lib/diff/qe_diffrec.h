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

#include "qe_diff.h"
#include "qe_reader.h"

/*
 * Judge every document of r (qe_diff.h, in that order: runner factor, each
 * document, totals) and write its records, then the summary naming the
 * inputs basename and headname. Returns the number of regressions that
 * gate -e (those not marked not-comparable).
 */
long qe_diffrec_write(const struct qe_diff_opts *o, const struct qe_reader *r, const char *basename,
    const char *headname);

/*
 * Write every default of o's rules, and of the constants beside them
 * (qe_diff.h), as one JSON object on stdout: qe-cell-diff --defaults.
 */
void qe_diffrec_defaults(const struct qe_diff_opts *o);

#endif /* QE_DIFFREC_H */
