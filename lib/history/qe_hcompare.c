/*
 * qe-history compare (qe_hquery.h): before/after distributions of every
 * lecture and cell across each environment change among main's builds.
 *
 * The changes: without --by, every main build whose packages, environment
 * files or fingerprint differ from the build before's (provenance_changes
 * other than the runner class); with --by, every build whose package
 * version, fingerprint or environment files' digest differs. A build
 * whose runner class differs from the one before is a machine change: one
 * build-level row "machine", no lecture or cell rows (timings of two
 * machines are not an environment's effect).
 *
 * Windows: before, up to QE_HQ_WINDOW builds ending at the change's
 * previous build; after, up to QE_HQ_WINDOW_AFTER from the change;
 * neither crosses another change, but a side runs on across a runner
 * change with a factor (qe_hrunner.h: every duration is taken into the
 * first class's time, the medians said in the change's build's class)
 * and across a change at which nothing moved (a first pass decides; the
 * rows are those of a second pass with the wider windows). Per lecture
 * and per cell (cells floored at QE_ROBUST_FLOOR_S; a side never crosses
 * the series' edits or kernel_env changes): the Hodges-Lehmann
 * ratio after/before with its 95% interval; "slower" when the ratio is at
 * least QE_HQ_MIN_RATIO and the interval lies above 1, "faster" when it
 * is at most 1/QE_HQ_MIN_RATIO and the interval lies below 1, and in both
 * cases the log ratio is QE_HQ_COMPARE_SE standard errors of the series'
 * own noise (the sigma of its logs over its history, qe_hq_sigma) and,
 * for a cell, its medians differ by its step floor (qe_hq_step_need on
 * its sigma over its history); "same" otherwise; "unknown" with fewer
 * than QE_HQ_COMPARE_MIN builds on a side.
 *
 * Output: per change, in build order, one build-level row (the sum of
 * the lectures' medians, the counts of lectures and cells that moved),
 * then its lecture and cell rows by effect (|log ratio|, largest first);
 * only the rows that moved unless q->all.
 */
#include <err.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qe.h"
#include "qe_mem.h"
#include "qe_json.h"
#include "qe_record.h"
#include "qe_hload.h"
#include "qe_hout.h"
#include "qe_hprov.h"
#include "qe_hquery.h"
#include "qe_hrunner.h"
#include "qe_robust.h"

/* One change, its windows and what the rows found. */
struct chg {
	int at, lo, hi;		/* before: [lo, at), after: [at, hi) */
	int machine;		/* the runner class changed */
	char *before, *after;	/* --by: the values; else NULL */
	double sum_b, sum_a;	/* of lecture medians, lectures on both sides */
	int nlec, ncell;	/* lectures and cells that moved */
	int ntested;		/* lectures and cells with a verdict: the family of the change */
};

/*
 * Where a series' side stops: at an edit (lo = hi = at) or at one of its
 * own steps (at: where the data put it; [lo, hi]: the builds they cannot
 * rule out), except for a change inside [lo, hi].
 */
struct edge {
	int at, lo, hi;
};

struct edges {
	struct edge *e;
	size_t n, cap;
};

/* A row kept until every document is read, with its sort key. */
struct crow {
	int chg, level;
	double effect;
	double p;		/* a move's two-sided p (its standard errors); 1 else */
	int mv;			/* its verdict (enum qe_moved) */
	cJSON *rec;
};

struct compare {
	const struct qe_hq *q;
	const struct qe_hbuilds *bs;
	cJSON **prov;		/* each build's provenance */
	struct qe_hrunner rn;	/* runner factors: a side runs on across a runner change with one */
	unsigned char *edge;	/* edge[pos]: a change a side stops at */
	struct chg *c;
	int nc;
	struct crow *r;
	size_t nr, cap;
	double *b, *a;
	double *w;		/* one document's scratch */
	struct edges ed;	/* one series' edges: its edits (source or kernel_env) and its own steps */
	struct edges cst;	/* the steps of one document's cells (edges of its lecture too) */
	double *sv, *sy, *sys;	/* one series' run, for its own steps (qe_hq_steps) */
	int *sp, *scps, *slo, *shi;
};

/*
 * Does build i differ from i-1 in what compare follows? Sets *machine,
 * and *env when more than the machine changed (a fingerprint's change at
 * a machine change is the machine's).
 */
