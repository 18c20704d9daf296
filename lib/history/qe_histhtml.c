/* qe_histhtml.c - qe-history's report page (see qe_histhtml.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "qe_record.h"
#include "qe_histhtml.h"
#include "qe_histsweep.h"
#include "qe_html.h"
#include "qe_json.h"
#include "qe_mem.h"
#include "qe_time.h"

/* one trend chart's geometry (SVG user units = CSS pixels) */
enum { CW = 400, CH = 178, ML = 52, MR = 14, MT = 30, MB = 34 };

static const char STYLE[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;"
    "color:#1f2328;background:#fff;margin:24px auto;max-width:1240px;padding:0 16px}"
    "h1{font-size:24px;margin:0 0 4px}h2{font-size:19px;margin:28px 0 6px;"
    "border-bottom:1px solid #d0d7de;padding-bottom:4px}"
    ".note{color:#59636e;margin:4px 0 10px}"
    ".grid{display:grid;grid-template-columns:repeat(3,400px);gap:12px 14px}"
    ".chart{border:1px solid #d0d7de;border-radius:6px;background:#fff}"
    "svg text{font-family:system-ui,'DejaVu Sans',sans-serif;fill:#1f2328}"
    "table{border-collapse:collapse;margin:6px 0 4px}"
    "th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:middle}"
    "th{background:#f6f8fa}td.n,td.d{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
    "code{white-space:nowrap;font:12px ui-monospace,'DejaVu Sans Mono',monospace;background:#f6f8fa;padding:1px 4px;border-radius:4px}"
    ".slower{color:#cf222e;font-weight:600}.faster{color:#1a7f37;font-weight:600}"
    ".legend span{margin-right:16px}h3{font-size:15px;margin:16px 0 4px}";

void
qe_histhtml_init(struct qe_histhtml *h)
{
	memset(h, 0, sizeof *h);
	h->slowest = qe_json_check(cJSON_CreateArray());
	h->points = qe_json_check(cJSON_CreateArray());
	h->changes = qe_json_check(cJSON_CreateArray());
	h->compare = qe_json_check(cJSON_CreateArray());
	h->cost = qe_json_check(cJSON_CreateArray());
	h->sweeps = qe_json_check(cJSON_CreateArray());
}

int
qe_histhtml_add(struct qe_histhtml *h, cJSON *rec)
{
	const char *k = qe_json_str(rec, "kind");
	cJSON *to = NULL;

	if (k == NULL)
		to = NULL;
	else if (strcmp(k, "history-slowest") == 0)
		to = h->slowest;
	else if (strcmp(k, "history-point") == 0)
		to = h->points;
	else if (strcmp(k, "history-change") == 0)
		to = h->changes;
	else if (strcmp(k, "history-compare") == 0)
		to = h->compare;
	else if (strcmp(k, "history-cost") == 0)
		to = h->cost;
	else if (strcmp(k, "history-sweep") == 0)
		to = h->sweeps;
	if (to == NULL) {
		cJSON_Delete(rec);
		return -1;
	}
	cJSON_AddItemToArray(to, rec);
	return 0;
}

void
qe_histhtml_free(struct qe_histhtml *h)
{
	cJSON_Delete(h->slowest);
	cJSON_Delete(h->points);
	cJSON_Delete(h->changes);
	cJSON_Delete(h->compare);
	cJSON_Delete(h->cost);
	cJSON_Delete(h->sweeps);
	memset(h, 0, sizeof *h);
}

double
qe_histhtml_nice(double v)
{
	static const double steps[] = { 1, 2, 2.5, 5, 10 };
	double p;
	size_t i;

	if (!(v > 0) || !isfinite(v))
		return 1;
	p = pow(10, floor(log10(v)));
	for (i = 0; i < sizeof steps / sizeof steps[0]; i++)
		if (steps[i] * p >= v * (1 - 1e-12))
			return steps[i] * p;
	return 10 * p;
}

/* ---- small pieces ---------------------------------------------------- */

/* seconds since the epoch of rec[key], NAN when it is not a time */
static double
when(const cJSON *rec, const char *key)
{
	struct qe_time t;

	if (!qe_json_time(rec, key, &t))
		return NAN;
	return (double)t.sec + t.nsec / 1e9;
}

static void
add_date(struct qe_buf *b, double t)
{
	time_t s = (time_t)t;
	struct tm tm;
	char d[16];

	if (isfinite(t) && gmtime_r(&s, &tm) && strftime(d, sizeof d, "%Y-%m-%d", &tm))
		qe_buf_adds(b, d);
	else
		qe_buf_adds(b, "?");
}

/* a duration: "0.012 s", "4.25 s", "37.1 s", "12 min 5 s" */
static void
add_secs(struct qe_buf *b, double s)
{
	if (!isfinite(s))
		qe_buf_adds(b, "\u2014");
	else if (s >= 600)
		qe_buf_addf(b, "%.0f min %.0f s", floor(s / 60), fmod(s, 60) >= 59.5 ? 59 : round(fmod(s, 60)));
	else if (s >= 100)
		qe_buf_addf(b, "%.0f s", s);
	else if (s >= 10)
		qe_buf_addf(b, "%.1f s", s);
	else if (s >= 0.1 || s == 0)
		qe_buf_addf(b, "%.2f s", s);
	else
		qe_buf_addf(b, "%.3f s", s);
}

/* an axis tick: the shortest of %g forms */
static void
add_tick(struct qe_buf *b, double v)
{
	qe_buf_addf(b, "%g s", v);
}

static void
add_ratio(struct qe_buf *b, double r)
{
	if (!isfinite(r))
		qe_buf_adds(b, "\u2014");
	else
		qe_buf_addf(b, "\u00d7%.2f", r);
}

/* a commit as 7 hex digits, else the build's id cut (escaped) */
static void
add_commit(struct qe_buf *b, const cJSON *rec, const char *ckey, const char *bkey)
{
	const char *c = qe_json_str(rec, ckey);
	char *cut;

	if (c != NULL) {
		cut = qe_xstrndup(c, 7);	/* hex digits: no ellipsis */
		qe_html_text(b, cut, 0);
		free(cut);
	} else
		qe_html_text(b, qe_json_str(rec, bkey), 16);
}

/* "<td class=n>" + text + "</td>" helpers */
static void
td_secs(struct qe_buf *b, double s)
{
	qe_buf_adds(b, "<td class=n>");
	add_secs(b, s);
	qe_buf_adds(b, "</td>");
}

static void
td_text(struct qe_buf *b, const char *s, size_t max, int code)
{
	qe_buf_adds(b, code && s ? "<td><code>" : "<td>");
	if (s == NULL)
		qe_buf_adds(b, "\u2014");
	else
		qe_html_text(b, s, max);
	qe_buf_adds(b, code && s ? "</code></td>" : "</td>");
}

static void
td_pct(struct qe_buf *b, double f)
{
	if (isfinite(f))
		qe_buf_addf(b, "<td class=n>%.1f%%</td>", 100 * f);
	else
		qe_buf_adds(b, "<td class=n>\u2014</td>");
}

static int
str_eq(const char *a, const char *b)
{
	return a != NULL && b != NULL && strcmp(a, b) == 0;
}

/* ---- which lectures get a chart -------------------------------------- */

struct lect {
	const char *doc;
	double step;		/* largest |log ratio| of its lecture steps */
	int rank;		/* its rank among the slowest lectures, else INT_MAX-ish */
};

static int
lect_cmp(const void *pa, const void *pb)
{
	const struct lect *a = pa, *b = pb;

	if ((a->step > 0) != (b->step > 0))
		return a->step > 0 ? -1 : 1;
	if (a->step != b->step)
		return a->step > b->step ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return strcmp(a->doc, b->doc);
}

static void
lect_facts(const struct qe_histhtml *h, struct lect *l)
{
	const cJSON *r;
	double x;

	l->step = 0;
	l->rank = 1 << 30;
	cJSON_ArrayForEach(r, h->changes) {
		if (!str_eq(qe_json_str(r, "level"), "lecture") || !str_eq(qe_json_str(r, "document"), l->doc) ||
		    str_eq(qe_json_str(r, "change"), "spike"))
			continue;
		x = fabs(log(qe_json_num(r, "ratio")));
		if (isfinite(x) && x > l->step)
			l->step = x;
	}
	cJSON_ArrayForEach(r, h->slowest) {
		if (str_eq(qe_json_str(r, "level"), "lecture") && str_eq(qe_json_str(r, "document"), l->doc) &&
		    cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(r, "rank")))
			l->rank = (int)qe_json_num(r, "rank");
	}
}

