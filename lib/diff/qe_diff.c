/* The diff model: pairs, runner factor, cell and notebook verdicts (qe_diff.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qe_align.h"
#include "qe_diff.h"
#include "qe_fences.h"
#include "qe_stats.h"

#define F_SOURCE QE_FLAG(QE_F_SOURCE)
#define F_UPSTREAM QE_FLAG(QE_F_UPSTREAM)
#define F_OUTPUT QE_FLAG(QE_F_OUTPUT)
#define F_STATUS QE_FLAG(QE_F_STATUS)
#define F_NOTCOMP QE_FLAG(QE_F_NOTCOMP)
#define F_MAIN QE_FLAG(QE_F_MAIN)
#define F_IGNORED QE_FLAG(QE_F_IGNORED)
/* what keeps a regression out of -e */
#define F_NOGATE (F_NOTCOMP | F_MAIN | F_IGNORED)

/* Was this document executed by HEAD? Sets *how. */
static int
head_executed(const struct qe_doc *d, const char **how)
{
	const struct qe_side *b = &d->s[QE_BASE], *h = &d->s[QE_HEAD];

	if (h->origin >= 0) {
		*how = "origin";
		return h->origin == QE_ORIGIN_EXECUTED;
	}
	*how = "cache-key";
	if (!b->present || !h->input_cache || !b->input_cache)
		return 1;
	if (h->cache_key == NULL || b->cache_key == NULL)
		return 1;
	return strcmp(h->cache_key, b->cache_key) != 0;
}

/*
 * Equality at each alignment level: the key (default the source digest);
 * then, to pair the cells left between two key matches, the label, then the
 * first line; then position (qe_align).
 */
enum { EQ_KEY, EQ_LABEL, EQ_FIRSTLINE, EQ_LEVELS };

struct sides {
	const struct qe_reader *r;
	const struct qe_cell **B, **H;
	int nb, nh;
};

static int
same_text(const struct qe_reader *r, uint32_t x, uint32_t y)
{
	return x && y && strcmp(qe_reader_text(r, x), qe_reader_text(r, y)) == 0;
}

static int
same(void *arg, int level, int b, int h)
{
	const struct sides *s = arg;
	const struct qe_cell *x = s->B[b], *y = s->H[h];

	switch (level) {
	case EQ_KEY:
		return x->haskey && y->haskey && memcmp(x->key, y->key, 16) == 0;
	case EQ_LABEL:
		return same_text(s->r, x->label, y->label);
	case EQ_FIRSTLINE:
		return same_text(s->r, x->first_line, y->first_line);
	}
	return 0;
}

struct cellpair {
	const struct qe_cell *b, *h;
	unsigned flags;		/* source, upstream, output, status */
};

/* The aligned cells of a document with their change flags; *np of them. */
static struct cellpair *
doc_pairs(const struct qe_reader *r, const struct qe_doc *d, int *np)
{
	struct sides s = { r, NULL, NULL, 0, 0 };
	struct qe_pair *p;
	struct cellpair *cp;
	int n, changed = 0;

	s.nb = qe_reader_side_cells(&d->s[QE_BASE], &s.B);
	s.nh = qe_reader_side_cells(&d->s[QE_HEAD], &s.H);
	p = qe_align(s.nb, s.nh, EQ_LEVELS, same, &s, &n);
	cp = qe_xmalloc(sizeof *cp * (size_t)(n + 1));
	for (int i = 0; i < n; i++) {
		const struct qe_cell *b = p[i].b >= 0 ? s.B[p[i].b] : NULL, *h = p[i].h >= 0 ? s.H[p[i].h] : NULL;
		unsigned f = changed ? F_UPSTREAM : 0;

		if (b && h) {
			if (memcmp(b->src, h->src, 16) != 0)
				f |= F_SOURCE;
			if (b->out != h->out)
				f |= F_OUTPUT;
			if (b->status != h->status)
				f |= F_STATUS;
		}
		if (!b || !h || (f & F_SOURCE))
			changed = 1;
		cp[i] = (struct cellpair){ b, h, f };
	}
	free(p);
	free(s.B);
	free(s.H);
	*np = n;
	return cp;
}

static int
compared(const struct qe_doc *d)
{
	const char *how;

	return d->s[QE_BASE].present && d->s[QE_HEAD].present && head_executed(d, &how);
}

/*
 * log(head/base) of a cell pair that measures compute, or NAN when it says
 * nothing of the runner: changed, failed, too short, an import cell or the
 * lecture's first cell (i == 0), which pay the disk cache and the kernel's
 * start: a cold first build moved them x2.4 while compute held.
 */
