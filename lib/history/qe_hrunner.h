/*
 * qe_hrunner.h - the runner factor of each runner-class change among
 * main's builds, so that changes and compare may run a series on across
 * it (qe-history(1), "Runner changes").
 *
 * A runner change is a build-level step: the new machine moves every
 * lecture by about one factor. At a change at position i (runner class
 * differs from i-1's) the factor is the median, over the lectures timed
 * (status ok) in at least QE_HRUNNER_MIN builds on each side, of the
 * ratio of a lecture's median after to its median before; the sides are
 * up to QE_HQ_WINDOW builds, [lo, i) and [i, hi), and stop at the next
 * and the previous runner change. It needs QE_HRUNNER_DOCS such
 * lectures; with fewer the change has no factor and series stop there.
 *
 * Invariants:
 *  - scale[pos] > 0 multiplies a duration of the build at pos into the
 *    time of main's first runner class (scale[0] = 1; the product of
 *    1 / factor of every change at or before pos);
 *  - cut[pos] is 1 at a runner change without a factor: a series is cut
 *    there, as before a factor existed; factor[pos] is NAN but at a
 *    change with a factor;
 *  - reads the notebooks' sums only (no cell blob); one pass.
 */
#ifndef QE_HRUNNER_H
#define QE_HRUNNER_H

#include <sqlite3.h>

#include "qe_hload.h"

#define QE_HRUNNER_MIN 3	/* builds a lecture needs on each side */
#define QE_HRUNNER_DOCS 3	/* lectures a factor needs */

struct qe_hrunner {
	int n;			/* main's builds */
	double *scale, *factor;
	unsigned char *cut;
};

/*
 * The factor of a runner change at position at, from v[d * nb + pos]
 * (document d's lecture seconds in build pos, NAN: none) for nd
 * documents, sides [lo, at) and [at, hi). NAN when fewer than
 * QE_HRUNNER_DOCS documents have QE_HRUNNER_MIN builds on each side.
 */
double qe_hrunner_factor(const double *v, int nd, int nb, int lo, int at, int hi);

/* Every runner change's factor and the scales. Returns 0, or -1 after saying why. */
int qe_hrunner_load(sqlite3 *db, const char *path, const struct qe_hbuilds *bs, struct qe_hrunner *r);
void qe_hrunner_free(struct qe_hrunner *r);

#endif /* QE_HRUNNER_H */
