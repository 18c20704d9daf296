/*
 * diff/diff.h - the public header of qe-cell-diff's folder: a baseline's
 * and a preview's records read into two sides, aligned, judged, and written
 * as notebook-diff, cell-diff and diff-summary records.
 *
 * Invariants:
 *  - cmd/qe-cell-diff.c includes this header and lib/'s foundation only;
 *    the folder's other headers are its modules' own, for this folder's
 *    files and their unit tests.
 *  - nothing here includes another tool folder's header (a fences file is
 *    read here, from qe-history's output, as records: no history code).
 *  - the order of the work is the API's: read both sides (qe_reader.h,
 *    user expressions through qe_jqx.h), scope them (qe_prscope.h), judge
 *    (qe_diff.h, rules in qe_verdict.h and qe_fences.h), write
 *    (qe_diffrec.h).
 */
#ifndef QE_DIFF_DIFF_H
#define QE_DIFF_DIFF_H

#include "qe_diff.h"
#include "qe_diffrec.h"
#include "qe_fences.h"
#include "qe_jqx.h"
#include "qe_prscope.h"
#include "qe_reader.h"

#endif /* QE_DIFF_DIFF_H */
