/* The verdict rules (qe_verdict.h). */
#include <math.h>

#include "qe_record.h"
#include "qe_stats.h"
#include "qe_verdict.h"

void
qe_verdict_judgement_init(struct qe_judgement *j, int v)
{
	*j = (struct qe_judgement){ .verdict = v, .b = NAN, .h = NAN, .ratio = NAN, .delta = NAN,
		.p = NAN, .answer = -1, .lo = NAN, .hi = NAN };
}

/* The replicate rule: the direction must also pass the test. */
static void
replicate_rule(struct qe_judgement *j, int up, int down, double alpha)
{
	if (up && j->p < alpha)
		j->verdict = QE_V_REGRESSION, j->answer = QE_A_REGRESSED;
	else if (down && j->p < alpha)
		j->verdict = QE_V_IMPROVEMENT, j->answer = QE_A_IMPROVED;
	else if (!up && !down)
		j->verdict = QE_V_UNCHANGED, j->answer = QE_A_SAME;
	else
		j->verdict = QE_V_INCONCLUSIVE, j->answer = QE_A_INCONCLUSIVE;
}

/* The least and greatest hv[i] / bv[i] (scaled), before the samples are sorted. */
static void
spread(struct qe_judgement *j, const double *bv, int nb, const double *hv, int nh, double scale)
{
	j->lo = j->hi = NAN;
	for (int i = 0; i < nb && i < nh; i++) {
		double r;

		if (!(bv[i] > 0))
			continue;
		r = hv[i] / scale / bv[i];
		if (isnan(j->lo) || r < j->lo)
			j->lo = r;
		if (isnan(j->hi) || r > j->hi)
			j->hi = r;
	}
}

void
qe_verdict_judge(struct qe_judgement *j, double *bv, int nb, double *hv, int nh,
    const struct qe_rule *rule, double scale)
{
	double h, ratio = rule->ratio, abs = rule->abs;
	int up, down, reps = nb >= 2 && nh >= 2;

	j->nb = nb;
	j->nh = nh;
	j->p = NAN;
	j->answer = -1;
	j->lo = j->hi = NAN;
	if (reps)
		spread(j, bv, nb, hv, nh, scale);
	j->b = qe_stats_median(bv, nb);
	j->h = qe_stats_median(hv, nh);	/* as measured */
	for (int i = 0; i < nh; i++)
		hv[i] /= scale;
	h = j->h / scale;	/* judged after removing the runner factor */
	j->delta = h - j->b;
	j->ratio = j->b > 0 ? h / j->b : h > 0 ? INFINITY : 1;
	if (reps && rule->rep_ratio > 0)
		ratio = rule->rep_ratio, abs = rule->rep_abs;
	up = (h >= j->b * ratio && j->delta >= abs) || (rule->time_abs > 0 && j->delta >= rule->time_abs);
	down = (j->b >= h * ratio && -j->delta >= abs) || (rule->time_abs > 0 && -j->delta >= rule->time_abs);
	if (reps) {
		j->p = qe_stats_mann_whitney(hv, nh, bv, nb);
		replicate_rule(j, up, down, rule->alpha);
		return;
	}
	j->verdict = up ? QE_V_REGRESSION : down ? QE_V_IMPROVEMENT : QE_V_UNCHANGED;
}

int
qe_verdict_speed_state(const struct qe_factor_facts *f)
{
	if (isnan(f->factor))
		return QE_SP_NONE;
	if (f->reps > 0)
		return QE_SP_REPLICATES;
	if (f->factor < QE_VERDICT_FACTOR_BAND && f->factor * QE_VERDICT_FACTOR_BAND > 1)
		return QE_SP_STEADY;
	if (f->cells < QE_VERDICT_FACTOR_CELLS || f->docs < QE_VERDICT_FACTOR_DOCS)
		return QE_SP_FEW;
	/* one runner class and CPU moved most cells: a shared cause in the code or its environment */
	if (f->same_machine)
		return f->factor > 1 ? QE_SP_BROAD_SLOWER : QE_SP_BROAD_FASTER;
	if (!(f->spread <= QE_VERDICT_FACTOR_SPREAD))
		return QE_SP_MIXED;
	return QE_SP_DIFFERS;
}

double
qe_verdict_speed_scale(const struct qe_factor_facts *f, int adjust)
{
	if (isnan(f->factor) || adjust < 0)
		return 1;
	if (adjust > 0)
		return f->factor;
	return qe_verdict_speed_state(f) == QE_SP_DIFFERS ? f->factor : 1;
}

int
qe_verdict_speed(int raw, int adj, int *speed)
{
	*speed = raw != adj;
	return raw == adj ? adj : QE_V_INCONCLUSIVE;
}
