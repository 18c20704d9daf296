/* The rows of the diff comment's tables (qe_mdtable.h). */
#include <math.h>
#include <string.h>

#include "qe_mem.h"
#include "qe_gfm.h"
#include "qe_record.h"
#include "qe_mdtable.h"

/* Display caps, in code points, for strings from the build. */
#define CAP_DOC		80
#define CAP_LABEL	60
#define CAP_LINE	60
#define CAP_REASON	120

#define SPARK_WIDTH	40

#define ARROW	"\xc2\xa0\xe2\x86\x92 "		/* " → ", the first space no-break */

const char qe_mdtable_top_header[] =
    "| | Lecture | Cell | Base \xe2\x86\x92 Head | Ratio | \xce\x94 | Share | Notes |\n"
    "|---|---|---|--:|--:|--:|--:|---|\n";

const char qe_mdtable_nb_header[] =
    "| Lecture | Verdict | Base \xe2\x86\x92 Head | Ratio | \xce\x94 | Cells | Time by cell (head) |\n"
    "|---|---|--:|--:|--:|---|---|\n";

const char qe_mdtable_cell_header[] =
    "| Lecture | Cell | Verdict | Base | Head | Ratio | \xce\x94 | Share | Notes |\n"
    "|---|---|---|--:|--:|--:|--:|--:|---|\n";

void
qe_mdtable_verdict(struct qe_buf *b, int v, int failing)
{
	if (v == QE_V_REGRESSION)
		qe_buf_adds(b, "\xf0\x9f\x94\xb4 slower");		/* 🔴 */
	else if (v == QE_V_IMPROVEMENT)
		qe_buf_adds(b, "\xf0\x9f\x9f\xa2 faster");		/* 🟢 */
	else if (failing)
		qe_buf_adds(b, "\xe2\x9d\x8c now fails");		/* ❌ */
	else if (v == QE_V_INCONCLUSIVE)
		qe_buf_adds(b, "\xf0\x9f\x9f\xa1 unclear");		/* 🟡 */
	else
		qe_buf_adds(b, qe_vocab_name(&qe_vocab_verdict_words, v));
}

void
qe_mdtable_cell_name(struct qe_buf *b, const struct qe_dcell *c)
{
	long idx = c->hidx >= 0 ? c->hidx : c->bidx;
	const char *name = qe_record_name(c->name, c->label, c->first_line, NULL);

	/* a cell named by its label is shown as the label alone */
	if (name != NULL && c->label != NULL && strcmp(name, c->label) == 0) {
		struct qe_buf t = { 0 };

		if (qe_gfm_text(&t, c->label, CAP_LABEL) > 0) {
			qe_buf_add(b, t.data, t.len);
			qe_buf_free(&t);
			return;
		}
		qe_buf_free(&t);
	}
	if (name == c->label)	/* a label that is no text: its first line */
		name = c->first_line;
	qe_buf_adds(b, "code cell ");
	if (idx >= 0)
		qe_gfm_count(b, idx + 1);
	else
		qe_buf_adds(b, "?");
	if (name && *name) {
		qe_buf_addc(b, ' ');
		qe_gfm_code(b, name, CAP_LINE, 1);
	}
}

void
qe_mdtable_doc(struct qe_buf *b, const char *doc)
{
	if (qe_gfm_text(b, doc, CAP_DOC) == 0)
		qe_buf_adds(b, "(unnamed)");
}

static void
note(struct qe_buf *b, const char **sep, const char *s)
{
	qe_buf_adds(b, *sep);
	qe_buf_adds(b, s);
	*sep = ", ";
}

/* "slower", "faster", "unclear", "same" for a timed verdict, NULL otherwise. */
static const char *
moved(int v)
{
	return v == QE_V_REGRESSION ? "slower" : v == QE_V_IMPROVEMENT ? "faster" :
	    v == QE_V_INCONCLUSIVE ? "unclear" : v == QE_V_UNCHANGED ? "same" : NULL;
}

