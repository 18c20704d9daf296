/*
 * qe_decide.c - the decision an evaluation report opens with (qe_decide.h).
 */
#include <math.h>
#include <string.h>

#include "qe_decide.h"
#include "qe_gfm.h"
#include "qe_json.h"
#include "qe_mdtable.h"
#include "qe_review.h"
#include "qe_record.h"

#define CAP_NAME 40
#define ALPHA 0.05	/* qe-cell-diff's --alpha when the summary gives none */

double
qe_decide_least_p(long n1, long n2)
{
	double c = 1;

	if (n1 < 1 || n2 < 1)
		return 1;
	for (long i = 1; i <= n1; i++)
		c = c * (double)(n2 + i) / (double)i;
	return fmin(1, 2 / c);
}

long
qe_decide_runs_needed(double alpha)
{
	long n = 1;

	while (qe_decide_least_p(n, n) >= alpha && n < 1000)
		n++;
	return n;
}

/* What the rules read of one lecture. */
struct facts {
	const char *doc;
	const struct qe_dnb *nb;	/* its notebook-diff, or NULL */
	const cJSON *sweep;		/* its total's sweep record, or NULL */
	double alpha;
	long differ_cells;		/* cells whose results differ */
	long differ_changed;		/* of them, cells whose own code changed */
	double compile_h, compile_b;	/* each version's JIT compile seconds, NAN when not audited */
	int compile_flag;		/* a cell slower as used but faster warm */
};

enum { USE_NEW, KEEP_OLD, RUN_MORE };

static const cJSON *
get(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k);
}

static void
code(struct qe_buf *b, const char *s)
{
	qe_gfm_code(b, s != NULL ? s : "?", CAP_NAME, 0);
}

/* The head of the decision: "**Decision for `doc`: keep the old version.**". */
static void
head(struct qe_buf *b, const struct facts *f, int what, long more)
{
	qe_buf_adds(b, "**Decision for ");
	qe_mdtable_doc(b, f->doc);
	qe_buf_adds(b, ": ");
	if (what == RUN_MORE)
		qe_gfm_addf(b, "run more, %ld more %s of each version.**", more, qe_gfm_plural(more, "run", "runs"));
	else
		qe_buf_adds(b, what == USE_NEW ? "use the new version.**" : "keep the old version.**");
}

/* The first value of the fidelity whose verdict is `verdict` (or narrowed, for NULL). */
static const cJSON *
value_of(const cJSON *fid, const char *verdict)
{
	const cJSON *v;

	cJSON_ArrayForEach(v, get(fid, "values"))
		if (verdict != NULL ? qe_mem_streq(qe_json_str(v, "verdict"), verdict)
		    : cJSON_IsTrue(get(v, "precision_loss")))
			return v;
	return NULL;
}

/* "(×2.10 faster as used, p = 0.029, 4 + 4 runs)": the lecture total's test. */
static void
speed(struct qe_buf *b, const struct qe_dnb *nb)
{
	double sp = nb->ratio > 0 ? 1 / nb->ratio : NAN;

	qe_buf_adds(b, "(");
	qe_gfm_ratio(b, sp >= 1 ? sp : 1 / sp);
	qe_buf_adds(b, sp >= 1 ? " faster as used" : " slower as used");
	if (nb->test.has && isfinite(nb->test.p))
		qe_gfm_addf(b, ", p = %.2g, %ld + %ld runs", nb->test.p, nb->test.n_b, nb->test.n_h);
	qe_buf_adds(b, ")");
}

/* Rule 2: results differ. */
static void
differ(struct qe_buf *b, const struct facts *f)
{
	const cJSON *fid = f->nb != NULL ? f->nb->fidelity : NULL, *v = value_of(fid, "differ");

	head(b, f, KEEP_OLD, 0);
	qe_buf_adds(b, " Correctness binds: results differ");
	if (v != NULL) {
		qe_buf_adds(b, " (");
		code(b, qe_json_str(v, "name"));
		qe_gfm_addf(b, " max abs diff %.2g, beyond rtol %g, atol %g)", qe_json_num(v, "max_abs"),
		    qe_json_num(fid, "rtol"), qe_json_num(fid, "atol"));
	} else {
		qe_gfm_addf(b, " in %ld %s", f->differ_cells, qe_gfm_plural(f->differ_cells, "cell", "cells"));
	}
	if (v == NULL && f->differ_changed == f->differ_cells && f->differ_cells > 0) {
		/* a new parameter changes results by design: the reader tells that from a bug */
		qe_buf_adds(b, f->differ_cells == 1 ? ", whose own code changed: if the change meant to change what it "
		    "computes, the versions compute different things and their times do not compare; else fix the "
		    "new version until its values agree, then measure its speed." :
		    ", whose own code changed: if the change meant to change what they compute, the versions compute "
		    "different things and their times do not compare; else fix the new version until its values "
		    "agree, then measure its speed.");
		return;
	}
	qe_buf_adds(b, ": fix the new version until its values agree, then measure its speed.");
}