static int
differs(const struct compare *c, int i, int *machine, int *env_out, char **bv, char **av)
{
	const cJSON *p = c->prov[i - 1], *q = c->prov[i];
	cJSON *pc, *e;
	int env = 0;

	*machine = !qe_mem_streq(c->bs->b[i - 1].runner_class, c->bs->b[i].runner_class);
	*bv = *av = NULL;
	if (c->q->by >= 0) {
		const char *x = p ? qe_hprov_value(p, c->q->by, c->q->package) : NULL;
		const char *y = q ? qe_hprov_value(q, c->q->by, c->q->package) : NULL;

		*env_out = !(*machine && c->q->by == QE_BY_FINGERPRINT);
		if (qe_mem_streq(x, y))	/* a machine change alone is the fingerprint's, not a package's */
			return *machine && c->q->by == QE_BY_FINGERPRINT;
		*bv = x ? qe_xstrdup(x) : NULL;
		*av = y ? qe_xstrdup(y) : NULL;
		return 1;
	}
	*env_out = 0;
	if (p == NULL || q == NULL)
		return *machine;
	pc = qe_json_check(cJSON_CreateArray());
	qe_hprov_diff(p, q, pc);
	cJSON_ArrayForEach(e, pc)
		env |= !qe_mem_streq(qe_json_str(e, "what"), "runner-class");
	cJSON_Delete(pc);
	*env_out = env;
	return env || *machine;
}

/* Each change's sides [lo, at) and [at, hi): up to QE_HQ_WINDOW builds, not across an edge. */
static void
windows(struct compare *c)
{
	const int n = c->bs->n;

	for (int k = 0; k < c->nc; k++) {
		struct chg *g = &c->c[k];

		for (g->lo = g->at - 1; g->lo > 0 && g->at - g->lo < QE_HQ_WINDOW && !c->edge[g->lo]; g->lo--)
			continue;
		for (g->hi = g->at + 1; g->hi < n && g->hi - g->at < QE_HQ_WINDOW_AFTER && !c->edge[g->hi]; g->hi++)
			continue;
	}
}

/* Every change and its windows. */
static void
find_changes(struct compare *c)
{
	const int n = c->bs->n;
	unsigned char *edge = qe_xcalloc((size_t)n + 1, 1);
	struct chg *all = qe_xcalloc((size_t)n + 1, sizeof *all);

	for (int i = 1; i < n; i++) {
		struct chg *g = &all[c->nc];
		int env = 0;

		edge[i] = c->rn.cut[i];	/* a side runs on across a runner change with a factor */
		if (!differs(c, i, &g->machine, &env, &g->before, &g->after))
			continue;
		edge[i] |= env;
		g->at = i;
		c->nc++;
	}
	c->c = all;
	c->edge = edge;
	windows(c);
}

/*
 * After a first pass: a change at which nothing moved is no edge (the
 * package drift that moves nothing does not shorten the sides of the
 * upgrade beside it); if there is one, forget the rows, widen the
 * windows and say whether to pass again.
 */
static int
widen(struct compare *c)
{
	int again = 0;

	for (int k = 0; k < c->nc; k++) {
		struct chg *g = &c->c[k];

		if (!g->machine && g->nlec + g->ncell == 0 && !c->rn.cut[g->at] && c->edge[g->at]) {
			c->edge[g->at] = 0;
			again = 1;
		}
	}
	if (!again || c->nc < 2)
		return 0;
	for (size_t i = 0; i < c->nr; i++)
		cJSON_Delete(c->r[i].rec);
	c->nr = 0;
	for (int k = 0; k < c->nc; k++)
		c->c[k].sum_b = c->c[k].sum_a = 0, c->c[k].nlec = c->c[k].ncell = c->c[k].ntested = 0;
	windows(c);
	return 1;
}

/*
 * The rule (qe-history(1)): the ratio beyond QE_HQ_MIN_RATIO, its interval
 * clear of 1, the log ratio QE_HQ_STEP_SE standard errors of the series'
 * own noise (sigma_log, over its history), and for a cell the medians
 * apart by its step floor.
 */
