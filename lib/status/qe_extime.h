/*
 * qe_extime.h - the printed forms of a measured duration, as the {exec-time}
 * roles show it (the Sphinx extension and the mystmd plugin print these
 * strings, made here and nowhere else): human "2 min 10 s", seconds
 * "130.42 s", rounded "2 min", share "23 %".  The prose forms differ on
 * purpose from qe-comment's table form "2m 05s" (qe_gfm_dur): they are read
 * in sentences.
 *
 * Invariants:
 *  - number and unit are joined by U+00A0 (a no-break space: they never wrap
 *    apart), so are the parts of "2 min 10 s"; a share's "%" follows one
 *    too in the si style, nothing in the en style ("54%").
 *  - rounding (docs/exec-time.md, "The {exec-time} role"): human is within
 *    0.005 s below 10 s, 0.05 s below 60 s, 0.5 s below an hour, 30 s above;
 *    seconds to its digits; rounded within 0.05 s below 1 s, 0.5 s below a
 *    minute, 30 s above.  Decimal places are printf's (the binary value
 *    correctly rounded), whole seconds and minutes round half up.
 *  - each function appends to `b` and never fails; durations are the
 *    records' (finite, not negative); a negative one prints as "< 0.01 s".
 */
#ifndef QE_EXTIME_H
#define QE_EXTIME_H

#include "qe_mem.h"

/* The styles: what goes before "%" (si: a no-break space, en: nothing). */
enum { QE_EXTIME_SI, QE_EXTIME_EN };

/* The default digits of the seconds form, and the most accepted. */
#define QE_EXTIME_DIGITS 2
#define QE_EXTIME_DIGITS_MAX 9

/* A style's name ("si", "en") as its number, or -1. */
int qe_extime_style(const char *name);

/* The style names, ", "-separated ("en, si"), for messages. */
const char *qe_extime_styles(void);

/* "0.30 s", "12.3 s", "2 min 10 s", "1 h 5 min", "< 0.01 s". */
void qe_extime_human(struct qe_buf *b, double d);

/* d to `digits` decimals: "130.42 s". */
void qe_extime_seconds(struct qe_buf *b, double d, int digits);

/* A round figure: "< 0.1 s", "0.3 s", "5 s", "2 min", "1 h 5 min". */
void qe_extime_rounded(struct qe_buf *b, double d);

/* d as a whole percentage of total (> 0): "23 %", "< 1 %" ("23%" en). */
void qe_extime_share(struct qe_buf *b, double d, double total, int style);

#endif /* QE_EXTIME_H */