cJSON *
qe_histhtml_lectures(const struct qe_histhtml *h)
{
	struct lect *v = NULL;
	size_t n = 0, cap = 0, i, max = h->max_charts > 0 ? (size_t)h->max_charts : 24;
	const cJSON *p;
	const char *doc;
	cJSON *out = qe_json_check(cJSON_CreateArray());

	cJSON_ArrayForEach(p, h->points) {
		doc = qe_json_str(p, "document");
		if (doc == NULL || !str_eq(qe_json_str(p, "level"), "lecture"))
			continue;
		for (i = 0; i < n && strcmp(v[i].doc, doc) != 0; i++)
			;
		if (i < n)
			continue;
		v = qe_mem_grow(v, n, &cap, sizeof *v, 32);
		v[n++].doc = doc;
	}
	for (i = 0; i < n; i++)
		lect_facts(h, &v[i]);
	if (n > 1)
		qsort(v, n, sizeof *v, lect_cmp);
	/* a chart shows a step; without any, the few slowest lectures, never filler */
	for (i = 0; i < n && i < max && (v[i].step > 0 || (i < QE_HISTHTML_UNSTEPPED && (n == 0 ||
	    v[0].step == 0))); i++)
		cJSON_AddItemToArray(out, qe_json_check(cJSON_CreateString(v[i].doc)));
	free(v);
	return out;
}

/* A step's size for ordering: |log ratio|. */
static double
step_size(const cJSON *c)
{
	double x = fabs(log(qe_json_num(c, "ratio")));

	return isfinite(x) ? x : 0;
}

static int
cell_cmp(const void *pa, const void *pb)
{
	const cJSON *const *a = pa, *const *b = pb;
	double x = step_size(*a), y = step_size(*b);

	return (x < y) - (x > y);
}

cJSON *
qe_histhtml_cells(const struct qe_histhtml *h)
{
	const cJSON *c, **v = NULL;
	size_t n = 0, cap = 0;
	cJSON *out = qe_json_check(cJSON_CreateArray()), *pair;

	cJSON_ArrayForEach(c, h->changes)
		if (str_eq(qe_json_str(c, "level"), "cell") && !str_eq(qe_json_str(c, "change"), "spike") &&
		    qe_json_str(c, "document") && qe_json_str(c, "cell")) {
			v = qe_mem_grow(v, n, &cap, sizeof *v, 32);
			v[n++] = c;
		}
	if (n > 1)
		qsort(v, n, sizeof *v, cell_cmp);
	for (size_t i = 0; i < n && cJSON_GetArraySize(out) < QE_HISTHTML_CELL_CHARTS; i++) {
		const cJSON *d;
		int seen = 0;

		cJSON_ArrayForEach(d, out)
			seen |= str_eq(cJSON_GetArrayItem(d, 0)->valuestring, qe_json_str(v[i], "document")) &&
			    str_eq(cJSON_GetArrayItem(d, 1)->valuestring, qe_json_str(v[i], "cell"));
		if (seen)
			continue;
		pair = qe_json_check(cJSON_CreateArray());
		cJSON_AddItemToArray(pair, qe_json_check(cJSON_CreateString(qe_json_str(v[i], "document"))));
		cJSON_AddItemToArray(pair, qe_json_check(cJSON_CreateString(qe_json_str(v[i], "cell"))));
		cJSON_AddItemToArray(out, pair);
	}
	free(v);
	return out;
}