static double
steady_log(const struct qe_diff_opts *o, const struct qe_reader *r, const struct cellpair *c, int i)
{
	double mb, mh;

	if (!c->b || !c->h || (c->flags & (F_SOURCE | F_UPSTREAM | F_STATUS)) || i == 0)
		return NAN;
	if (c->b->status != QE_ST_OK || !qe_vocab_timing_sources_comparable(c->b->tsrc, c->h->tsrc))
		return NAN;
	if (qe_diff_import_line(qe_reader_text(r, c->h->first_line)))
		return NAN;
	mb = qe_reader_cell_median(c->b);
	mh = qe_reader_cell_median(c->h);
	if (isnan(mb) || isnan(mh) || mb < o->factor_min_s || mh < o->factor_min_s)
		return NAN;
	return log(mh / mb);
}

/* 1 when both sides of d are stamped on one runner class and CPU (every fact but packages). */
static int
same_machine(const struct qe_reader *r, const struct qe_doc *d)
{
	const char *b = d->s[QE_BASE].fp, *h = d->s[QE_HEAD].fp;

	return b && h && (b == h || !qe_fp_machine_differ(qe_fp_facts(&r->fps, b), qe_fp_facts(&r->fps, h)));
}

/* exp of the median |logs[i] - log(factor)|: how far the cells' ratios stray from the factor. */
static double
log_spread(double *logs, int n, double factor)
{
	for (int i = 0; i < n; i++)
		logs[i] = fabs(logs[i] - log(factor));
	return exp(qe_stats_median(logs, n));
}

/* The logs of the factor's cells and the document each is in. */
struct factor_logs {
	double *l;
	size_t *doc;
	int n, cap;
};

static void
push_log(struct factor_logs *f, double l, size_t doc)
{
	if (f->n == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 64;
		f->l = qe_xrealloc(f->l, sizeof *f->l * (size_t)f->cap);
		f->doc = qe_xrealloc(f->doc, sizeof *f->doc * (size_t)f->cap);
	}
	f->l[f->n] = l;
	f->doc[f->n++] = doc;
}

/* rf->moved, rf->moved_docs: the cells beyond the band in the factor's direction. */
static void
count_moved(struct qe_factor_facts *rf, const struct factor_logs *f)
{
	double edge = log(QE_VERDICT_FACTOR_BAND), sign = rf->factor >= 1 ? 1 : -1;
	size_t last = (size_t)-1;

	for (int i = 0; i < f->n; i++)
		if (f->l[i] * sign >= edge) {
			rf->moved++;
			rf->moved_docs += f->doc[i] != last;
			last = f->doc[i];
		}
}

struct qe_factor_facts
qe_diff_runner_factor(const struct qe_diff_opts *o, const struct qe_reader *r,
    struct qe_doc *const *docs, size_t n)
{
	struct qe_factor_facts rf = { NAN, NAN, 0, 0, 0, 1, 0, 0 };
	struct factor_logs f = { NULL, NULL, 0, 0 };
	double l;
	int np;

	for (size_t k = 0; k < n; k++) {
		struct cellpair *cp;

		if (!compared(docs[k]))
			continue;
		cp = doc_pairs(r, docs[k], &np);
		for (int i = 0, seen = 0; i < np; i++) {
			if (isnan(l = steady_log(o, r, &cp[i], i)))
				continue;
			if (!seen)
				rf.docs++, rf.same_machine &= same_machine(r, docs[k]);
			seen = 1;
			rf.reps += cp[i].b->more && cp[i].h->more;
			push_log(&f, l, k);
		}
		free(cp);
	}
	rf.cells = f.n;
	rf.same_machine &= f.n > 0;
	if (f.n >= o->factor_min_cells) {
		double *v = qe_xmalloc(sizeof *v * (size_t)f.n);

		memcpy(v, f.l, sizeof *v * (size_t)f.n);
		rf.factor = exp(qe_stats_median(v, f.n));
		count_moved(&rf, &f);
		rf.spread = log_spread(v, f.n, rf.factor);
		free(v);
	}
	free(f.l);
	free(f.doc);
	return rf;
}

/* The median of samples s, NAN when none. */
static double
samples_median(const struct qe_samples *s)
{
	double *v, m;

	if (s == NULL || s->n == 0)
		return NAN;
	v = qe_xmalloc(sizeof *v * (size_t)s->n);
	memcpy(v, s->v, sizeof *v * (size_t)s->n);
	m = qe_stats_median(v, s->n);
	free(v);
	return m;
}

/*
 * Memory: flagged memory-growth when head's median peak growth (the hook's
 * peak_growth_bytes) is at least mem_abs bytes and mem_ratio times above
 * base's, or at least mem_share percent of the runner's memory above it
 * whatever the ratio (when the runner's memory is known), or when head's
 * resident set (rss_bytes) grew at least mem_abs bytes more than base's
 * across the cell. *rss_diff: head - base resident
 * after the last cell both measured, carried from cell to cell.
 */
