/*
 * qe_diffrec.h - the records qe-cell-diff writes (schema/diff.json): per
 * document a notebook-diff record followed by its cell-diff records, in
 * document name order, and one diff-summary record last.
 *
 * Invariants:
 *  - records go to stdout through qe_emit (one compact line each); a write
 *    error ends the program there, as everywhere.
 *  - cell-diff lines are written by the hand writer (qe_jw.h): a million of
 *    them must print fast. Notebook-diff lines too (tens of thousands), in
 *    the bytes cJSON printed for them when they were cJSON objects
 *    (qe_jw_numfmt, qe_jw_rounded); the one diff-summary record is a cJSON
 *    object. Numbers are rounded: seconds to 6 decimals, ratios and shares
 *    to 4.
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
long qe_diff_write(const struct qe_diff_opts *o, const struct qe_reader *r, const char *basename,
    const char *headname);

#endif /* QE_DIFFREC_H */