/* " (×2.50, p = 0.008, 5 + 5 runs, spread ×2.10–×2.90)" */
static void
test_words(struct qe_buf *b, double ratio, const struct qe_dtest *t)
{
	qe_buf_adds(b, " (");
	qe_gfm_ratio(b, ratio);
	if (t->has && !isnan(t->p))
		qe_gfm_addf(b, ", p = %.2g", t->p);
	if (t->has && t->n_b >= 0 && t->n_h >= 0)
		qe_gfm_addf(b, ", %ld + %ld runs", t->n_b, t->n_h);
	if (t->has && !isnan(t->lo)) {
		qe_buf_adds(b, ", spread ");
		qe_gfm_ratio(b, t->lo);
		qe_buf_adds(b, "\xe2\x80\x93");	/* – */
		qe_gfm_ratio(b, t->hi);
	}
	qe_buf_addc(b, ')');
}

/*
 * Replicate runs in plain numbers, as used first and warm beside it:
 * "slower as used: 0.65 s → 1.65 s (×2.5, p = 0.008, 5 + 5 runs, spread
 * ×2.1–×2.9); faster warm: 0.68 s → 0.001 s (×<0.01); compile ~1.6 s".
 */
void
qe_mdtable_replicate(struct qe_buf *b, int verdict, double base_s, double head_s, double ratio,
    const struct qe_dtest *t, const struct qe_dwarm *w)
{
	const char *word = moved(verdict);

	qe_buf_adds(b, word ? word : "as used");
	qe_buf_adds(b, word ? " as used: " : ": ");
	qe_gfm_dur(b, base_s);
	qe_buf_adds(b, ARROW);
	qe_gfm_dur(b, head_s);
	test_words(b, ratio, t);
	if (!w->has)
		return;
	if (w->error) {
		qe_buf_adds(b, "; warm unavailable: warm pass raised ");
		qe_gfm_code(b, w->error, CAP_REASON, 1);
		return;
	}
	if ((word = moved(w->verdict)) == NULL)
		return;		/* not run again: a definition */
	qe_buf_adds(b, "; ");
	qe_buf_adds(b, word);
	qe_buf_adds(b, " warm: ");
	qe_gfm_dur(b, w->b);
	qe_buf_adds(b, ARROW);
	qe_gfm_dur(b, w->h);
	qe_buf_adds(b, " (");
	qe_gfm_ratio(b, w->ratio);
	qe_buf_addc(b, ')');
	if (head_s - w->h > 0 && verdict == QE_V_REGRESSION && w->verdict == QE_V_IMPROVEMENT) {
		qe_buf_adds(b, "; compile ~");
		qe_gfm_dur(b, head_s - w->h);
	}
}

/*
 * "needs +2.1 GB more (peak), 30% of the runner's 7.0 GB, resident +1.9 GB"
 * (the share when the runner's memory is known).
 */
static void
memory_words(struct qe_buf *b, double peak, double resident, double runner)
{
	if (!isnan(peak) && peak > 0) {
		qe_buf_adds(b, "needs ");
		qe_gfm_bytes_delta(b, peak);
		qe_buf_adds(b, " more (peak)");
		if (runner > 0) {
			qe_buf_adds(b, ", ");
			qe_gfm_pct(b, peak / runner);
			qe_buf_adds(b, " of the runner's ");
			qe_gfm_bytes(b, runner);
		}
	}
	if (!isnan(resident) && resident > 0) {
		qe_buf_adds(b, !isnan(peak) && peak > 0 ? ", resident " : "resident ");
		qe_gfm_bytes_delta(b, resident);
	}
}

/*
 * "machine speed differs (×1.80 adjusted)": a verdict the runner factor
 * would change is unclear; the ratio column stays as measured.
 */
static void
speed_note(struct qe_buf *b, const char **sep, double adj_ratio)
{
	note(b, sep, "machine speed differs");
	if (!isnan(adj_ratio)) {
		qe_buf_adds(b, " (");
		qe_gfm_ratio(b, adj_ratio);
		qe_buf_adds(b, " adjusted)");
	}
}

/* How many other documents a row names before it only counts them. */
#define BESIDE_NAMED 3

/*
 * "ran beside 2 other documents (a, b)": a flagged row of a document that
 * ran at the same time as others (mystmd's --execute-parallel), whose
 * slowdown may be theirs; the names when there are few.
 */
static void
beside_note(struct qe_buf *b, const char **sep, const cJSON *beside)
{
	const cJSON *d;
	int n = cJSON_GetArraySize(beside), k = 0;

	note(b, sep, "ran beside ");
	qe_gfm_count(b, n);
	qe_buf_adds(b, qe_gfm_plural(n, " other document", " other documents"));
	if (n > BESIDE_NAMED)
		return;
	cJSON_ArrayForEach(d, beside) {
		qe_buf_adds(b, k++ ? ", " : " (");
		qe_mdtable_doc(b, cJSON_IsString(d) ? d->valuestring : "");
	}
	qe_buf_adds(b, ")");
}