static void
judge_memory(const struct qe_diff_opts *o, const struct cellpair *p, struct qe_cell_diff *c,
    double *rss_diff)
{
	c->mem_b = samples_median(p->b ? p->b->mem : NULL);
	c->mem_h = samples_median(p->h ? p->h->mem : NULL);
	c->has_mem = !isnan(c->mem_b) || !isnan(c->mem_h);
	c->rss_b = samples_median(p->b ? p->b->rss : NULL);
	c->rss_h = samples_median(p->h ? p->h->rss : NULL);
	c->has_rss = !isnan(c->rss_b) || !isnan(c->rss_h);
	c->rss_step = NAN;
	if (p->b && p->h && !isnan(c->mem_b) && !isnan(c->mem_h) &&
	    ((c->mem_h - c->mem_b >= o->mem_abs && c->mem_h >= c->mem_b * o->mem_ratio) ||
	    (o->runner_mem > 0 && o->mem_share > 0 && c->mem_h - c->mem_b >= o->runner_mem * o->mem_share / 100)))
		c->flags |= QE_FLAG(QE_F_MEMORY);
	if (isnan(c->rss_b) || isnan(c->rss_h))
		return;
	c->rss_step = c->rss_h - c->rss_b - (isnan(*rss_diff) ? 0 : *rss_diff);
	*rss_diff = c->rss_h - c->rss_b;
	if (p->b && p->h && c->rss_step >= o->mem_abs)
		c->flags |= QE_FLAG(QE_F_MEMORY);
}

/* The reason of a verdict the runner factor would change (qe_verdict_speed). */
#define SPEED_REASON "machine speed differs"

/*
 * Judge hv against bv into *j with the runner factor removed (scale), and,
 * when there is one, as measured too: *raw and *adj are the two readings'
 * verdicts, j->verdict is qe_verdict_speed() of them (its test's answer
 * follows an inconclusive one).
 */
static void
judge_speed(struct qe_judgement *j, double *bv, int nb, double *hv, int nh, const struct qe_rule *rule,
    double scale, int *raw, int *adj)
{
	struct qe_judgement m;
	double *b2, *h2;
	int speed;

	*raw = -1;
	if (scale != 1) {
		b2 = qe_xmalloc(sizeof *b2 * (size_t)nb);
		h2 = qe_xmalloc(sizeof *h2 * (size_t)nh);
		memcpy(b2, bv, sizeof *b2 * (size_t)nb);
		memcpy(h2, hv, sizeof *h2 * (size_t)nh);
		qe_verdict_judgement_init(&m, -1);
		qe_verdict_judge(&m, b2, nb, h2, nh, rule, 1);
		*raw = m.verdict;
		free(b2);
		free(h2);
	}
	qe_verdict_judge(j, bv, nb, hv, nh, rule, scale);
	*adj = j->verdict;
	if (*raw < 0)
		*raw = *adj;
	j->verdict = qe_verdict_speed(*raw, *adj, &speed);
	if (speed && j->answer >= 0)
		j->answer = QE_A_INCONCLUSIVE;
}

/*
 * The warm samples (qe-replicate --warm) by the cell's rule, beside the
 * as-used verdict; slower as used but faster warm is flagged
 * compile-time-regression.
 */
static void
judge_warm(const struct qe_reader *r, const struct qe_rule *rule, const struct cellpair *p, double scale,
    struct qe_cell_diff *c)
{
	const struct qe_samples *bw = p->b ? p->b->warm : NULL, *hw = p->h ? p->h->warm : NULL;
	uint32_t err = p->h && p->h->warm_error ? p->h->warm_error : p->b ? p->b->warm_error : 0;
	double *bv, *hv;

	c->warm_error = err ? qe_reader_text(r, err) : NULL;
	qe_verdict_judgement_init(&c->warm, bw || hw || err ? QE_V_NOTIMING : -1);
	if (!bw || !hw)
		return;
	bv = qe_xmalloc(sizeof *bv * (size_t)bw->n);
	hv = qe_xmalloc(sizeof *hv * (size_t)hw->n);
	memcpy(bv, bw->v, sizeof *bv * (size_t)bw->n);
	memcpy(hv, hw->v, sizeof *hv * (size_t)hw->n);
	qe_verdict_judge(&c->warm, bv, bw->n, hv, hw->n, rule, scale);
	free(bv);
	free(hv);
	if (c->j.verdict == QE_V_REGRESSION && c->warm.verdict == QE_V_IMPROVEMENT)
		c->flags |= QE_FLAG(QE_F_COMPILE);
}

