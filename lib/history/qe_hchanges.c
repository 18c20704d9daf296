/*
 * qe-history changes (qe_hquery.h): step changes per lecture and per cell
 * over main's builds, and a build-level change wherever the runner class
 * changes.
 *
 * A series (a lecture's sum, a cell's duration) is cut where the runner
 * class changes: timings of two classes are not compared. Each piece of at
 * least 2 x minseg builds is segmented by PELT on the log durations
 * (floored at QE_ROBUST_FLOOR_S, single spikes clipped to 3 sigma of their
 * neighbourhood's median: qe_changept_clip5), with the penalty
 * penalty x noise^2 x log(n), noise the series' own (qe_robust_noise, at least
 * QE_HQ_NOISE_FLOOR). PELT proposes; the data decide: every proposed
 * change must separate its two neighbouring segments by a Mann-Whitney p
 * below QE_HQ_ALPHA, a ratio of medians of at least QE_HQ_MIN_RATIO and
 * a move of the medians the series' own noise allows (qe_hq_step_need:
 * its build-to-build sigma times QE_HQ_STEP_Z, and QE_HQ_STEP_SE standard
 * errors of the difference of the two medians, at least the level's
 * least seconds); the weakest failing
 * one is dropped (its segments merged) until all pass (validate). A step
 * nothing explains at its build moves to a cause up to QE_HQ_SNAP builds
 * away where it holds too (snap); if none, it must be plain, its medians
 * apart by QE_HQ_UNEXPLAINED x that move, or it is dropped the same way
 * (decide): a cause makes a step likely at that build, and without one
 * only a clear step is told.
 *
 * Each step says why it happened where it can (cause, explanation): the
 * cell's source (or, for a lecture, some cell's) changed at that build,
 * else the environment (packages, environment files) or the runner class
 * in provenance, else what the kernel ran with (kernel_env), else
 * "unexplained". A one-build outlier (a value QE_HQ_SPIKE_Z noise from the
 * median of its four neighbours, a ratio of QE_HQ_SPIKE_RATIO, and
 * QE_HQ_SPIKE_ABS seconds and the step floor) is listed apart, after the steps, as change "spike".
 */
#include <err.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qe.h"
#include "qe_mem.h"
#include "qe_json.h"
#include "qe_record.h"
#include "qe_changept.h"
#include "qe_hload.h"
#include "qe_hout.h"
#include "qe_hprov.h"
#include "qe_hquery.h"
#include "qe_robust.h"
#include "qe_stats.h"

/* A change found, with what it is ordered by. */
struct found {
	int spike, pos, level, idx;
	char *doc;
	cJSON *rec;
};

struct changes {
	const struct qe_hq *q;
	const struct qe_hbuilds *bs;
	double *total;		/* total[pos]: the build's sum of lecture times */
	struct found *f;
	size_t nf, cap;
	/* one series at a time */
	const struct qe_hdoc *d;
	int *pos, *ix;		/* the points' build positions and indices into d->in */
	const struct qe_hcell **cl;	/* a cell series: the cell at each point (cells), else NULL */
	const struct qe_hcell **cells;
	double *v, *y, *ys;
	int *cps;
	int run_s;		/* the run being segmented starts at this point */
};

static int
same_class(const struct qe_hbuilds *bs, int a, int b)
{
	const char *x = bs->b[a].runner_class, *y = bs->b[b].runner_class;

	return (x == NULL && y == NULL) || (x && y && strcmp(x, y) == 0);
}

/* provenance_changes between builds at positions a and b. */
static cJSON *
prov_changes(const struct qe_hbuilds *bs, int a, int b)
{
	cJSON *arr = qe_json_check(cJSON_CreateArray());
	cJSON *pa = cJSON_Parse(bs->b[a].provenance), *pb = cJSON_Parse(bs->b[b].provenance);

	if (pa && pb)
		qe_hprov_diff(pa, pb, arr);
	cJSON_Delete(pa);
	cJSON_Delete(pb);
	return arr;
}

/* A commit's first 7 hex digits, else the build's run number, into b. */
static void
short_commit(struct qe_buf *b, const struct qe_hbuild_row *r)
{
	if (r->commit)
		qe_buf_addf(b, "%.7s", r->commit);
	else
		qe_buf_addf(b, "build #%ld", r->run_number);
}