/* ---- one trend chart -------------------------------------------------- */

struct pt {
	double t, s;
	const cJSON *rec;
};

static int
pt_cmp(const void *pa, const void *pb)
{
	const struct pt *a = pa, *b = pb;

	return a->t < b->t ? -1 : a->t > b->t;
}

struct frame {
	double t0, t1;		/* the common time axis */
	double ymax;		/* this chart's y axis */
};

static double
fx(const struct frame *f, double t)
{
	double w = CW - ML - MR;

	if (!(f->t1 > f->t0))
		return ML + w / 2;
	return ML + w * (t - f->t0) / (f->t1 - f->t0);
}

static double
fy(const struct frame *f, double s)
{
	return MT + (CH - MT - MB) * (1 - s / f->ymax);
}

/* the points of doc's lecture series, by time (a new array; *np its length) */
static struct pt *
series_of(const struct qe_histhtml *h, const char *doc, const char *cell, size_t *np)
{
	struct pt *v = NULL;
	size_t n = 0, cap = 0;
	const cJSON *p;
	double t;

	cJSON_ArrayForEach(p, h->points) {
		if (!str_eq(qe_json_str(p, "level"), cell ? "cell" : "lecture") ||
		    !str_eq(qe_json_str(p, "document"), doc) || (cell && !str_eq(qe_json_str(p, "cell"), cell)))
			continue;
		t = when(p, "started_at");
		if (!isfinite(t))
			continue;
		v = qe_mem_grow(v, n, &cap, sizeof *v, 64);
		v[n].t = t;
		v[n].s = qe_json_num(p, "seconds");
		v[n++].rec = p;
	}
	if (n > 1)
		qsort(v, n, sizeof *v, pt_cmp);
	*np = n;
	return v;
}

static void
chart_axes(struct qe_buf *b, const struct frame *f)
{
	int i;
	double v, y, x;

	for (i = 0; i <= 4; i++) {
		v = f->ymax * i / 4;
		y = fy(f, v);
		qe_buf_addf(b, "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='%s'/>",
		    ML, y, CW - MR, y, i ? "#eaeef2" : "#8c959f");
		if (i % 2 == 0) {
			qe_buf_addf(b, "<text x='%d' y='%.1f' font-size='11' text-anchor='end'>", ML - 5, y + 4);
			add_tick(b, v);
			qe_buf_adds(b, "</text>");
		}
	}
	for (i = 0; i <= 2; i++) {
		v = f->t0 + (f->t1 - f->t0) * i / 2;
		x = fx(f, v);
		qe_buf_addf(b, "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='#8c959f'/>",
		    x, CH - MB, x, CH - MB + 4);
		qe_buf_addf(b, "<text x='%.1f' y='%d' font-size='11' text-anchor='%s'>", x, CH - MB + 16,
		    i == 0 ? "start" : i == 2 ? "end" : "middle");
		add_date(b, v);
		qe_buf_adds(b, "</text>");
	}
}

static void
chart_line(struct qe_buf *b, const struct frame *f, const struct pt *v, size_t n)
{
	size_t i;
	int open = 0;

	for (i = 0; i < n; i++) {
		if (!isfinite(v[i].s)) {
			if (open)
				qe_buf_adds(b, "'/>");
			open = 0;
			continue;
		}
		qe_buf_adds(b, open ? " " : "<polyline fill='none' stroke='#0969da' stroke-width='1.6' points='");
		qe_buf_addf(b, "%.1f,%.1f", fx(f, v[i].t), fy(f, v[i].s));
		open = 1;
	}
	if (open)
		qe_buf_adds(b, "'/>");
	for (i = 0; i < n; i++) {
		if (!isfinite(v[i].s))
			continue;
		qe_buf_addf(b, "<circle cx='%.1f' cy='%.1f' r='2' fill='#0969da'><title>", fx(f, v[i].t),
		    fy(f, v[i].s));
		add_date(b, v[i].t);
		qe_buf_adds(b, " ");
		add_commit(b, v[i].rec, "commit", "build");
		qe_buf_adds(b, ": ");
		add_secs(b, v[i].s);
		qe_buf_adds(b, "</title></circle>");
	}
}

/* Is change c a step of the series (doc, cell: NULL for the lecture)? */
static int
of_series(const cJSON *c, const char *doc, const char *cell)
{
	return !str_eq(qe_json_str(c, "change"), "spike") &&
	    str_eq(qe_json_str(c, "level"), cell ? "cell" : "lecture") &&
	    str_eq(qe_json_str(c, "document"), doc) && (cell == NULL || str_eq(qe_json_str(c, "cell"), cell));
}

/* the median of a segment: a solid line from x0 to x1 and its value above it */
static void
chart_median(struct qe_buf *b, const struct frame *f, double x0, double x1, double s, int right)
{
	double y = fy(f, s);

	if (!isfinite(y) || x1 - x0 < 2)
		return;
	if (!right && x0 > CW - MR - 80)	/* no room after it: the label ends where the line does */
		right = 1;
	qe_buf_addf(b, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#cf222e' stroke-width='2.5'"
	    " stroke-linecap='round'/>", x0, y, x1, y);
	qe_buf_addf(b, "<text x='%.1f' y='%.1f' font-size='11' font-weight='600' text-anchor='%s' "
	    "stroke='#fff' stroke-width='3' paint-order='stroke' style='fill:#a40e26'>median ",
	    right ? x1 - 3 : x0 + 3, y - 5, right ? "end" : "start");
	add_secs(b, s);
	qe_buf_adds(b, "</text>");
}

