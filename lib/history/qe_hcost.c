/*
 * qe-history cost (qe_hquery.h): execution minutes of every stored build
 * (main, pull-request and branch builds all cost) by month of started_at,
 * runner class and lecture, times the price of the class (qe_hprice).
 *
 * Rows: one per month x class x lecture, then that month x class's total
 * (document null), and last the grand total (month, class and document
 * null). A lecture's minutes are its notebooks' execution_seconds (the sum
 * of cell times where that is null) / 60. A total's cost is the sum of its
 * rows' costs; a class without a price has a null cost and adds nothing.
 */
#include <err.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qe.h"
#include "qe_json.h"
#include "qe_hout.h"
#include "qe_hprice.h"
#include "qe_hquery.h"

struct total {
	double minutes, usd;
	long builds;
	int priced;
};

static cJSON *
cost_rec(const char *month, const char *cls, const char *doc, const struct total *t, double price)
{
	cJSON *o = qe_json_record_new("history-cost");

	qe_json_add_str_or_null(o, "month", month);
	qe_json_add_str_or_null(o, "runner_class", cls);
	qe_json_add_str_or_null(o, "document", doc);
	cJSON_AddNumberToObject(o, "builds", (double)t->builds);
	cJSON_AddNumberToObject(o, "minutes", t->minutes);
	qe_json_add_num_or_null(o, "usd_per_minute", !isnan(price), price);
	qe_json_add_num_or_null(o, "cost_usd", t->priced, t->usd);
	return o;
}

static const char group_sql[] =
    "SELECT substr(b.started_at, 1, 7), b.runner_class, count(DISTINCT b.id) FROM builds b"
    " GROUP BY 1, 2 ORDER BY 1, 2 IS NOT NULL, 2";
static const char doc_sql[] =
    "SELECT d.name, count(DISTINCT b.id), sum(coalesce(n.execution_s, n.cells_s, 0)) / 60.0"
    " FROM notebooks n JOIN builds b ON b.id = n.build JOIN docs d ON d.id = n.doc"
    " WHERE substr(b.started_at, 1, 7) = ?1 AND b.runner_class IS ?2 GROUP BY d.name ORDER BY d.name";

/* The lecture rows and the total of one month x class; adds to *all. */
static int
group(sqlite3_stmt *ds, const char *month, const char *cls, long builds,
    double price, struct qe_hout *o, struct total *all)
{
	struct total g = { 0, 0, builds, !isnan(price) };
	int rc;

	sqlite3_bind_text(ds, 1, month, -1, SQLITE_STATIC);
	if (cls)
		sqlite3_bind_text(ds, 2, cls, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(ds, 2);
	while ((rc = sqlite3_step(ds)) == SQLITE_ROW) {
		struct total t = { sqlite3_column_double(ds, 2), 0, sqlite3_column_int64(ds, 1),
		    !isnan(price) };

		t.usd = t.priced ? t.minutes * price : 0;
		g.minutes += t.minutes;
		g.usd += t.usd;
		qe_hout_row(o, cost_rec(month, cls, (const char *)sqlite3_column_text(ds, 0), &t, price));
	}
	sqlite3_reset(ds);
	qe_hout_row(o, cost_rec(month, cls, NULL, &g, price));
	all->minutes += g.minutes;
	all->usd += g.usd;
	all->builds += g.builds;
	all->priced |= g.priced;
	return rc == SQLITE_DONE ? 0 : -1;
}

static const struct qe_hcol cost_cols[] = {
	{ "month", "month", QE_HF_TEXT }, { "runner_class", "runner class", QE_HF_TEXT },
	{ "document", "document", QE_HF_CODE }, { "builds", "builds", QE_HF_NUM },
	{ "minutes", "minutes", QE_HF_NUM }, { "usd_per_minute", "USD/min", QE_HF_NUM },
	{ "cost_usd", "USD", QE_HF_NUM },
	{ NULL, NULL, 0 }
};

int
qe_hq_cost(const struct qe_hq *q)
{
	struct qe_hprices p;
	sqlite3_stmt *gs = NULL, *ds = NULL;
	struct total all = { 0 };
	struct qe_hout o;
	int rc = -1;

	if (qe_hprices_load(&p, q->prices) < 0)
		return QE_EXIT_TROUBLE;
	if (sqlite3_prepare_v2(q->db, group_sql, -1, &gs, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(q->db, doc_sql, -1, &ds, NULL) != SQLITE_OK)
		goto done;
	qe_hout_begin(&o, q->md, q->sink, cost_cols);
	while ((rc = sqlite3_step(gs)) == SQLITE_ROW) {
		const char *month = (const char *)sqlite3_column_text(gs, 0);
		const char *cls = (const char *)sqlite3_column_text(gs, 1);

		if (group(ds, month, cls, sqlite3_column_int64(gs, 2), qe_hprice(&p, cls), &o, &all) < 0)
			break;
	}
	if (rc == SQLITE_DONE)
		qe_hout_row(&o, cost_rec(NULL, NULL, NULL, &all, NAN));
	qe_hout_end(&o);
	rc = rc == SQLITE_DONE ? 0 : -1;
done:
	if (rc < 0)
		warnx("%s: %s", q->path, sqlite3_errmsg(q->db));
	sqlite3_finalize(gs);
	sqlite3_finalize(ds);
	qe_hprices_free(&p);
	return rc == 0 ? QE_EXIT_OK : QE_EXIT_TROUBLE;
}