/* 1 when a row is flagged: slower, faster, or failing (a cell now, a lecture at all). */
static int
flagged(const struct qe_dcell *c, const struct qe_dnb *n)
{
	int v = c ? c->verdict : n->verdict;

	return v == QE_V_REGRESSION || v == QE_V_IMPROVEMENT || (c && qe_review_now_failing(c)) ||
	    (!c && (v == QE_V_NEWLYFAILED || v == QE_V_FAILED));
}

/*
 * The notes of a cell's row (c) or a lecture's top row (n). An output change
 * no code explains is never a note, in any table: the notes count it
 * (qe_review_output_unexplained), so rows and count never tell it twice.
 */
static void
add_notes(struct qe_buf *b, const struct qe_dcell *c, const struct qe_dnb *n)
{
	unsigned fl = c ? c->flags : n->flags;
	const char *sep = "";

	if (c && qe_review_results_differ(c))
		note(b, &sep, "**results differ**");
	if (n)
		note(b, &sep, n->whole ? "whole notebook" : "lecture total");
	if (fl & QE_FLAG(QE_F_SPEED))
		speed_note(b, &sep, c ? c->adj_ratio : n->adj_ratio);
	if (fl & QE_FLAG(QE_F_COMPILE))
		note(b, &sep, "compile-time regression");
	if (c && c->has_test) {
		struct qe_dtest t = { 1, c->p, c->lo, c->hi, c->n_b, c->n_h };

		qe_buf_adds(b, sep);
		qe_mdtable_replicate(b, c->verdict, c->base_s, c->head_s, c->ratio, &t, &c->warm);
		sep = "; ";
	} else if (n && n->test.has) {
		qe_buf_adds(b, sep);
		qe_mdtable_replicate(b, n->verdict, n->base_s, n->head_s, n->ratio, &n->test, &n->warm);
		sep = "; ";
	} else if (c && c->warm.error) {
		qe_buf_adds(b, sep);
		qe_buf_adds(b, "warm unavailable: warm pass raised ");
		qe_gfm_code(b, c->warm.error, CAP_REASON, 1);
		sep = ", ";
	}
	if (c && (fl & QE_FLAG(QE_F_MEMORY))) {
		qe_buf_adds(b, sep);
		memory_words(b, c->mem_h - c->mem_b, c->rss_step, c->runner_mem);
		sep = ", ";
	}
	if (fl & QE_FLAG(QE_F_SOURCE))
		note(b, &sep, "source changed");
	if (fl & QE_FLAG(QE_F_UPSTREAM))
		note(b, &sep, "earlier cell changed");
	if ((fl & QE_FLAG(QE_F_OUTPUT)) && !(c && qe_review_results_differ(c)) &&
	    (fl & (QE_FLAG(QE_F_SOURCE) | QE_FLAG(QE_F_UPSTREAM))))
		note(b, &sep, "output changed");
	if (c && qe_review_now_failing(c)) {
		if (c->verdict == QE_V_REGRESSION || c->verdict == QE_V_IMPROVEMENT)
			note(b, &sep, "now fails");
	} else if (c && qe_review_fixed(c))
		note(b, &sep, "no longer fails");
	else if (fl & QE_FLAG(QE_F_STATUS))
		note(b, &sep, "status changed");
	if (fl & QE_FLAG(QE_F_NOTCOMP))
		note(b, &sep, "machines differ");
	if ((c ? c->beside : n->beside) != NULL && flagged(c, n))
		beside_note(b, &sep, c ? c->beside : n->beside);
	if (fl & QE_FLAG(QE_F_IGNORED))
		note(b, &sep, "ignored");
	else if (fl & QE_FLAG(QE_F_MAIN))
		note(b, &sep, "changed on main");
}

/* "| " between cells: the cell before ends, the next starts. */
static void
next_cell(struct qe_buf *b)
{
	qe_buf_adds(b, " | ");
}

static void
span(struct qe_buf *b, double base_s, double head_s)
{
	qe_gfm_dur(b, base_s);
	qe_buf_adds(b, ARROW);
	qe_gfm_dur(b, head_s);
}

