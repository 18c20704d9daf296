/*
 * qe_verdict.h - judging head samples against base samples: the ratio and
 * absolute thresholds, and the replicate rule.
 *
 * Invariants:
 *  - a change is a regression (improvement) only when head is at least
 *    `ratio` times base AND at least `abs` seconds slower (base at least
 *    ratio times head AND abs seconds faster), or, whatever the ratio, when
 *    head is at least `time_abs` seconds slower (faster) and time_abs > 0:
 *    the long-cell rule, as a change of a minute matters on a cell of any
 *    length; anything else is unchanged.
 *  - with at least two samples on both sides the replicate rule applies:
 *    the thresholds are rep_ratio and rep_abs (when rep_ratio is 0, ratio
 *    and abs as at n=1), and the Mann-Whitney test decides as well: a
 *    change past the thresholds needs p < alpha, otherwise it is
 *    inconclusive, and the answer is set. With fewer, the medians decide
 *    alone and there is no answer.
 *  - samples arrive in run order: the i-th of each side is replicate i, so
 *    with a test the spread (lo, hi) is over the pairs of replicate i.
 *  - the caller owns the sample arrays; qe_verdict_judge() sorts both and divides
 *    the head samples by `scale` (the runner factor, 1 for none).
 *  - verdicts and answers are the words of qe_record.h (qe_vocab_*).
 */
#ifndef QE_VERDICT_H
#define QE_VERDICT_H

struct qe_rule {
	double ratio;	/* >= 1 */
	double abs;	/* seconds, >= 0 */
	double alpha;	/* the test's level, 0 < alpha < 1 */
	double rep_ratio;	/* replicates: >= 1, or 0 for ratio and abs */
	double rep_abs;		/* replicates: seconds, >= 0 */
	double time_abs;	/* the long-cell bound: seconds, 0 for none */
};

struct qe_judgement {
	int verdict;		/* QE_V_* */
	double b, h;		/* medians as measured; NAN when none */
	double ratio, delta;	/* head (scaled) / base and head - base */
	double p;		/* the test's p, NAN without a test */
	int nb, nh;		/* sample counts */
	int answer;		/* QE_A_*, or -1 without a test */
	double lo, hi;		/* the spread: least and greatest head/base of runs paired by
				 * replicate number (the i-th sample of each side); NAN without a test */
};

/* A judgement with no numbers (NAN), no samples and no answer; verdict v. */
void qe_verdict_judgement_init(struct qe_judgement *j, int v);

/* Judge hv[0..nh) against bv[0..nb) (nb, nh >= 1) by `rule`, into *j. */
void qe_verdict_judge(struct qe_judgement *j, double *bv, int nb, double *hv, int nh,
    const struct qe_rule *rule, double scale);

/*
 * The runner factor's rule (qe-cell-diff(1), Machines, packages and the
 * runner factor): what the factor of the unchanged compute cells says of
 * the two builds' machine speed, and what it may do to a verdict.
 */

/* The band inside which the factor is the runner's noise: x0.8 .. x1.25 (A/A p99 x1.24). */
#define QE_VERDICT_FACTOR_BAND 1.25
/* It speaks for the machine only from this many compute cells in this many lectures... */
#define QE_VERDICT_FACTOR_CELLS 8
#define QE_VERDICT_FACTOR_DOCS 2
/*
 * ... whose ratios agree: their median absolute deviation from the factor,
 * in log ratio, at most log(QE_VERDICT_FACTOR_SPREAD). Measured on the
 * project's real pairs (tests/fixtures/qe-cell-diff/factor-*): see the page.
 */
#define QE_VERDICT_FACTOR_SPREAD 1.25

struct qe_factor_facts {
	double factor;	/* exp(median log(head/base)) of the compute cells; NAN when too few */
	double spread;	/* exp(median |log ratio - log factor|); NAN without a factor */
	int cells, docs;	/* the compute cells and the lectures they are in */
	int reps;	/* ... cells with replicates on both sides (one runner, interleaved) */
	int same_machine;	/* both sides stamped, the same runner class and CPU (every fact but packages) */
	int moved, moved_docs;	/* the cells beyond the band in the factor's direction, and their lectures */
};

/*
 * The speed state (qe_vocab_speeds): none without a factor; replicates when
 * its cells are replicate runs; steady inside the band; few from fewer than
 * QE_VERDICT_FACTOR_CELLS cells or QE_VERDICT_FACTOR_DOCS lectures; on the
 * same runner class and CPU broad-slowdown or broad-speedup (the code, not
 * the machine: nothing is removed, so the cells need not agree); mixed when
 * they disagree (spread beyond QE_VERDICT_FACTOR_SPREAD); else
 * machine-differs.
 */
int qe_verdict_speed_state(const struct qe_factor_facts *f);

/*
 * What HEAD's durations are divided by: the factor with -A (adjust 1), 1
 * with --no-adjust (-1) or without a factor, by default (0) the factor
 * only in state machine-differs.
 */
double qe_verdict_speed_scale(const struct qe_factor_facts *f, int adjust);

/*
 * A verdict when the factor is removed: raw, as measured, and adj, after
 * dividing by it. The factor never decides a verdict by itself: when the
 * two differ the verdict is inconclusive ("machine speed differs"), and
 * *speed is set to 1; else it is theirs and *speed 0.
 */
int qe_verdict_speed(int raw, int adj, int *speed);

#endif /* QE_VERDICT_H */
