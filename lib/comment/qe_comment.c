/* The diff comment assembled under the size limit (qe_comment.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qe_mem.h"
#include "qe_comment.h"
#include "qe_decide.h"
#include "qe_gfm.h"
#include "qe_mdprose.h"
#include "qe_mdtable.h"

#define CAP_TITLE	100
#define DEFAULT_TITLE	"Lecture execution times"

/* The document being written: out[base..] is ours, limit bytes at most. */
struct doc {
	struct qe_buf *out;
	size_t base, limit;
	const struct qe_comment_opts *o;
	const struct qe_review *r;
	const struct qe_dnb **listed;	/* the lectures of the per-lecture table */
};

/* Room left for optional parts, keeping `reserve` bytes for what follows. */
static size_t
room(const struct doc *m, size_t reserve)
{
	size_t used = m->out->len - m->base;

	return used + reserve < m->limit ? m->limit - used - reserve : 0;
}

/* Drop what was written after `start`. */
static void
cut(struct qe_buf *b, size_t start)
{
	b->len = start;
	b->data[b->len] = '\0';
}

static void
add_marker(struct qe_buf *b, const struct qe_ghrun *run)
{
	const char *sep = "";

	qe_buf_adds(b, "<!-- qe-telemetry: {");
	if (run->head_sha) {
		qe_buf_addf(b, "\"head_sha\":\"%s\"", run->head_sha);
		sep = ",";
	}
	if (run->run_number) {
		qe_buf_addf(b, "%s\"run_number\":%s", sep, run->run_number);
		sep = ",";
	}
	if (run->run_id)
		qe_buf_addf(b, "%s\"run_id\":%s", sep, run->run_id);
	qe_buf_adds(b, "} -->\n");
}

static void
truncation_note(struct qe_buf *b, long shown, long total, const char *what)
{
	qe_buf_adds(b, "\n*Truncated: ");
	qe_gfm_count(b, total - shown);
	qe_buf_adds(b, " of ");
	qe_gfm_count(b, total);
	qe_buf_addc(b, ' ');
	qe_buf_adds(b, what);
	qe_buf_adds(b, " not listed, to stay within the size limit.*\n");
}

/*
 * A section that did not fit at all still says so: "*All cells: 16 left
 * out, to stay within the size limit.*", when even that fits.
 */
static void
left_out(struct doc *m, size_t reserve, long n, const char *what)
{
	struct qe_buf t = { 0 };

	qe_buf_adds(&t, "\n*");
	qe_buf_adds(&t, what);
	qe_buf_adds(&t, ": ");
	qe_gfm_count(&t, n);
	qe_buf_adds(&t, " left out, to stay within the size limit.*\n");
	if (t.len <= room(m, reserve))
		qe_buf_add(m->out, t.data, t.len);
	qe_buf_free(&t);
}

/* Row i of a folded table. */
typedef void (*row_fn)(struct qe_buf *, long i, const struct doc *);

struct folded {
	const char *summary, *header, *what;	/* what: "cells", for the note */
	const char *section;	/* "All cells", for the line when none fits */
	long total;
	row_fn row;
};

/*
 * A folded table: rows are added while they fit in the room left
 * (summary, header, closing tag and the truncation note included); not
 * even one row leaves the section out. Returns the rows shown.
 */
static long
add_folded(struct doc *m, const struct folded *t, size_t reserve)
{
	static const size_t note_room = 160;
	struct qe_buf *b = m->out, r = { 0 };
	size_t start = b->len, budget = room(m, reserve);
	long shown = 0;

	qe_buf_adds(b, "\n<details>\n<summary>");
	qe_buf_adds(b, t->summary);
	qe_buf_adds(b, "</summary>\n\n");
	qe_buf_adds(b, t->header);
	for (long i = 0; i < t->total; i++) {
		qe_buf_reset(&r);
		t->row(&r, i, m);
		if (b->len - start + r.len + note_room + 16 > budget)
			break;
		qe_buf_add(b, r.data, r.len);
		shown++;
	}
	qe_buf_free(&r);
	if (shown == 0 && t->total > 0) {
		cut(b, start);
		left_out(m, reserve, t->total, t->section);
		return 0;
	}
	if (shown < t->total)
		truncation_note(b, shown, t->total, t->what);
	qe_buf_adds(b, "\n</details>\n");
	return shown;
}

