/* Unit driver for lib/diff/qe_verdict.c: the thresholds and the replicate rule. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "qe_record.h"
#include "diff/qe_verdict.h"

/*
 * "ratio abs alpha scale [rep_ratio rep_abs [time_abs]] | base samples | head samples":
 * the verdict, the
 * answer (- without a test), and the medians, ratio and p (%.6g).
 */
static void
judge(const char *in, size_t n, struct qe_buf *out)
{
	const char *b1 = strchr(in, '|'), *b2 = b1 ? strchr(b1 + 1, '|') : NULL;
	double r[7], bv[32], hv[32], rep[3] = { 0, 0, 0 };
	struct qe_rule rule;
	struct qe_judgement j;
	int nb, nh;

	(void)n;
	int k = unit_numbers(in, r, 7);

	if (b2 == NULL || (k != 4 && k != 6 && k != 7)) {
		qe_buf_adds(out, "bad case");
		return;
	}
	if (k >= 6)
		rep[0] = r[4], rep[1] = r[5];
	if (k == 7)
		rep[2] = r[6];
	nb = unit_numbers(b1 + 1, bv, 32);
	nh = unit_numbers(b2 + 1, hv, 32);
	rule = (struct qe_rule){ r[0], r[1], r[2], rep[0], rep[1], rep[2] };
	qe_verdict_judgement_init(&j, -1);
	qe_verdict_judge(&j, bv, nb, hv, nh, &rule, r[3]);
	qe_buf_addf(out, "%s %s b=%.6g h=%.6g ratio=%.6g p=%.6g", qe_vocab_name(&qe_vocab_verdicts, j.verdict),
	    j.answer < 0 ? "-" : qe_vocab_name(&qe_vocab_answers, j.answer), j.b, j.h, j.ratio, j.p);
}

/* Each verdict word: 1 if a cell can have it (qe_vocab_verdict_is_cell, lib/qe_record.c). */
static void
cell_verdicts(const char *in, size_t n, struct qe_buf *out)
{
	(void)in, (void)n;
	for (int v = 0; v < qe_vocab_verdicts.n; v++)
		qe_buf_addf(out, "%s%s=%d", v ? " " : "", qe_vocab_verdicts.names[v], qe_vocab_verdict_is_cell(v));
}

/* "a b": can timing sources a and b ("-" none) be compared (lib/qe_record.c)? */
static void
comparable(const char *in, size_t n, struct qe_buf *out)
{
	char a[32], b[32];

	(void)n;
	if (sscanf(in, "%31s %31s", a, b) != 2) {
		qe_buf_adds(out, "bad case");
		return;
	}
	qe_buf_addf(out, "%d", qe_vocab_timing_sources_comparable(qe_vocab_lookup(&qe_vocab_timing_sources, a),
	    qe_vocab_lookup(&qe_vocab_timing_sources, b)));
}

/*
 * "factor spread cells docs reps same_machine adjust" (factor "nan" for
 * none): the speed state and the divisor of HEAD's durations.
 */
static void
speed_state(const char *in, size_t n, struct qe_buf *out)
{
	double r[7];
	struct qe_factor_facts f;

	(void)n;
	if (unit_numbers(in, r, 7) != 7) {
		qe_buf_adds(out, "bad case");
		return;
	}
	f = (struct qe_factor_facts){ r[0], r[1], (int)r[2], (int)r[3], (int)r[4], (int)r[5], 0, 0 };
	qe_buf_addf(out, "%s scale=%.6g", qe_vocab_name(&qe_vocab_speeds, qe_verdict_speed_state(&f)),
	    qe_verdict_speed_scale(&f, (int)r[6]));
}

/* "raw adj" (verdict words): the verdict when the runner factor is removed, and the machine-speed flag. */
static void
speed(const char *in, size_t n, struct qe_buf *out)
{
	char a[32], b[32];
	int raw, adj, flag, v;

	(void)n;
	if (sscanf(in, "%31s %31s", a, b) != 2 || (raw = qe_vocab_lookup(&qe_vocab_verdicts, a)) < 0 ||
	    (adj = qe_vocab_lookup(&qe_vocab_verdicts, b)) < 0) {
		qe_buf_adds(out, "bad case");
		return;
	}
	v = qe_verdict_speed(raw, adj, &flag);
	qe_buf_addf(out, "%s%s", qe_vocab_name(&qe_vocab_verdicts, v), flag ? " machine-speed" : "");
}

static const struct unit_fn fns[] = {
	{ "judge", judge },
	{ "speed-state", speed_state },
	{ "speed", speed },
	{ "cell-verdicts", cell_verdicts },
	{ "comparable", comparable },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
