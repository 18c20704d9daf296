/* The report page's Scaling section: log-log charts of stored sweeps (qe_histsweep.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "qe_mem.h"
#include "qe_json.h"
#include "qe_html.h"
#include "qe_histsweep.h"

/* A chart's size and margins (the trend charts' grid cell). */
enum { SW = 400, SH = 260, SML = 54, SMR = 14, SMT = 44, SMB = 36 };

static const char BASE_C[] = "#0969da", HEAD_C[] = "#bc4c00", CROSS_C[] = "#cf222e",
    LECT_C[] = "#1a7f37";

/* The log-log frame: decades of size (x) and seconds (y). */
struct lframe {
	double x0, x1, y0, y1;	/* log10 */
};

static double
lx(const struct lframe *f, double v)
{
	return SML + (SW - SML - SMR) * (log10(v) - f->x0) / (f->x1 - f->x0);
}

static double
ly(const struct lframe *f, double s)
{
	return SMT + (SH - SMT - SMB) * (1 - (log10(s) - f->y0) / (f->y1 - f->y0));
}

static double
num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble : NAN;
}

static const cJSON *
obj(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* A size: "3000", "2.9e4", "1e6". */
static void
add_size(struct qe_buf *b, double x)
{
	double k, m;

	if (!(x > 0) || !isfinite(x)) {
		qe_buf_adds(b, "\u2014");
		return;
	}
	if (x < 1e4) {
		qe_buf_addf(b, "%.4g", x);
		return;
	}
	k = floor(log10(x));
	m = round(x / pow(10, k) * 10) / 10;
	if (m >= 10)
		m /= 10, k++;
	qe_buf_addf(b, m == floor(m) ? "%.0fe%.0f" : "%.1fe%.0f", m, k);
}

static void
add_secs(struct qe_buf *b, double s)
{
	qe_buf_addf(b, s >= 10 ? "%.1f s" : s >= 0.1 ? "%.2f s" : s >= 0.001 ? "%.3f s" : "%.2g s", s);
}

/* Widen [lo, hi] (log10) by v's log when v > 0. */
static void
span(double *lo, double *hi, double v)
{
	if (v > 0 && isfinite(v)) {
		*lo = fmin(*lo, log10(v));
		*hi = fmax(*hi, log10(v));
	}
}

/* The frame of one curve: every size, run time, the crossover and the lecture's size. */
static int
frame_of(const cJSON *r, struct lframe *f)
{
	const cJSON *p;
	const char *side[] = { "base", "head" };

	f->x0 = f->y0 = INFINITY;
	f->x1 = f->y1 = -INFINITY;
	cJSON_ArrayForEach(p, obj(r, "points")) {
		span(&f->x0, &f->x1, num(p, "value"));
		for (int i = 0; i < 2; i++) {
			span(&f->y0, &f->y1, num(obj(p, side[i]), "min_s"));
			span(&f->y0, &f->y1, num(obj(p, side[i]), "max_s"));
		}
	}
	span(&f->x0, &f->x1, num(obj(r, "crossover"), "at"));
	span(&f->x0, &f->x1, num(r, "lecture_value"));
	if (!isfinite(f->x0) || !isfinite(f->y0))
		return -1;
	f->x0 -= 0.15 + (f->x1 - f->x0 < 0.5) * 0.5;
	f->x1 += 0.15 + (f->x1 - f->x0 < 0.5) * 0.5;
	f->y0 -= 0.1 + (f->y1 - f->y0 < 0.5) * 0.5;
	f->y1 += 0.1 + (f->y1 - f->y0 < 0.5) * 0.5;
	return 0;
}

/* Grid lines and labels at each decade (and at 2 and 5 when the axis spans under two). */
static void
axes(struct qe_buf *b, const struct lframe *f)
{
	int fine = f->y1 - f->y0 < 2;

	for (double k = floor(f->y0); k <= f->y1; k++)
		for (int m = 1; m <= 5; m += m == 1 ? 1 : 3) {
			double v = m * pow(10, k), y;

			if ((m > 1 && !fine) || log10(v) < f->y0 || log10(v) > f->y1)
				continue;
			y = ly(f, v);
			qe_buf_addf(b, "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#eaeef2'/>"
			    "<text x='%d' y='%.1f' font-size='11' text-anchor='end'>", SML, y, SW - SMR, y,
			    SML - 5, y + 4);
			qe_buf_addf(b, "%g s</text>", v);
		}
	for (double k = ceil(f->x0); k <= f->x1; k++) {
		double x = lx(f, pow(10, k));

		qe_buf_addf(b, "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='#eaeef2'/>"
		    "<text x='%.1f' y='%d' font-size='11' text-anchor='middle'>", x, SMT, x, SH - SMB, x,
		    SH - SMB + 15);
		add_size(b, pow(10, k));
		qe_buf_adds(b, "</text>");
	}
	qe_buf_addf(b, "<rect x='%d' y='%d' width='%d' height='%d' fill='none' stroke='#8c959f'/>",
	    SML, SMT, SW - SML - SMR, SH - SMT - SMB);
}

/* One version's line, each size's run range as a bar, a point with its numbers as a tooltip. */
static void
curve(struct qe_buf *b, const struct lframe *f, const cJSON *r, const char *side, const char *color)
{
	const cJSON *p;
	int open = 0;

	cJSON_ArrayForEach(p, obj(r, "points")) {
		double v = num(p, "value"), s = num(obj(p, side), "median_s");

		if (!(v > 0) || !(s > 0))
			continue;
		qe_buf_adds(b, open ? " " : "<polyline fill='none' stroke-width='1.8' stroke='");
		if (!open)
			qe_buf_addf(b, "%s' points='", color);
		qe_buf_addf(b, "%.1f,%.1f", lx(f, v), ly(f, s));
		open = 1;
	}
	if (open)
		qe_buf_adds(b, "'/>");
	cJSON_ArrayForEach(p, obj(r, "points")) {
		const cJSON *o = obj(p, side);
		double v = num(p, "value"), s = num(o, "median_s"), lo = num(o, "min_s"), hi = num(o, "max_s");

		if (!(v > 0) || !(s > 0))
			continue;
		if (lo > 0 && hi > 0)
			qe_buf_addf(b, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='%s'/>",
			    lx(f, v), ly(f, lo), lx(f, v), ly(f, hi), color);
		qe_buf_addf(b, "<circle cx='%.1f' cy='%.1f' r='3' fill='%s'><title>%s at ", lx(f, v),
		    ly(f, s), color, side);
		add_size(b, v);
		qe_buf_adds(b, ": median ");
		add_secs(b, s);
		qe_buf_addf(b, " of %.0f runs</title></circle>", num(o, "runs"));
	}
}

/* A vertical mark at size v with its label at height y (left of the line past the middle). */
static void
mark(struct qe_buf *b, const struct lframe *f, double v, const char *color, int y, const char *what)
{
	double x = lx(f, v);
	int right = x > (SML + SW - SMR) / 2.0;

	qe_buf_addf(b, "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='%s' stroke-width='1.4'%s/>"
	    "<text x='%.1f' y='%d' font-size='11' fill='%s' style='fill:%s' text-anchor='%s'>%s",
	    x, SMT, x, SH - SMB, color, *what == 'c' ? " stroke-dasharray='4 3'" : "",
	    right ? x - 4 : x + 4, y, color, color, right ? "end" : "start", what);
	add_size(b, v);
	qe_buf_adds(b, "</text>");
}

/* The crossover (its clear sizes shaded) and the lecture's own size. */
static void
marks(struct qe_buf *b, const struct lframe *f, const cJSON *r)
{
	const cJSON *c = obj(r, "crossover");
	double at = num(c, "at"), lo = num(c, "low"), hi = num(c, "high"), lv = num(r, "lecture_value");

	if (lo > 0 && hi > lo)
		qe_buf_addf(b, "<rect x='%.1f' y='%d' width='%.1f' height='%d' fill='#fff8c5'>"
		    "<title>every run on one side below and on the other above</title></rect>",
		    lx(f, lo), SMT, lx(f, hi) - lx(f, lo), SH - SMT - SMB);
	if (at > 0)
		mark(b, f, at, CROSS_C, SMT + 13, "crossover n \u2248 ");
	if (lv > 0)
		mark(b, f, lv, LECT_C, SH - SMB - 6, "lecture n = ");
}

/* "n^0.50" (the parameter's name cut), "?" without a fit */
static void
exponent(struct qe_buf *b, const cJSON *r, double e)
{
	qe_html_text(b, qe_json_str(r, "parameter"), 8);
	if (isfinite(e))
		qe_buf_addf(b, "^%.2f", e);
	else
		qe_buf_adds(b, "^?");
}

static void
title(struct qe_buf *b, const cJSON *r)
{
	const char *doc = qe_json_str(r, "document"), *cell = qe_json_str(r, "cell");
	const cJSON *m = obj(r, "machine"), *fit = obj(r, "fit");

	qe_buf_addf(b, "<svg class='chart' width='%d' height='%d' viewBox='0 0 %d %d' role='img' "
	    "xmlns='http://www.w3.org/2000/svg'><title>", SW, SH, SW, SH);
	qe_html_text(b, doc, 0);
	qe_buf_adds(b, cell ? ", cell " : ", the lecture");
	qe_html_text(b, cell, 0);
	qe_buf_adds(b, ": median seconds against ");
	qe_html_text(b, qe_json_str(r, "parameter"), 0);
	qe_buf_adds(b, " on machine ");
	qe_html_text(b, qe_json_str(m, "fingerprint"), 0);
	qe_buf_adds(b, "</title><text x='8' y='16' font-size='13' font-weight='600'>");
	qe_html_text(b, doc, 22);
	qe_buf_adds(b, " \u00b7 ");
	qe_html_text(b, cell ? cell : "the lecture", 18);
	qe_buf_addf(b, "</text><text x='%d' y='16' font-size='11' text-anchor='end' style='fill:#59636e'>",
	    SW - 8);
	qe_html_text(b, qe_json_str(m, "runner_class") ? qe_json_str(m, "runner_class") :
	    qe_json_str(m, "fingerprint"), 24);
	qe_buf_addf(b, "</text><text x='8' y='34' font-size='11'><tspan style='fill:%s'>\u25cf base: time \u221d ",
	    BASE_C);
	exponent(b, r, num(obj(fit, "base"), "exponent"));
	qe_buf_addf(b, "</tspan>   <tspan style='fill:%s'>\u25cf head: time \u221d ", HEAD_C);
	exponent(b, r, num(obj(fit, "head"), "exponent"));
	qe_buf_adds(b, "</tspan></text>");
}

static void
chart(struct qe_buf *b, const cJSON *r)
{
	struct lframe f;

	if (frame_of(r, &f) < 0)
		return;
	title(b, r);
	axes(b, &f);
	marks(b, &f, r);
	curve(b, &f, r, "base", BASE_C);
	curve(b, &f, r, "head", HEAD_C);
	qe_buf_adds(b, "</svg>\n");
}

/* Is r followed by a newer curve of the same document, cell, parameter and machine? */
static int
superseded(const cJSON *r)
{
	const cJSON *n = r->next;

	return n && qe_mem_streq(qe_json_str(n, "document"), qe_json_str(r, "document")) &&
	    qe_mem_streq(qe_json_str(n, "cell"), qe_json_str(r, "cell")) &&
	    qe_mem_streq(qe_json_str(n, "parameter"), qe_json_str(r, "parameter")) &&
	    qe_mem_streq(qe_json_str(obj(n, "machine"), "fingerprint"), qe_json_str(obj(r, "machine"), "fingerprint"));
}

static void
td(struct qe_buf *b, const char *s, size_t max, int code)
{
	qe_buf_adds(b, code ? "<td><code>" : "<td>");
	if (s == NULL || qe_html_text(b, s, max) == 0)
		qe_buf_adds(b, "\u2014");
	qe_buf_adds(b, code ? "</code></td>" : "</td>");
}

static void
row(struct qe_buf *b, const cJSON *r)
{
	const cJSON *c = obj(r, "crossover"), *m = obj(r, "machine"), *fit = obj(r, "fit");
	double sp = num(r, "speedup_at_lecture");

	qe_buf_adds(b, "<tr>");
	td(b, qe_json_str(r, "document"), 60, 1);
	td(b, qe_json_str(r, "cell") ? qe_json_str(r, "cell") : "the lecture", 40, 0);
	qe_buf_adds(b, "<td>");
	qe_html_text(b, qe_json_str(m, "runner_class"), 40);
	qe_buf_adds(b, " <code>");
	qe_html_text(b, qe_json_str(m, "fingerprint"), 16);
	qe_buf_addf(b, "</code></td><td class=n>%.2f</td><td class=n>%.2f</td>",
	    num(obj(fit, "base"), "exponent"), num(obj(fit, "head"), "exponent"));
	td(b, qe_json_str(c, "state"), 30, 0);
	qe_buf_adds(b, "<td class=n>");
	add_size(b, num(c, "at"));
	qe_buf_adds(b, "</td><td class=n>");
	add_size(b, num(r, "lecture_value"));
	qe_buf_addf(b, isfinite(sp) ? "</td><td class='n %s'>\u00d7%.2f</td>" : "</td><td class=n>%s\u2014</td>",
	    isfinite(sp) ? (sp > 1 ? "faster" : "slower") : "", sp);
	td(b, qe_json_str(r, "recommendation"), 400, 0);
	qe_buf_adds(b, "</tr>\n");
}

/* How many curves and machines: drawn (newest, not negligible), negligible, fingerprints. */
static int
count(const cJSON *sweeps, const cJSON **draw, int *nneg, int *nfp)
{
	const char *fps[64];
	const cJSON *r;
	int n = 0;

	*nneg = *nfp = 0;
	cJSON_ArrayForEach(r, sweeps) {
		const char *fp = qe_json_str(obj(r, "machine"), "fingerprint");
		int seen = 0;

		for (int i = 0; i < *nfp; i++)
			seen |= qe_mem_streq(fps[i], fp);
		if (!seen && *nfp < 64)
			fps[(*nfp)++] = fp;
		if (superseded(r))
			continue;
		if (cJSON_IsTrue(obj(r, "negligible")))
			++*nneg;
		else if (n < QE_HISTSWEEP_CHARTS)
			draw[n++] = r;
	}
	return n;
}

void
qe_histsweep_section(struct qe_buf *b, const cJSON *sweeps)
{
	const cJSON *draw[QE_HISTSWEEP_CHARTS];
	int nneg, nfp, n = count(sweeps, draw, &nneg, &nfp);

	qe_buf_adds(b, "<h2 id='scaling'>Scaling: time against problem size (qe-sweep)</h2>\n");
	if (n == 0) {
		qe_buf_addf(b, "<p class='note'>%s</p>\n", cJSON_GetArraySize(sweeps) ? "Every stored curve is "
		    "negligible (no run reached qe-sweep's --min-seconds)." : "No scaling sweep stored.");
		return;
	}
	qe_buf_adds(b, "<p class='note legend'><span>log-log: median seconds against the size swept, each chart one machine's newest "
	    "sweep; a bar: the fastest to the slowest run</span>"
	    "<span style='color:#cf222e'>\u2506 crossover: the head's speedup is 1 (shaded: between the "
	    "sizes where every run was on one side)</span><span style='color:#1a7f37'>\u2502 the lecture's own "
	    "size</span></p>\n");
	if (nfp > 1)
		qe_buf_addf(b, "<p class='note'><b>These curves come from %d different machines.</b> Each chart "
		    "is one machine's runs, never pooled with another's: compare the versions within a chart.</p>\n",
		    nfp);
	qe_buf_adds(b, "<div class='grid'>\n");
	for (int i = 0; i < n; i++)
		chart(b, draw[i]);
	qe_buf_adds(b, "</div>\n<table><tr><th>lecture</th><th>cell</th><th>machine</th><th>base exponent</th>"
	    "<th>head exponent</th><th>crossover</th><th>at n</th><th>lecture's n</th><th>speedup there</th>"
	    "<th>recommendation</th></tr>\n");
	for (int i = 0; i < n; i++)
		row(b, draw[i]);
	qe_buf_adds(b, "</table>\n");
	if (nneg > 0)
		qe_buf_addf(b, "<p class='note'>%d negligible curve%s not drawn (no run reached qe-sweep's "
		    "--min-seconds).</p>\n", nneg, nneg == 1 ? "" : "s");
}