/* The other values that moved as much as v (max rel within a factor of 10), named. */
static void
moved_too(struct qe_buf *b, const cJSON *fid, const cJSON *v)
{
	double r = qe_json_num(v, "max_rel");
	const cJSON *o;
	int k = 0;

	cJSON_ArrayForEach(o, get(fid, "values")) {
		double ro = qe_json_num(o, "max_rel");

		if (o == v || !(r > 0) || !(ro > r / 10 && ro < r * 10) || k == 3)
			continue;
		qe_buf_adds(b, k++ == 0 ? "; " : ", ");
		code(b, qe_json_str(o, "name"));
	}
	if (k > 0)
		qe_buf_adds(b, " moved by as much");
}

/* Rule 3: precision loss. */
static void
precision(struct qe_buf *b, const struct facts *f)
{
	const cJSON *fid = f->nb->fidelity, *v = value_of(fid, NULL);
	int faster = f->nb->verdict == QE_V_IMPROVEMENT;

	head(b, f, KEEP_OLD, 0);
	qe_buf_adds(b, faster ? " Precision binds: keep float64 unless " :
	    " Precision binds: keep float64, float32 is not measurably faster here ");
	if (faster) {
		speed(b, f->nb);
		qe_buf_adds(b, " is worth float32's precision");
	} else {
		speed(b, f->nb);
	}
	qe_buf_adds(b, ". The new version computes ");
	code(b, v != NULL ? qe_json_str(v, "name") : NULL);
	qe_buf_adds(b, " in ");
	code(b, v != NULL ? qe_json_str(v, "dtype_head") : "float32");
	qe_gfm_addf(b, " (max rel %.2g: within rtol %g, yet narrowed)", qe_json_num(v, "max_rel"), qe_json_num(fid, "rtol"));
	moved_too(b, fid, v);
	qe_buf_adds(b, ": make it compute in ");
	code(b, v != NULL ? qe_json_str(v, "dtype_base") : "float64");
	qe_buf_adds(b, ".");
}

/* Rule 4, unclear: how many more runs. */
static void
unclear(struct qe_buf *b, const struct facts *f)
{
	const struct qe_dnb *nb = f->nb;
	long n = nb->test.n_b < nb->test.n_h ? nb->test.n_b : nb->test.n_h, need = qe_decide_runs_needed(f->alpha);
	double least = qe_decide_least_p(nb->test.n_b, nb->test.n_h);

	if (least >= f->alpha) {
		head(b, f, RUN_MORE, need - n);
		qe_gfm_addf(b, " The run count binds: %ld + %ld runs can never reach p < %g (the least p of %ld + %ld runs is %.2g); "
		    "%ld + %ld can (%.2g).", nb->test.n_b, nb->test.n_h, f->alpha, nb->test.n_b, nb->test.n_h, least,
		    need, need, qe_decide_least_p(need, need));
		return;
	}
	head(b, f, RUN_MORE, n);
	qe_buf_adds(b, " The run count binds: the runs overlap ");
	speed(b, nb);
	qe_gfm_addf(b, "; twice the runs (%ld + %ld) may tell.", 2 * n, 2 * n);
}

/* Rule 4: the lecture total's replicate test. */
static void
timed(struct qe_buf *b, const struct facts *f)
{
	int v = f->nb->verdict;

	if (v == QE_V_INCONCLUSIVE) {
		unclear(b, f);
		return;
	}
	head(b, f, v == QE_V_IMPROVEMENT ? USE_NEW : KEEP_OLD, 0);
	qe_buf_adds(b, v == QE_V_IMPROVEMENT ? " Speed as used binds: the new version is faster " :
	    v == QE_V_REGRESSION ? " Speed as used binds: the new version is slower " :
	    " Speed is no reason to change: the new version is within the threshold ");
	speed(b, f->nb);
	qe_buf_adds(b, ".");
}

/*
 * A sweep's word on compiling: the new version slower here while its time
 * barely grows with the size (exponent under 0.3, the old one's 0.2 more):
 * a fixed cost, as compiling is, is what it pays at this size.
 */
