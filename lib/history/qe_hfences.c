/*
 * qe-history fences (qe_hquery.h): a noise fence per cell and per lecture
 * from the last K main builds of the newest runner class.
 *
 * noise = qe_robust_noise (1.4826 x MAD of consecutive log-ratios, floored logs);
 * ratio = exp(QE_HQ_FENCE_Z x noise) clamped to [QE_HQ_FENCE_LO,
 * QE_HQ_FENCE_HI]; abs_s = max(QE_HQ_FENCE_ABS, QE_HQ_FENCE_Z x 1.4826 x
 * MAD of consecutive differences). A series with fewer than
 * QE_HQ_FENCE_MIN timed builds gets no fence (qe-cell-diff keeps its
 * defaults for it).
 *
 * Each fence also says the smallest step changes can find in that series
 * (min_step_s, min_step_ratio): the move qe_hq_step_need asks for between
 * these n builds and QE_HQ_DETECT_AFTER builds after a step, as a ratio no
 * less than QE_HQ_MIN_RATIO (qe_hq_step_ratio). Below it, "no change" means
 * no change this history can see. A step nothing explains at its own
 * build needs more (min_unexplained_ratio): its log medians
 * qe_hq_unexplained_need apart, from the same n and QE_HQ_DETECT_AFTER
 * builds and the sigma of these builds' logs.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qe.h"
#include "qe_mem.h"
#include "qe_json.h"
#include "qe_hload.h"
#include "qe_hout.h"
#include "qe_hquery.h"
#include "qe_robust.h"

double
qe_hq_sigma(const double *v, int n)
{
	double an = n >= 3 ? qe_robust_abs_noise(v, (size_t)n) : NAN, ss = 0, d;

	if (isnan(an))
		return 0;
	/*
	 * The MAD alone is a poor estimate on 50 builds (a third off, now and
	 * then); the root mean square of the differences, each clipped to 3
	 * MADs (a step or a spike adds one clipped term), is a steadier one.
	 */
	for (int i = 1; i < n; i++) {
		d = fmin(fabs(v[i] - v[i - 1]), 3 * an);
		ss += d * d;
	}
	return fmax(an, sqrt(ss / (n - 1))) / sqrt(2.0);
}

double
qe_hq_step_need(double sigma, double least, int nb, int na)
{
	double se = 1.2533 * sigma * sqrt(1.0 / nb + 1.0 / na);	/* of a difference of medians */

	return fmax(least, fmax(QE_HQ_STEP_Z * sigma, QE_HQ_STEP_SE * se));
}

double
qe_hq_unexplained_need(double sigma_log, int nb, int na)
{
	return QE_HQ_UNEXPLAINED_Z * 1.2533 * sigma_log * sqrt(1.0 / nb + 1.0 / na);
}

double
qe_hq_step_ratio(double m, double f)
{
	double r = fmax(QE_HQ_MIN_RATIO, 1 + f / m);

	if (m < QE_ROBUST_FLOOR_S)	/* durations below it are taken as it */
		r = fmax(r, QE_ROBUST_FLOOR_S * QE_HQ_MIN_RATIO / m);
	return r;
}

struct fences {
	const struct qe_hq *q;
	const struct qe_hbuilds *bs;
	int first;		/* the first position of the newest runner class's run */
	double *v, *lv;		/* one series' durations and their logs */
	struct qe_hout o;
};

