/*
 * qe_decide.h - the decision an evaluation report opens with, per lecture:
 * use the new version, keep the old one, or run more (how many more), the
 * constraint that bound it, then its evidence in a sentence; a line when
 * compiling is the cost at this size; and the single input that would flip
 * it (the size, from a sweep's crossover; the run count, from the runs'
 * spread; QuantEcon's 1 s floor).
 *
 * The rules, in order (qe-comment(1), DECISION):
 *   1. the new version fails: keep the old one, fix it;
 *   2. results differ (fidelity, or a cell's results under replicates):
 *      keep the old one, fix the values; never "use the new version";
 *   3. precision loss (a float dtype narrowed): keep the old one (float64)
 *      unless the new one is faster, and then only if that speed is worth
 *      the precision;
 *   4. speed as used, from the lecture total's replicate test (qe-cell-diff):
 *      faster: use the new version; slower or unchanged: keep the old one;
 *      unclear: run more, as many as the test needs (n + n runs reach
 *      p < alpha only when 2 / C(2n, n) < alpha: 3 + 3 never reach 0.05);
 *   5. without a test, the lecture total's sweep at the lecture's own size;
 *   6. with neither, run more: replicate runs.
 * One crossover decides: the lecture total's, never a cell's.
 *
 * Invariants: reads the sets only; every name reaches the Markdown through
 * qe_gfm; writes nothing for a report that is no evaluation (no replicate
 * test, no values compared, no sweep).
 */
#ifndef QE_DECIDE_H
#define QE_DECIDE_H

#include "qe_diffread.h"
#include "qe_evalmd.h"
#include "qe_mem.h"

/* The least two-sided p of an exact Mann-Whitney test of n1 + n2 runs without ties: 2 / C(n1 + n2, n1). */
double qe_decide_least_p(long n1, long n2);

/* The fewest runs of each version n such that n + n can reach p < alpha. */
long qe_decide_runs_needed(double alpha);

/* The decision lines of every evaluated lecture, appended to b; how many. */
long qe_decide_lines(struct qe_buf *b, const struct qe_diffset *d, const struct qe_evalset *e);

#endif /* QE_DECIDE_H */