/*
 * A step: a red rule at its first build, the medians before and after as
 * solid lines over their segments (from the step before, to the step
 * after: t_prev, t_next) with their values, and its ratio and commit.
 */
static void
chart_step(struct qe_buf *b, const struct frame *f, const cJSON *c, int nth, double t_prev, double t_next)
{
	double t = when(c, "started_at"), x, r = qe_json_num(c, "ratio");
	int right;

	if (!isfinite(t))
		return;
	x = fx(f, t);
	right = x > CW / 2.0;
	qe_buf_addf(b, "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='#cf222e' stroke-width='1.5' "
	    "stroke-dasharray='4 3'/>", x, MT, x, CH - MB);
	chart_median(b, f, isfinite(t_prev) ? fx(f, t_prev) : ML, x, qe_json_num(c, "before_median_s"), 1);
	chart_median(b, f, x, isfinite(t_next) ? fx(f, t_next) : CW - MR, qe_json_num(c, "after_median_s"), 0);
	qe_buf_addf(b, "<text x='%.1f' y='%d' font-size='11' font-weight='600' text-anchor='%s' "
	    "stroke='#fff' stroke-width='3' paint-order='stroke' style='fill:#cf222e'>",
	    right ? x - 4 : x + 4, MT - 4 + 13 * nth, right ? "end" : "start");
	add_ratio(b, r);
	qe_buf_adds(b, " at ");
	add_commit(b, c, "commit", "build");
	qe_buf_adds(b, "</text>");
}

/* the one-build outliers of the series: a ring around the point */
static void
chart_spikes(struct qe_buf *b, const struct qe_histhtml *h, const struct frame *f, const char *doc,
    const char *cell)
{
	const cJSON *c;
	double t, s;

	cJSON_ArrayForEach(c, h->changes) {
		if (!str_eq(qe_json_str(c, "change"), "spike") || !str_eq(qe_json_str(c, "document"), doc) ||
		    !str_eq(qe_json_str(c, "level"), cell ? "cell" : "lecture") ||
		    (cell && !str_eq(qe_json_str(c, "cell"), cell)))
			continue;
		t = when(c, "started_at");
		s = qe_json_num(c, "after_median_s");
		if (!isfinite(t) || !isfinite(s))
			continue;
		qe_buf_addf(b, "<circle cx='%.1f' cy='%.1f' r='6' fill='none' stroke='#bf8700' stroke-width='2'>"
		    "<title>one-build outlier ", fx(f, t), fy(f, fmin(s, f->ymax)));
		add_ratio(b, qe_json_num(c, "ratio"));
		qe_buf_adds(b, "</title></circle>");
	}
}

/* build-level steps (runner class changes): a grey rule on every chart */
static void
chart_build_steps(struct qe_buf *b, const struct qe_histhtml *h, const struct frame *f)
{
	const cJSON *c;
	double t;

	cJSON_ArrayForEach(c, h->changes) {
		if (!str_eq(qe_json_str(c, "level"), "build"))
			continue;
		t = when(c, "started_at");
		if (!isfinite(t))
			continue;
		qe_buf_addf(b, "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='#8c959f' stroke-width='1.2' "
		    "stroke-dasharray='2 3'><title>build-level step at ", fx(f, t), MT, fx(f, t), CH - MB);
		add_commit(b, c, "commit", "build");
		qe_buf_adds(b, "</title></line>");
	}
}

/* Where the segment after a step at t ends: the next step, or a runner change before it (else NAN). */
static double
next_cut(const struct qe_histhtml *h, double t, double next)
{
	const cJSON *c;
	double u;

	cJSON_ArrayForEach(c, h->changes)
		if (str_eq(qe_json_str(c, "level"), "build") && (u = when(c, "started_at")) > t &&
		    !(u >= next))
			next = u;
	return next;
}

static double
chart_ymax(const struct qe_histhtml *h, const char *doc, const char *cell, const struct pt *v, size_t n)
{
	double m = 0;
	size_t i;
	const cJSON *c;

	for (i = 0; i < n; i++)
		if (isfinite(v[i].s) && v[i].s > m)
			m = v[i].s;
	cJSON_ArrayForEach(c, h->changes) {
		if (of_series(c, doc, cell)) {
			m = fmax(m, qe_json_num(c, "before_median_s"));
			m = fmax(m, qe_json_num(c, "after_median_s"));
		}
	}
	return qe_histhtml_nice(m * 1.08);
}

/* the chart's title: the lecture, or the lecture and the cell's label (else its key) */
static void
chart_title(struct qe_buf *b, const struct qe_histhtml *h, const char *doc, const char *cell)
{
	const char *label = NULL;
	const cJSON *c;

	cJSON_ArrayForEach(c, h->changes)
		if (cell && of_series(c, doc, cell) && qe_json_str(c, "label"))
			label = qe_json_str(c, "label");
	qe_buf_addf(b, "<svg class='chart' width='%d' height='%d' viewBox='0 0 %d %d' role='img' "
	    "xmlns='http://www.w3.org/2000/svg'><title>", CW, CH, CW, CH);
	qe_html_text(b, doc, 0);
	qe_buf_adds(b, cell ? ": cell time per main build</title>" : ": lecture time per main build</title>");
	qe_buf_addf(b, "<text x='%d' y='16' font-size='13' font-weight='600'>", 8);
	qe_html_text(b, doc, cell ? 24 : 44);
	if (cell) {
		qe_buf_adds(b, " · cell ");
		qe_html_text(b, label ? label : cell, 20);
	}
	qe_buf_adds(b, "</text>");
}

