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
 * the level's absolute floor in seconds; the weakest failing one is
 * dropped (its segments merged) until all pass (validate).
 */
#include <err.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qe.h"
#include "qe_mem.h"
#include "qe_json.h"
#include "qe_vocab.h"
#include "qe_changept.h"
#include "qe_hload.h"
#include "qe_hout.h"
#include "qe_hprov.h"
#include "qe_hquery.h"
#include "qe_robust.h"
#include "qe_stats.h"

/* A change found, with what it is ordered by. */
struct found {
	int pos, level, idx;
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
	int *pos;
	double *v, *y, *ys;
	int *cps;
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

static cJSON *
change_rec(const struct changes *c, int level, const char *doc, const struct qe_hcell *cell,
    int prev, int first, const double *bv, int nb, const double *av, int na)
{
	const struct qe_hbuild_row *b = &c->bs->b[first], *p = &c->bs->b[prev];
	cJSON *o = qe_json_record_new("history-change");
	double mb = qe_robust_median(bv, (size_t)nb), ma = qe_robust_median(av, (size_t)na);

	cJSON_AddStringToObject(o, "level", qe_vocab_name(&qe_vocab_levels, level));
	qe_json_add_str_or_null(o, "document", doc);
	qe_json_add_str_or_null(o, "cell", cell ? cell->key : NULL);
	qe_json_add_str_or_null(o, "label", cell ? cell->label : NULL);
	qe_json_add_str_or_null(o, "name", cell ? cell->name : NULL);
	cJSON_AddStringToObject(o, "build", b->build);
	qe_json_add_str_or_null(o, "commit", b->commit);
	cJSON_AddStringToObject(o, "started_at", b->started_at);
	cJSON_AddStringToObject(o, "previous_build", p->build);
	qe_json_add_str_or_null(o, "previous_commit", p->commit);
	cJSON_AddNumberToObject(o, "before_median_s", mb);
	cJSON_AddNumberToObject(o, "after_median_s", ma);
	cJSON_AddNumberToObject(o, "ratio", mb > 0 ? ma / mb : 0);
	cJSON_AddNumberToObject(o, "n_before", nb);
	cJSON_AddNumberToObject(o, "n_after", na);
	cJSON_AddItemToObject(o, "provenance_changes", prov_changes(c->bs, prev, first));
	return qe_json_check(o);
}

static void
keep(struct changes *c, int pos, int level, const char *doc, int idx, cJSON *rec)
{
	struct found *f;

	c->f = qe_mem_grow(c->f, c->nf, &c->cap, sizeof *c->f, 64);
	f = &c->f[c->nf++];
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
step_p(const double *bv, int nb, const double *av, int na, double floor)
{
	double mb = qe_robust_median(bv, (size_t)nb), ma = qe_robust_median(av, (size_t)na);

	if (fabs(qe_robust_floorlog(ma) - qe_robust_floorlog(mb)) < log(QE_HQ_MIN_RATIO) || fabs(ma - mb) < floor)
		return 2;
	return qe_stats_mann_whitney(bv, nb, av, na);
}

/*
 * Keep the change points cps[0..k) of x[0..n) that pass: while one fails
 * (p >= QE_HQ_ALPHA against its neighbouring segments), drop the weakest
 * and test again with the merged segment. Returns how many remain.
 */
static int
validate(const double *x, int n, int *cps, int k, double floor)
{
	for (;;) {
		int worst = -1;
		double wp = 0;

		for (int j = 0; j < k; j++) {
			int a = j > 0 ? cps[j - 1] : 0, t = cps[j], z = j + 1 < k ? cps[j + 1] : n;
			double p = step_p(x + a, t - a, x + t, z - t, floor);

			if (p >= QE_HQ_ALPHA && p > wp)
				worst = j, wp = p;
		}
		if (worst < 0)
			return k;
		memmove(cps + worst, cps + worst + 1, (size_t)(k - worst - 1) * sizeof *cps);
		k--;
	}
}

/* Segment one run of a series, c->v[s..e) at positions c->pos[s..e). */
static void
segment(struct changes *c, int s, int e, int level, const char *doc, const struct qe_hcell *cell,
    double floor)
{
	int n = e - s, k, m = (int)c->q->minseg;
	double noise;

	if (n < 2 * m)
		return;
	noise = qe_robust_noise(c->v + s, (size_t)n);
	noise = isnan(noise) || noise < QE_HQ_NOISE_FLOOR ? QE_HQ_NOISE_FLOOR : noise;
	for (int i = 0; i < n; i++)
		c->y[i] = qe_robust_floorlog(c->v[s + i]);
	qe_changept_clip5(c->y, n, 3 * noise / sqrt(2.0), c->ys);
	k = qe_changept_pelt(c->ys, n, m, c->q->penalty * noise * noise * log((double)n), c->cps);
	k = validate(c->v + s, n, c->cps, k, floor);
	for (int j = 0; j < k; j++) {
		int a = j > 0 ? c->cps[j - 1] : 0, t = c->cps[j], z = j + 1 < k ? c->cps[j + 1] : n;

		keep(c, c->pos[s + t], level, doc, cell ? cell->idx : -1,
		    change_rec(c, level, doc, cell, c->pos[s + t - 1], c->pos[s + t],
		    c->v + s + a, t - a, c->v + s + t, z - t));
	}
}

/* c->v[0..n) at c->pos: each run of one runner class on its own. */
static void
series(struct changes *c, int n, int level, const char *doc, const struct qe_hcell *cell,
    double floor)
{
	int s = 0;

	for (int i = 1; i <= n; i++)
		if (i == n || !same_class(c->bs, c->pos[i - 1], c->pos[i])) {
			segment(c, s, i, level, doc, cell, floor);
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

	for (int i = 0; i < d->n; i++)
		if (d->in[i].ok && !isnan(d->in[i].lecture_s)) {
			c->pos[n] = d->in[i].pos;
			c->v[n++] = d->in[i].lecture_s;
			c->total[d->in[i].pos] += d->in[i].lecture_s;
		}
	series(c, n, QE_LV_LECTURE, d->name, NULL, QE_HQ_LECTURE_FLOOR);
	nk = qe_hdoc_keys(d, &k);
	for (int j = 0; j < nk; j++) {
		n = 0;
		for (int i = 0; i < k[j].n; i++)
			if (!isnan(k[j].cell[i]->dur)) {
				c->pos[n] = d->in[k[j].in[i]].pos;
				c->v[n++] = k[j].cell[i]->dur;
			}
		series(c, n, QE_LV_CELL, d->name, k[j].cell[k[j].n - 1], QE_HQ_CELL_FLOOR);
	}
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
		keep(c, i, QE_LV_BUILD, NULL, -1, change_rec(c, QE_LV_BUILD, NULL, NULL, i - 1, i,
		    c->total + s, i - s, c->total + i, e - i));
		s = i;
	}
}

static int
cmp_found(const void *a, const void *b)
{
	const struct found *x = a, *y = b;
	int d;

	if (x->pos != y->pos)
		return x->pos < y->pos ? -1 : 1;
	if (x->level != y->level)
		return x->level < y->level ? -1 : 1;
	if ((d = strcmp(x->doc ? x->doc : "", y->doc ? y->doc : "")) != 0)
		return d;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

static const struct qe_hcol change_cols[] = {
	{ "started_at", "first build after", QE_HF_TEXT }, { "commit", "commit", QE_HF_SHORT },
	{ "level", "level", QE_HF_TEXT }, { "document", "document", QE_HF_CODE },
	{ "name", "cell", QE_HF_TEXT }, { "before_median_s", "before", QE_HF_DUR },
	{ "after_median_s", "after", QE_HF_DUR }, { "ratio", "ratio", QE_HF_RATIO },
	{ "provenance_changes", "what changed", QE_HF_CHANGES },
	{ NULL, NULL, 0 }
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
	qe_hbuilds_free(&bs);
	return rc == 0 ? QE_EXIT_OK : QE_EXIT_TROUBLE;
}
