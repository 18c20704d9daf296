/*
 * qe_align.h - aligning two sequences (the cells of a document in base and
 * in head) by equality levels: the alignment key first, then weaker ones,
 * then position.
 *
 * Invariants:
 *  - items are named by their position: b in [0, nb), h in [0, nh). The
 *    caller's `same` callback says whether base item b and head item h are
 *    equal at a level; nothing here looks at the items themselves.
 *  - at each level: common prefix and suffix, then a longest common
 *    subsequence of the middle (a dynamic programme while it fits in 64 Mi
 *    entries; beyond, nothing matches at that level). The items between two
 *    matches are aligned at the next level; after the last level they pair
 *    by position, and the rest are removed (placed at their base position)
 *    or new.
 *  - every item appears in exactly one pair; pairs come in sequence order.
 *  - the pair array is the caller's to free(); memory exhaustion exits.
 */
#ifndef QE_ALIGN_H
#define QE_ALIGN_H

struct qe_pair {
	int b, h;	/* positions; -1 when the item has no partner */
};

/* Are base item b and head item h equal at `level` (0 .. nlevels-1)? */
typedef int (*qe_same_fn)(void *arg, int level, int b, int h);

/* The alignment of nb base and nh head items; *np pairs (<= nb + nh). */
struct qe_pair *qe_align(int nb, int nh, int nlevels, qe_same_fn same, void *arg, int *np);

#endif /* QE_ALIGN_H */