static void
chart(struct qe_buf *b, const struct qe_histhtml *h, const char *doc, const char *cell, double t0,
    double t1)
{
	size_t n, i;
	struct pt *v = series_of(h, doc, cell, &n);
	struct frame f = { t0, t1, 1 };
	const cJSON *c, *steps[64];
	int nth = 0, ns = 0;

	f.ymax = chart_ymax(h, doc, cell, v, n);
	chart_title(b, h, doc, cell);
	for (i = n; i > 0; i--)
		if (isfinite(v[i - 1].s))
			break;
	if (i > 0) {
		qe_buf_addf(b, "<text x='%d' y='16' font-size='12' text-anchor='end'>now ", CW - MR);
		add_secs(b, v[i - 1].s);
		qe_buf_adds(b, "</text>");
	}
	chart_axes(b, &f);
	chart_build_steps(b, h, &f);
	chart_line(b, &f, v, n);
	chart_spikes(b, h, &f, doc, cell);
	cJSON_ArrayForEach(c, h->changes)
		if (of_series(c, doc, cell) && ns < 64)
			steps[ns++] = c;
	for (int k = 0; k < ns; k++, nth++)
		chart_step(b, &f, steps[k], nth % 2, k > 0 ? when(steps[k - 1], "started_at") : NAN,
		    next_cut(h, when(steps[k], "started_at"), k + 1 < ns ? when(steps[k + 1], "started_at") : NAN));
	qe_buf_adds(b, "</svg>\n");
	free(v);
}

/* A section's heading; 1 when it has rows, else 0 after the note saying it has none. */
static int
section_open(struct qe_buf *b, const char *heading, const cJSON *rows, const char *none)
{
	qe_buf_adds(b, heading);
	if (cJSON_GetArraySize(rows) > 0)
		return 1;
	qe_buf_addf(b, "<p class='note'>%s</p>\n", none);
	return 0;
}

static void
section_trends(struct qe_buf *b, const struct qe_histhtml *h)
{
	cJSON *docs = qe_histhtml_lectures(h), *cells = qe_histhtml_cells(h);
	const cJSON *d, *p;
	double t0 = INFINITY, t1 = -INFINITY, t;
	int total = 0;

	cJSON_ArrayForEach(p, h->points) {
		t = when(p, "started_at");
		if (isfinite(t) && str_eq(qe_json_str(p, "level"), "lecture")) {
			t0 = fmin(t0, t);
			t1 = fmax(t1, t);
		}
	}
	if (!section_open(b, "<h2 id='trends'>Trends: where time stepped, per main build</h2>\n", docs,
	    "No lecture series in the history yet.")) {
		cJSON_Delete(docs);
		cJSON_Delete(cells);
		return;
	}
	qe_buf_adds(b, "<p class='note legend'><span>y: seconds (a lecture: its summed cell time), x: build date"
	    "</span><span style='color:#0969da'>\u25cf one main build</span><span style='color:#cf222e'>"
	    "\u2506 step: ratio after/before and the first commit after it; \u2501 the median of each side</span>"
	    "<span style='color:#bf8700'>\u25cb one-build outlier</span>"
	    "<span style='color:#59636e'>\u2506 build-level step (runner class)</span></p>\n");
	if (cJSON_GetArraySize(h->changes) == 0)
		qe_buf_adds(b, "<p class='note'>No step change: the slowest lectures.</p>\n");
	qe_buf_adds(b, "<div class='grid'>\n");
	cJSON_ArrayForEach(d, docs) {
		chart(b, h, d->valuestring, NULL, t0, t1);
		total++;
	}
	cJSON_ArrayForEach(d, cells) {
		chart(b, h, cJSON_GetArrayItem(d, 0)->valuestring, cJSON_GetArrayItem(d, 1)->valuestring, t0, t1);
		total++;
	}
	qe_buf_adds(b, "</div>\n");
	if (cJSON_GetArraySize(cells) == QE_HISTHTML_CELL_CHARTS)
		qe_buf_addf(b, "<p class='note'>The first %d cells with a step change (by its size); every step is in "
		    "<a href='#changes'>Step changes</a>.</p>\n", QE_HISTHTML_CELL_CHARTS);
	cJSON_Delete(docs);
	cJSON_Delete(cells);
}

/* ---- tables ----------------------------------------------------------- */

static void
slowest_rows(struct qe_buf *b, const struct qe_histhtml *h, const char *level)
{
	const cJSON *r;
	double share;

	cJSON_ArrayForEach(r, h->slowest) {
		if (!str_eq(qe_json_str(r, "level"), level))
			continue;
		qe_buf_addf(b, "<tr><td class=n>%.0f</td>", qe_json_num(r, "rank"));
		td_text(b, qe_json_str(r, "document"), 80, 1);
		if (strcmp(level, "cell") == 0) {
			/* code cells counted from 1; the display name, label or first line before names */
			qe_buf_addf(b, "<td class=n>%.0f</td>", qe_json_num(r, "index") + 1);
			td_text(b, qe_record_name_of(r, NULL), 60, 1);
		}
		td_secs(b, qe_json_num(r, "seconds"));
		if (strcmp(level, "cell") == 0)
			td_pct(b, qe_json_num(r, "share_lecture"));
		share = qe_json_num(r, "share_build");
		td_pct(b, share);
		qe_buf_addf(b, "<td><svg width='120' height='10' xmlns='http://www.w3.org/2000/svg'>"
		    "<rect width='120' height='10' fill='#eaeef2'/><rect width='%.1f' height='10' fill='#0969da'/>"
		    "</svg></td></tr>\n", isfinite(share) ? 120 * fmin(1, share) : 0.0);
	}
}