/* How many cells of x are not in y by source digest. */
static int
not_in(const struct qe_hdocb *x, const struct qe_hdocb *y)
{
	int n = 0;

	for (int i = 0; i < x->ncells; i++) {
		int j = 0;

		while (j < y->ncells && strcmp(x->cells[i].sha, y->cells[j].sha) != 0)
			j++;
		n += j == y->ncells;
	}
	return n;
}

/* The source edit between points a and b of the series, into t; 0 if none. */
static int
edit_cause(const struct changes *c, int a, int b, const struct qe_hbuild_row *first, struct qe_buf *t)
{
	int added, gone;

	if (c->cl) {
		if (strcmp(c->cl[a]->sha, c->cl[b]->sha) == 0)
			return 0;
		qe_buf_adds(t, "cell edited in ");
	} else {
		const struct qe_hdocb *x = &c->d->in[c->ix[a]], *y = &c->d->in[c->ix[b]];

		added = not_in(y, x);
		gone = not_in(x, y);
		if (added == 0 && gone == 0)
			return 0;
		if (added > 0)
			qe_buf_addf(t, "%d cell%s edited or added in ", added, added == 1 ? "" : "s");
		else
			qe_buf_addf(t, "%d cell%s removed in ", gone, gone == 1 ? "" : "s");
	}
	short_commit(t, first);
	return 1;
}

/* The environment's and runner's part of provenance_changes, into t; its cause or -1. */
static int
prov_cause(const cJSON *pc, struct qe_buf *t)
{
	const cJSON *e;
	int cause = -1;

	cJSON_ArrayForEach(e, pc) {
		const char *w = qe_json_str(e, "what"), *nm = qe_json_str(e, "name");
		const char *bf = qe_json_str(e, "before"), *af = qe_json_str(e, "after");
		int runner = w && strcmp(w, "runner-class") == 0, pkg = w && strcmp(w, "package") == 0;

		if (cause < 0)
			cause = runner ? QE_CAUSE_RUNNER : QE_CAUSE_ENV;
		qe_buf_adds(t, t->len ? ", " : "");
		if (pkg)
			qe_buf_addf(t, "%s %s → %s", nm, bf ? bf : "none", af ? af : "none");
		else if (runner)
			qe_buf_addf(t, "runner class %s → %s", bf ? bf : "none", af ? af : "none");
		else
			qe_buf_addf(t, "%s changed", nm ? nm : w);
	}
	return cause;
}

/* The leaves of kernel_env objects x and y that differ ("jax backend gpu → cpu"), into t. */
static void
kenv_diff(const cJSON *x, const cJSON *y, const char *pre, struct qe_buf *t)
{
	const cJSON *pair[2] = { x, y }, *e;

	for (int side = 0; side < 2; side++)
		cJSON_ArrayForEach(e, pair[side]) {
			const cJSON *o = cJSON_GetObjectItemCaseSensitive(pair[1 - side], e->string);
			const cJSON *bv = side ? o : e, *av = side ? e : o;
			char *bs, *as;

			if ((side == 1 && o) || (o && cJSON_Compare(e, o, 1)))
				continue;
			if (cJSON_IsObject(bv) && cJSON_IsObject(av)) {
				kenv_diff(bv, av, e->string, t);
				continue;
			}
			bs = bv ? (cJSON_IsString(bv) ? qe_xstrdup(bv->valuestring) : qe_json_print(bv)) : NULL;
			as = av ? (cJSON_IsString(av) ? qe_xstrdup(av->valuestring) : qe_json_print(av)) : NULL;
			qe_buf_addf(t, "%s%s%s%s %s → %s", t->len ? ", " : "",
			    pre && strcmp(pre, "modules") != 0 ? pre : "",
			    pre && strcmp(pre, "modules") != 0 ? " " : "", e->string, bs ? bs : "none",
			    as ? as : "none");
			free(bs);
			free(as);
		}
}

/* What the kernel ran with changed between points a and b, into t; 0 if not. */
static int
kernel_cause(const struct changes *c, int a, int b, struct qe_buf *t)
{
	const char *x = c->d ? c->d->in[c->ix[a]].kenv : NULL, *y = c->d ? c->d->in[c->ix[b]].kenv : NULL;
	cJSON *px, *py;

	if (x == NULL || y == NULL || strcmp(x, y) == 0)
		return 0;
	px = cJSON_Parse(x);
	py = cJSON_Parse(y);
	if (px && py)
		kenv_diff(px, py, NULL, t);
	cJSON_Delete(px);
	cJSON_Delete(py);
	return t->len > 0;
}

