/*
 * qe_diff.h - the diff model of qe-cell-diff: which documents and cells are
 * compared, the runner factor, each cell's and each notebook's verdict and
 * flags, and the totals the summary is made of.
 *
 * Invariants:
 *  - the order is explicit in the API: the runner factor is estimated over
 *    every document first (qe_diff_runner_factor), each document is then
 *    judged with it (qe_diff_doc), and the totals are the sum of the
 *    per-document results (qe_diff_tally); nothing is kept between calls
 *    but what the caller passes.
 *  - the reader (qe_reader.h) owns the documents; a qe_nb_diff or
 *    qe_cell_diff points into them and lives no longer than the reader.
 *  - a struct qe_diff_totals is zero-initialised by the caller and released
 *    with qe_diff_totals_free().
 *  - verdicts, flags and answers are the words of qe_record.h (qe_vocab_*); no code
 *    depends on their order.
 */
#ifndef QE_DIFF_H
#define QE_DIFF_H

#include <stddef.h>

#include "qe_fidelity.h"
#include "qe_fingerprint.h"
#include "qe_prscope.h"

struct qe_fences;
#include "qe_reader.h"
#include "qe_verdict.h"
#include "qe_record.h"

struct qe_diff_opts {
	struct qe_rule cell;	/* -r, -a, --alpha, --rep-ratio, --rep-abs */
	struct qe_rule nb;	/* --nb-ratio, --nb-abs, --alpha; --rep-ratio, --rep-abs as the cells' */
	double exec_abs;	/* --exec-abs: the floor for execution_seconds */
	double factor_min_s;	/* cells shorter than this swing most: no part in the runner factor */
	int factor_min_cells;	/* cells the runner factor needs to be estimated at all */
	int adjust;		/* 1 -A: always remove the runner factor; -1 --no-adjust: never;
				 * 0 (default): in state machine-differs (qe_verdict_speed_scale) */
	double mem_abs, mem_ratio;	/* --mem-abs bytes, --mem-ratio: memory-growth */
	const struct qe_prscope *scope;	/* --changed, -i: NULL for none */
	const struct qe_fences *fences;	/* --fences: per-cell rules, NULL for none */
	double import_abs;	/* --import-abs: the floor of an unchanged import cell */
	double cell_timeout;	/* --cell-timeout: the per-cell limit in seconds, 0 unknown */
	double rtol, atol;	/* --rtol, --atol: numerical fidelity's tolerance (qe_fidelity.h) */
	double mem_share;	/* --mem-share percent of the runner's memory: memory-growth whatever
				 * the ratio; 0 for none */
	double runner_mem;	/* the runner's memory in bytes (head's provenance, else base's;
				 * qe_diff_runner_mem), 0 unknown: the share rule is off */
};

/* The defaults: see qe-cell-diff(1), THRESHOLDS, for the evidence. */
#define QE_DIFF_OPTS_DEFAULT { { 1.5, 0.5, 0.05, 1.2, 0.05, QE_DIFF_TIME_ABS }, { 1.5, 1.0, 0.05, 1.2, 0.05, 0 }, \
	3.5, 0.1, 3, 0, 134217728, 1.5, NULL, NULL, 2.0, 0, 1e-5, 1e-8, QE_DIFF_MEM_SHARE, 0 }

/*
 * The memory share rule's default: a peak growth of 10% of the runner's
 * memory (0.7 GB of a 7 GB GitHub runner) is memory-growth whatever its
 * ratio; a lecture that needs that much more is a tenth closer to the
 * kernel killed by the out-of-memory killer.
 */
#define QE_DIFF_MEM_SHARE 10.0

/* The runner's memory the share rule uses: head's provenance, else base's; 0 when neither says. */
double qe_diff_runner_mem(const struct qe_reader *r);

/* The long-cell bound: 60 s, 1/40 of the 2,400 s per-cell limit QuantEcon's books set. */
#define QE_DIFF_TIME_ABS 60.0
#define QE_DIFF_TIME_SHARE 40.0	/* --cell-timeout T without --time-abs: T / 40 */

/*
 * The runner factor (qe_verdict.h holds its rule): the geometric median of
 * head/base over the cells that measure compute, in the documents head
 * re-executed: present, unchanged (source, upstream, status), ok, timed by
 * comparable sources, at least factor_min_s long on both sides, and neither
 * an import cell nor a lecture's first cell (both pay the disk cache and
 * the kernel's start, not the machine's speed); with the spread of their
 * ratios and whether both sides ran on one runner class and CPU.
 */
struct qe_factor_facts qe_diff_runner_factor(const struct qe_diff_opts *o, const struct qe_reader *r,
    struct qe_doc *const *docs, size_t n);

/* The divisor of HEAD's durations: qe_verdict_speed_scale() with the options' -A / --no-adjust. */
double qe_diff_scale(const struct qe_diff_opts *o, const struct qe_factor_facts *rf);

/*
 * 1 when a cell's first line is an import ("import X", "from X import").
 * The import rule: such a cell, and a lecture's first cell (it carries the
 * kernel's warm-up), with source and upstream unchanged, is judged with
 * --import-abs as its absolute threshold (loading a package from disk
 * swings by seconds between two builds of one commit).
 */
int qe_diff_import_line(const char *first_line);