static void
fixed_cost(struct qe_buf *b, const cJSON *sweep, double sp)
{
	const cJSON *fit = get(sweep, "fit");
	double eh = qe_json_num(get(fit, "head"), "exponent"), eb = qe_json_num(get(fit, "base"), "exponent");

	if (!(sp < 1) || !(eh < 0.3) || !(eb > eh + 0.2))
		return;
	qe_buf_adds(b, " Compiling, or another fixed cost, is the cost at this size: the new version's time barely grows with ");
	qe_gfm_text(b, qe_json_str(sweep, "parameter"), CAP_NAME);
	qe_gfm_addf(b, " (exponent %.2f against the old one's %.2f).", eh, eb);
}

/* Rule 5: the lecture total's sweep at the lecture's own size. */
static void
swept(struct qe_buf *b, const struct facts *f)
{
	double sp = qe_json_num(f->sweep, "speedup_at_lecture"), own = qe_json_num(f->sweep, "lecture_value");
	int what = !isfinite(sp) ? RUN_MORE : sp >= 1.2 ? USE_NEW : KEEP_OLD;

	head(b, f, what, 2);
	if (what == RUN_MORE) {
		qe_buf_adds(b, " The size binds: the sweep has no runs at this lecture's own size; sweep it (2 more runs of each version there).");
		return;
	}
	qe_buf_adds(b, what == USE_NEW ? " Speed at this lecture's size binds: the new version is " :
	    sp > 1 / 1.2 ? " Speed is no reason to change at this lecture's size: the new version is " :
	    " Speed at this lecture's size binds: the new version is ");
	qe_gfm_ratio(b, sp >= 1 ? sp : 1 / sp);
	qe_buf_adds(b, sp >= 1 ? " faster at " : " slower at ");
	qe_gfm_text(b, qe_json_str(f->sweep, "parameter"), CAP_NAME);
	qe_buf_adds(b, " = ");
	qe_gfm_magnitude(b, own);
	qe_buf_adds(b, " (the lecture total's sweep).");
	fixed_cost(b, f->sweep, sp);
}

/*
 * "Compiling is the cost": when the new version is measurably slower (its
 * verdict a regression, or a cell's a compile-time regression) and its extra
 * compile time is most of what it costs more. A slowdown within the noise has
 * no cost to explain: a millisecond of compiling would be "most" of it.
 */
static void
compiling(struct qe_buf *b, const struct facts *f)
{
	const struct qe_dnb *nb = f->nb;
	double extra = f->compile_h - (isnan(f->compile_b) ? 0 : f->compile_b);

	if (nb == NULL || !(nb->head_s > nb->base_s) || !(extra > 0) ||
	    !(f->compile_flag || (nb->verdict == QE_V_REGRESSION && extra >= 0.5 * (nb->head_s - nb->base_s))))
		return;
	qe_buf_adds(b, " Compiling is the cost at this size: the new version compiles for ");
	qe_gfm_dur(b, extra);
	qe_buf_adds(b, " more than the old one (");
	qe_gfm_dur(b, f->compile_h);
	qe_buf_adds(b, " of its ");
	qe_gfm_dur(b, nb->head_s);
	qe_buf_adds(b, " as used).");
}

/* The single input that would flip it: the size, the run count or the floor. */
static void
sensitivity(struct qe_buf *b, const struct facts *f)
{
	const cJSON *c = get(f->sweep, "crossover");
	const char *st = qe_json_str(c, "state");
	const struct qe_dnb *nb = f->nb;

	if (st != NULL && strstr(st, "-above") != NULL && isfinite(qe_json_num(c, "at"))) {
		qe_buf_adds(b, " Sensitivity: the size; the new version ");
		qe_buf_adds(b, strcmp(st, "head-wins-above") == 0 ? "wins above " : "loses above ");
		qe_gfm_text(b, qe_json_str(f->sweep, "parameter"), CAP_NAME);
		qe_buf_adds(b, " \xe2\x89\x88 ");
		qe_gfm_magnitude(b, qe_json_num(c, "at"));
		qe_buf_adds(b, " (the lecture total's crossover).");
	} else if (nb != NULL && nb->test.has && isfinite(nb->test.lo) && nb->test.lo < 1 && nb->test.hi > 1) {
		qe_buf_adds(b, " Sensitivity: the run count; paired runs range from ");
		qe_gfm_ratio(b, nb->test.lo);
		qe_buf_adds(b, " to ");
		qe_gfm_ratio(b, nb->test.hi);
		qe_buf_adds(b, " (head / base), on both sides of \xc3\x97" "1.");
	} else if (nb != NULL && nb->base_s > 0 && nb->base_s < 1 && nb->head_s > nb->base_s) {
		qe_buf_adds(b, " Sensitivity: the floor; the old version runs ");
		qe_gfm_dur(b, nb->base_s);
		qe_buf_adds(b, " as used, under QuantEcon's 1 s floor, and the new one is slower: no-conversion by their rule.");
	}
}

