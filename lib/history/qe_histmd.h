/*
 * qe_histmd.h - qe-history report --format md: the trend section of a job
 * summary or a pull-request comment, one Markdown table row per lecture
 * with a text sparkline of its recent main builds (drawn from the
 * history-point and history-change records qe_histhtml.h keeps).
 *
 * Invariants:
 *  - untrusted text (lecture names, commits) becomes Markdown only through
 *    lib/qe_gfm.c; the sparkline and numbers are our own characters.
 *  - the output depends only on the records and the arguments.
 */
#ifndef QE_HISTMD_H
#define QE_HISTMD_H

#include <stddef.h>

#include <cjson/cJSON.h>

struct qe_buf;
struct qe_histhtml;

/*
 * Append the sparkline of v[0..n): one of U+2581..U+2588 per value, scaled
 * from the smallest to the largest finite value (all equal: the lowest
 * bar), a middle dot (U+00B7) for a value that is not finite.
 */
void qe_histmd_spark(struct qe_buf *b, const double *v, size_t n);

/*
 * When rec is a notebook-diff or cell-diff record whose verdict is a
 * regression or an improvement, add its document to docs (an array of
 * strings, each once, in order of appearance). Returns 1 when added.
 */
int qe_histmd_flag(cJSON *docs, const cJSON *rec);

/*
 * Append the trend table of the lectures docs (strings; a lecture without
 * a series is left out) over their last `last` main builds: sparkline,
 * newest time, median, and the newest lecture-level step change. `flagged`
 * chooses the heading of a pull request's lectures. Nothing when no
 * lecture has a series. Returns the rows written.
 */
int qe_histmd_trends(struct qe_buf *b, const struct qe_histhtml *h, const cJSON *docs, size_t last,
    int flagged);

#endif /* QE_HISTMD_H */
