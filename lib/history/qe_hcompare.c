/*
 * qe-history compare (qe_hquery.h): before/after distributions of every
 * lecture across the newest change of a package's version, the
 * fingerprint, or the environment files' digest among main's builds.
 *
 * The change is at the newest build i whose value differs from build
 * i-1's. Before: up to QE_HQ_WINDOW builds ending at i-1 with i-1's value
 * and runner class; after: up to QE_HQ_WINDOW from i with i's value and
 * runner class (a runner change is not an environment change). Per
 * lecture: the Hodges-Lehmann ratio after/before of the lecture's times
 * with its 95% interval (the interval carries the lecture's noise);
 * "slower"/"faster" when the interval excludes 1, the ratio is beyond
 * QE_HQ_MIN_RATIO either way and the medians differ by QE_HQ_LECTURE_FLOOR seconds;
 * "same" otherwise; "unknown" with fewer than 3 builds on a side.
 */
#include <err.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qe.h"
#include "qe_mem.h"
#include "qe_json.h"
#include "qe_vocab.h"
#include "qe_hload.h"
#include "qe_hout.h"
#include "qe_hprov.h"
#include "qe_hquery.h"
#include "qe_robust.h"

struct compare {
	const struct qe_hq *q;
	const struct qe_hbuilds *bs;
	char **val;		/* val[pos]: the build's value, or NULL */
	int lo, at, hi;		/* before: [lo, at), after: [at, hi) */
	double *b, *a;
	struct qe_hout o;
};

static int
same(const char *x, const char *y)
{
	return (x == NULL && y == NULL) || (x && y && strcmp(x, y) == 0);
}

/* Each build's value, then the newest change and its windows; 0 if none. */
static int
find_change(struct compare *c)
{
	const struct qe_hbuilds *bs = c->bs;

	c->val = qe_xcalloc((size_t)bs->n + 1, sizeof *c->val);
	for (int i = 0; i < bs->n; i++) {
		cJSON *p = cJSON_Parse(bs->b[i].provenance);
		const char *v = p ? qe_hprov_value(p, c->q->by, c->q->package) : NULL;

		c->val[i] = v ? qe_xstrdup(v) : NULL;
		cJSON_Delete(p);
	}
	for (c->at = bs->n - 1; c->at > 0 && same(c->val[c->at], c->val[c->at - 1]); c->at--)
		continue;
	if (c->at <= 0)
		return 0;
	for (c->lo = c->at - 1; c->lo > 0 && c->at - c->lo < QE_HQ_WINDOW &&
	    same(c->val[c->lo - 1], c->val[c->at - 1]) &&
	    same(bs->b[c->lo - 1].runner_class, bs->b[c->at - 1].runner_class); c->lo--)
		continue;
	for (c->hi = c->at + 1; c->hi < bs->n && c->hi - c->at < QE_HQ_WINDOW &&
	    same(c->val[c->hi], c->val[c->at]) &&
	    same(bs->b[c->hi].runner_class, bs->b[c->at].runner_class); c->hi++)
		continue;
	return 1;
}

static int
moved(const double *b, int nb, const double *a, int na, double r, double lo, double hi)
{
	double need = log(QE_HQ_MIN_RATIO), d;

	if (nb < 3 || na < 3 || isnan(r) || isnan(lo))
		return QE_MV_UNKNOWN;
	d = qe_robust_median(a, (size_t)na) - qe_robust_median(b, (size_t)nb);
	if (lo > 1 && log(r) >= need && d >= QE_HQ_LECTURE_FLOOR)
		return QE_MV_SLOWER;
	if (hi < 1 && -log(r) >= need && -d >= QE_HQ_LECTURE_FLOOR)
		return QE_MV_FASTER;
	return QE_MV_SAME;
}