/* The lecture total's sweep of doc (the first machine's), or NULL. */
static const cJSON *
sweep_of(const struct qe_evalset *e, const char *doc)
{
	const cJSON *s;

	cJSON_ArrayForEach(s, (e != NULL ? e->sweeps : NULL))
		if (cJSON_IsNull(get(s, "cell")) && qe_mem_streq(qe_json_str(s, "document"), doc))
			return s;
	return NULL;
}

/* One lecture: the rules in order, then compiling and the sensitivity. */
static void
one(struct qe_buf *b, const struct facts *f)
{
	const char *answer = f->nb != NULL ? qe_json_str(f->nb->fidelity, "answer") : NULL;

	if (f->nb != NULL && f->nb->st_h == QE_NB_FAILED) {
		head(b, f, KEEP_OLD, 0);
		qe_buf_adds(b, " The new version fails");
		if (f->nb->error != NULL) {
			qe_buf_adds(b, " (");
			qe_gfm_code(b, f->nb->error, 80, 0);
			qe_buf_adds(b, ")");
		}
		qe_buf_adds(b, ": fix it first.");
	} else if (qe_mem_streq(answer, "differ") || f->differ_cells > 0) {
		differ(b, f);
	} else if (qe_mem_streq(answer, "precision-loss")) {
		precision(b, f);
	} else if (f->nb != NULL && f->nb->test.has && f->nb->test.n_b > 1 && f->nb->test.n_h > 1) {
		timed(b, f);
	} else if (f->sweep != NULL) {
		swept(b, f);
	} else {
		head(b, f, RUN_MORE, qe_decide_runs_needed(f->alpha));
		qe_buf_adds(b, " The run count binds: single runs decide nothing (qe-replicate -k 5).");
	}
	compiling(b, f);
	sensitivity(b, f);
	qe_buf_adds(b, "\n\n");
}

/* The lecture's cells: results that differ, the head's compile seconds, the compile flag. */
static void
cells_of(const struct qe_diffset *d, struct facts *f)
{
	f->compile_h = f->compile_b = NAN;
	for (size_t i = 0; i < d->ncells; i++) {
		const struct qe_dcell *c = &d->cells[i];
		double s = qe_json_num(c->jit_h, "compile_s"), sb = qe_json_num(c->jit_b, "compile_s");

		if (!qe_mem_streq(c->doc, f->doc))
			continue;
		f->differ_cells += qe_review_results_differ(c);
		f->differ_changed += qe_review_results_differ(c) && (c->flags & QE_FLAG(QE_F_SOURCE));
		f->compile_flag |= (c->flags & QE_FLAG(QE_F_COMPILE)) != 0;
		if (isfinite(s))
			f->compile_h = (isnan(f->compile_h) ? 0 : f->compile_h) + s;
		if (isfinite(sb))
			f->compile_b = (isnan(f->compile_b) ? 0 : f->compile_b) + sb;
	}
}

long
qe_decide_lines(struct qe_buf *b, const struct qe_diffset *d, const struct qe_evalset *e)
{
	double alpha = qe_diffsum_threshold(d, "alpha");
	const cJSON *s;
	long k = 0;

	for (size_t i = 0; i < d->nnbs; i++) {
		const struct qe_dnb *nb = &d->nbs[i];
		struct facts f = { nb->doc, nb, sweep_of(e, nb->doc), isfinite(alpha) ? alpha : ALPHA, 0, 0, NAN, NAN, 0 };
		const char *answer = qe_json_str(nb->fidelity, "answer");

		if (!(nb->test.has && nb->test.n_b > 1 && nb->test.n_h > 1) && f.sweep == NULL &&
		    (answer == NULL || strcmp(answer, "not-compared") == 0))
			continue;  /* no evaluation: a build's comment */
		cells_of(d, &f);
		one(b, &f);
		k++;
	}
	cJSON_ArrayForEach(s, (e != NULL ? e->sweeps : NULL)) {
		struct facts f = { qe_json_str(s, "document"), NULL, s, isfinite(alpha) ? alpha : ALPHA, 0, 0, NAN, NAN, 0 };
		int seen = 0;

		if (!cJSON_IsNull(get(s, "cell")) || sweep_of(e, f.doc) != s)
			continue;
		for (size_t i = 0; i < d->nnbs && !seen; i++)
			seen = qe_mem_streq(d->nbs[i].doc, f.doc);
		if (!seen) {
			one(b, &f);
			k++;
		}
	}
	return k;
}
