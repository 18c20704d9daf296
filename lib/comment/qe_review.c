/* The review of a diff: order, counts and the top rows (qe_review.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qe_mem.h"
#include "qe_review.h"

static long
position(const struct qe_dcell *c)
{
	return c->hidx >= 0 ? c->hidx : c->bidx;
}

static int
seq_cmp(long x, long y)
{
	return x < y ? -1 : x > y;
}

static int
cell_cmp(const void *a, const void *b)
{
	const struct qe_dcell *x = a, *y = b;
	int c = strcmp(x->doc, y->doc);

	if (c)
		return c;
	if (position(x) != position(y))
		return position(x) < position(y) ? -1 : 1;
	/* a removed cell sits before the head cell that took its place */
	if ((x->hidx < 0) != (y->hidx < 0))
		return x->hidx < 0 ? -1 : 1;
	return seq_cmp(x->seq, y->seq);
}

static int
nb_cmp(const void *a, const void *b)
{
	const struct qe_dnb *x = a, *y = b;
	int c = strcmp(x->doc, y->doc);

	return c ? c : seq_cmp(x->seq, y->seq);
}

int
qe_review_now_failing(const struct qe_dcell *c)
{
	return c->st_h == QE_ST_ERROR && c->bidx >= 0 && c->st_b != QE_ST_ERROR;
}

int
qe_review_results_differ(const struct qe_dcell *c)
{
	unsigned f = c->flags;

	if (!(f & QE_FLAG(QE_F_OUTPUT)) || qe_review_apart(f))
		return 0;
	return c->has_test || ((f & QE_FLAG(QE_F_UPSTREAM)) && !(f & QE_FLAG(QE_F_SOURCE)));
}

int
qe_review_fixed(const struct qe_dcell *c)
{
	return c->st_b == QE_ST_ERROR && c->hidx >= 0 && c->st_h != QE_ST_ERROR &&
	    c->st_h != QE_DIFF_ST_NONE;
}

int
qe_review_output_unexplained(const struct qe_dcell *c)
{
	return (c->flags & QE_FLAG(QE_F_OUTPUT)) &&
	    !(c->flags & (QE_FLAG(QE_F_SOURCE) | QE_FLAG(QE_F_UPSTREAM)));
}

int
qe_review_nb_failed(const struct qe_dnb *n)
{
	if (n->verdict == QE_V_FAILED)
		return 2;
	if (n->verdict == QE_V_NEWLYFAILED)
		return 1;
	return n->st_h == QE_NB_FAILED ? n->st_b == QE_NB_FAILED ? 2 : 1 : 0;
}

int
qe_review_apart(unsigned flags)
{
	return (flags & (QE_FLAG(QE_F_MAIN) | QE_FLAG(QE_F_IGNORED))) != 0;
}

enum qe_nb_kind
qe_review_nb_kind(const struct qe_dnb *n)
{
	if (n->verdict == QE_V_CACHED)
		return QE_K_CACHED;
	if (n->verdict == QE_V_REMOVED)
		return QE_K_REMOVED;
	if (n->flags & QE_FLAG(QE_F_IGNORED))
		return QE_K_IGNORED;
	/* a lecture failing on both sides reads as a failure, changed on main or not */
	if (qe_review_nb_failed(n) == 2)
		return QE_K_FAILED;
	if (n->flags & QE_FLAG(QE_F_MAIN))
		return QE_K_MAIN;
	if (qe_review_nb_failed(n))
		return QE_K_FAILED;
	return n->executed ? QE_K_EXECUTED : QE_K_CACHED;
}

static int
top_rank(int verdict, int failing)
{
	if (verdict == QE_V_REGRESSION)
		return 0;
	if (failing)
		return 1;
	if (verdict == QE_V_INCONCLUSIVE)
		return 2;
	if (verdict == QE_V_IMPROVEMENT)
		return 3;
	return -1;
}

static double
top_key(int rank, double delta)
{
	if (isnan(delta))
		return -INFINITY;
	return rank == 3 ? -delta : rank == 2 ? fabs(delta) : delta;
}

/* The larger of a cell's peak and resident growth beyond base's. */
static double
mem_key(const struct qe_dcell *c)
{
	double p = c->mem_h - c->mem_b, s = c->rss_step;

	return isnan(p) ? isnan(s) ? 0 : s : isnan(s) || p > s ? p : s;
}

static int
top_cmp(const void *a, const void *b)
{
	const struct qe_toprow *x = a, *y = b;
	const char *xd = x->c ? x->c->doc : x->n->doc, *yd = y->c ? y->c->doc : y->n->doc;
	int c;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	if ((c = strcmp(xd, yd)) != 0)
		return c;
	return seq_cmp(x->c ? x->c->seq : x->n->seq, y->c ? y->c->seq : y->n->seq);
}

static void
count_cells(struct qe_review *r, const struct qe_diffset *d)
{
	for (size_t i = 0; i < d->ncells; i++) {
		const struct qe_dcell *c = &d->cells[i];

		if (qe_review_apart(c->flags)) {
			r->n_apart_cells++;
			r->n_ignored_cells += (c->flags & QE_FLAG(QE_F_IGNORED)) != 0;
			r->n_ignored_label += (c->flags & QE_FLAG(QE_F_IGNORED)) != 0;
			continue;
		}
		r->ccount[c->verdict]++;
		if (qe_review_now_failing(c))
			r->n_now_failing++;
		if (qe_review_fixed(c))
			r->n_fixed_cells++;
		if (c->flags & QE_FLAG(QE_F_NOTCOMP))
			r->n_notcomp_cells++;
		r->n_output_quiet += qe_review_output_unexplained(c);
		r->n_differ += qe_review_results_differ(c);
		r->n_compile += (c->flags & QE_FLAG(QE_F_COMPILE)) != 0;
		r->n_memory += (c->flags & QE_FLAG(QE_F_MEMORY)) != 0;
		if (c->has_test && c->n_b + c->n_h > r->rep_b + r->rep_h)
			r->rep_b = c->n_b, r->rep_h = c->n_h;
	}
}

