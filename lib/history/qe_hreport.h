/*
 * qe_hreport.h - qe-history report: the queries' rows gathered into the
 * page (qe_histhtml.h, written as DIR/index.html) or into the Markdown
 * trend table (qe_histmd.h) of a job summary or a pull-request comment.
 *
 * The rows are the queries' own (qe_hquery.h) as they print them: each
 * query runs with a record sink (qe_hout.h) that takes its rows, each
 * printed and read back, so the page shows exactly what `qe-history
 * slowest`, `series`, `changes`, `compare` and `cost` print, and standard
 * output is never redirected.
 *
 * What the page holds: slowest (every lecture of the newest main build;
 * the tables show the first QE_HQ_TOP of each level), the series of every
 * lecture of the newest build and of every lecture with a step, every step
 * change, the comparison across each package a step's provenance names
 * (else across the environment files' digest), the cost with the default
 * prices.
 *
 * Invariants: the queries write nothing to standard output here (their
 * rows go to the sink); they read the database q->db (read-only); nothing
 * here keeps state between calls.
 */
#ifndef QE_HREPORT_H
#define QE_HREPORT_H

struct qe_hq;

/*
 * Write DIR/index.html (DIR created when missing). Returns QE_EXIT_OK, or
 * QE_EXIT_TROUBLE after saying why.
 */
int qe_hreport_html(const struct qe_hq *q, const char *dir);

/*
 * Write the Markdown trend table to standard output: for the lectures a
 * qe-cell-diff output (diff, when not NULL) flags as slower or faster,
 * else for the ten lectures the page would chart first. Returns
 * QE_EXIT_OK, or QE_EXIT_TROUBLE after saying why.
 */
int qe_hreport_md(const struct qe_hq *q, const char *diff);

#endif /* QE_HREPORT_H */