static int
moved(int nb, int na, double r, double lo, double hi, double d, double floor, double sigma_log, double *p)
{
	double z;

	*p = 1;
	if (nb < QE_HQ_COMPARE_MIN || na < QE_HQ_COMPARE_MIN || isnan(r) || isnan(lo))
		return QE_MV_UNKNOWN;
	z = fabs(log(r)) / (1.2533 * sigma_log * sqrt(1.0 / nb + 1.0 / na));
	*p = isnan(z) ? 1 : erfc(z / sqrt(2.0));
	if (!(z >= QE_HQ_COMPARE_SE))
		return QE_MV_SAME;
	if (r >= QE_HQ_MIN_RATIO && lo > 1 && d >= floor)
		return QE_MV_SLOWER;
	if (r <= 1 / QE_HQ_MIN_RATIO && hi < 1 && -d >= floor)
		return QE_MV_FASTER;
	return QE_MV_SAME;
}

/* The fields every row of change g has. */
static cJSON *
row_new(const struct compare *c, const struct chg *g, int level)
{
	cJSON *o = qe_json_record_new("history-compare");
	const struct qe_hbuild_row *f = &c->bs->b[g->at];
	cJSON *pc = qe_json_check(cJSON_CreateArray());

	cJSON_AddStringToObject(o, "by", qe_vocab_name(&qe_vocab_compare_bys,
	    c->q->by >= 0 ? c->q->by : QE_BY_ENVIRONMENT));
	qe_json_add_str_or_null(o, "name", c->q->by == QE_BY_PACKAGE ? c->q->package : NULL);
	qe_json_add_str_or_null(o, "before", g->machine ? c->bs->b[g->at - 1].runner_class : g->before);
	qe_json_add_str_or_null(o, "after", g->machine ? f->runner_class : g->after);
	cJSON_AddStringToObject(o, "build", f->build);
	cJSON_AddNumberToObject(o, "run_number", (double)f->run_number);
	cJSON_AddStringToObject(o, "started_at", f->started_at);
	if (c->prov[g->at - 1] && c->prov[g->at])
		qe_hprov_diff(c->prov[g->at - 1], c->prov[g->at], pc);
	cJSON_AddItemToObject(o, "changes", pc);
	cJSON_AddStringToObject(o, "level", qe_vocab_name(&qe_vocab_levels, level));
	return o;
}

static struct crow *
keep(struct compare *c, int chg, int level, double effect, cJSON *rec)
{
	struct crow *r;

	c->r = qe_mem_grow(c->r, c->nr, &c->cap, sizeof *c->r, 256);
	r = &c->r[c->nr++];
	r->chg = chg;
	r->level = level;
	r->effect = effect;
	r->p = 1;
	r->mv = QE_MV_SAME;
	r->rec = rec;
	return r;
}

/*
 * One lecture's or cell's row of change k, from c->b[0..nb) and
 * c->a[0..na); sigma_log the noise of its logs, sigma (a cell) of its
 * seconds.
 */
static void
compare_row(struct compare *c, int k, const char *doc, const struct qe_hcell *cell, int nb, int na,
    double sigma_log, double sigma)
{
	struct chg *g = &c->c[k];
	double lo, hi, r = qe_robust_hl_ratio(c->b, (size_t)nb, c->a, (size_t)na, &lo, &hi);
	double u = 1 / c->rn.scale[g->at];	/* seconds in the class of the change's build */
	double mb = u * qe_robust_median(c->b, (size_t)nb), ma = u * qe_robust_median(c->a, (size_t)na);
	double floor = cell ? u * qe_hq_step_need(sigma, QE_HQ_CELL_LEAST, nb, na) : 0, p;
	int mv = moved(nb, na, r, lo, hi, ma - mb, floor, sigma_log, &p);
	struct crow *kept;
	cJSON *o;

	if (!cell && nb > 0 && na > 0)
		g->sum_b += mb, g->sum_a += ma;
	g->ntested += mv != QE_MV_UNKNOWN;
	if (mv != QE_MV_SLOWER && mv != QE_MV_FASTER && !c->q->all)
		return;
	o = row_new(c, g, cell ? QE_LV_CELL : QE_LV_LECTURE);
	cJSON_AddStringToObject(o, "document", doc);
	qe_json_add_str_or_null(o, "cell", cell ? cell->key : NULL);
	qe_json_add_str_or_null(o, "label", cell ? cell->label : NULL);
	cJSON_AddNumberToObject(o, "n_before", nb);
	cJSON_AddNumberToObject(o, "n_after", na);
	qe_json_add_num_or_null(o, "median_before_s", nb > 0, mb);
	qe_json_add_num_or_null(o, "median_after_s", na > 0, ma);
	qe_json_add_num_or_null(o, "ratio", !isnan(r), r);
	qe_json_add_num_or_null(o, "ci_low", !isnan(lo), lo);
	qe_json_add_num_or_null(o, "ci_high", !isnan(hi), hi);
	cJSON_AddStringToObject(o, "moved", qe_vocab_name(&qe_vocab_moves, mv));
	kept = keep(c, k, cell ? QE_LV_CELL : QE_LV_LECTURE, isnan(r) ? 0 : fabs(log(r)), o);
	kept->p = p;
	kept->mv = mv;
}