static void
section_slowest(struct qe_buf *b, const struct qe_histhtml *h)
{
	if (!section_open(b, "<h2 id='slowest'>Slowest lectures and cells of the newest main build</h2>\n",
	    h->slowest, "No main build in the history yet."))
		return;
	qe_buf_adds(b, "<table><tr><th>#</th><th>Lecture</th><th>Time</th><th>Share of build</th><th></th></tr>\n");
	slowest_rows(b, h, "lecture");
	qe_buf_adds(b, "</table>\n<table><tr><th>#</th><th>Lecture</th><th>Code cell</th><th>Name</th>"
	    "<th>Time</th><th>Share of lecture</th><th>Share of build</th><th></th></tr>\n");
	slowest_rows(b, h, "cell");
	qe_buf_adds(b, "</table>\n");
}

static void
add_prov_changes(struct qe_buf *b, const cJSON *c)
{
	const cJSON *p, *list = cJSON_GetObjectItemCaseSensitive(c, "provenance_changes");

	if (list == NULL)	/* compare's rows call them changes */
		list = cJSON_GetObjectItemCaseSensitive(c, "changes");
	int first = 1;
	size_t cut;

	qe_buf_adds(b, "<td>");
	cJSON_ArrayForEach(p, list) {
		if (!first)
			qe_buf_adds(b, "<br>");
		first = 0;
		qe_html_text(b, qe_json_str(p, "what"), 20);
		if (qe_json_str(p, "name") != NULL) {
			qe_buf_adds(b, " <code>");
			qe_html_text(b, qe_json_str(p, "name"), 60);
			qe_buf_adds(b, "</code>");
		}
		cut = str_eq(qe_json_str(p, "what"), "package") || str_eq(qe_json_str(p, "what"), "runner-class")
		    ? 40 : 12;	/* digests: their first 12 */
		qe_buf_adds(b, " ");
		qe_html_text(b, qe_json_str(p, "before") ? qe_json_str(p, "before") : "\u2014", cut);
		qe_buf_adds(b, " \u2192 ");
		qe_html_text(b, qe_json_str(p, "after") ? qe_json_str(p, "after") : "\u2014", cut);
	}
	if (first)
		qe_buf_adds(b, "the code (no provenance change)");
	qe_buf_adds(b, "</td>");
}

static void
change_row(struct qe_buf *b, const cJSON *c, int spike)
{
	double r = qe_json_num(c, "ratio");
	const char *cell = qe_json_str(c, "name") ? qe_json_str(c, "name") :
	    qe_json_str(c, "label") ? qe_json_str(c, "label") : qe_json_str(c, "cell");

	qe_buf_adds(b, "<tr>");
	td_text(b, qe_json_str(c, "level"), 10, 0);
	td_text(b, qe_json_str(c, "document"), 80, 1);
	td_text(b, cell, 40, 1);
	qe_buf_addf(b, "<td class=n>#%.0f</td><td class=d>", qe_json_num(c, "run_number"));
	add_date(b, when(c, "started_at"));
	qe_buf_adds(b, "</td><td><code>");
	add_commit(b, c, "commit", "build");
	qe_buf_adds(b, "</code></td>");
	td_secs(b, qe_json_num(c, "before_median_s"));
	td_secs(b, qe_json_num(c, "after_median_s"));
	qe_buf_addf(b, "<td class='n %s'>", r > 1 ? "slower" : "faster");
	add_ratio(b, r);
	qe_buf_adds(b, "</td>");
	if (!spike) {
		td_text(b, qe_json_str(c, "cause"), 20, 0);
		td_text(b, qe_json_str(c, "explanation") ? qe_json_str(c, "explanation") : "\u2014", 200, 0);
	}
	qe_buf_adds(b, "</tr>\n");
}

static void
section_changes(struct qe_buf *b, const struct qe_histhtml *h)
{
	const cJSON *c;
	int spikes = 0;

	if (!section_open(b, "<h2 id='changes'>Step changes on main</h2>\n", h->changes, "No step change found."))
		return;
	qe_buf_adds(b, "<p class='note'>A step: the median of the builds after differs from the median before by "
	    "more than the series' own noise allows (<code>qe-history changes</code>). Its cause is the first "
	    "that holds at that build: the cell's source edited, the environment (packages, environment "
	    "files), the runner class, what the kernel ran with, else unexplained.</p>\n"
	    "<table><tr><th>Level</th><th>Lecture</th><th>Cell</th><th>Build</th><th>Date</th>"
	    "<th>Commit</th><th>Before</th><th>After</th><th>Ratio</th><th>Cause</th><th>Explanation</th></tr>\n");
	cJSON_ArrayForEach(c, h->changes)
		if (!str_eq(qe_json_str(c, "change"), "spike"))
			change_row(b, c, 0);
		else
			spikes++;
	qe_buf_adds(b, "</table>\n");
	if (spikes == 0)
		return;
	qe_buf_adds(b, "<h3>One-build outliers</h3>\n<p class='note'>One build far from the median of its four "
	    "neighbours: not a step (before: the neighbours' median; after: that build).</p>\n"
	    "<table><tr><th>Level</th><th>Lecture</th><th>Cell</th><th>Build</th><th>Date</th>"
	    "<th>Commit</th><th>Typical</th><th>That build</th><th>Ratio</th></tr>\n");
	cJSON_ArrayForEach(c, h->changes)
		if (str_eq(qe_json_str(c, "change"), "spike"))
			change_row(b, c, 1);
	qe_buf_adds(b, "</table>\n");
}

