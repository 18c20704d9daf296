/*
 * qe_histhtml.h - qe-history's report page: one static HTML file with
 * inline SVG (no script, no external resource, no network), drawn from the
 * history-* records of schema/history.json that the queries print.
 *
 * Sections, in order: the newest main build; small-multiple trend lines,
 * one per lecture with a step and one per cell with a step (history-point
 * records), each step (history-change) marked at its first build with its
 * ratio and commit and the medians of both sides drawn solid and labelled,
 * one-build outliers ringed, and the build-level steps (runner class
 * changes) as grey marks on every chart; the slowest lectures and cells
 * (history-slowest); every step change with its cause, then the outliers;
 * the environment changes (history-compare without --by): per change every
 * package that changed and the lectures and cells that moved, each a ratio
 * with its 95% interval on a log scale, a machine change said as one; the
 * scaling curves (history-sweep, qe_histsweep.h); the cost table
 * (history-cost, every stored build: main's, pull requests' and other
 * branches').  A section without records says so.
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
	cJSON *sweeps;		/* history-sweep, in the query's order */
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
 * lecture-level points with a step change, by the size of their largest
 * step; when none has one, the QE_HISTHTML_UNSTEPPED slowest; never a
 * lecture without a step beside stepped ones), at most max_charts: a new
 * array of strings the caller deletes.
 */
cJSON *qe_histhtml_lectures(const struct qe_histhtml *h);

/* Lectures charted when no lecture has a step (the slowest), cell charts at most. */
#define QE_HISTHTML_UNSTEPPED 3
#define QE_HISTHTML_CELL_CHARTS 12

/*
 * The cells the trend section charts after the lectures: every cell with a
 * step change (not a spike), the largest step first, at most
 * QE_HISTHTML_CELL_CHARTS: a new array of [document, cell key] pairs.
 */
cJSON *qe_histhtml_cells(const struct qe_histhtml *h);

/*
 * A "nice" upper bound of an axis from 0 to v (> 0): 1, 2, 2.5 or 5 times a
 * power of ten, at least v.
 */
double qe_histhtml_nice(double v);

void qe_histhtml_free(struct qe_histhtml *h);

#endif /* QE_HISTHTML_H */