static int
cmp_p(const void *x, const void *y)
{
	const struct crow *a = *(const struct crow *const *)x, *b = *(const struct crow *const *)y;

	return (a->p > b->p) - (a->p < b->p);
}

/*
 * One change's moves as a family (Benjamini-Hochberg at QE_HQ_COMPARE_FDR
 * over its g->ntested lectures and cells): the moves by p, the i-th of
 * them stays when some j >= i has p_j <= FDR x j / ntested; the others
 * are "same". A change where nothing moved then needs a move some 4
 * standard errors out among the ~1,000 series of a repository (each of
 * them is a chance for noise), an upgrade with many moves keeps the rule's
 * own QE_HQ_COMPARE_SE.
 */
static void
family(struct compare *c, int k, struct crow **m)
{
	struct chg *g = &c->c[k];
	int n = 0, pass = 0;

	for (size_t i = 0; i < c->nr; i++)
		if (c->r[i].chg == k && (c->r[i].mv == QE_MV_SLOWER || c->r[i].mv == QE_MV_FASTER))
			m[n++] = &c->r[i];
	if (n > 1)
		qsort(m, (size_t)n, sizeof *m, cmp_p);
	for (int j = n; j > 0 && pass == 0; j--)
		if (m[j - 1]->p <= QE_HQ_COMPARE_FDR * j / g->ntested)
			pass = j;
	for (int j = 0; j < n; j++) {
		if (j < pass) {
			*(m[j]->level == QE_LV_CELL ? &g->ncell : &g->nlec) += 1;
			continue;
		}
		m[j]->mv = QE_MV_SAME;
		cJSON_ReplaceItemInObject(m[j]->rec, "moved",
		    qe_json_check(cJSON_CreateString(qe_vocab_name(&qe_vocab_moves, QE_MV_SAME))));
	}
}

/* Every change's family; then only the rows that moved unless q->all. */
static void
families(struct compare *c)
{
	struct crow **m = qe_xcalloc(c->nr + 1, sizeof *m);
	size_t n = 0;

	for (int k = 0; k < c->nc; k++)
		family(c, k, m);
	free(m);
	for (size_t i = 0; i < c->nr; i++) {
		if (!c->q->all && c->r[i].mv != QE_MV_SLOWER && c->r[i].mv != QE_MV_FASTER) {
			cJSON_Delete(c->r[i].rec);
			continue;
		}
		c->r[n++] = c->r[i];
	}
	c->nr = n;
}

/*
 * Split value v at position p into change g's sides; [from, until) = the
 * positions a side may take (from the series' newest edit before the
 * change to its first edit after it).
 */
static void
side(struct compare *c, const struct chg *g, int from, int until, int p, double v, int *nb, int *na)
{
	if (isnan(v) || p < g->lo || p < from || p >= g->hi || p >= until)
		return;
	if (p < g->at)
		c->b[(*nb)++] = v;
	else
		c->a[(*na)++] = v;
}

/* The sigma of the logs of v[0..n) (floored at QE_ROBUST_FLOOR_S), into w. */
static double
log_sigma(const double *v, int n, double *w)
{
	int m = 0;

	for (int i = 0; i < n; i++)
		if (!isnan(v[i]))
			w[m++] = qe_robust_floorlog(v[i]);
	return qe_hq_sigma(w, m);
}

/* Did what the kernel ran with (kernel_env) change between two builds of a document? */
static int
kenv_differs(const struct qe_hdocb *x, const struct qe_hdocb *y)
{
	return !qe_mem_streq(x->kenv, y->kenv);
}

static void
edge_add(struct edges *x, int at, int lo, int hi)
{
	x->e = qe_mem_grow(x->e, x->n, &x->cap, sizeof *x->e, 16);
	x->e[x->n++] = (struct edge){ at, lo, hi };
}