/* the ratio and its interval on a log axis from 1/2 to 2 (clamped) */
static void
ci_plot(struct qe_buf *b, const cJSON *r)
{
	double lo = qe_json_num(r, "ci_low"), hi = qe_json_num(r, "ci_high"), m = qe_json_num(r, "ratio");
	const double W = 220, L = log(0.5), R = log(2);
	double xl, xh, xm;

	qe_buf_addf(b, "<td><svg width='%.0f' height='18' xmlns='http://www.w3.org/2000/svg'>"
	    "<line x1='%.1f' y1='0' x2='%.1f' y2='18' stroke='#8c959f'/>", W, W / 2, W / 2);
	if (isfinite(lo) && isfinite(hi) && isfinite(m) && lo > 0 && hi > 0 && m > 0) {
		xl = W * (fmin(R, fmax(L, log(lo))) - L) / (R - L);
		xh = W * (fmin(R, fmax(L, log(hi))) - L) / (R - L);
		xm = W * (fmin(R, fmax(L, log(m))) - L) / (R - L);
		qe_buf_addf(b, "<line x1='%.1f' y1='9' x2='%.1f' y2='9' stroke='#1f2328' stroke-width='2'/>"
		    "<circle cx='%.1f' cy='9' r='4' fill='%s'/>", xl, xh, xm,
		    m > 1 ? "#cf222e" : "#1a7f37");
	}
	qe_buf_adds(b, "</svg></td>");
}

static void
compare_row(struct qe_buf *b, const cJSON *r)
{
	const char *moved = qe_json_str(r, "moved");
	const char *cell = qe_json_str(r, "label") ? qe_json_str(r, "label") : qe_json_str(r, "cell");

	qe_buf_adds(b, "<tr>");
	td_text(b, qe_json_str(r, "level"), 10, 0);
	td_text(b, qe_json_str(r, "document"), 80, 1);
	td_text(b, cell, 40, 1);
	qe_buf_addf(b, "<td class=n>%.0f / %.0f</td>", qe_json_num(r, "n_before"), qe_json_num(r, "n_after"));
	td_secs(b, qe_json_num(r, "median_before_s"));
	td_secs(b, qe_json_num(r, "median_after_s"));
	qe_buf_adds(b, "<td class=n>");
	add_ratio(b, qe_json_num(r, "ratio"));
	if (isfinite(qe_json_num(r, "ci_low")) && isfinite(qe_json_num(r, "ci_high")))
		qe_buf_addf(b, " [%.2f, %.2f]", qe_json_num(r, "ci_low"), qe_json_num(r, "ci_high"));
	qe_buf_adds(b, "</td>");
	ci_plot(b, r);
	qe_buf_addf(b, "<td class='%s'>", str_eq(moved, "slower") ? "slower" : str_eq(moved, "faster") ? "faster" : "");
	qe_html_text(b, moved, 10);
	qe_buf_adds(b, "</td></tr>\n");
}

/* a change's summary row (level build): its date, build, every package that changed, what moved */
static void
compare_head(struct qe_buf *b, const cJSON *r, int open)
{
	double nl = qe_json_num(r, "moved_lectures"), nc = qe_json_num(r, "moved_cells");

	if (open)
		qe_buf_adds(b, "</table>\n");
	qe_buf_addf(b, "<h3>Build #%.0f, ", qe_json_num(r, "run_number"));
	add_date(b, when(r, "started_at"));
	qe_buf_adds(b, "</h3>\n<table><tr><th>What changed</th>");
	add_prov_changes(b, r);
	qe_buf_adds(b, "</tr></table>\n<p class='note'>");
	if (str_eq(qe_json_str(r, "moved"), "machine"))
		qe_buf_adds(b, "A machine change (the runner class): timings of two machines are not compared, "
		    "so no lecture is said to be faster or slower here; see the build-level step.</p>\n");
	else if (nl + nc == 0)
		qe_buf_adds(b, "Nothing moved: no lecture or cell beyond its noise.</p>\n");
	else
		qe_buf_addf(b, "%.0f lecture%s and %.0f cell%s moved (by effect, largest first):</p>\n", nl,
		    nl == 1 ? "" : "s", nc, nc == 1 ? "" : "s");
}

static void
section_compare(struct qe_buf *b, const struct qe_histhtml *h)
{
	const cJSON *r;
	int open = 0;

	if (!section_open(b, "<h2 id='compare'>Environment changes: what moved</h2>\n", h->compare,
	    "No environment change in the history to compare across."))
		return;
	qe_buf_adds(b, "<p class='note'>Each change of packages, environment files or fingerprint among main's "
	    "builds (<code>qe-history compare</code>): the builds before and after it (up to 10 a side, never "
	    "across another change), per lecture and cell the median ratio after/before (Hodges-Lehmann) with its "
	    "95% interval, on a log scale from \u00d70.5 to \u00d72 (the grey rule is \u00d71). Moved: the ratio "
	    "beyond \u00d71.1, its interval clear of 1, and beyond the series' own noise.</p>\n");
	cJSON_ArrayForEach(r, h->compare) {
		if (str_eq(qe_json_str(r, "level"), "build")) {
			compare_head(b, r, open);
			open = 0;
			continue;
		}
		if (!open)
			qe_buf_adds(b, "<table><tr><th>Level</th><th>Lecture</th><th>Cell</th><th>Builds</th>"
			    "<th>Median before</th><th>Median after</th><th>Ratio [95% CI]</th>"
			    "<th>\u00d70.5 \u2014 \u00d72</th><th>Moved</th></tr>\n");
		open = 1;
		compare_row(b, r);
	}
	if (open)
		qe_buf_adds(b, "</table>\n");
}

