/*
 * qe_hquery.h - qe-history's queries over main's builds (qe-history(1)):
 * slowest and series (qe_hseries.c), changes (qe_hchanges.c), fences
 * (qe_hfences.c), compare (qe_hcompare.c), cost (qe_hcost.c) and sweeps
 * (qe_hsweeps.c).
 *
 * Invariants:
 *  - every query reads the database through qe_hload (main's builds, one
 *    document at a time) except cost, which sums every series by SQL, and
 *    sweeps, which lists the stored scaling curves of every build.
 *  - rows go out through qe_hout as they are decided, to standard output
 *    or to q->sink when it is set; the records are the history-* kinds of
 *    schema/history.json.
 *  - each returns QE_EXIT_OK, or QE_EXIT_TROUBLE after saying why.
 */
#ifndef QE_HQUERY_H
#define QE_HQUERY_H

#include <sqlite3.h>

/* Defaults, documented in qe-history(1). */
#define QE_HQ_TOP 20		/* slowest: rows per level */
#define QE_HQ_MINSEG 3		/* changes: builds a segment has at least */
#define QE_HQ_PENALTY 1.5	/* changes: penalty x noise^2 x log(n) per change */
#define QE_HQ_STEP_Z 2.0	/* changes: a step moves the median by Z x the series' build-to-build sigma, */
#define QE_HQ_STEP_SE 3.5	/* ... by this many standard errors of the difference of the medians */
#define QE_HQ_CELL_LEAST 0.01	/* ... and at least this many seconds for a cell */
#define QE_HQ_LECTURE_LEAST 0.05	/* ... or a lecture */
#define QE_HQ_DETECT_AFTER 10	/* fences: min_step_s for a step that lasted this many builds */
#define QE_HQ_UNEXPLAINED_Z 6.0	/* changes: a step nothing explains at its own build: its log medians this many standard errors apart */
#define QE_HQ_PLACE 16.0	/* compare: a step may be at a build whose split costs this x sigma_log^2 more ... */
#define QE_HQ_PLACE_Z 4.0	/* ... and whose builds passed lie this x sigma_log from the level they would join */
#define QE_HQ_NEAR 2		/* changes: an unexplained step notes a provenance change up to this many builds away */
#define QE_HQ_SPIKE_Z 6.0	/* changes: a one-build outlier is Z noise from its neighbours ... */
#define QE_HQ_SPIKE_RATIO 1.5	/* ... and this ratio at least, */
#define QE_HQ_SPIKE_ABS 0.05	/* ... and this many seconds and the step floor */
#define QE_HQ_MIN_RATIO 1.1	/* changes, compare: the smallest step, as a ratio */
#define QE_HQ_ALPHA 0.001	/* changes: a step's Mann-Whitney p is below it */
#define QE_HQ_NOISE_FLOOR 0.02	/* the least noise assumed (log scale) */
#define QE_HQ_FENCE_K 20	/* fences: the last K builds */
#define QE_HQ_FENCE_MIN 5	/* fences: builds a fence needs */
#define QE_HQ_FENCE_Z 3.5	/* fences: ratio = exp(Z x noise) ... */
#define QE_HQ_FENCE_LO 1.15	/* ... clamped to [LO, HI] */
#define QE_HQ_FENCE_HI 4.0
#define QE_HQ_FENCE_ABS 0.1	/* fences: the least absolute floor */
#define QE_HQ_WINDOW 10		/* compare: builds before a change at most (and a runner factor's sides) */
#define QE_HQ_WINDOW_AFTER 20	/* compare: builds from a change at most */
#define QE_HQ_COMPARE_MIN 5	/* compare: builds on each side for a verdict */
#define QE_HQ_COMPARE_SE 3.0	/* compare: a move is this many standard errors of the noise */
#define QE_HQ_COMPARE_FDR 0.05	/* compare: false discovery rate over one change's series */

struct qe_hsink;

