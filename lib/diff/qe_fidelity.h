/*
 * qe_fidelity.h - numerical fidelity: are two versions' results the same
 * numbers? The rule over the "values" qe-replicate --compare captured in
 * each kernel (schema/notebook.json): per variable, elementwise
 * |head - base| <= atol + rtol * |base| (NumPy's isclose, NaN equal to
 * NaN), shape and dtype changes, and float64 -> float32 (or any narrower
 * floating type) named precision loss even when every value is within the
 * tolerance.
 *
 * Invariants:
 *  - pure: reads the two sides' "values" arrays (borrowed, either may be
 *    NULL: then nothing is compared and present is 0) into a struct
 *    qe_fidelity the caller zero-initialises and releases with
 *    qe_fidelity_free(); the names and shapes it holds are its own.
 *  - the verdicts and answers are qe_vocab's (qe_vocab_fidelity,
 *    qe_vocab_fidelity_answers); a variable one side lacks is "missing"
 *    and makes the answer "differ"; one neither side has is "not-compared"
 *    and decides nothing.
 *  - values too large to be written down (their "values" null) are equal
 *    by digest, or compared by their summaries (min, max, mean), with the
 *    same rule: "compared" says which.
 */
#ifndef QE_FIDELITY_H
#define QE_FIDELITY_H

#include <cjson/cJSON.h>

#include "qe_mem.h"

struct qe_fid_value {
	char *name;
	int verdict;			/* QE_FV_* */
	const char *compared;		/* "values", "summary", "digest", or NULL */
	double max_abs, max_rel;	/* NAN when not compared by value */
	char *dtype[2];			/* base's, head's; NULL when none */
	char *shape[2];			/* "[3, 4]", "[]" for a scalar; NULL when none */
	int dtype_changed, precision_loss;
};

struct qe_fidelity {
	int present;			/* both sides captured values */
	int answer;			/* QE_FA_* */
	double rtol, atol;
	int vary;			/* a side's replicates disagreed among themselves */
	struct qe_fid_value *v;
	int n;
};

/* Compare base's values with head's by rtol, atol into *f. */
void qe_fidelity_compare(const cJSON *base, const cJSON *head, double rtol, double atol, struct qe_fidelity *f);

/* The member ',"fidelity":{...}' of a notebook-diff, null when not present. */
void qe_fidelity_write(struct qe_buf *b, const struct qe_fidelity *f);

void qe_fidelity_free(struct qe_fidelity *f);

#endif /* QE_FIDELITY_H */