static cJSON *
compare_rec(const struct compare *c, const char *doc, int nb, int na)
{
	cJSON *o = qe_json_record_new("history-compare");
	double lo, hi, r = qe_robust_hl_ratio(c->b, (size_t)nb, c->a, (size_t)na, &lo, &hi);

	cJSON_AddStringToObject(o, "by", qe_vocab_name(&qe_vocab_compare_bys, c->q->by));
	qe_json_add_str_or_null(o, "name", c->q->by == QE_BY_PACKAGE ? c->q->package : NULL);
	qe_json_add_str_or_null(o, "before", c->val[c->at - 1]);
	qe_json_add_str_or_null(o, "after", c->val[c->at]);
	cJSON_AddStringToObject(o, "build", c->bs->b[c->at].build);
	cJSON_AddStringToObject(o, "document", doc);
	cJSON_AddNumberToObject(o, "n_before", nb);
	cJSON_AddNumberToObject(o, "n_after", na);
	qe_json_add_num_or_null(o, "median_before_s", nb > 0, qe_robust_median(c->b, (size_t)nb));
	qe_json_add_num_or_null(o, "median_after_s", na > 0, qe_robust_median(c->a, (size_t)na));
	qe_json_add_num_or_null(o, "ratio", !isnan(r), r);
	qe_json_add_num_or_null(o, "ci_low", !isnan(lo), lo);
	qe_json_add_num_or_null(o, "ci_high", !isnan(hi), hi);
	cJSON_AddStringToObject(o, "moved", qe_vocab_name(&qe_vocab_moves, moved(c->b, nb, c->a, na, r, lo, hi)));
	return o;
}

static int
compare_doc(const struct qe_hdoc *d, void *ctx)
{
	struct compare *c = ctx;
	int nb = 0, na = 0;

	for (int i = 0; i < d->n; i++) {
		int p = d->in[i].pos;
		double v = d->in[i].lecture_s;

		if (!d->in[i].ok || isnan(v) || p < c->lo || p >= c->hi)
			continue;
		if (p < c->at)
			c->b[nb++] = v;
		else
			c->a[na++] = v;
	}
	if (nb + na > 0)
		qe_hout_row(&c->o, compare_rec(c, d->name, nb, na));
	return 0;
}

static const struct qe_hcol compare_cols[] = {
	{ "document", "document", QE_HF_CODE }, { "before", "before", QE_HF_SHORT },
	{ "after", "after", QE_HF_SHORT }, { "median_before_s", "median before", QE_HF_DUR },
	{ "median_after_s", "median after", QE_HF_DUR }, { "ratio", "ratio", QE_HF_RATIO },
	{ "ci_low", "95% low", QE_HF_RATIO }, { "ci_high", "95% high", QE_HF_RATIO },
	{ "moved", "moved", QE_HF_TEXT },
	{ NULL, NULL, 0 }
};

int
qe_hq_compare(const struct qe_hq *q)
{
	struct qe_hbuilds bs;
	struct compare c = { .q = q, .bs = &bs };
	int rc = 0;

	if (qe_hbuilds_load(q->db, q->path, &bs) < 0)
		return QE_EXIT_TROUBLE;
	qe_hout_begin(&c.o, q->md, q->sink, compare_cols);
	if (find_change(&c)) {
		c.b = qe_xcalloc(QE_HQ_WINDOW + 1, sizeof *c.b);
		c.a = qe_xcalloc(QE_HQ_WINDOW + 1, sizeof *c.a);
		rc = qe_hdocs_each(q->db, q->path, &bs, NULL, compare_doc, &c);
	} else {
		warnx("%s: compare: %s %s does not change among %d main builds", q->path,
		    q->by == QE_BY_PACKAGE ? "package" : "the", q->by == QE_BY_PACKAGE ?
		    q->package : qe_vocab_name(&qe_vocab_compare_bys, q->by), bs.n);
	}
	qe_hout_end(&c.o);
	for (int i = 0; c.val && i < bs.n; i++)
		free(c.val[i]);
	free(c.val);
	free(c.b);
	free(c.a);
	qe_hbuilds_free(&bs);
	return rc == 0 ? QE_EXIT_OK : QE_EXIT_TROUBLE;
}