/* The cause of a step between series points a and b (-1: build level), its words into t. */
static int
cause_of(const struct changes *c, const cJSON *pc, int a, int b, const struct qe_hbuild_row *first,
    struct qe_buf *t)
{
	int cause = -1;

	if (a >= 0 && edit_cause(c, a, b, first, t))
		cause = QE_CAUSE_EDIT;
	if (cause < 0)
		cause = prov_cause(pc, t);
	if (cause < 0 && a >= 0 && kernel_cause(c, a, b, t))
		cause = QE_CAUSE_KERNEL;
	return cause < 0 ? QE_CAUSE_UNEXPLAINED : cause;
}

/* cause and explanation of a step between series points a and b (-1: build level). */
static void
explain(const struct changes *c, cJSON *o, const cJSON *pc, int a, int b, const struct qe_hbuild_row *first)
{
	struct qe_buf t = { 0 };
	int cause = cause_of(c, pc, a, b, first, &t);

	cJSON_AddStringToObject(o, "cause", qe_vocab_name(&qe_vocab_causes, cause));
	qe_json_add_str_or_null(o, "explanation", t.len ? t.data : NULL);
	qe_buf_free(&t);
}

/* What a step's and a spike's rows share: where (level, lecture, cell) and the build (f). */
static void
change_head(cJSON *o, int level, const char *doc, const struct qe_hcell *cell, const struct qe_hbuild_row *f)
{
	cJSON_AddStringToObject(o, "level", qe_vocab_name(&qe_vocab_levels, level));
	qe_json_add_str_or_null(o, "document", doc);
	qe_json_add_str_or_null(o, "cell", cell ? cell->key : NULL);
	qe_json_add_str_or_null(o, "label", cell ? cell->label : NULL);
	qe_json_add_str_or_null(o, "name", cell ? cell->name : NULL);
	cJSON_AddStringToObject(o, "build", f->build);
	cJSON_AddNumberToObject(o, "run_number", (double)f->run_number);
	qe_json_add_str_or_null(o, "commit", f->commit);
	cJSON_AddStringToObject(o, "started_at", f->started_at);
}

/* A step between series points a (the last before) and b (the first after); a < 0: build level. */
static cJSON *
change_rec(const struct changes *c, int level, const char *doc, const struct qe_hcell *cell,
    int prev, int first, int a, int b, const double *bv, int nb, const double *av, int na,
    double floor)
{
	const struct qe_hbuild_row *f = &c->bs->b[first], *p = &c->bs->b[prev];
	cJSON *o = qe_json_record_new("history-change"), *pc = prov_changes(c->bs, prev, first);
	double mb = qe_robust_median(bv, (size_t)nb), ma = qe_robust_median(av, (size_t)na);

	cJSON_AddStringToObject(o, "change", "step");
	change_head(o, level, doc, cell, f);
	cJSON_AddStringToObject(o, "previous_build", p->build);
	cJSON_AddNumberToObject(o, "previous_run_number", (double)p->run_number);
	qe_json_add_str_or_null(o, "previous_commit", p->commit);
	cJSON_AddNumberToObject(o, "before_median_s", mb);
	cJSON_AddNumberToObject(o, "after_median_s", ma);
	cJSON_AddNumberToObject(o, "ratio", mb > 0 ? ma / mb : 0);
	cJSON_AddNumberToObject(o, "n_before", nb);
	cJSON_AddNumberToObject(o, "n_after", na);
	qe_json_add_num_or_null(o, "floor_s", !isnan(floor), floor);
	explain(c, o, pc, a, b, f);
	cJSON_AddItemToObject(o, "provenance_changes", pc);
	return qe_json_check(o);
}

static void
keep(struct changes *c, int spike, int pos, int level, const char *doc, int idx, cJSON *rec)
{
	struct found *f;

	c->f = qe_mem_grow(c->f, c->nf, &c->cap, sizeof *c->f, 64);
	f = &c->f[c->nf++];
	f->spike = spike;
	f->pos = pos;
	f->level = level;
	f->idx = idx;
	f->doc = doc ? qe_xstrdup(doc) : NULL;
	f->rec = rec;
}