struct qe_hq {
	sqlite3 *db;
	const char *path;	/* the database, for messages */
	int md;			/* --format md */
	long top;		/* slowest -n */
	const char *doc, *cell;	/* series, sweeps */
	long minseg;		/* changes -m */
	double penalty;		/* changes --penalty */
	long k;			/* fences -k */
	const char *out;	/* fences -o */
	int by;			/* compare: QE_BY_*, or -1 (every environment change) */
	int all;		/* compare --all: every row, not only those that moved */
	const char *package;	/* compare --by PACKAGE */
	const char *prices;	/* cost --prices */
	const struct qe_hsink *sink;	/* NULL: rows to standard output (qe_hout.h) */
};

/*
 * The build-to-build sigma of durations v[0..n): the larger of 1.4826 x
 * the MAD of consecutive differences and their root mean square, each
 * clipped to 3 such MADs (robust to a step and a spike), over sqrt 2; 0
 * for n < 3.
 */
double qe_hq_sigma(const double *v, int n);

/*
 * The least move of the medians, in seconds, that changes takes for a step
 * between segments of nb and na builds of a series of that sigma: the
 * largest of least, QE_HQ_STEP_Z x sigma and QE_HQ_STEP_SE x the standard
 * error of the difference of two medians (1.2533 x sigma x sqrt(1/nb +
 * 1/na)).
 */
double qe_hq_step_need(double sigma, double least, int nb, int na);

/*
 * The least move of the log medians for a step nothing explains at its
 * own build, between segments of nb and na builds of a series whose logs
 * have build-to-build sigma sigma_log: QE_HQ_UNEXPLAINED_Z standard
 * errors of the difference of the two medians.
 */
double qe_hq_unexplained_need(double sigma_log, int nb, int na);

/* The smallest step ratio (up) changes reports on a series of median m with floor f. */
double qe_hq_step_ratio(double m, double f);

/*
 * One run of a series (one runner class's builds) to segment, and what
 * qe_hq_steps says of it. The caller owns every array (n entries each).
 */
struct qe_hq_run {
	const double *v;	/* durations, seconds */
	int n;
	int minseg;		/* builds a segment has at least */
	double penalty;		/* x noise^2 x log(n) per change */
	double least;		/* a step's least move in seconds (the level's) */
	int (*explained)(void *ctx, int a, int b);	/* a cause between points a and b? NULL: never */
	void *ctx;
	double *y, *ys;		/* scratch: the floored logs, clipped */
	int *cps;		/* out: each step's first point, ascending (n / minseg entries) */
	int *lo, *hi;		/* out, when not NULL: the points each step may be at (qe_hq_steps) */
	double noise, sigma, sigma_log;	/* out: log noise, build-to-build sigma of seconds, of logs */
};

/*
 * The steps of r->v, the one rule changes and compare share (qe-history(1)
 * CHANGES): PELT on the floored logs (spikes clipped) proposes, each step
 * must separate its neighbouring segments (validate), and a step nothing
 * explains at its own point must be plain (qe_hq_unexplained_need). A
 * step stays where the data put it. Returns their number. With r->lo and
 * r->hi, also where else the data cannot rule it out: the first points
 * u around cps[j] (between its neighbours) whose split costs at most
 * QE_HQ_PLACE log variances more than cps[j]'s and whose points passed
 * lie within QE_HQ_PLACE_Z sigma_log of the level they would join,
 * [lo[j], hi[j]].
 */
int qe_hq_steps(struct qe_hq_run *r);

int qe_hq_slowest(const struct qe_hq *q);
int qe_hq_series(const struct qe_hq *q);
int qe_hq_changes(const struct qe_hq *q);
int qe_hq_fences(const struct qe_hq *q);
int qe_hq_compare(const struct qe_hq *q);
int qe_hq_cost(const struct qe_hq *q);
int qe_hq_sweeps(const struct qe_hq *q);

#endif /* QE_HQUERY_H */