static void
cost_row(struct qe_buf *b, const cJSON *r, const char *first, const char *second)
{
	double usd;

	qe_buf_adds(b, qe_json_str(r, "month") ? "<tr>" : "<tr style='font-weight:600'>");
	td_text(b, first, 10, 0);
	td_text(b, second, 80, 1);
	qe_buf_addf(b, "<td class=n>%.0f</td><td class=n>%.1f</td>", qe_json_num(r, "builds"),
	    qe_json_num(r, "minutes"));
	usd = qe_json_num(r, "usd_per_minute");
	if (isfinite(usd))
		qe_buf_addf(b, "<td class=n>%.3f</td>", usd);
	else
		qe_buf_adds(b, "<td class=n>\u2014</td>");
	usd = qe_json_num(r, "cost_usd");
	if (isfinite(usd))
		qe_buf_addf(b, "<td class=n>%.2f</td></tr>\n", usd);
	else
		qe_buf_adds(b, "<td class=n>\u2014</td></tr>\n");
}

/* per lecture over every month and class: builds, minutes and cost summed */
static cJSON *
cost_by_lecture(const struct qe_histhtml *h)
{
	cJSON *out = qe_json_check(cJSON_CreateObject()), *o;
	const cJSON *r;
	const char *d;
	double usd;

	cJSON_ArrayForEach(r, h->cost) {
		if ((d = qe_json_str(r, "document")) == NULL)
			continue;
		if ((o = cJSON_GetObjectItemCaseSensitive(out, d)) == NULL) {
			o = qe_json_check(cJSON_CreateObject());
			cJSON_AddNumberToObject(o, "builds", 0);
			cJSON_AddNumberToObject(o, "minutes", 0);
			cJSON_AddNumberToObject(o, "cost_usd", 0);
			cJSON_AddItemToObject(out, d, o);
		}
		cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(o, "builds"),
		    qe_json_num(o, "builds") + qe_json_num(r, "builds"));
		cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(o, "minutes"),
		    qe_json_num(o, "minutes") + qe_json_num(r, "minutes"));
		usd = qe_json_num(r, "cost_usd");
		if (!isfinite(usd))
			cJSON_ReplaceItemInObjectCaseSensitive(o, "cost_usd", qe_json_check(cJSON_CreateNull()));
		else if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(o, "cost_usd")))
			cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(o, "cost_usd"),
			    qe_json_num(o, "cost_usd") + usd);
	}
	return out;
}

static void
section_cost(struct qe_buf *b, const struct qe_histhtml *h)
{
	const cJSON *r;
	cJSON *by;
	const char *month;

	if (!section_open(b, "<h2 id='cost'>Runner cost</h2>\n", h->cost, "No cost rows."))
		return;
	qe_buf_adds(b, "<p class='note'>Execution minutes of every stored build (main's, pull requests' and other "
	    "branches': every build ran on a runner) times the price of its runner class (<code>qe-history "
	    "cost</code>; per month, class and lecture there).</p>\n"
	    "<table><tr><th>Month</th><th>Runner class</th><th>Builds</th><th>Minutes</th>"
	    "<th>USD per minute</th><th>Cost (USD)</th></tr>\n");
	cJSON_ArrayForEach(r, h->cost) {
		if (qe_json_str(r, "document") != NULL)
			continue;
		month = qe_json_str(r, "month");
		cost_row(b, r, month ? month : "total",
		    qe_json_str(r, "runner_class") ? qe_json_str(r, "runner_class") : "all");
	}
	qe_buf_adds(b, "</table>\n<table><tr><th>All months</th><th>Lecture</th><th>Builds</th><th>Minutes</th>"
	    "<th>USD per minute</th><th>Cost (USD)</th></tr>\n");
	by = cost_by_lecture(h);
	cJSON_ArrayForEach(r, by)
		cost_row(b, r, "", r->string);
	cJSON_Delete(by);
	qe_buf_adds(b, "</table>\n");
}

static void
section_head(struct qe_buf *b, const struct qe_histhtml *h)
{
	const cJSON *r = cJSON_GetArrayItem(h->slowest, 0), *c;
	int nsteps = 0, nspikes = 0;

	cJSON_ArrayForEach(c, h->changes)
		*(str_eq(qe_json_str(c, "change"), "spike") ? &nspikes : &nsteps) += 1;
	qe_buf_addf(b, "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
	    "<meta name='viewport' content='width=device-width'>"
	    "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; style-src 'unsafe-inline'\">"
	    "<title>Lecture execution history</title><style>%s</style></head><body>\n"
	    "<h1>Lecture execution history</h1>\n", STYLE);
	qe_buf_adds(b, "<p class='note'>qe-history: every main build's stamped report. ");
	if (r != NULL) {
		qe_buf_adds(b, "Newest main build <code>");
		qe_html_text(b, qe_json_str(r, "build"), 80);
		qe_buf_adds(b, "</code>, commit <code>");
		add_commit(b, r, "commit", "build");
		qe_buf_adds(b, "</code>, ");
		add_date(b, when(r, "started_at"));
		qe_buf_adds(b, ". ");
	} else
		qe_buf_adds(b, cJSON_GetArraySize(h->sweeps) > 0 ? "No main build is stored yet: "
		    "only qe-sweep's scaling curves (below). " : "No main build is stored yet. ");
	qe_buf_addf(b, "%d step change%s, %d one-build outlier%s.</p>\n<p class='note'><a href='#trends'>Trends</a> \u00b7 "
	    "<a href='#slowest'>Slowest</a> \u00b7 <a href='#changes'>Step changes</a> \u00b7 "
	    "<a href='#compare'>Environment changes</a> \u00b7 <a href='#scaling'>Scaling</a> \u00b7 "
	    "<a href='#cost'>Cost</a></p>\n",
	    nsteps, nsteps == 1 ? "" : "s", nspikes, nspikes == 1 ? "" : "s");
}

void
qe_histhtml_write(const struct qe_histhtml *h, struct qe_buf *out)
{
	section_head(out, h);
	section_trends(out, h);
	section_slowest(out, h);
	section_changes(out, h);
	section_compare(out, h);
	qe_histsweep_section(out, h->sweeps);
	section_cost(out, h);
	qe_buf_adds(out, "</body></html>\n");
}