/*
 * How strongly the data say the step from bv to av is real: the p value of
 * the Mann-Whitney test, or 2 (never kept) when the medians differ by less
 * than QE_HQ_MIN_RATIO or the level's floor.
 */
static double
step_p(const double *bv, int nb, const double *av, int na, double sigma, double least)
{
	double mb = qe_robust_median(bv, (size_t)nb), ma = qe_robust_median(av, (size_t)na);

	if (fabs(qe_robust_floorlog(ma) - qe_robust_floorlog(mb)) < log(QE_HQ_MIN_RATIO) ||
	    fabs(ma - mb) < qe_hq_step_need(sigma, least, nb, na))
		return 2;
	return qe_stats_mann_whitney(bv, nb, av, na);
}

/*
 * Keep the change points cps[0..k) of x[0..n) that pass: while one fails
 * (p >= QE_HQ_ALPHA against its neighbouring segments), drop the weakest
 * and test again with the merged segment. Returns how many remain.
 */
static int
validate(const double *x, int n, int *cps, int k, double sigma, double least)
{
	for (;;) {
		int worst = -1;
		double wp = 0;

		for (int j = 0; j < k; j++) {
			int a = j > 0 ? cps[j - 1] : 0, t = cps[j], z = j + 1 < k ? cps[j + 1] : n;
			double p = step_p(x + a, t - a, x + t, z - t, sigma, least);

			if (p >= QE_HQ_ALPHA && p > wp)
				worst = j, wp = p;
		}
		if (worst < 0)
			return k;
		memmove(cps + worst, cps + worst + 1, (size_t)(k - worst - 1) * sizeof *cps);
		k--;
	}
}

/* The cause of a step between series points a and b, its words into t (may be NULL). */
static int
point_cause(const struct changes *c, int a, int b, struct qe_buf *t)
{
	struct qe_buf scratch = { 0 };
	cJSON *pc = prov_changes(c->bs, c->pos[a], c->pos[b]);
	int cause = cause_of(c, pc, a, b, &c->bs->b[c->pos[b]], t ? t : &scratch);

	cJSON_Delete(pc);
	qe_buf_free(&scratch);
	return cause;
}

/* Is there a cause for a step between series points a and b (edit, provenance, kernel)? */
static int
explained(const struct changes *c, int a, int b)
{
	return point_cause(c, a, b, NULL) != QE_CAUSE_UNEXPLAINED;
}

/*
 * The note of a step nothing explains at series point t of the run
 * [s, e): the nearest cause up to QE_HQ_NEAR points away, later before
 * earlier ("a provenance change 2 builds later: python 3.12.7 →
 * 3.12.8"); it names, it never moves the step. NULL when none.
 */
static cJSON *
near_note(const struct changes *c, int s, int e, int t)
{
	static const char *const what[] = { [QE_CAUSE_EDIT] = "an edit", [QE_CAUSE_ENV] = "a provenance change",
		[QE_CAUSE_RUNNER] = "a provenance change", [QE_CAUSE_KERNEL] = "a kernel change" };

	for (int k = 1; k <= QE_HQ_NEAR; k++)
		for (int side = 1; side >= -1; side -= 2) {
			int b = t + side * k;
			struct qe_buf w = { 0 }, note = { 0 };
			int cause;
			cJSON *o;

			if (b - 1 < s || b >= e ||
			    (cause = point_cause(c, b - 1, b, &w)) == QE_CAUSE_UNEXPLAINED) {
				qe_buf_free(&w);
				continue;
			}
			qe_buf_addf(&note, "%s %d build%s %s: %s", what[cause], k, k == 1 ? "" : "s",
			    side > 0 ? "later" : "earlier", w.data);
			o = qe_json_check(cJSON_CreateString(note.data));
			qe_buf_free(&w);
			qe_buf_free(&note);
			return o;
		}
	return qe_json_check(cJSON_CreateNull());
}

/*
 * Nothing explains the step at cps[j] (no cause at its own build): is it
 * plain in the data? Its medians' log ratio must be QE_HQ_UNEXPLAINED_Z
 * standard errors of their difference, from the series' own log noise:
 * a scan over every build of every series finds steps of 4-5.5 standard
 * errors in noise alone.
 */