/*
 * Judge one pair of cells into *c (notcomp: the fingerprints differ; doc:
 * the changed-on-main and ignored flags its notebook gives every cell).
 */
static void
judge_cell(const struct qe_diff_opts *o, const struct qe_reader *r, const struct qe_rule *rule, double scale,
    const struct cellpair *p, int notcomp, unsigned doc, struct qe_cell_diff *c, double *rss_diff)
{
	double *bv = NULL, *hv = NULL;
	int nbv = qe_reader_cell_samples(p->b, &bv), nhv = qe_reader_cell_samples(p->h, &hv);

	c->b = p->b;
	c->h = p->h;
	c->flags = p->flags | (notcomp ? F_NOTCOMP : 0) | doc;
	c->reason = notcomp ? "provenance fingerprints differ" : NULL;
	qe_verdict_judgement_init(&c->j, QE_V_NOTIMING);
	c->raw_verdict = c->adj_verdict = -1;
	c->j.nb = nbv;
	c->j.nh = nhv;
	if (!p->b)
		c->j.verdict = QE_V_NEW, c->j.h = qe_stats_median(hv, nhv);
	else if (!p->h)
		c->j.verdict = QE_V_REMOVED, c->j.b = qe_stats_median(bv, nbv);
	else if (nbv == 0 || nhv == 0) {
		c->j.b = qe_stats_median(bv, nbv);
		c->j.h = qe_stats_median(hv, nhv);
		/* a cell with no code is one no kernel runs: not a missing timing */
		if (c->reason == NULL && !nbv && !nhv && !p->b->first_line && !p->h->first_line)
			c->reason = "no code";
		else if (c->reason == NULL)
			c->reason = nbv ? "no head timing" : nhv ? "no base timing" : "no timing";
	} else if (!qe_vocab_timing_sources_comparable(p->b->tsrc, p->h->tsrc)) {
		c->j.verdict = QE_V_NOTCOMPARABLE;
		c->flags |= F_NOTCOMP;
		c->j.b = qe_stats_median(bv, nbv);
		c->j.h = qe_stats_median(hv, nhv);
		c->reason = "timing sources differ";
	} else
		judge_speed(&c->j, bv, nbv, hv, nhv, rule, scale, &c->raw_verdict, &c->adj_verdict);
	if (c->raw_verdict != c->adj_verdict) {
		c->flags |= QE_FLAG(QE_F_SPEED);
		c->reason = SPEED_REASON;
	}
	free(bv);
	free(hv);
	judge_warm(r, rule, p, scale, c);
	judge_memory(o, p, c, rss_diff);
}

/* A judged cell's share in its notebook's counts and flags. */
static void
count_cell(struct qe_nb_diff *nb, const struct qe_cell_diff *c)
{
	int v = c->j.verdict, raw = c->raw_verdict, adj = c->adj_verdict;
	/* a cell silenced by its label takes no part; a silenced lecture keeps its verdict */
	int part = !(c->flags & F_IGNORED) || (nb->flags & F_IGNORED);

	nb->cells[v]++;
	for (int f = 0; f < QE_NFLAGS; f++)
		if (c->flags & QE_FLAG(f))
			nb->cell_flags[f]++;
	if (v == QE_V_REGRESSION && !(c->flags & F_NOGATE))
		nb->cell_regressions++;
	/* the lecture rule reads each reading's cells: adjusted, and as measured */
	if (part && (adj == QE_V_REGRESSION || adj == QE_V_IMPROVEMENT))
		nb->rule_cells[adj == QE_V_REGRESSION ? 0 : 1]++;
	if (part && (raw == QE_V_REGRESSION || raw == QE_V_IMPROVEMENT))
		nb->raw_rule_cells[raw == QE_V_REGRESSION ? 0 : 1]++;
	nb->flags |= c->flags & (F_OUTPUT | F_STATUS | QE_FLAG(QE_F_COMPILE) | QE_FLAG(QE_F_MEMORY) |
	    QE_FLAG(QE_F_RECOMPILE));
	if (v == QE_V_NEW || v == QE_V_REMOVED || (c->flags & F_SOURCE))
		nb->flags |= F_SOURCE;
}

/* 1 when both sides captured values (qe-replicate --compare): they decide "results differ". */
static int
fidelity_decides(const struct qe_nb_diff *nb)
{
	return nb->fid.present && nb->fid.answer != QE_FA_NOTCOMPARED;
}

/* The fidelity of d's captured values, and the lecture's flags it decides. */
static void
judge_fidelity(const struct qe_diff_opts *o, const struct qe_doc *d, struct qe_nb_diff *nb)
{
	qe_fidelity_compare(d->s[QE_BASE].values, d->s[QE_HEAD].values, o->rtol, o->atol, &nb->fid);
	nb->fid.vary = d->s[QE_BASE].values_vary || d->s[QE_HEAD].values_vary;
	if (nb->fid.present && nb->fid.answer == QE_FA_DIFFER)
		nb->flags |= F_OUTPUT;
	if (nb->fid.present && nb->fid.answer == QE_FA_PRECISION)
		nb->flags |= QE_FLAG(QE_F_PRECISION);
}