/*
 * The positions a side may take around change g, [*from, *until): from
 * the series' newest edge before the change to its first edge after it;
 * a step that may be at the change (lo <= at <= hi) is no edge of it.
 */
static void
side_span(const struct chg *g, const struct edges *x, int *from, int *until)
{
	for (size_t i = 0; i < x->n; i++) {
		const struct edge *e = &x->e[i];

		if (e->lo <= g->at && g->at <= e->hi)
			continue;
		if (e->at < g->at && e->at > *from)
			*from = e->at;
		else if (e->at > g->at && e->at < *until)
			*until = e->at;
	}
}

/*
 * The series' own steps (qe_hq_steps: where changes puts them, each one
 * the data make plain; a step with a cause at its build is at an edge
 * already), each runner class's run on its own, added to x (and to also,
 * when not NULL). v[i] (NaN: none) at position pos[i].
 */
static void
own_steps(struct compare *c, const double *v, const int *pos, int n, double least, struct edges *x,
    struct edges *also)
{
	int m = 0;

	for (int i = 0; i <= n; i++) {
		if (m > 0 && (i == n || (!isnan(v[i]) && !qe_mem_streq(c->bs->b[c->sp[m - 1]].runner_class,
		    c->bs->b[pos[i]].runner_class)))) {
			struct qe_hq_run r = { .v = c->sv, .n = m, .minseg = QE_HQ_MINSEG,
				.penalty = QE_HQ_PENALTY, .least = least, .y = c->sy, .ys = c->sys,
				.cps = c->scps, .lo = c->slo, .hi = c->shi };
			int k = qe_hq_steps(&r);

			for (int j = 0; j < k; j++) {
				edge_add(x, c->sp[c->scps[j]], c->sp[c->slo[j]], c->sp[c->shi[j]]);
				if (also)
					edge_add(also, c->sp[c->scps[j]], c->sp[c->slo[j]], c->sp[c->shi[j]]);
			}
			m = 0;
		}
		if (i < n && !isnan(v[i])) {
			c->sv[m] = v[i];
			c->sp[m++] = pos[i];
		}
	}
}

/*
 * A lecture's rows: its sides stop at an edit (a build whose cells
 * changed), a kernel change (kernel_env), a step of its own or of one of
 * its cells (c->cst) either side of the change.
 */
static void
lecture_rows(struct compare *c, const struct qe_hdoc *d, double sigma_log)
{
	c->ed.n = 0;
	for (int i = 1; i < d->n; i++)	/* the edits, once for every change */
		if (qe_hdocb_cells_differ(&d->in[i - 1], &d->in[i]) || kenv_differs(&d->in[i - 1], &d->in[i]))
			edge_add(&c->ed, d->in[i].pos, d->in[i].pos, d->in[i].pos);
	for (int i = 0; i < d->n; i++) {
		c->w[i] = d->in[i].ok ? d->in[i].lecture_s : NAN;
		c->sp[d->n + i] = d->in[i].pos;
	}
	own_steps(c, c->w, c->sp + d->n, d->n, QE_HQ_LECTURE_LEAST, &c->ed, NULL);
	for (size_t i = 0; i < c->cst.n; i++)
		edge_add(&c->ed, c->cst.e[i].at, c->cst.e[i].lo, c->cst.e[i].hi);
	for (int j = 0; j < c->nc; j++) {
		const struct chg *g = &c->c[j];
		int nb = 0, na = 0, from = 0, until = c->bs->n;

		if (g->machine)
			continue;
		side_span(g, &c->ed, &from, &until);
		for (int i = 0; i < d->n; i++)
			if (d->in[i].ok)
				side(c, g, from, until, d->in[i].pos, d->in[i].lecture_s * c->rn.scale[d->in[i].pos],
				    &nb, &na);
		if (nb + na > 0)
			compare_row(c, j, d->name, NULL, nb, na, sigma_log, 0);
	}
}

/*
 * A cell's rows (floored durations): its sides stop at its edits, kernel
 * changes and its own steps either side of the change; its steps go to
 * c->cst for its lecture.
 */
