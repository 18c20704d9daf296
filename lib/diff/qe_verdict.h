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

#endif /* QE_VERDICT_H */