static void
judge_cells(const struct qe_diff_opts *o, const struct qe_reader *r, double scale, struct qe_nb_diff *nb,
    qe_cell_diff_fn fn, void *arg)
{
	int np;
	struct cellpair *cp = doc_pairs(r, nb->doc, &np);
	double m, rss_diff = NAN;

	for (int i = 0; i < np; i++) {
		if (fidelity_decides(nb))	/* the values are the results, not the printouts */
			cp[i].flags &= ~F_OUTPUT;
		if (cp[i].b && !isnan(m = qe_reader_cell_median(cp[i].b)))
			nb->sum[QE_BASE] += m;
		if (cp[i].h && !isnan(m = qe_reader_cell_median(cp[i].h)))
			nb->sum[QE_HEAD] += m;
	}
	for (int i = 0; i < np; i++) {
		struct qe_cell_diff c;
		struct qe_rule rule;
		unsigned doc = nb->flags & (F_MAIN | F_IGNORED);
		const struct qe_cell *any = cp[i].h ? cp[i].h : cp[i].b;

		if (o->scope && !(doc & F_IGNORED) &&
		    qe_prscope_ignored_cell(o->scope, nb->doc->name, qe_reader_text(r, any->label)))
			doc |= F_IGNORED;
		/* --fences: the rule main's history learned for BASE's cell */
		rule = qe_fences_rule(o->fences, &o->cell, nb->doc->name,
		    cp[i].b ? qe_reader_text(r, cp[i].b->label) : NULL, cp[i].b ? cp[i].b->src : NULL);
		/* the import rule: an unchanged import cell, or the first cell (the
		 * kernel's warm-up), swings with the disk and the kernel, not the code */
		if (cp[i].b && cp[i].h && !(cp[i].flags & (F_SOURCE | F_UPSTREAM)) &&
		    (i == 0 || qe_diff_import_line(qe_reader_text(r, cp[i].h->first_line))) &&
		    rule.abs < o->import_abs)
			rule.abs = o->import_abs;
		judge_cell(o, r, &rule, scale, &cp[i], nb->notcomp, doc, &c, &rss_diff);
		/* one function compiled again within the cell, more often than in base */
		if (cp[i].h && cp[i].h->jit_top_n > 1 && (!cp[i].b || cp[i].h->jit_top_n > cp[i].b->jit_top_n))
			c.flags |= QE_FLAG(QE_F_RECOMPILE);
		count_cell(nb, &c);
		if (fn)
			fn(arg, nb, &c);
	}
	free(cp);
}

/* The finite values of v[0..n) into out; how many. */
static int
finite_of(const double *v, int n, double *out)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		if (!isnan(v[i]))
			out[k++] = v[i];
	return k;
}

static int
one_source(const struct qe_side *s)
{
	return s->tsrc != QE_SIDE_TS_NONE && s->tsrc != QE_SIDE_TS_MIXED;
}

/*
 * A notebook both sides ran: judge the cells' total (cells_seconds, or the
 * sum of the cell medians) when their timing sources agree, else
 * execution_seconds with its own floor, else no timing.
 */
static void
judge_measure(const struct qe_diff_opts *o, double scale, struct qe_nb_diff *nb, double *bv, double *hv,
    struct qe_judgement *j)
{
	const struct qe_side *bs = &nb->doc->s[QE_BASE], *hs = &nb->doc->s[QE_HEAD];
	struct qe_rule exec = { o->nb.ratio, o->exec_abs, o->nb.alpha, o->nb.rep_ratio, o->nb.rep_abs, 0 };
	int nbv = 0, nhv = 0;

	if (one_source(bs) && one_source(hs) && qe_vocab_timing_sources_comparable(bs->tsrc, hs->tsrc)) {
		nbv = finite_of(bs->cells_s, bs->nexec, bv);
		nhv = finite_of(hs->cells_s, hs->nexec, hv);
		if (nbv == 0 && nb->sum[QE_BASE] > 0)
			bv[nbv++] = nb->sum[QE_BASE];
		if (nhv == 0 && nb->sum[QE_HEAD] > 0)
			hv[nhv++] = nb->sum[QE_HEAD];
	}
	if (nbv > 0 && nhv > 0) {
		nb->measure = "cells_seconds";
		qe_verdict_judge(j, bv, nbv, hv, nhv, &o->nb, scale);
		return;
	}
	nbv = finite_of(bs->exec_s, bs->nexec, bv);
	nhv = finite_of(hs->exec_s, hs->nexec, hv);
	if (nbv > 0 && nhv > 0) {
		nb->measure = "execution_seconds";
		qe_verdict_judge(j, bv, nbv, hv, nhv, &exec, 1);
		if (bs->tsrc != QE_SIDE_TS_NONE && hs->tsrc != QE_SIDE_TS_NONE)
			nb->reason = "cell timing sources differ; compared execution_seconds";
		else if (bs->ncells == 0 && hs->ncells == 0)
			nb->reason = "no code cells; compared execution_seconds";
		return;
	}
	j->verdict = QE_V_NOTIMING;
	nb->reason = bs->failed ? "base failed" : "no timing";
}