/* One aligned pair of cells, judged. */
struct qe_cell_diff {
	const struct qe_cell *b, *h;	/* NULL when absent on that side */
	unsigned flags;			/* QE_FLAG() bits */
	const char *reason;		/* or NULL */
	struct qe_judgement j;
	struct qe_judgement warm;	/* warm samples judged; verdict -1 when no side has any */
	double mem_b, mem_h;		/* median peak growth in bytes, NAN when none */
	int has_mem;			/* a side had peak growth samples */
	double rss_b, rss_h;		/* median resident set after the cell, NAN when none */
	double rss_step;		/* how much more head's resident set grew than base's across
					 * this cell (since the last cell both measured), NAN when unknown */
	int has_rss;			/* a side had rss samples */
	const char *warm_error;		/* the warm pass raised here (a side's first), or NULL */
	int raw_verdict, adj_verdict;	/* as measured, and after removing the runner factor (equal
					 * without one); j.verdict is qe_verdict_speed() of the two */
};

/*
 * One document, judged.
 *
 * The lecture rule (qe-cell-diff(1), Verdicts): a re-executed notebook
 * holding a regressed cell and no improved one is a "regression", one
 * holding an improved cell and no regressed one an "improvement" (rule
 * "cells"); otherwise, and when its cells cancel, the sum of its cell
 * times decides by the notebook thresholds (rule "sum"). Cells ignored
 * by label take no part; an ignored lecture keeps its cells' verdict. A notebook that failed in HEAD is "failed" when it failed
 * in BASE too, else "newly-failed", whatever its timings. With replicate
 * runs (two or more on each side) the lecture's total alone decides, by the
 * replicate rule and its test, so verdict and test answer are one answer;
 * warm: the same over the runs' warm_seconds (qe-replicate --warm).
 */
struct qe_nb_diff {
	const struct qe_doc *doc;
	int executed;		/* head re-executed it */
	const char *how;	/* "origin", "cache-key", or NULL (no head) */
	int notcomp;		/* fingerprints differ */
	int verdict;		/* QE_V_* */
	unsigned flags;
	const char *reason, *measure;	/* or NULL */
	int rule;		/* QE_R_* that decided a timed verdict, or -1 */
	int touched;		/* the pull request changed its source: 1, 0, or -1 unknown */
	long rule_cells[2];	/* regressed and improved cells the lecture rule counts (adjusted) */
	long raw_rule_cells[2];	/* ... as measured */
	struct qe_judgement j;	/* the measure, judged after removing the runner factor */
	struct qe_judgement warm;	/* verdict -1 when no side has warm_seconds */
	const char *warm_error;	/* a side's notebook warm_error, or NULL */
	double sum[2];		/* sums of the cell medians per side */
	double exec_med[2], cells_med[2];	/* the medians of the notebook records */
	long cells[QE_NVERDICTS];	/* its cells' verdicts */
	long cell_flags[QE_NFLAGS];	/* its cells' flags */
	long cell_regressions;		/* its cells' regressions that gate -e */
	struct qe_fidelity fid;		/* its captured values compared (owned: qe_fidelity_free) */
};

/* Called for each judged cell in document order, before the notebook is judged. */
typedef void (*qe_cell_diff_fn)(void *arg, const struct qe_nb_diff *nb, const struct qe_cell_diff *c);

/*
 * Judge document d of reader r with the runner factor rf (which
 * qe_diff_runner_factor() gave for all documents): its cells, each handed
 * to fn (which may be NULL), then the notebook, into *nb. When the factor
 * is removed, a cell or a notebook is judged as measured and adjusted, and
 * a verdict the two readings disagree on is inconclusive, flagged
 * machine-speed (qe_verdict_speed).
 */
void qe_diff_doc(const struct qe_diff_opts *o, const struct qe_reader *r, const struct qe_factor_facts *rf,
    const struct qe_doc *d, struct qe_nb_diff *nb, qe_cell_diff_fn fn, void *arg);

struct qe_diff_totals {
	long notebooks[QE_NVERDICTS], cells[QE_NVERDICTS];
	long nb_flags[QE_NFLAGS], cell_flags[QE_NFLAGS];
	long regressions;		/* those that gate -e (not not-comparable, changed-on-main, ignored) */
	struct qe_fp_seen seen[2];	/* fingerprints per side */
	struct qe_factdiffs facts;	/* facts that differ, when fingerprints do */
};

/* Add a judged document to the totals; r holds the fingerprints' facts. */
void qe_diff_tally(struct qe_diff_totals *t, const struct qe_reader *r, const struct qe_nb_diff *nb);

void qe_diff_totals_free(struct qe_diff_totals *t);

/*
 * What a whole diff hands its results to (xdiff's shape: the diff takes the
 * emitter, the emitter decides nothing): begin once with the runner factor,
 * each document's cells (cell) then the document (notebook), in the
 * reader's order, end once with the totals and the documents executed on a
 * side.
 */
struct qe_diff_emit {
	void *arg;
	void (*begin)(void *arg, const struct qe_factor_facts *rf);
	qe_cell_diff_fn cell;
	void (*notebook)(void *arg, const struct qe_nb_diff *nb);
	void (*end)(void *arg, const struct qe_factor_facts *rf, struct qe_diff_totals *t,
	    struct qe_doc *const *executed, size_t nexecuted);
};

/*
 * Judge every document of r (runner factor, each document, totals) and hand
 * each result to e. Returns the number of regressions that gate -e (those
 * not marked not-comparable, and one more for a broad slowdown: the speed
 * state broad-slowdown, which the totals handed to end already count).
 */
long qe_diff_all(const struct qe_diff_opts *o, const struct qe_reader *r, const struct qe_diff_emit *e);

/*
 * 1 when a HEAD cell of d starts with "import PKG" or "from PKG" (a '-' of
 * the package name read as '_'): the lectures a package change may affect,
 * as far as the records tell (they hold a cell's first line only).
 */
int qe_diff_imports(const struct qe_reader *r, const struct qe_doc *d, const char *pkg);

#endif /* QE_DIFF_H */