/* The top table, row by row while rows fit, and how many did not. */
static void
add_top(struct doc *m, size_t reserve)
{
	const struct qe_review *r = m->r;
	struct qe_buf *out = m->out, row = { 0 };
	long rows = m->o->max_rows >= 0 ? m->o->max_rows : m->o->summary ? 25 : 10;
	long shown = 0, more;
	size_t start = out->len;

	if (r->ntops == 0)
		return;
	if (rows <= 0 || room(m, reserve) <= strlen(qe_mdtable_top_header) + 3) {
		if (rows > 0)
			left_out(m, reserve, (long)r->ntops, "Top changes");
		return;
	}
	qe_buf_adds(out, "\n");
	qe_buf_adds(out, qe_mdtable_top_header);
	for (size_t i = 0; i < r->ntops && shown < rows; i++) {
		qe_buf_reset(&row);
		qe_mdtable_top_row(&row, &r->tops[i]);
		if (row.len + 120 > room(m, reserve))
			break;
		qe_buf_add(out, row.data, row.len);
		shown++;
	}
	qe_buf_free(&row);
	more = (long)r->ntops - shown;
	if (shown == 0) {
		cut(out, start);
		left_out(m, reserve, more, "Top changes");
	}
	else if (more > 0) {
		qe_buf_adds(out, "\n");
		qe_gfm_count(out, more);
		qe_buf_adds(out, qe_gfm_plural(more, " more change", " more changes"));
		qe_buf_adds(out, " not shown in this table.\n");
	}
}

static void
nb_row(struct qe_buf *b, long i, const struct doc *m)
{
	qe_mdtable_nb_row(b, m->r->set, m->listed[i]);
}

static void
cell_row(struct qe_buf *b, long i, const struct doc *m)
{
	qe_mdtable_cell_row(b, &m->r->set->cells[i]);
}

/* Per-lecture totals (re-executed lectures), then the cached ones in a line. */
static void
add_lectures(struct doc *m, size_t reserve)
{
	const struct qe_review *r = m->r;
	const struct qe_diffset *d = r->set;
	long listed = 0;
	struct qe_buf tmp = { 0 };

	m->listed = qe_xmalloc((d->nnbs + 1) * sizeof *m->listed);
	for (size_t i = 0; i < d->nnbs; i++)
		if (d->nbs[i].verdict != QE_V_CACHED)
			m->listed[listed++] = &d->nbs[i];
	if (listed > 0) {
		qe_buf_adds(&tmp, "Per-lecture totals: ");
		qe_gfm_count(&tmp, listed);
		qe_buf_adds(&tmp, qe_gfm_plural(listed, " lecture", " lectures"));
		add_folded(m, &(struct folded){ tmp.data, qe_mdtable_nb_header, "lectures",
		    "Per-lecture totals", listed, nb_row }, reserve);
	}
	if (r->n_cached > 0) {
		qe_buf_reset(&tmp);
		qe_mdprose_cached(&tmp, r, m->o->summary ? 200 : 20);
		if (tmp.len <= room(m, reserve))
			qe_buf_add(m->out, tmp.data, tmp.len);
		else
			left_out(m, reserve, r->n_cached, "Lectures not re-executed");
	}
	qe_buf_free(&tmp);
	free(m->listed);
	m->listed = NULL;
}

/* Every cell, unless a quiet comment (nothing to look at) would only grow. */
static void
add_cells(struct doc *m, size_t reserve, int quiet)
{
	const struct qe_diffset *d = m->r->set;
	struct qe_buf tmp = { 0 };

	if (d->ncells == 0 || (quiet && !m->o->summary))
		return;
	qe_buf_adds(&tmp, "All cells: ");
	qe_gfm_count(&tmp, (long)d->ncells);
	add_folded(m, &(struct folded){ tmp.data, qe_mdtable_cell_header, "cells", "All cells",
	    (long)d->ncells, cell_row }, reserve);
	qe_buf_free(&tmp);
}

/* The part that is never cut: marker, title, headline. */
static void
add_head(struct doc *m)
{
	struct qe_buf *out = m->out;

	if (!m->o->summary)
		add_marker(out, &m->o->run);
	qe_buf_adds(out, "### ");
	if (qe_gfm_text(out, m->o->title ? m->o->title : DEFAULT_TITLE, CAP_TITLE) == 0)
		qe_buf_adds(out, DEFAULT_TITLE);
	qe_buf_adds(out, "\n\n");
	/* an evaluation opens with its decision, before any evidence */
	qe_decide_lines(out, m->r->set, m->o->eval);
	qe_mdprose_headline(out, m->r);
}

/*
 * The evaluation harness's part (qe_evalmd.h): what to do, after the
 * correctness warnings (sections 0), or its findings and tables (1), when
 * it fits.
 */
static void
add_eval(struct doc *m, size_t reserve, int sections)
{
	struct qe_buf tmp = { 0 };

	if (m->o->eval == NULL || !qe_evalmd_any(m->o->eval))
		return;
	if (sections)
		qe_evalmd_sections(&tmp, m->o->eval);
	else
		qe_evalmd_recommend(&tmp, m->o->eval);
	if (tmp.len > 0 && tmp.len + 1 <= room(m, reserve)) {
		qe_buf_adds(m->out, "\n");
		qe_buf_add(m->out, tmp.data, tmp.len);
	}
	qe_buf_free(&tmp);
}