static void
count_nb(struct qe_review *r, const struct qe_dnb *n)
{
	enum qe_nb_kind k = qe_review_nb_kind(n);

	if (k != QE_K_MAIN && k != QE_K_IGNORED)
		r->nbcount[n->verdict]++;
	switch (k) {
	case QE_K_EXECUTED: r->n_executed++; break;
	case QE_K_CACHED: r->n_cached++; break;
	case QE_K_REMOVED: r->n_removed++; break;
	case QE_K_MAIN: r->n_main++; break;
	case QE_K_IGNORED:
		r->n_ignored_nb++;
		r->n_ignored_label -= n->nc;	/* its cells were counted as ignored */
		break;
	case QE_K_FAILED:
		r->n_failed++;
		r->n_failed_new += qe_review_nb_failed(n) == 1;
		break;
	}
	if (k == QE_K_EXECUTED && n->st_b == QE_NB_FAILED && n->st_h == QE_NB_OK)
		r->n_fixed_nb++;
	if (k == QE_K_EXECUTED && n->whole && n->nc > 0)
		r->n_whole++;
	if (k == QE_K_EXECUTED && n->nc == 0)
		r->n_nocode++;
	r->n_warm_raised += n->warm.error != NULL;
	if (n->test.has && n->test.n_b + n->test.n_h > r->rep_b + r->rep_h)
		r->rep_b = n->test.n_b, r->rep_h = n->test.n_h;
}

/* Each lecture's cells (both arrays sorted by document) and its counts. */
static void
count_nbs(struct qe_review *r, struct qe_diffset *d)
{
	size_t j = 0;

	for (size_t i = 0; i < d->nnbs; i++) {
		struct qe_dnb *n = &d->nbs[i];

		while (j < d->ncells && strcmp(d->cells[j].doc, n->doc) < 0)
			j++;
		n->c0 = (long)j;
		memset(n->counts, 0, sizeof n->counts);
		n->ignored = 0;
		while (j < d->ncells && strcmp(d->cells[j].doc, n->doc) == 0) {
			/* a cell ignored by label takes no part in its lecture's verdict */
			if ((d->cells[j].flags & QE_FLAG(QE_F_IGNORED)) && !(n->flags & QE_FLAG(QE_F_IGNORED)))
				n->ignored++;
			else
				n->counts[d->cells[j].verdict]++;
			j++;
		}
		n->nc = (long)j - n->c0;
		if (i + 1 < d->nnbs && strcmp(d->nbs[i + 1].doc, n->doc) == 0)
			j = (size_t)n->c0;	/* a repeated document shares its cells */
		count_nb(r, n);
	}
}

static void
build_tops(struct qe_review *r, const struct qe_diffset *d)
{
	r->tops = qe_xmalloc((d->ncells + d->nnbs + 1) * sizeof *r->tops);
	for (size_t i = 0; i < d->ncells; i++) {
		const struct qe_dcell *c = &d->cells[i];
		int k = top_rank(c->verdict, qe_review_now_failing(c));

		if (k < 0 && (c->flags & QE_FLAG(QE_F_MEMORY)))	/* memory alone: a row too */
			k = 4;
		if (k >= 0 && !qe_review_apart(c->flags))
			r->tops[r->ntops++] = (struct qe_toprow){ .c = c, .rank = k,
			    .key = k == 4 ? mem_key(c) : top_key(k, c->delta) };
	}
	/* a lecture's verdict that its cells do not show (no cell timings) */
	for (size_t i = 0; i < d->nnbs; i++) {
		const struct qe_dnb *n = &d->nbs[i];
		int k = top_rank(n->verdict, 0);

		if (k < 0 || n->counts[n->verdict] > 0 || qe_review_apart(n->flags))
			continue;
		r->tops[r->ntops++] = (struct qe_toprow){ .n = n, .rank = k,
		    .key = top_key(k, n->delta) };
		if (n->verdict == QE_V_REGRESSION)
			r->nb_only_regressions++;
		if (n->verdict == QE_V_IMPROVEMENT)
			r->nb_only_improvements++;
	}
	if (r->ntops > 0)
		qsort(r->tops, r->ntops, sizeof *r->tops, top_cmp);
}

void
qe_review_build(struct qe_review *r, struct qe_diffset *d)
{
	memset(r, 0, sizeof *r);
	r->set = d;
	if (d->ncells > 0)	/* qsort(NULL, 0, ...) is undefined */
		qsort(d->cells, d->ncells, sizeof *d->cells, cell_cmp);
	if (d->nnbs > 0)
		qsort(d->nbs, d->nnbs, sizeof *d->nbs, nb_cmp);
	count_cells(r, d);
	count_nbs(r, d);
	build_tops(r, d);
}

void
qe_review_free(struct qe_review *r)
{
	free(r->tops);
	r->tops = NULL;
	r->ntops = 0;
}