static int
plain(const struct qe_hq_run *r, int k, int j)
{
	int a = j > 0 ? r->cps[j - 1] : 0, t = r->cps[j], z = j + 1 < k ? r->cps[j + 1] : r->n;
	double lb = qe_robust_median(r->y + a, (size_t)(t - a)), la = qe_robust_median(r->y + t, (size_t)(z - t));

	return fabs(la - lb) >= qe_hq_unexplained_need(r->sigma_log, t - a, z - t);
}

/* The squared error of y[a..t) about its mean. */
static double
sse(const double *y, int a, int t)
{
	double s = 0, q = 0;

	for (int i = a; i < t; i++)
		s += y[i], q += y[i] * y[i];
	return q - s * s / (t - a);
}

/*
 * Where step j of k may be: r->lo[j], r->hi[j] (qe_hq_steps). It may be at
 * a later point u while splitting there costs at most QE_HQ_PLACE log
 * variances more than at cps[j] and each point passed lies within
 * QE_HQ_PLACE_Z sigma_log of the median before (the level it would
 * join); at an earlier one the same way with the median after.
 */
static void
place(struct qe_hq_run *r, int k, int j)
{
	int a = j > 0 ? r->cps[j - 1] : 0, t = r->cps[j], z = j + 1 < k ? r->cps[j + 1] : r->n, u;
	double best = sse(r->ys, a, t) + sse(r->ys, t, z), slack = QE_HQ_PLACE * r->sigma_log * r->sigma_log;
	double mb = qe_robust_median(r->y + a, (size_t)(t - a)), ma = qe_robust_median(r->y + t, (size_t)(z - t));
	double near = QE_HQ_PLACE_Z * r->sigma_log;

	for (u = t; u - 1 > a && fabs(r->y[u - 1] - ma) <= near &&
	    sse(r->ys, a, u - 1) + sse(r->ys, u - 1, z) <= best + slack; u--)
		continue;
	r->lo[j] = u;
	for (u = t; u + 1 < z && fabs(r->y[u] - mb) <= near &&
	    sse(r->ys, a, u + 1) + sse(r->ys, u + 1, z) <= best + slack; u++)
		continue;
	r->hi[j] = u;
}

int
qe_hq_steps(struct qe_hq_run *r)
{
	int n = r->n, k;
	double noise = qe_robust_noise(r->v, (size_t)n);

	r->noise = isnan(noise) || noise < QE_HQ_NOISE_FLOOR ? QE_HQ_NOISE_FLOOR : noise;
	r->sigma = qe_hq_sigma(r->v, n);
	for (int i = 0; i < n; i++)
		r->y[i] = qe_robust_floorlog(r->v[i]);
	r->sigma_log = fmax(qe_hq_sigma(r->y, n), QE_HQ_NOISE_FLOOR);
	if (n < 2 * r->minseg)
		return 0;
	qe_changept_clip5(r->y, n, 3 * r->noise / sqrt(2.0), r->ys);
	k = qe_changept_pelt(r->ys, n, r->minseg, r->penalty * r->noise * r->noise * log((double)n), r->cps);
	/* validate, and drop the first step nothing explains at its own build that is not plain */
	for (;;) {
		int drop = -1;

		k = validate(r->v, n, r->cps, k, r->sigma, r->least);
		for (int j = 0; j < k && drop < 0; j++)
			if (!(r->explained && r->explained(r->ctx, r->cps[j] - 1, r->cps[j])) && !plain(r, k, j))
				drop = j;
		if (drop < 0)
			break;
		memmove(r->cps + drop, r->cps + drop + 1, (size_t)(k - drop - 1) * sizeof *r->cps);
		k--;
	}
	for (int j = 0; r->lo && r->hi && j < k; j++)
		place(r, k, j);
	return k;
}

/* A one-build outlier at series point i (of the run starting at s): its row. */
static cJSON *
spike_rec(const struct changes *c, int level, const char *doc, const struct qe_hcell *cell, int i,
    double typical)
{
	const struct qe_hbuild_row *f = &c->bs->b[c->pos[i]];
	cJSON *o = qe_json_record_new("history-change");

	cJSON_AddStringToObject(o, "change", "spike");
	change_head(o, level, doc, cell, f);
	cJSON_AddNumberToObject(o, "before_median_s", typical);
	cJSON_AddNumberToObject(o, "after_median_s", c->v[i]);
	cJSON_AddNumberToObject(o, "ratio", typical > 0 ? c->v[i] / typical : 0);
	return qe_json_check(o);
}

