/* The runner factor of each runner-class change (qe_hrunner.h). */
#include <err.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qe_mem.h"
#include "qe_hquery.h"
#include "qe_hrunner.h"
#include "qe_robust.h"

/* The median of document d's values in [lo, hi), into w; NAN with fewer than QE_HRUNNER_MIN. */
static double
side_median(const double *row, int lo, int hi, double *w)
{
	int n = 0;

	for (int p = lo; p < hi; p++)
		if (!isnan(row[p]) && row[p] > 0)
			w[n++] = row[p];
	return n < QE_HRUNNER_MIN ? NAN : qe_robust_median(w, (size_t)n);
}

double
qe_hrunner_factor(const double *v, int nd, int nb, int lo, int at, int hi)
{
	double *w = qe_xcalloc((size_t)nb + 1, sizeof *w), *r = qe_xcalloc((size_t)nd + 1, sizeof *r), f;
	int m = 0;

	for (int d = 0; d < nd; d++) {
		double b = side_median(v + (size_t)d * nb, lo, at, w), a = side_median(v + (size_t)d * nb, at, hi, w);

		if (!isnan(a) && !isnan(b))
			r[m++] = log(a / b);
	}
	f = m < QE_HRUNNER_DOCS ? NAN : exp(qe_robust_median(r, (size_t)m));
	free(w);
	free(r);
	return f;
}

static int
same_class(const struct qe_hbuilds *bs, int a, int b)
{
	const char *x = bs->b[a].runner_class, *y = bs->b[b].runner_class;

	return (x == NULL && y == NULL) || (x && y && strcmp(x, y) == 0);
}

/* Every main notebook's lecture seconds (ok only) into (*v)[d * nb + pos]; their document count. */
static int
load_sums(sqlite3 *db, const struct qe_hbuilds *bs, double **v)
{
	sqlite3_stmt *st;
	sqlite3_int64 last = -1;
	size_t cap = 0;
	int nd = 0, nb = bs->n;

	*v = NULL;
	if (sqlite3_prepare_v2(db, "SELECT doc, build, status, execution_s, cells_s FROM notebooks"
	    " ORDER BY doc", -1, &st, NULL) != SQLITE_OK)
		return -1;
	while (sqlite3_step(st) == SQLITE_ROW) {
		sqlite3_int64 id = sqlite3_column_int64(st, 1), doc = sqlite3_column_int64(st, 0);
		int p = id >= 0 && id < bs->npos ? bs->pos[id] : -1;
		const unsigned char *s = sqlite3_column_text(st, 2);
		int col = sqlite3_column_type(st, 4) == SQLITE_NULL ? 3 : 4;

		if (doc != last) {
			*v = qe_mem_grow(*v, (size_t)nd, &cap, (size_t)nb * sizeof **v, 64);
			for (int i = 0; i < nb; i++)
				(*v)[(size_t)nd * nb + i] = NAN;
			nd++;
			last = doc;
		}
		if (p >= 0 && (s == NULL || strcmp((const char *)s, "ok") == 0) &&
		    sqlite3_column_type(st, col) != SQLITE_NULL)
			(*v)[(size_t)(nd - 1) * nb + p] = sqlite3_column_double(st, col);
	}
	return sqlite3_finalize(st) == SQLITE_OK ? nd : -1;
}

int
qe_hrunner_load(sqlite3 *db, const char *path, const struct qe_hbuilds *bs, struct qe_hrunner *r)
{
	const int n = bs->n;
	double *v = NULL, k = 1;
	int nd = -2;

	memset(r, 0, sizeof *r);
	r->n = n;
	r->scale = qe_xcalloc((size_t)n + 1, sizeof *r->scale);
	r->factor = qe_xcalloc((size_t)n + 1, sizeof *r->factor);
	r->cut = qe_xcalloc((size_t)n + 1, 1);
	for (int i = 0; i < n; i++) {
		int lo = i - 1, hi = i + 1;

		r->factor[i] = NAN;
		if (i > 0 && !same_class(bs, i - 1, i)) {
			if (nd == -2 && (nd = load_sums(db, bs, &v)) < 0) {
				warnx("%s: %s", path, sqlite3_errmsg(db));
				free(v);
				qe_hrunner_free(r);
				return -1;
			}
			while (lo > 0 && i - lo < QE_HQ_WINDOW && same_class(bs, lo - 1, lo))
				lo--;
			while (hi < n && hi - i < QE_HQ_WINDOW && same_class(bs, hi - 1, hi))
				hi++;
			r->factor[i] = qe_hrunner_factor(v, nd, n, lo, i, hi);
			r->cut[i] = isnan(r->factor[i]);
			if (!r->cut[i])
				k /= r->factor[i];
		}
		r->scale[i] = k;
	}
	free(v);
	return 0;
}

void
qe_hrunner_free(struct qe_hrunner *r)
{
	free(r->scale);
	free(r->factor);
	free(r->cut);
	memset(r, 0, sizeof *r);
}