/*
 * The lecture rule (qe_diff.h) for one reading: its cells first (rc:
 * regressed and improved), the sum of their times (j) second; *rule the
 * route that decided.
 */
static int
lecture_rule(const struct qe_nb_diff *nb, const struct qe_judgement *j, const long rc[2], int *rule)
{
	*rule = nb->measure ? QE_R_SUM : -1;
	if (j->answer >= 0)	/* replicates: the lecture's total and its test, one answer */
		return j->verdict;
	if (rc[0] > 0 && rc[1] == 0)
		return *rule = QE_R_CELLS, QE_V_REGRESSION;
	if (rc[1] > 0 && rc[0] == 0)
		return *rule = QE_R_CELLS, QE_V_IMPROVEMENT;
	return j->verdict;
}

/*
 * The lecture's verdict after removing the runner factor (scale) and, when
 * there is one, as measured: the two readings by qe_verdict_speed().
 */
static void
judge_lecture(const struct qe_diff_opts *o, double scale, struct qe_nb_diff *nb, double *bv, double *hv)
{
	struct qe_judgement raw;
	int adj, asmeasured, rule, speed;

	judge_measure(o, scale, nb, bv, hv, &nb->j);
	adj = asmeasured = lecture_rule(nb, &nb->j, nb->rule_cells, &nb->rule);
	if (scale != 1) {
		qe_verdict_judgement_init(&raw, -1);
		judge_measure(o, 1, nb, bv, hv, &raw);
		asmeasured = lecture_rule(nb, &raw, nb->raw_rule_cells, &rule);
	}
	nb->verdict = qe_verdict_speed(asmeasured, adj, &speed);
	if (speed) {
		nb->flags |= QE_FLAG(QE_F_SPEED);
		nb->reason = SPEED_REASON;
		if (nb->j.answer >= 0)
			nb->j.answer = QE_A_INCONCLUSIVE;
	}
}

/* The medians of a side's notebook records (cells: or the sum of the cells). */
static void
side_medians(const struct qe_side *s, double sum, double *v, double *exec_med, double *cells_med)
{
	int n = finite_of(s->exec_s, s->nexec, v);

	*exec_med = qe_stats_median(v, n);
	n = finite_of(s->cells_s, s->nexec, v);
	*cells_med = n ? qe_stats_median(v, n) : sum > 0 ? sum : NAN;
}

/* The lecture's warm total (each run's warm_seconds) by the notebook rule. */
static void
judge_nb_warm(const struct qe_diff_opts *o, double scale, struct qe_nb_diff *nb, double *bv, double *hv)
{
	const struct qe_side *bs = &nb->doc->s[QE_BASE], *hs = &nb->doc->s[QE_HEAD];
	int nbv, nhv;

	nb->warm_error = hs->warm_error ? hs->warm_error : bs->warm_error;
	if (bs->nwarm == 0 && hs->nwarm == 0)
		return;
	nb->warm.verdict = QE_V_NOTIMING;
	nbv = finite_of(bs->warm_s, bs->nexec, bv);
	nhv = finite_of(hs->warm_s, hs->nexec, hv);
	if (nbv > 0 && nhv > 0)
		qe_verdict_judge(&nb->warm, bv, nbv, hv, nhv, &o->nb, scale);
	if (nb->verdict == QE_V_REGRESSION && nb->warm.verdict == QE_V_IMPROVEMENT)
		nb->flags |= QE_FLAG(QE_F_COMPILE);
}

