/* qe_histmd.c - the Markdown trend section (see qe_histmd.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qe_gfm.h"
#include "qe_histhtml.h"
#include "qe_histmd.h"
#include "qe_json.h"
#include "qe_mem.h"
#include "qe_stats.h"
#include "qe_time.h"
#include "qe_utf8.h"
#include "qe_record.h"

void
qe_histmd_spark(struct qe_buf *b, const double *v, size_t n)
{
	double lo = INFINITY, hi = -INFINITY;
	size_t i;
	int k;

	for (i = 0; i < n; i++)
		if (isfinite(v[i])) {
			lo = fmin(lo, v[i]);
			hi = fmax(hi, v[i]);
		}
	qe_buf_grow(b, 3 * n);
	for (i = 0; i < n; i++) {
		if (!isfinite(v[i])) {
			qe_utf8_put(b, 0xb7);
			continue;
		}
		k = hi > lo ? (int)floor(8 * (v[i] - lo) / (hi - lo)) : 0;
		qe_utf8_put(b, 0x2581 + (k > 7 ? 7 : k));
	}
}

int
qe_histmd_flag(cJSON *docs, const cJSON *rec)
{
	const char *k = qe_json_str(rec, "kind"), *doc = qe_json_str(rec, "document");
	int v = qe_vocab_lookup(&qe_vocab_verdicts, qe_json_str(rec, "verdict"));
	const cJSON *d;

	if (k == NULL || doc == NULL || (strcmp(k, "notebook-diff") != 0 && strcmp(k, "cell-diff") != 0))
		return 0;
	if (v != QE_V_REGRESSION && v != QE_V_IMPROVEMENT)
		return 0;
	cJSON_ArrayForEach(d, docs)
		if (strcmp(d->valuestring, doc) == 0)
			return 0;
	cJSON_AddItemToArray(docs, qe_json_check(cJSON_CreateString(doc)));
	return 1;
}

struct tp {
	struct qe_time t;
	double s;
};

static int
tp_cmp(const void *pa, const void *pb)
{
	const struct tp *a = pa, *b = pb;
	int64_t d = qe_time_diff_us(&b->t, &a->t);

	return d < 0 ? -1 : d > 0;
}

/* doc's lecture points by time: a new array, *np long */
static struct tp *
points_of(const struct qe_histhtml *h, const char *doc, size_t *np)
{
	struct tp *v = NULL;
	size_t n = 0, cap = 0;
	const cJSON *p;
	const char *lv, *d;

	cJSON_ArrayForEach(p, h->points) {
		lv = qe_json_str(p, "level");
		d = qe_json_str(p, "document");
		if (lv == NULL || d == NULL || strcmp(lv, "lecture") != 0 || strcmp(d, doc) != 0)
			continue;
		v = qe_mem_grow(v, n, &cap, sizeof *v, 64);
		if (!qe_json_time(p, "started_at", &v[n].t))
			continue;
		v[n++].s = qe_json_num(p, "seconds");
	}
	if (n > 1)
		qsort(v, n, sizeof *v, tp_cmp);
	*np = n;
	return v;
}

/* the newest lecture-level change of doc, or NULL */
static const cJSON *
last_change(const struct qe_histhtml *h, const char *doc)
{
	const cJSON *c, *best = NULL;
	struct qe_time t, bt;
	const char *lv, *d;

	cJSON_ArrayForEach(c, h->changes) {
		lv = qe_json_str(c, "level");
		d = qe_json_str(c, "document");
		if (lv == NULL || d == NULL || strcmp(lv, "lecture") != 0 || strcmp(d, doc) != 0 ||
		    !qe_json_time(c, "started_at", &t))
			continue;
		if (best == NULL || qe_time_diff_us(&bt, &t) > 0) {
			best = c;
			bt = t;
		}
	}
	return best;
}

static void
step_cell(struct qe_buf *b, const cJSON *c)
{
	const char *commit;
	char *cut;

	if (c == NULL) {
		qe_buf_adds(b, QE_GFM_NONE);
		return;
	}
	qe_gfm_ratio(b, qe_json_num(c, "ratio"));
	commit = qe_json_str(c, "commit");
	if (commit != NULL) {
		cut = qe_xstrndup(commit, 7);
		qe_buf_adds(b, " at ");
		qe_gfm_code(b, cut, 7, 1);
		free(cut);
	}
	if (qe_json_str(c, "started_at") != NULL) {
		cut = qe_xstrndup(qe_json_str(c, "started_at"), 10);
		qe_buf_adds(b, " (");
		qe_gfm_text(b, cut, 10);
		qe_buf_adds(b, ")");
		free(cut);
	}
}

static int
trend_row(struct qe_buf *b, const struct qe_histhtml *h, const char *doc, size_t last)
{
	size_t n, i, k = 0, from;
	struct tp *v = points_of(h, doc, &n);
	double *s, now = NAN;

	if (n == 0) {
		free(v);
		return 0;
	}
	from = n > last ? n - last : 0;
	s = qe_xmalloc((n - from) * sizeof *s);
	for (i = from; i < n; i++) {
		s[i - from] = v[i].s;
		if (isfinite(v[i].s))
			now = v[i].s;
	}
	qe_buf_adds(b, "| ");
	qe_gfm_code(b, doc, 60, 1);
	qe_buf_adds(b, " | ");
	qe_histmd_spark(b, s, n - from);
	qe_buf_adds(b, " | ");
	qe_gfm_dur(b, now);
	qe_buf_adds(b, " | ");
	for (i = from; i < n; i++)
		if (isfinite(v[i].s))
			s[k++] = v[i].s;
	qe_gfm_dur(b, k ? qe_stats_median(s, (int)k) : NAN);
	qe_buf_adds(b, " | ");
	step_cell(b, last_change(h, doc));
	qe_buf_adds(b, " |\n");
	free(s);
	free(v);
	return 1;
}

int
qe_histmd_trends(struct qe_buf *b, const struct qe_histhtml *h, const cJSON *docs, size_t last,
    int flagged)
{
	struct qe_buf rows = { 0 };
	const cJSON *d;
	int n = 0;

	cJSON_ArrayForEach(d, docs)
		if (cJSON_IsString(d))
			n += trend_row(&rows, h, d->valuestring, last ? last : 16);
	if (n > 0) {
		qe_buf_adds(b, flagged ? "#### Trend on main of the lectures above\n\n"
		    : "### Trends on main\n\n");
		qe_buf_addf(b, "Each lecture's time (the sum of its cell times) over its last %zu main builds, "
		    "oldest first (\u00b7: no time that build).\n\n"
		    "| Lecture | Trend | Now | Median | Last step |\n|---|---|--:|--:|---|\n", last ? last : 16);
		qe_buf_add(b, rows.data, rows.len);
		qe_buf_adds(b, "\n");
	}
	qe_buf_free(&rows);
	return n;
}
