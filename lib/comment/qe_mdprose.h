/*
 * qe_mdprose.h - the sentences of the diff comment: the headline a reviewer
 * reads first, the warning and note callouts, the list of lectures not
 * re-executed, the footer (thresholds, runner, links to the run) and the
 * summary's "Compared" section.
 *
 * Invariants and ownership:
 *  - every function appends GitHub-flavoured Markdown to a caller-owned
 *    struct qe_buf, reading a built struct qe_review (and its set) only.
 *    Strings from the build go through qe_gfm_text()/qe_gfm_code() capped,
 *    and lists of lectures or cells are capped, so each piece is short
 *    whatever the input; the renderer decides whether it fits.
 *  - the only links written are to the run's own commit and run page, from
 *    the checked values of a struct qe_ghrun.
 */
#ifndef QE_MDPROSE_H
#define QE_MDPROSE_H

#include "qe_ghrun.h"
#include "qe_review.h"

struct qe_buf;

/* One line: the colour mark and the counts that matter, ending in '\n'. */
void qe_mdprose_headline(struct qe_buf *b, const struct qe_review *r);

/*
 * The [!WARNING] callout (machines differ, failures, runner speed,
 * `input_trouble`: lines of the input were rejected) and the [!NOTE]
 * callout (no summary, whole-notebook timings, cells without timing);
 * nothing when there is nothing to say.
 */
void qe_mdprose_warnings(struct qe_buf *b, const struct qe_review *r, int input_trouble);

/* "\nN lectures were not re-executed (cache reused): a, b and N more.\n" */
void qe_mdprose_cached(struct qe_buf *b, const struct qe_review *r, long max);

/*
 * The footer line: thresholds, runner factor, machines, head and run links.
 * machine: the one machine every run of the report ran on, as Markdown
 * (qe_evalmd_machine), named there once; NULL: the summary's "machines".
 */
void qe_mdprose_footer(struct qe_buf *b, const struct qe_review *r, const struct qe_ghrun *run, const char *machine);

/* The job summary's "Compared" section; nothing without a diff summary. */
void qe_mdprose_sources(struct qe_buf *b, const struct qe_review *r);

#endif /* QE_MDPROSE_H */
