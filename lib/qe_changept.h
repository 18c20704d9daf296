/*
 * qe_changept.h - change points in a series: PELT (Killick, Fearnhead and
 * Eckley 2012) for changes in mean under a squared-error cost, with a
 * minimum segment length, and the median-of-three smoother that keeps a
 * one-off spike from looking like a segment.
 *
 * Invariants:
 *  - exact and deterministic: the segmentation minimising the sum of
 *    segment costs + pen per segment, every segment at least minseg long;
 *    ties go to the earliest change.
 *  - pure: inputs are not modified; the caller owns every array.
 */
#ifndef QE_CHANGEPT_H
#define QE_CHANGEPT_H

/*
 * The change points of y[0..n): cps[0..ret) are the first positions of the
 * segments after the first, ascending (cps needs n / minseg entries).
 * minseg >= 1, pen >= 0. Returns their number (0 when n < 2 x minseg).
 */
int qe_pelt(const double *y, int n, int minseg, double pen, int *cps);

/*
 * out[i] = median of x[i-1], x[i], x[i+1] (the ends keep their value): a
 * single outlier disappears, a step stays where it is.
 */
void qe_med3(const double *x, int n, double *out);

#endif /* QE_CHANGEPT_H */