static void
fence(struct fences *f, const char *doc, const struct qe_hcell *c, int n)
{
	double noise = qe_robust_noise(f->v, (size_t)n), an = qe_robust_abs_noise(f->v, (size_t)n);
	double ratio = exp(QE_HQ_FENCE_Z * noise), step;
	cJSON *o;

	if (n < QE_HQ_FENCE_MIN || isnan(noise))
		return;
	ratio = ratio < QE_HQ_FENCE_LO ? QE_HQ_FENCE_LO : ratio > QE_HQ_FENCE_HI ? QE_HQ_FENCE_HI : ratio;
	o = qe_json_record_new("history-fence");
	cJSON_AddStringToObject(o, "level", c ? "cell" : "lecture");
	cJSON_AddStringToObject(o, "document", doc);
	qe_json_add_str_or_null(o, "cell", c ? c->key : NULL);
	qe_json_add_str_or_null(o, "label", c ? c->label : NULL);
	qe_json_add_str_or_null(o, "name", c ? c->name : NULL);
	qe_json_add_str_or_null(o, "source_sha256", c ? c->sha : NULL);
	cJSON_AddNumberToObject(o, "n", n);
	cJSON_AddNumberToObject(o, "median_s", qe_robust_median(f->v, (size_t)n));
	cJSON_AddNumberToObject(o, "noise", noise);
	cJSON_AddNumberToObject(o, "ratio", ratio);
	cJSON_AddNumberToObject(o, "abs_s", fmax(QE_HQ_FENCE_ABS, QE_HQ_FENCE_Z * an));
	step = qe_hq_step_need(qe_hq_sigma(f->v, n), c ? QE_HQ_CELL_LEAST : QE_HQ_LECTURE_LEAST, n,
	    QE_HQ_DETECT_AFTER);
	cJSON_AddNumberToObject(o, "min_step_s", step);
	step = qe_hq_step_ratio(qe_robust_median(f->v, (size_t)n), step);
	cJSON_AddNumberToObject(o, "min_step_ratio", step);
	for (int i = 0; i < n; i++)
		f->lv[i] = qe_robust_floorlog(f->v[i]);
	cJSON_AddNumberToObject(o, "min_unexplained_ratio", fmax(step, exp(qe_hq_unexplained_need(
	    fmax(qe_hq_sigma(f->lv, n), QE_HQ_NOISE_FLOOR), n, QE_HQ_DETECT_AFTER))));
	qe_hout_row(&f->o, o);
}

static int
fences_doc(const struct qe_hdoc *d, void *ctx)
{
	struct fences *f = ctx;
	struct qe_hkeyed *k;
	int n = 0, nk;

	for (int i = d->n - 1; i >= 0 && n < f->q->k && d->in[i].pos >= f->first; i--)
		if (d->in[i].ok && !isnan(d->in[i].lecture_s))
			f->v[n++] = d->in[i].lecture_s;
	if (d->in[d->n - 1].pos == f->bs->n - 1)	/* in the newest build */
		fence(f, d->name, NULL, n);
	nk = qe_hdoc_keys(d, &k);
	for (int j = 0; j < nk; j++) {
		const struct qe_hcell *last = k[j].cell[k[j].n - 1];

		if (d->in[k[j].in[k[j].n - 1]].pos != f->bs->n - 1)
			continue;	/* gone from the newest build */
		n = 0;
		for (int i = k[j].n - 1; i >= 0 && n < f->q->k && d->in[k[j].in[i]].pos >= f->first; i--)
			if (!isnan(k[j].cell[i]->dur))
				f->v[n++] = k[j].cell[i]->dur;
		fence(f, d->name, last, n);
	}
	qe_hkeyed_free(k, nk);
	return 0;
}

static const struct qe_hcol fence_cols[] = {
	{ "document", "document", QE_HF_CODE }, { "name", "cell", QE_HF_TEXT },
	{ "level", "level", QE_HF_TEXT }, { "n", "builds", QE_HF_NUM },
	{ "median_s", "median", QE_HF_DUR }, { "noise", "noise", QE_HF_NUM },
	{ "ratio", "fence", QE_HF_RATIO }, { "abs_s", "floor", QE_HF_DUR },
	{ "min_step_ratio", "smallest step", QE_HF_RATIO },
	{ "min_unexplained_ratio", "smallest step, no cause", QE_HF_RATIO },
	{ NULL, NULL, 0 }
};

int
qe_hq_fences(const struct qe_hq *q)
{
	struct qe_hbuilds bs;
	struct fences f = { .q = q, .bs = &bs };
	const char *cls;
	int rc;

	if (qe_hbuilds_load(q->db, q->path, &bs) < 0)
		return QE_EXIT_TROUBLE;
	f.first = bs.n;
	cls = bs.n > 0 ? bs.b[bs.n - 1].runner_class : NULL;
	while (f.first > 0 && ((cls == NULL && bs.b[f.first - 1].runner_class == NULL) ||
	    (cls && bs.b[f.first - 1].runner_class && strcmp(cls, bs.b[f.first - 1].runner_class) == 0)))
		f.first--;
	f.v = qe_xcalloc((size_t)bs.n + 1, sizeof *f.v);
	f.lv = qe_xcalloc((size_t)bs.n + 1, sizeof *f.lv);
	qe_hout_begin(&f.o, q->md, q->sink, fence_cols);
	rc = bs.n > 0 ? qe_hdocs_each(q->db, q->path, &bs, NULL, fences_doc, &f) : 0;
	qe_hout_end(&f.o);
	free(f.v);
	free(f.lv);
	qe_hbuilds_free(&bs);
	return rc == 0 ? QE_EXIT_OK : QE_EXIT_TROUBLE;
}
