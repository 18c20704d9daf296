/*
 * qe_changept.h - change points in a series: PELT (Killick, Fearnhead and
 * Eckley 2012) for changes in mean under a squared-error cost, with a
 * minimum segment length, and the clipping that keeps a one-off spike
 * from moving a segment's boundary.
 *
 * Invariants:
 *  - exact and deterministic: the segmentation minimising the sum of
 *    segment costs + pen per segment, every segment at least minseg long;
 *    ties go to the earliest change.
 *  - pure: inputs are not modified; the caller owns every array.
 *  - near-linear in n on series with few changes too: candidates are
 *    pruned by PELT's inequality and by the envelope of their costs as
 *    functions of the last mean (functional pruning, FPOP), which gives
 *    up only candidates clearly beaten (the same segmentation).
 */
#ifndef QE_CHANGEPT_H
#define QE_CHANGEPT_H

/*
 * The change points of y[0..n): cps[0..ret) are the first positions of the
 * segments after the first, ascending (cps needs n / minseg entries).
 * minseg >= 1, pen >= 0. Returns their number (0 when n < 2 x minseg).
 */
int qe_changept_pelt(const double *y, int n, int minseg, double pen, int *cps);

/*
 * out[i] = x[i] clipped to m[i] +- k, m[i] the median of the five values
 * x[i-2..i+2] (fewer at the ends: the window is cut, not shifted). A single
 * outlier is pulled back to its neighbours; every other value, and so the
 * place of a step, is left as it is.
 */
void qe_changept_clip5(const double *x, int n, double k, double *out);

#endif /* QE_CHANGEPT_H */
