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
 *
 * And aligning two sides' documents named by absolute path in different
 * folders (two builds at two workspaces) by their relative layout
 * (qe_align_folders): one folder per side, never guessed when two pairings
 * fit equally well; and the one rule a path names a document named
 * relatively by (qe_align_relname).
 */
#ifndef QE_ALIGN_H
#define QE_ALIGN_H

#include <stddef.h>

struct qe_pair {
	int b, h;	/* positions; -1 when the item has no partner */
};

/* Are base item b and head item h equal at `level` (0 .. nlevels-1)? */
typedef int (*qe_same_fn)(void *arg, int level, int b, int h);

/* The alignment of nb base and nh head items; *np pairs (<= nb + nh). */
struct qe_pair *qe_align(int nb, int nh, int nlevels, qe_same_fn same, void *arg, int *np);

/*
 * The folders two sets of absolute paths (documents by absolute path read
 * on one side only) were built in, found by their relative layout: every
 * base path and head path that end in the same trailing components (at
 * least the last) propose the folder pair left when the longest such run
 * is taken off both; the pair proposed by the most paths wins, and its
 * folders are then made deeper by the folders every matched relative name
 * shares (so /w/R/R/lectures/intro and /tmp/x/lectures/intro are
 * "intro" in /w/R/R/lectures and /tmp/x/lectures). A path below a folder
 * is named by the rest after its '/'. Each pair of folders matches a path
 * at most once a side, so a pairing is one to one.
 */
struct qe_align_dirs {
	char *base, *head;	/* the folders ("" for /), or NULL */
	char *base2, *head2;	/* when ambiguous: a second pair as good */
	long matched;		/* paths matched in pairs */
};

/*
 * 1 with dirs->base and ->head set, 0 when no two paths share a last
 * component, -1 when two folder pairs match as many paths (ambiguous:
 * dirs->base2, ->head2 hold the second), -2 when nb * nh is over
 * QE_ALIGN_MAX_PAIRS (not tried). Free with qe_align_dirs_free().
 */
#define QE_ALIGN_MAX_PAIRS (1u << 20)
int qe_align_folders(const char *const *b, size_t nb, const char *const *h, size_t nh,
    struct qe_align_dirs *dirs);

/* The path relative to dir (a pointer into path), or NULL when not below it. */
const char *qe_align_below(const char *path, const char *dir);

void qe_align_dirs_free(struct qe_align_dirs *dirs);

/*
 * 1 when a path and a document name name the same document, the one
 * relative-name rule (qe-cell-diff --changed, a document named by absolute
 * path against one named relatively, qe-history's relayout): both are taken
 * without a leading "./" and without an extension a lecture source or
 * notebook has (.md, .ipynb, .py, .myst, .rst, .Rmd); they match when equal
 * or when one ends with "/" and the other. So "lectures/intro.md" matches
 * "intro" and "lectures/intro", never "outro" or "nointro".
 */
int qe_align_relname(const char *path, const char *doc);

#endif /* QE_ALIGN_H */