/* Warnings: short by construction; left out only if the limit is tiny. */
static void
add_warnings(struct doc *m, size_t reserve, int input_trouble)
{
	struct qe_buf tmp = { 0 };

	qe_mdprose_warnings(&tmp, m->r, input_trouble);
	if (tmp.len > 0 && tmp.len + 1 <= room(m, reserve)) {
		qe_buf_adds(m->out, "\n");
		qe_buf_add(m->out, tmp.data, tmp.len);
	}
	qe_buf_free(&tmp);
}

void
qe_comment_render(struct qe_buf *out, const struct qe_comment_opts *o,
    const struct qe_review *r, int input_trouble)
{
	struct doc m = { out, out->len, o->limit, o, r, NULL };
	struct qe_buf foot = { 0 }, src = { 0 }, mach = { 0 };
	size_t resv;
	/* replicate runs are an evaluation: their cells' numbers are its evidence */
	int quiet = r->ntops == 0 && r->n_failed == 0 && !qe_diffsum_machines_differ(r->set) &&
	    !input_trouble && r->rep_b == 0 && r->rep_h == 0;

	if (m.limit == 0)
		m.limit = o->summary ? QE_SUMMARY_LIMIT : QE_COMMENT_LIMIT;
	add_head(&m);
	if (o->eval != NULL && qe_evalmd_machine(&mach, o->eval))
		qe_mdprose_footer(&foot, r, &o->run, mach.data);
	else
		qe_mdprose_footer(&foot, r, &o->run, NULL);
	if (o->summary)
		qe_mdprose_sources(&src, r);	/* kept: it says what the numbers are */
	resv = foot.len + src.len + 2;
	add_warnings(&m, resv, input_trouble);
	add_eval(&m, resv, 0);
	add_top(&m, resv);
	add_lectures(&m, resv);
	add_cells(&m, resv, quiet);
	add_eval(&m, resv, 1);
	if (src.len > 0 && src.len <= room(&m, foot.len + 1))
		qe_buf_add(out, src.data, src.len);
	if (out->len - m.base + 1 + foot.len <= m.limit) {
		qe_buf_adds(out, "\n");
		qe_buf_add(out, foot.data, foot.len);
	}
	qe_buf_free(&foot);
	qe_buf_free(&src);
	qe_buf_free(&mach);
}

/* 1 when a count object of the summary ("notebooks", "cells") counts a verdict that is news. */
static int
counts_news(const cJSON *counts)
{
	const cJSON *c;

	cJSON_ArrayForEach(c, (cJSON_IsObject(counts) ? counts : NULL)) {
		int v = qe_vocab_lookup(&qe_vocab_verdicts, c->string);

		if (v != QE_V_UNCHANGED && v != QE_V_CACHED && cJSON_IsNumber(c) && c->valuedouble > 0)
			return 1;
	}
	return 0;
}

void
qe_comment_facts(struct qe_buf *out, const struct qe_diffset *d)
{
	const cJSON *nbs = d->summary ? cJSON_GetObjectItemCaseSensitive(d->summary, "notebooks") : NULL;
	const cJSON *cells = d->summary ? cJSON_GetObjectItemCaseSensitive(d->summary, "cells") : NULL;

	qe_buf_addf(out, "regression=%s\n", qe_diffsum_bool(d, "regression") ? "true" : "false");
	qe_buf_addf(out, "changed=%s\n", counts_news(nbs) || counts_news(cells) ? "true" : "false");
}

/* Seconds rounded up to a whole number, 0 for null, negative or absurd. */
static long long
whole_seconds(double s)
{
	return isfinite(s) && s > 0 && s < 1e15 ? (long long)ceil(s) : 0;
}

void
qe_comment_flagged(struct qe_buf *out, const struct qe_diffset *d)
{
	for (size_t i = 0; i < d->nnbs; i++) {
		const struct qe_dnb *n = &d->nbs[i];

		if (n->verdict != QE_V_REGRESSION && n->verdict != QE_V_IMPROVEMENT)
			continue;
		qe_buf_add(out, n->doc, strlen(n->doc) + 1);
		qe_buf_addf(out, "%lld", whole_seconds(n->base_exec));
		qe_buf_addc(out, '\0');
		qe_buf_addf(out, "%lld", whole_seconds(n->head_exec));
		qe_buf_addc(out, '\0');
	}
}

void
qe_comment_flagged_cells(struct qe_buf *out, const struct qe_diffset *d)
{
	for (size_t i = 0; i < d->ncells; i++) {
		const struct qe_dcell *c = &d->cells[i];

		if (c->hidx >= 0 && (c->verdict == QE_V_REGRESSION ||
		    c->verdict == QE_V_IMPROVEMENT || c->verdict == QE_V_INCONCLUSIVE))
			qe_buf_addf(out, "%ld\n", c->hidx);
	}
}
