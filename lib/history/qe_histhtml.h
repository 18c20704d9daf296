/*
 * qe_histhtml.h - qe-history's report page: one static HTML file with
 * inline SVG (no script, no external resource, no network), drawn from the
 * history-* records of schema/history.json that the queries print.
 *
 * Sections, in order: the newest main build; small-multiple trend lines,
 * one per lecture (lecture-level history-point records), with each step
 * change (history-change) marked at its first build and labelled with its
 * ratio and commit, and the build-level steps (runner class changes) as
 * grey marks on every chart; the slowest lectures and cells
 * (history-slowest); every step change; the environment-upgrade comparison
 * (history-compare, a ratio with its 95% interval on a log scale); the cost
 * table (history-cost).  A section without records says so.
 *
 * Invariants:
 *  - every string from the records is untrusted and reaches the page only
 *    through qe_html_text() (lib/history/qe_html.c), numbers only through printf
 *    formats; the page is well-formed UTF-8.
 *  - struct qe_histhtml owns the records given to qe_histhtml_add() until
 *    qe_histhtml_free(); rendering does not change them.
 *  - the page depends only on the records (and their order where the
 *    queries define one): the same records give the same bytes.
 */
#ifndef QE_HISTHTML_H
#define QE_HISTHTML_H

#include <cjson/cJSON.h>

struct qe_buf;

struct qe_histhtml {
	cJSON *slowest;		/* history-slowest, as the query ordered them */
	cJSON *points;		/* history-point, any lectures, any order */
	cJSON *changes;		/* history-change */
	cJSON *compare;		/* history-compare */
	cJSON *cost;		/* history-cost */
	int max_charts;		/* trend charts at most (0: 24) */
};

/* An empty page's inputs (the caller owns the struct). */
void qe_histhtml_init(struct qe_histhtml *h);

/*
 * Keep rec (taking ownership) in the list its kind belongs to. Returns 0, or
 * -1 for a record of another kind (rec is then freed).
 */
int qe_histhtml_add(struct qe_histhtml *h, cJSON *rec);

/* Append the whole page to out. */
void qe_histhtml_write(const struct qe_histhtml *h, struct qe_buf *out);

/*
 * The lectures the trend section draws, in its order (documents of the
 * lecture-level points: those with a step change first, by the size of
 * their largest step, then by rank in the slowest lectures, then by name),
 * at most max_charts: a new array of strings the caller deletes.
 */
cJSON *qe_histhtml_lectures(const struct qe_histhtml *h);

/*
 * A "nice" upper bound of an axis from 0 to v (> 0): 1, 2, 2.5 or 5 times a
 * power of ten, at least v.
 */
double qe_histhtml_nice(double v);

void qe_histhtml_free(struct qe_histhtml *h);

#endif /* QE_HISTHTML_H */