/* The one-build outliers of c->v[s..e), its log noise `noise`, floor in seconds. */
static void
spikes(struct changes *c, int s, int e, int level, const char *doc, const struct qe_hcell *cell,
    double noise, double floor)
{
	double w[5], need = fmax(log(QE_HQ_SPIKE_RATIO), QE_HQ_SPIKE_Z * noise / sqrt(2.0));

	for (int i = s; i < e; i++) {
		int n = 0;
		double m;

		for (int j = i - 2; j <= i + 2; j++)
			if (j >= s && j < e && j != i)
				w[n++] = c->v[j];
		if (n < 3)
			continue;
		m = qe_robust_median(w, (size_t)n);
		if (fabs(qe_robust_floorlog(c->v[i]) - qe_robust_floorlog(m)) >= need &&
		    fabs(c->v[i] - m) >= fmax(floor, QE_HQ_SPIKE_ABS))
			keep(c, 1, c->pos[i], level, doc, cell ? cell->idx : -1,
			    spike_rec(c, level, doc, cell ? c->cl[i] : NULL, i, m));
	}
}

/* qe_hq_run's explained over one run of a changes series (ctx: the changes, run_s its first point). */
static int
run_explained(void *ctx, int a, int b)
{
	const struct changes *c = ctx;

	return explained(c, c->run_s + a, c->run_s + b);
}

/* Segment one run of a series, c->v[s..e) at positions c->pos[s..e). */
static void
segment(struct changes *c, int s, int e, int level, const char *doc, const struct qe_hcell *cell,
    double least)
{
	struct qe_hq_run r = { .v = c->v + s, .n = e - s, .minseg = (int)c->q->minseg,
		.penalty = c->q->penalty, .least = least, .explained = run_explained, .ctx = c,
		.y = c->y, .ys = c->ys, .cps = c->cps };
	int k, n = e - s;

	if (n < 2 * r.minseg)
		return;
	c->run_s = s;
	k = qe_hq_steps(&r);
	for (int j = 0; j < k; j++) {
		int a = j > 0 ? c->cps[j - 1] : 0, t = c->cps[j], z = j + 1 < k ? c->cps[j + 1] : n;
		cJSON *o = change_rec(c, level, doc, cell, c->pos[s + t - 1], c->pos[s + t], s + t - 1, s + t,
		    c->v + s + a, t - a, c->v + s + t, z - t, qe_hq_step_need(r.sigma, least, t - a, z - t));

		cJSON_AddItemToObject(o, "note", explained(c, s + t - 1, s + t) ?
		    qe_json_check(cJSON_CreateNull()) : near_note(c, s, e, s + t));
		keep(c, 0, c->pos[s + t], level, doc, cell ? cell->idx : -1, o);
	}
	for (int j = 0; j <= k; j++)
		spikes(c, s + (j > 0 ? c->cps[j - 1] : 0), s + (j < k ? c->cps[j] : n), level, doc,
		    cell, r.noise, qe_hq_step_need(r.sigma, least, QE_HQ_FENCE_K, QE_HQ_FENCE_K));
}

/* c->v[0..n) at c->pos: each run of one runner class on its own. */
static void
series(struct changes *c, int n, int level, const char *doc, const struct qe_hcell *cell,
    double least)
{
	int s = 0;

	for (int i = 1; i <= n; i++)
		if (i == n || !same_class(c->bs, c->pos[i - 1], c->pos[i])) {
			segment(c, s, i, level, doc, cell, least);
			s = i;
		}
}

/* One document's lecture and cell series (qe_hdoc_fn). */
static int
changes_doc(const struct qe_hdoc *d, void *ctx)
{
	struct changes *c = ctx;
	struct qe_hkeyed *k;
	int n = 0, nk;

	c->d = d;
	c->cl = NULL;
	for (int i = 0; i < d->n; i++)
		if (d->in[i].ok && !isnan(d->in[i].lecture_s)) {
			c->ix[n] = i;
			c->pos[n] = d->in[i].pos;
			c->v[n++] = d->in[i].lecture_s;
			c->total[d->in[i].pos] += d->in[i].lecture_s;
		}
	series(c, n, QE_LV_LECTURE, d->name, NULL, QE_HQ_LECTURE_LEAST);
	nk = qe_hdoc_keys(d, &k);
	c->cl = c->cells;
	for (int j = 0; j < nk; j++) {
		n = 0;
		for (int i = 0; i < k[j].n; i++)
			if (!isnan(k[j].cell[i]->dur)) {
				c->ix[n] = k[j].in[i];
				c->cl[n] = k[j].cell[i];
				c->pos[n] = d->in[k[j].in[i]].pos;
				c->v[n++] = k[j].cell[i]->dur;
			}
		series(c, n, QE_LV_CELL, d->name, k[j].cell[k[j].n - 1], QE_HQ_CELL_LEAST);
	}
	c->cl = NULL;
	qe_hkeyed_free(k, nk);
	return 0;
}

