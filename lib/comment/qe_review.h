/*
 * qe_review.h - what a reviewer of a diff is shown first: the cells and
 * lectures in reading order, counts by verdict, the failures, and the
 * ranked "top" rows (slower, now failing, unclear, faster).
 *
 * Invariants and ownership:
 *  - qe_review_build() sorts the qe_diffset it is given in place (cells by
 *    document and position, lectures by document; ties in reading order)
 *    and fills each lecture's c0/nc/counts. The review points into the set:
 *    the set must outlive it and not change while it is used.
 *  - struct qe_review is owned by the caller (zero-initialised is not
 *    required: build sets every field); qe_review_free() releases the top
 *    rows and nothing of the set.
 *  - a lecture whose verdict none of its cells carries (no cell timings) is
 *    a top row of its own; every other top row is a cell.
 *  - the order of the top rows is total: rank, size of the change, then
 *    document and reading order, so the output never depends on qsort.
 */
#ifndef QE_REVIEW_H
#define QE_REVIEW_H

#include <stddef.h>

#include "qe_diffread.h"
#include "qe_record.h"

/* A row of the top table: a cell (c) or a whole lecture (n), the other NULL. */
struct qe_toprow {
	const struct qe_dcell *c;
	const struct qe_dnb *n;
	int rank;		/* 0 slower, 1 now failing, 2 unclear, 3 faster, 4 needs more memory */
	double key;		/* larger first within a rank */
};

struct qe_review {
	const struct qe_diffset *set;
	struct qe_toprow *tops;
	size_t ntops;
	long ccount[QE_NVERDICTS];	/* cells by verdict */
	long nbcount[QE_NVERDICTS];	/* lectures by verdict */
	/*
	 * Every lecture is counted in exactly one of n_executed, n_cached,
	 * n_failed, n_removed, n_main and n_ignored_nb (qe_review_nb_kind), so
	 * they add up to the lectures read. ccount, nbcount and the top rows
	 * leave out what is reported apart: lectures changed on main and
	 * ignored lectures and cells.
	 */
	long n_executed;	/* lectures re-executed in head and not failed */
	long n_cached;		/* lectures not re-executed (verdict cached) */
	long n_failed;		/* lectures failed in head */
	long n_failed_new;	/* ... and not in base (newly failing) */
	long n_removed;		/* lectures only in base */
	long n_main;		/* re-executed, not touched by the pull request */
	long n_ignored_nb;	/* lectures ignored (-i) */
	long n_apart_cells;	/* cells of lectures changed on main, or ignored */
	long n_ignored_cells;	/* ... of which ignored */
	long n_ignored_label;	/* ... of which by label (in lectures not ignored whole) */
	long n_nocode;		/* re-executed lectures without code cells */
	long n_fixed_nb;	/* lectures failed in base, ok in head */
	long n_whole;		/* re-executed lectures timed as a whole */
	long n_now_failing;	/* cells that raise an error in head only */
	long n_fixed_cells;	/* cells that raised an error in base only */
	long n_notcomp_cells;	/* cells flagged not-comparable */
	long n_output_quiet;	/* cells whose output changed with no code change (qe_review_output_unexplained) */
	long nb_only_regressions, nb_only_improvements;	/* lecture-only top rows */
	long n_differ;		/* cells whose results differ (qe_review_results_differ) */
	long n_compile;		/* cells flagged compile-time-regression */
	long n_memory;		/* cells flagged memory-growth */
	long n_warm_raised;	/* lectures whose warm pass raised */
	long rep_b, rep_h;	/* the most replicate runs of a test, 0 for none */
};

/* Sort `d` and count it into r (see above). */
void qe_review_build(struct qe_review *r, struct qe_diffset *d);

void qe_review_free(struct qe_review *r);

/* 1 when the cell raises an error in head and did not in base. */
int qe_review_now_failing(const struct qe_dcell *c);

/*
 * 1 when the cell's results differ between the versions, so its timings
 * compare different computations: its output changed in replicate runs
 * (each version's result digest, the same in each of its runs), or, in a
 * single-run screen, on a cell whose source did not change but an earlier
 * cell's did (a source and upstream both unchanged is noise: an unseeded draw).
 */
int qe_review_results_differ(const struct qe_dcell *c);

/* 1 when the cell raised an error in base and ran without one in head. */
int qe_review_fixed(const struct qe_dcell *c);

/*
 * 1 when the cell's output changed while its source and every cell before
 * it did not (an unseeded random draw, a clock): no code explains it, so it
 * is told quietly (a count, the list of all cells), never beside a verdict.
 */
int qe_review_output_unexplained(const struct qe_dcell *c);

/* 1 when the lecture failed in head; 2 when it failed in base too; else 0. */
int qe_review_nb_failed(const struct qe_dnb *n);

/* The one count of struct qe_review a lecture falls in. */
enum qe_nb_kind { QE_K_EXECUTED, QE_K_CACHED, QE_K_FAILED, QE_K_REMOVED, QE_K_MAIN, QE_K_IGNORED };
enum qe_nb_kind qe_review_nb_kind(const struct qe_dnb *n);

/* 1 for flags that put a row apart from the headline: changed-on-main, ignored. */
int qe_review_apart(unsigned flags);

#endif /* QE_REVIEW_H */