static void
judge_notebook(const struct qe_diff_opts *o, double scale, struct qe_nb_diff *nb)
{
	const struct qe_side *bs = &nb->doc->s[QE_BASE], *hs = &nb->doc->s[QE_HEAD];
	double *bv = qe_xmalloc(sizeof(double) * (size_t)(bs->nexec + 1));
	double *hv = qe_xmalloc(sizeof(double) * (size_t)(hs->nexec + 1));

	if (bs->status && hs->status && strcmp(bs->status, hs->status) != 0)
		nb->flags |= F_STATUS;
	if (nb->verdict < 0) {
		judge_lecture(o, scale, nb, bv, hv);
		judge_nb_warm(o, scale, nb, bv, hv);
	}
	if (nb->notcomp && !qe_vocab_verdict_is_failure(nb->verdict))
		nb->reason = "provenance fingerprints differ";
	else if (nb->verdict == QE_V_CACHED)
		nb->reason = "head did not re-execute this document";
	side_medians(bs, nb->sum[QE_BASE], bv, &nb->exec_med[QE_BASE], &nb->cells_med[QE_BASE]);
	side_medians(hs, nb->sum[QE_HEAD], hv, &nb->exec_med[QE_HEAD], &nb->cells_med[QE_HEAD]);
	free(bv);
	free(hv);
}

/*
 * Did the document's code change between the sides? 1 when a cell's source
 * differs or a cell is on one side only, 0 when every cell pairs with the
 * same source, -1 when a side has no cells to tell (then the cache keys,
 * jupyter-cache's digest of the code, decide when both sides have one).
 */
static int
code_changed(const struct qe_reader *r, const struct qe_doc *d)
{
	const struct qe_side *bs = &d->s[QE_BASE], *hs = &d->s[QE_HEAD];
	struct cellpair *cp;
	int np, changed = 0;

	if (bs->ncells == 0 || hs->ncells == 0)
		return bs->cache_key && hs->cache_key ? strcmp(bs->cache_key, hs->cache_key) != 0 : -1;
	cp = doc_pairs(r, d, &np);
	for (int i = 0; i < np && !changed; i++)
		changed = !cp[i].b || !cp[i].h || (cp[i].flags & F_SOURCE);
	free(cp);
	return changed;
}

/*
 * What --changed and -i say of the whole document. Changed on main is a
 * document the pull request did not touch whose code differs from the
 * baseline's: a re-execution alone (a failure is never cached, a cache may
 * be evicted) is not a change; where the code cannot be told, a lecture
 * that failed on both sides is not one either.
 */
static void
scope_flags(const struct qe_diff_opts *o, const struct qe_reader *r, struct qe_nb_diff *nb)
{
	const struct qe_side *bs = &nb->doc->s[QE_BASE], *hs = &nb->doc->s[QE_HEAD];
	int changed;

	nb->touched = o->scope ? qe_prscope_touched(o->scope, nb->doc->name) : -1;
	if (nb->touched == 0 && hs->present && nb->executed) {
		changed = bs->present ? code_changed(r, nb->doc) : 1;
		if (changed > 0 || (changed < 0 && !(bs->failed && hs->failed)))
			nb->flags |= F_MAIN;
	}
	if (o->scope && qe_prscope_ignored_doc(o->scope, nb->doc->name))
		nb->flags |= F_IGNORED;
}

void
qe_diff_doc(const struct qe_diff_opts *o, const struct qe_reader *r, const struct qe_factor_facts *rf,
    const struct qe_doc *d, struct qe_nb_diff *nb, qe_cell_diff_fn fn, void *arg)
{
	const struct qe_side *bs = &d->s[QE_BASE], *hs = &d->s[QE_HEAD];
	double scale = qe_diff_scale(o, rf);

	memset(nb, 0, sizeof *nb);
	nb->doc = d;
	nb->rule = -1;
	qe_verdict_judgement_init(&nb->j, -1);
	qe_verdict_judgement_init(&nb->warm, -1);
	nb->executed = hs->present ? head_executed(d, &nb->how) : 0;
	/* a cached notebook was not measured by HEAD: its stamp says nothing */
	nb->notcomp = nb->executed && bs->present && bs->fp && hs->fp && bs->fp != hs->fp &&
	    qe_fp_machine_differ(qe_fp_facts(&r->fps, bs->fp), qe_fp_facts(&r->fps, hs->fp));
	if (nb->notcomp)
		nb->flags |= F_NOTCOMP;
	scope_flags(o, r, nb);
	judge_fidelity(o, d, nb);
	if (hs->present && hs->failed) {
		nb->verdict = bs->present && bs->failed ? QE_V_FAILED : QE_V_NEWLYFAILED;
		nb->reason = nb->verdict == QE_V_FAILED ? "failed in base and head" : "head failed";
	} else if (hs->present && !nb->executed)
		nb->verdict = QE_V_CACHED;
	else if (!bs->present)
		nb->verdict = QE_V_NEW;
	else if (!hs->present)
		nb->verdict = QE_V_REMOVED;
	else
		nb->verdict = -1;	/* judged on its measure */
	if ((!hs->present || nb->executed) && !(hs->present && hs->failed && hs->ncells == 0) &&
	    !(bs->present && bs->failed && bs->ncells == 0 && hs->present))
		judge_cells(o, r, scale, nb, fn, arg);
	judge_notebook(o, scale, nb);
}