static void
cell_rows(struct compare *c, const struct qe_hdoc *d, const struct qe_hkeyed *k, double *v)
{
	double sigma_log, sigma;
	int m = 0;

	for (int i = 0; i < k->n; i++)
		if (!isnan(v[i] = k->cell[i]->dur * c->rn.scale[d->in[k->in[i]].pos]))
			c->w[m++] = v[i];
	sigma = qe_hq_sigma(c->w, m);
	sigma_log = log_sigma(v, k->n, c->w);
	for (int i = 0; i < k->n; i++)
		v[i] = isnan(v[i]) ? NAN : fmax(v[i], QE_ROBUST_FLOOR_S);
	c->ed.n = 0;
	for (int i = 1; i < k->n; i++)	/* the edits, once for every change */
		if (strcmp(k->cell[i - 1]->sha, k->cell[i]->sha) != 0 ||
		    kenv_differs(&d->in[k->in[i - 1]], &d->in[k->in[i]]))
			edge_add(&c->ed, d->in[k->in[i]].pos, d->in[k->in[i]].pos, d->in[k->in[i]].pos);
	for (int i = 0; i < k->n; i++) {
		c->w[i] = k->cell[i]->dur;
		c->sp[d->n + i] = d->in[k->in[i]].pos;
	}
	own_steps(c, c->w, c->sp + d->n, k->n, QE_HQ_CELL_LEAST, &c->ed, &c->cst);
	for (int j = 0; j < c->nc; j++) {
		const struct chg *g = &c->c[j];
		int nb = 0, na = 0, from = 0, until = c->bs->n;

		if (g->machine)
			continue;
		side_span(g, &c->ed, &from, &until);
		for (int i = 0; i < k->n; i++)
			side(c, g, from, until, d->in[k->in[i]].pos, v[i], &nb, &na);
		if (nb > 0 && na > 0)
			compare_row(c, j, d->name, k->cell[k->n - 1], nb, na, sigma_log, sigma);
	}
}

static int
compare_doc(const struct qe_hdoc *d, void *ctx)
{
	struct compare *c = ctx;
	struct qe_hkeyed *k;
	int nk = qe_hdoc_keys(d, &k);
	size_t n = (size_t)d->n + 1;
	double *v = qe_xcalloc(n, sizeof *v);

	c->w = qe_xcalloc(n, sizeof *c->w);
	c->sv = qe_xcalloc(n, sizeof *c->sv);
	c->sy = qe_xcalloc(n, sizeof *c->sy);
	c->sys = qe_xcalloc(n, sizeof *c->sys);
	c->sp = qe_xcalloc(2 * n, sizeof *c->sp);
	c->scps = qe_xcalloc(n, sizeof *c->scps);
	c->slo = qe_xcalloc(n, sizeof *c->slo);
	c->shi = qe_xcalloc(n, sizeof *c->shi);
	c->cst.n = 0;
	for (int e = 0; e < nk; e++)	/* the cells first: their steps are the lecture's edges too */
		cell_rows(c, d, &k[e], v);
	for (int i = 0; i < d->n; i++)
		v[i] = d->in[i].ok ? d->in[i].lecture_s * c->rn.scale[d->in[i].pos] : NAN;
	lecture_rows(c, d, log_sigma(v, d->n, c->w));
	free(c->w);
	free(c->sv);
	free(c->sy);
	free(c->sys);
	free(c->sp);
	free(c->scps);
	free(c->slo);
	free(c->shi);
	free(v);
	qe_hkeyed_free(k, nk);
	return 0;
}

/* Each change's build-level row: the sum of its lectures' medians, or the machine change. */
static void
build_rows(struct compare *c)
{
	for (int k = 0; k < c->nc; k++) {
		struct chg *g = &c->c[k];
		cJSON *o = row_new(c, g, QE_LV_BUILD);

		cJSON_AddNullToObject(o, "document");
		cJSON_AddNullToObject(o, "cell");
		cJSON_AddNullToObject(o, "label");
		cJSON_AddNumberToObject(o, "n_before", g->at - g->lo);
		cJSON_AddNumberToObject(o, "n_after", g->hi - g->at);
		qe_json_add_num_or_null(o, "median_before_s", !g->machine, g->sum_b);
		qe_json_add_num_or_null(o, "median_after_s", !g->machine, g->sum_a);
		qe_json_add_num_or_null(o, "ratio", !g->machine && g->sum_b > 0, g->sum_a / g->sum_b);
		cJSON_AddNullToObject(o, "ci_low");
		cJSON_AddNullToObject(o, "ci_high");
		cJSON_AddStringToObject(o, "moved", qe_vocab_name(&qe_vocab_moves, g->machine ?
		    QE_MV_MACHINE : g->nlec + g->ncell ? QE_MV_MOVED : QE_MV_NOTHING));
		cJSON_AddNumberToObject(o, "moved_lectures", g->nlec);
		cJSON_AddNumberToObject(o, "moved_cells", g->ncell);
		keep(c, k, QE_LV_BUILD, INFINITY, o);
	}
}