static double
share(const struct qe_dcell *c)
{
	return !isnan(c->share_h) ? c->share_h : c->share_b;
}

void
qe_mdtable_top_row(struct qe_buf *b, const struct qe_toprow *t)
{
	const struct qe_dcell *c = t->c;
	const struct qe_dnb *n = t->n;

	qe_buf_adds(b, "| ");
	if (t->rank == 4)
		qe_buf_adds(b, "\xf0\x9f\x9f\xa0 more memory");		/* 🟠 */
	else
		qe_mdtable_verdict(b, c ? c->verdict : n->verdict, c && qe_review_now_failing(c));
	next_cell(b);
	qe_mdtable_doc(b, c ? c->doc : n->doc);
	next_cell(b);
	if (c)
		qe_mdtable_cell_name(b, c);
	else
		qe_buf_adds(b, "*whole lecture*");
	next_cell(b);
	span(b, c ? c->base_s : n->base_s, c ? c->head_s : n->head_s);
	next_cell(b);
	qe_gfm_ratio(b, c ? c->ratio : n->ratio);
	next_cell(b);
	qe_gfm_delta(b, c ? c->delta : n->delta);
	next_cell(b);
	if (c)
		qe_gfm_pct(b, share(c));
	else
		qe_buf_adds(b, QE_GFM_NONE);
	next_cell(b);
	add_notes(b, c, n);
	qe_buf_adds(b, " |\n");
}

static const char *const spark_levels[] = { "\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83",
	"\xe2\x96\x84", "\xe2\x96\x85", "\xe2\x96\x86", "\xe2\x96\x87", "\xe2\x96\x88" };

/*
 * Put the largest head time (base when head has none) of each bin of cells
 * in bins[0..w); any[k] says bin k had a timing. Returns the largest, or
 * -1 when no cell had a timing.
 */
static double
spark_bins(const struct qe_diffset *set, const struct qe_dnb *n, long w, double *bins, int *any)
{
	double max = -1;

	for (long k = 0; k < w; k++)
		bins[k] = 0, any[k] = 0;
	for (long i = 0; i < n->nc; i++) {
		const struct qe_dcell *c = &set->cells[n->c0 + i];
		double v = !isnan(c->head_s) ? c->head_s : c->base_s;
		long k = i * w / n->nc;

		if (isnan(v))
			continue;
		any[k] = 1;
		if (v > bins[k])
			bins[k] = v;
		if (max < 0)
			max = 0;
		if (v > max)
			max = v;
	}
	return max;
}

/* Head time of each cell in document order, as a sparkline (max per bin). */
static void
add_spark(struct qe_buf *b, const struct qe_diffset *set, const struct qe_dnb *n)
{
	long w = n->nc < SPARK_WIDTH ? n->nc : SPARK_WIDTH;
	double bins[SPARK_WIDTH], max;
	int any[SPARK_WIDTH];

	if (n->nc == 0 || (max = spark_bins(set, n, w, bins, any)) < 0) {
		qe_buf_adds(b, QE_GFM_NONE);
		return;
	}
	qe_buf_addc(b, '`');
	for (long k = 0; k < w; k++) {
		if (!any[k])
			qe_buf_adds(b, "\xc2\xb7");	/* · */
		else {
			int lv = max > 0 ? (int)floor(bins[k] / max * 7 + 0.5) : 0;

			qe_buf_adds(b, spark_levels[lv < 0 ? 0 : lv > 7 ? 7 : lv]);
		}
	}
	qe_buf_addc(b, '`');
}

static void
add_cell_counts(struct qe_buf *b, const long *counts, long ignored)
{
	static const int order[] = { QE_V_REGRESSION, QE_V_IMPROVEMENT, QE_V_INCONCLUSIVE,
		QE_V_UNCHANGED, QE_V_NEW, QE_V_REMOVED, QE_V_NOTIMING, QE_V_NOTCOMPARABLE };
	const char *sep = "";

	for (size_t k = 0; k < sizeof order / sizeof *order; k++)
		if (counts[order[k]] > 0) {
			qe_buf_adds(b, sep);
			qe_gfm_count(b, counts[order[k]]);
			qe_buf_addc(b, ' ');
			qe_buf_adds(b, qe_vocab_name(&qe_vocab_verdict_words, order[k]));
			sep = ", ";
		}
	if (ignored > 0) {
		qe_buf_adds(b, sep);
		qe_gfm_count(b, ignored);
		qe_buf_adds(b, " ignored");
		sep = ", ";
	}
	if (*sep == '\0')
		qe_buf_adds(b, QE_GFM_NONE);
}

