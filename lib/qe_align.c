/* Alignment by levels of equality (qe_align.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "qe_mem.h"
#include "qe_align.h"

struct aligner {
	qe_same_fn same;
	void *arg;
	int nlevels;
	struct qe_pair *out;
	int n;
};

static void
put(struct aligner *a, int b, int h)
{
	a->out[a->n++] = (struct qe_pair){ b, h };
}

/* The last level: pair by position; the rest are removed, then new. */
static void
by_position(struct aligner *a, int b0, int b1, int h0, int h1)
{
	int g = b1 - b0 < h1 - h0 ? b1 - b0 : h1 - h0;

	for (int t = 0; t < g; t++)
		put(a, b0 + t, h0 + t);
	for (int t = b0 + g; t < b1; t++)
		put(a, t, -1);
	for (int t = h0 + g; t < h1; t++)
		put(a, -1, t);
}

/*
 * match[i] = the head position (from 0) of base item i of the middle
 * B[lb..lb+mb) x H[lh..lh+mh) in a longest common subsequence, or -1.
 */
static void
lcs(struct aligner *a, int level, int lb, int mb, int lh, int mh, int *match)
{
	uint32_t *L;

	for (int i = 0; i < mb; i++)
		match[i] = -1;
	if (mb == 0 || mh == 0 || (uint64_t)(mb + 1) * (uint64_t)(mh + 1) > (64u << 20))
		return;
	L = qe_xmalloc(sizeof(uint32_t) * (size_t)(mb + 1) * (size_t)(mh + 1));
#define LL(i, k) L[(size_t)(i) * (size_t)(mh + 1) + (size_t)(k)]
	for (int i = mb; i >= 0; i--)
		for (int k = mh; k >= 0; k--) {
			if (i == mb || k == mh)
				LL(i, k) = 0;
			else if (a->same(a->arg, level, lb + i, lh + k))
				LL(i, k) = LL(i + 1, k + 1) + 1;
			else
				LL(i, k) = LL(i + 1, k) >= LL(i, k + 1) ? LL(i + 1, k) : LL(i, k + 1);
		}
	for (int i = 0, k = 0; i < mb && k < mh;) {
		if (a->same(a->arg, level, lb + i, lh + k) && LL(i, k) == LL(i + 1, k + 1) + 1)
			match[i++] = k++;
		else if (LL(i + 1, k) >= LL(i, k + 1))
			i++;
		else
			k++;
	}
#undef LL
	free(L);
}

static void align_level(struct aligner *a, int level, int b0, int b1, int h0, int h1);

/* The matches of the middle, and the gaps between them one level down. */
static void
align_middle(struct aligner *a, int level, int lb, int mb, int lh, int mh)
{
	int *match = qe_xmalloc(sizeof(int) * (size_t)(mb + 1));

	lcs(a, level, lb, mb, lh, mh, match);
	for (int i = 0, k = 0; i < mb || k < mh;) {
		int ni = i, nk;

		while (ni < mb && match[ni] < 0)
			ni++;
		nk = ni < mb ? match[ni] : mh;
		align_level(a, level + 1, lb + i, lb + ni, lh + k, lh + nk);
		if (ni < mb) {
			put(a, lb + ni, lh + nk);
			ni++;
			nk++;
		}
		i = ni;
		k = nk;
	}
	free(match);
}

static void
align_level(struct aligner *a, int level, int b0, int b1, int h0, int h1)
{
	int pre = 0, suf = 0;

	if (level >= a->nlevels || b0 == b1 || h0 == h1) {
		by_position(a, b0, b1, h0, h1);
		return;
	}
	while (b0 + pre < b1 && h0 + pre < h1 && a->same(a->arg, level, b0 + pre, h0 + pre))
		pre++;
	while (suf < b1 - b0 - pre && suf < h1 - h0 - pre &&
	    a->same(a->arg, level, b1 - 1 - suf, h1 - 1 - suf))
		suf++;
	for (int t = 0; t < pre; t++)
		put(a, b0 + t, h0 + t);
	align_middle(a, level, b0 + pre, b1 - suf - (b0 + pre), h0 + pre, h1 - suf - (h0 + pre));
	for (int t = 0; t < suf; t++)
		put(a, b1 - suf + t, h1 - suf + t);
}

struct qe_pair *
qe_align(int nb, int nh, int nlevels, qe_same_fn same, void *arg, int *np)
{
	struct aligner a = { same, arg, nlevels, qe_xmalloc(sizeof(struct qe_pair) * (size_t)(nb + nh + 1)), 0 };

	align_level(&a, 0, 0, nb, 0, nh);
	*np = a.n;
	return a.out;
}

/* A folder pair proposed by one base path and one head path. */
struct proposal {
	const char *b, *h;	/* the paths; the folders are their first bl, hl bytes */
	size_t bl, hl;
};

static int
prefix_cmp(const char *a, size_t al, const char *b, size_t bl)
{
	int c = memcmp(a, b, al < bl ? al : bl);

	return c ? c : (al > bl) - (al < bl);
}

