/* Queries not written yet: each says so and fails (removed as they land). */
#include <err.h>

#include "qe.h"
#include "qe_hquery.h"

static int
not_yet(const char *what)
{
	warnx("%s: not yet in this build of qe-history", what);
	return QE_EXIT_TROUBLE;
}

int qe_hq_fences(const struct qe_hq *q) { (void)q; return not_yet("fences"); }
int qe_hq_compare(const struct qe_hq *q) { (void)q; return not_yet("compare"); }
int qe_hq_cost(const struct qe_hq *q) { (void)q; return not_yet("cost"); }