/* 1 when a cell of lecture n has results that differ. */
static int
nb_differ(const struct qe_diffset *set, const struct qe_dnb *n)
{
	for (long i = 0; i < n->nc; i++)
		if (qe_review_results_differ(&set->cells[n->c0 + i]))
			return 1;
	return 0;
}

void
qe_mdtable_nb_row(struct qe_buf *b, const struct qe_diffset *set, const struct qe_dnb *n)
{
	qe_buf_adds(b, "| ");
	qe_mdtable_doc(b, n->doc);
	next_cell(b);
	if (qe_review_nb_failed(n))
		qe_buf_adds(b, qe_review_nb_failed(n) == 1 ? "\xe2\x9d\x8c newly failing" :
		    "\xe2\x9d\x8c still failing");
	else if (n->test.has) {	/* the mark, then the verdict in numbers */
		qe_buf_adds(b, n->verdict == QE_V_REGRESSION ? "\xf0\x9f\x94\xb4 " :
		    n->verdict == QE_V_IMPROVEMENT ? "\xf0\x9f\x9f\xa2 " :
		    n->verdict == QE_V_INCONCLUSIVE ? "\xf0\x9f\x9f\xa1 " : "");
		qe_mdtable_replicate(b, n->verdict, n->base_s, n->head_s, n->ratio, &n->test, &n->warm);
	} else
		qe_mdtable_verdict(b, n->verdict, 0);
	if (nb_differ(set, n))
		qe_buf_adds(b, "; **results differ**");
	if (n->flags & QE_FLAG(QE_F_SPEED))	/* the ratio beside it is as measured */
		speed_note(b, &(const char *){ "; " }, n->adj_ratio);
	if (n->flags & QE_FLAG(QE_F_MEMORY))
		qe_buf_adds(b, "; needs more memory");
	if (n->flags & QE_FLAG(QE_F_IGNORED))
		qe_buf_adds(b, " (ignored)");
	else if (n->flags & QE_FLAG(QE_F_MAIN))
		qe_buf_adds(b, " (changed on main)");
	next_cell(b);
	span(b, n->base_s, n->head_s);
	if (n->whole)
		qe_buf_adds(b, " (whole notebook)");
	next_cell(b);
	qe_gfm_ratio(b, n->ratio);
	next_cell(b);
	qe_gfm_delta(b, n->delta);
	next_cell(b);
	add_cell_counts(b, n->counts, n->ignored);
	next_cell(b);
	add_spark(b, set, n);
	qe_buf_adds(b, " |\n");
}

/* The reason, unless it only repeats "no timing" or "machines differ". */
static int
reason_shown(const struct qe_dcell *c)
{
	return c->reason && *c->reason && strcmp(c->reason, "no timing") != 0 &&
	    !(c->flags & QE_FLAG(QE_F_SPEED)) &&
	    !(c->flags & QE_FLAG(QE_F_NOTCOMP) && c->verdict != QE_V_NOTIMING &&
	    c->verdict != QE_V_NOTCOMPARABLE);
}

void
qe_mdtable_cell_row(struct qe_buf *b, const struct qe_dcell *c)
{
	size_t before;

	qe_buf_adds(b, "| ");
	qe_mdtable_doc(b, c->doc);
	next_cell(b);
	qe_mdtable_cell_name(b, c);
	next_cell(b);
	qe_mdtable_verdict(b, c->verdict, qe_review_now_failing(c));
	next_cell(b);
	qe_gfm_dur(b, c->base_s);
	next_cell(b);
	qe_gfm_dur(b, c->head_s);
	next_cell(b);
	qe_gfm_ratio(b, c->ratio);
	next_cell(b);
	qe_gfm_delta(b, c->delta);
	next_cell(b);
	qe_gfm_pct(b, share(c));
	next_cell(b);
	before = b->len;
	add_notes(b, c, NULL);
	if (reason_shown(c)) {
		if (b->len > before)
			qe_buf_adds(b, "; ");
		qe_gfm_text(b, c->reason, CAP_REASON);
	}
	qe_buf_adds(b, " |\n");
}