/* A build-level change wherever the runner class changes. */
static void
runner_changes(struct changes *c)
{
	const struct qe_hbuilds *bs = c->bs;
	int s = 0;

	for (int i = 1; i < bs->n; i++) {
		int e = i + 1;

		if (same_class(bs, i - 1, i))
			continue;
		while (e < bs->n && same_class(bs, e - 1, e))
			e++;
		cJSON *o = change_rec(c, QE_LV_BUILD, NULL, NULL, i - 1, i, -1, -1, c->total + s, i - s,
		    c->total + i, e - i, NAN);

		cJSON_AddNullToObject(o, "note");
		keep(c, 0, i, QE_LV_BUILD, NULL, -1, o);
		s = i;
	}
}

static int
cmp_found(const void *a, const void *b)
{
	const struct found *x = a, *y = b;
	int d;

	if (x->spike != y->spike)
		return x->spike - y->spike;
	if (x->pos != y->pos)
		return x->pos < y->pos ? -1 : 1;
	if (x->level != y->level)
		return x->level < y->level ? -1 : 1;
	if ((d = strcmp(x->doc ? x->doc : "", y->doc ? y->doc : "")) != 0)
		return d;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

static const struct qe_hcol change_cols[] = {
	{ "run_number", "build", QE_HF_RUN }, { "started_at", "date", QE_HF_DATE },
	{ "commit", "commit", QE_HF_SHORT }, { "change", "change", QE_HF_TEXT },
	{ "level", "level", QE_HF_TEXT }, { "document", "document", QE_HF_CODE },
	{ "name", "cell", QE_HF_TEXT }, { "before_median_s", "before", QE_HF_DUR },
	{ "after_median_s", "after", QE_HF_DUR }, { "ratio", "ratio", QE_HF_RATIO },
	{ "cause", "cause", QE_HF_TEXT }, { "explanation", "explanation", QE_HF_TEXT },
	{ "note", "note", QE_HF_TEXT }, { NULL, NULL, 0 }
};

int
qe_hq_changes(const struct qe_hq *q)
{
	struct qe_hbuilds bs;
	struct changes c = { .q = q, .bs = &bs };
	struct qe_hout o;
	size_t n;
	int rc;

	if (qe_hbuilds_load(q->db, q->path, &bs) < 0)
		return QE_EXIT_TROUBLE;
	n = (size_t)bs.n + 1;
	c.total = qe_xcalloc(n, sizeof *c.total);
	c.pos = qe_xcalloc(n, sizeof *c.pos);
	c.cps = qe_xcalloc(n, sizeof *c.cps);
	c.v = qe_xcalloc(n, sizeof *c.v);
	c.y = qe_xcalloc(n, sizeof *c.y);
	c.ys = qe_xcalloc(n, sizeof *c.ys);
	c.ix = qe_xcalloc(n, sizeof *c.ix);
	c.cells = qe_xcalloc(n, sizeof *c.cells);
	rc = qe_hdocs_each(q->db, q->path, &bs, NULL, changes_doc, &c);
	runner_changes(&c);
	if (c.nf > 1) /* no rows: c.f is NULL, which qsort may not take */
		qsort(c.f, c.nf, sizeof *c.f, cmp_found);
	qe_hout_begin(&o, q->md, q->sink, change_cols);
	for (size_t i = 0; i < c.nf; i++) {
		qe_hout_row(&o, c.f[i].rec);
		free(c.f[i].doc);
	}
	qe_hout_end(&o);
	free(c.f);
	free(c.total);
	free(c.pos);
	free(c.cps);
	free(c.v);
	free(c.y);
	free(c.ys);
	free(c.ix);
	free(c.cells);
	qe_hbuilds_free(&bs);
	return rc == 0 ? QE_EXIT_OK : QE_EXIT_TROUBLE;
}
