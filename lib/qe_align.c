/* Alignment by levels of equality (qe_align.h). */
#include <stdint.h>
#include <stdlib.h>

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