static int
proposal_cmp(const void *x, const void *y)
{
	const struct proposal *p = x, *q = y;
	int c = prefix_cmp(p->b, p->bl, q->b, q->bl);

	return c ? c : prefix_cmp(p->h, p->hl, q->h, q->hl);
}

/*
 * The folders left when the longest run of trailing components b and h
 * share is taken off (lengths into each, the '/' after them excluded); 0
 * when their last components differ.
 */
static int
propose(const char *b, const char *h, struct proposal *p)
{
	size_t nb = strlen(b), nh = strlen(h), k = 0, l = 0;

	while (k < nb && k < nh && b[nb - 1 - k] == h[nh - 1 - k])
		k++;
	/* the last '/' inside the run that matched: both paths have it */
	for (size_t i = 1; i < k; i++)
		if (b[nb - 1 - i] == '/')
			l = i;
	if (l == 0)
		return 0;
	*p = (struct proposal){ b, h, nb - 1 - l, nh - 1 - l };
	return 1;
}

/* Length of path's folder part (up to its last '/'), 0 if none. */
static size_t
dir_len(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? (size_t)(s - path) : 0;
}

/* Deepen the winning folders run[0..n) by the folders all their relative names share. */
static void
deepen(const struct proposal *run, size_t n, struct qe_align_dirs *dirs)
{
	const char *r0 = run[0].b + run[0].bl + 1;
	size_t c = dir_len(r0);

	for (size_t i = 1; i < n && c > 0; i++) {
		const char *r = run[i].b + run[i].bl + 1;
		size_t j = 0, last = 0;

		while (j < c && r[j] == r0[j]) {
			if (r[j] == '/')
				last = j;
			j++;
		}
		if (!(j == c && r[j] == '/'))
			c = last;
	}
	dirs->base = qe_xstrndup(run[0].b, run[0].bl + (c ? c + 1 : 0));
	dirs->head = qe_xstrndup(run[0].h, run[0].hl + (c ? c + 1 : 0));
	dirs->matched = (long)n;
}

int
qe_align_folders(const char *const *b, size_t nb, const char *const *h, size_t nh,
    struct qe_align_dirs *dirs)
{
	struct proposal *p;
	size_t n = 0, best = 0, bestn = 0, second = 0, secondn = 0;

	memset(dirs, 0, sizeof *dirs);
	if (nb > 0 && nh > QE_ALIGN_MAX_PAIRS / nb)
		return -2;
	p = qe_xcalloc(nb * nh + 1, sizeof *p);
	for (size_t i = 0; i < nb; i++)
		for (size_t j = 0; j < nh; j++)
			n += (size_t)propose(b[i], h[j], &p[n]);
	qsort(p, n, sizeof *p, proposal_cmp);
	for (size_t i = 0, e; i < n; i = e) {
		for (e = i + 1; e < n && proposal_cmp(&p[i], &p[e]) == 0; e++)
			;
		if (e - i > bestn)
			second = best, secondn = bestn, best = i, bestn = e - i;
		else if (e - i > secondn)
			second = i, secondn = e - i;
	}
	if (bestn == 0) {
		free(p);
		return 0;
	}
	deepen(&p[best], bestn, dirs);
	if (secondn == bestn) {
		struct qe_align_dirs alt;

		deepen(&p[second], secondn, &alt);
		dirs->base2 = alt.base, dirs->head2 = alt.head;
		free(p);
		return -1;
	}
	free(p);
	return 1;
}

const char *
qe_align_below(const char *path, const char *dir)
{
	size_t l = strlen(dir);

	return strncmp(path, dir, l) == 0 && path[l] == '/' ? path + l + 1 : NULL;
}

void
qe_align_dirs_free(struct qe_align_dirs *dirs)
{
	free(dirs->base), free(dirs->head), free(dirs->base2), free(dirs->head2);
	memset(dirs, 0, sizeof *dirs);
}

/* The relative name rule (qe_align_relname). */
static const char *const exts[] = { ".md", ".ipynb", ".py", ".myst", ".rst", ".Rmd", NULL };

/* The length of s without "./" in front (*start) and a source extension. */
static size_t
stem(const char *s, const char **start)
{
	size_t n;
	const char *slash, *dot;

	while (s[0] == '.' && s[1] == '/')
		s += 2;
	*start = s;
	n = strlen(s);
	slash = strrchr(s, '/');
	dot = strrchr(s, '.');
	if (dot == NULL || (slash && dot < slash) || dot == s || dot[-1] == '/')
		return n;
	for (int i = 0; exts[i]; i++)
		if (strcmp(dot, exts[i]) == 0)
			return (size_t)(dot - s);
	return n;
}

/* 1 when a[0..na) ends with "/" b[0..nb) or equals it. */
static int
ends_with(const char *a, size_t na, const char *b, size_t nb)
{
	if (nb == 0 || nb > na)
		return 0;
	if (memcmp(a + na - nb, b, nb) != 0)
		return 0;
	return na == nb || a[na - nb - 1] == '/';
}

int
qe_align_relname(const char *path, const char *doc)
{
	const char *p, *d;
	size_t np = stem(path, &p), nd = stem(doc, &d);

	return ends_with(p, np, d, nd) || ends_with(d, nd, p, np);
}