void
qe_diff_tally(struct qe_diff_totals *t, const struct qe_reader *r, const struct qe_nb_diff *nb)
{
	const struct qe_side *bs = &nb->doc->s[QE_BASE], *hs = &nb->doc->s[QE_HEAD];

	if (bs->fp)
		qe_fp_note(&t->seen[QE_BASE], bs->fp);
	if (hs->fp)
		qe_fp_note(&t->seen[QE_HEAD], hs->fp);
	if (nb->notcomp)
		qe_fp_compare(&t->facts, qe_fp_facts(&r->fps, bs->fp), qe_fp_facts(&r->fps, hs->fp),
		    bs->fp, hs->fp);
	t->notebooks[nb->verdict]++;
	for (int f = 0; f < QE_NFLAGS; f++) {
		if (nb->flags & QE_FLAG(f))
			t->nb_flags[f]++;
		t->cell_flags[f] += nb->cell_flags[f];
	}
	for (int v = 0; v < QE_NVERDICTS; v++)
		t->cells[v] += nb->cells[v];
	t->regressions += nb->cell_regressions;
	if (nb->verdict == QE_V_REGRESSION && !(nb->flags & F_NOGATE))
		t->regressions++;
}

double
qe_diff_scale(const struct qe_diff_opts *o, const struct qe_factor_facts *rf)
{
	return qe_verdict_speed_scale(rf, o->adjust);
}

int
qe_diff_import_line(const char *s)
{
	if (s == NULL)
		return 0;
	while (*s == ' ' || *s == '\t')
		s++;
	if (strncmp(s, "import ", 7) == 0)
		return 1;
	return strncmp(s, "from ", 5) == 0 && strstr(s + 5, " import ") != NULL;
}

/* 1 when s is "import PKG" or "from PKG" (then end, space, '.' or ','). */
static int
names_import(const char *s, const char *pkg)
{
	size_t n = strlen(pkg), k;

	while (*s == ' ' || *s == '\t')
		s++;
	if (strncmp(s, "import ", 7) == 0)
		s += 7;
	else if (strncmp(s, "from ", 5) == 0)
		s += 5;
	else
		return 0;
	while (*s == ' ')
		s++;
	for (k = 0; k < n; k++)
		if (s[k] != (pkg[k] == '-' ? '_' : pkg[k]))
			return 0;
	return s[n] == '\0' || s[n] == ' ' || s[n] == '.' || s[n] == ',';
}

int
qe_diff_imports(const struct qe_reader *r, const struct qe_doc *d, const char *pkg)
{
	const struct qe_side *hs = &d->s[QE_HEAD];

	for (int i = 0; i < hs->ncells; i++) {
		const char *fl = qe_reader_text(r, hs->cells[i].first_line);

		if (hs->cells[i].present && fl && names_import(fl, pkg))
			return 1;
	}
	return 0;
}

void
qe_diff_totals_free(struct qe_diff_totals *t)
{
	free(t->seen[QE_BASE].v);
	free(t->seen[QE_HEAD].v);
	qe_fp_factdiffs_free(&t->facts);
	memset(t, 0, sizeof *t);
}

double
qe_diff_runner_mem(const struct qe_reader *r)
{
	return r->runner_mem[QE_HEAD] > 0 ? r->runner_mem[QE_HEAD] : r->runner_mem[QE_BASE];
}

long
qe_diff_all(const struct qe_diff_opts *o, const struct qe_reader *r, const struct qe_diff_emit *e)
{
	size_t n, nexecuted = 0;
	struct qe_doc **docs = qe_reader_docs(r, &n);
	struct qe_factor_facts rf = qe_diff_runner_factor(o, r, docs, n);
	struct qe_diff_totals t = { 0 };
	struct qe_nb_diff nb;
	struct qe_doc **executed = qe_xmalloc(sizeof *executed * (n + 1));
	long regressions;

	e->begin(e->arg, &rf);
	for (size_t i = 0; i < n; i++) {
		qe_diff_doc(o, r, &rf, docs[i], &nb, e->cell, e->arg);
		if (nb.executed)
			executed[nexecuted++] = docs[i];
		e->notebook(e->arg, &nb);
		qe_diff_tally(&t, r, &nb);
		qe_fidelity_free(&nb.fid);
	}
	/* everything slower at once on one runner class and CPU: the likeliest real regression */
	if (qe_verdict_speed_state(&rf) == QE_SP_BROAD_SLOWER)
		t.regressions++;
	e->end(e->arg, &rf, &t, executed, nexecuted);
	free(executed);
	regressions = t.regressions;
	qe_diff_totals_free(&t);
	free(docs);
	return regressions;
}