static int
cmp_crow(const void *x, const void *y)
{
	const struct crow *a = x, *b = y;

	if (a->chg != b->chg)
		return a->chg < b->chg ? -1 : 1;
	if (a->level != b->level)
		return a->level < b->level ? -1 : 1;
	return (a->effect < b->effect) - (a->effect > b->effect);
}

static const struct qe_hcol compare_cols[] = {
	{ "run_number", "build", QE_HF_RUN }, { "started_at", "date", QE_HF_DATE },
	{ "changes", "what changed", QE_HF_CHANGES }, { "level", "level", QE_HF_TEXT },
	{ "document", "document", QE_HF_CODE }, { "label", "cell", QE_HF_TEXT },
	{ "median_before_s", "median before", QE_HF_DUR }, { "median_after_s", "median after", QE_HF_DUR },
	{ "ratio", "ratio", QE_HF_RATIO }, { "ci_low", "95% low", QE_HF_RATIO },
	{ "ci_high", "95% high", QE_HF_RATIO }, { "moved", "moved", QE_HF_TEXT },
	{ NULL, NULL, 0 }
};

static void
say_none(const struct qe_hq *q, int n)
{
	if (q->by < 0)
		warnx("%s: compare: no environment or runner change among %d main builds", q->path, n);
	else
		warnx("%s: compare: %s %s does not change among %d main builds", q->path,
		    q->by == QE_BY_PACKAGE ? "package" : "the", q->by == QE_BY_PACKAGE ?
		    q->package : qe_vocab_name(&qe_vocab_compare_bys, q->by), n);
}

int
qe_hq_compare(const struct qe_hq *q)
{
	struct qe_hbuilds bs;
	struct compare c = { .q = q, .bs = &bs };
	struct qe_hout o;
	int rc = 0;

	if (qe_hbuilds_load(q->db, q->path, &bs) < 0)
		return QE_EXIT_TROUBLE;
	if (qe_hrunner_load(q->db, q->path, &bs, &c.rn) < 0) {
		qe_hbuilds_free(&bs);
		return QE_EXIT_TROUBLE;
	}
	c.prov = qe_xcalloc((size_t)bs.n + 1, sizeof *c.prov);
	for (int i = 0; i < bs.n; i++)
		c.prov[i] = cJSON_Parse(bs.b[i].provenance);
	find_changes(&c);
	c.b = qe_xcalloc(QE_HQ_WINDOW + 1, sizeof *c.b);
	c.a = qe_xcalloc(QE_HQ_WINDOW_AFTER + 1, sizeof *c.a);
	if (c.nc > 0) {
		rc = qe_hdocs_each(q->db, q->path, &bs, NULL, compare_doc, &c);
		families(&c);
		if (rc == 0 && widen(&c)) {
			rc = qe_hdocs_each(q->db, q->path, &bs, NULL, compare_doc, &c);
			families(&c);
		}
	} else
		say_none(q, bs.n);
	build_rows(&c);
	if (c.nr > 1)
		qsort(c.r, c.nr, sizeof *c.r, cmp_crow);
	qe_hout_begin(&o, q->md, q->sink, compare_cols);
	for (size_t i = 0; i < c.nr; i++)
		qe_hout_row(&o, c.r[i].rec);
	qe_hout_end(&o);
	for (int i = 0; i < bs.n; i++)
		cJSON_Delete(c.prov[i]);
	for (int k = 0; k < c.nc; k++) {
		free(c.c[k].before);
		free(c.c[k].after);
	}
	free(c.prov);
	free(c.ed.e);
	free(c.cst.e);
	free(c.edge);
	free(c.c);
	free(c.r);
	free(c.b);
	free(c.a);
	qe_hrunner_free(&c.rn);
	qe_hbuilds_free(&bs);
	return rc == 0 ? QE_EXIT_OK : QE_EXIT_TROUBLE;
}
