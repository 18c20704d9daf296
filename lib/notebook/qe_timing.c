/* The timing rules (qe_timing.h). */
#include <math.h>
#include <string.h>

#include "qe_json.h"
#include "qe_record.h"
#include "qe_timing.h"

/* b - a; when one stamp is naive and the other zoned, compare wall clocks. */
static int64_t
span(const struct qe_time *a, const struct qe_time *b, int *approximate)
{
	if (a->zone != b->zone) {
		struct qe_time wa = *a, wb = *b;

		wa.sec += a->offset;
		wb.sec += b->offset;
		*approximate = 1;
		return qe_time_diff_us(&wa, &wb);
	}
	return qe_time_diff_us(a, b);
}

static int
pair(struct qe_timing *t, const cJSON *obj, const char *k0, const char *k1, int source,
    int method)
{
	if (!qe_json_time(obj, k0, &t->start) || !qe_json_time(obj, k1, &t->end))
		return 0;
	t->approximate = 0;
	t->us = span(&t->start, &t->end, &t->approximate);
	t->source = source;
	t->method = method;
	t->have = 1;
	return 1;
}

/* nbclient's or JupyterLab's "execution" stamps. */
static int
execution(const cJSON *ex, struct qe_timing *t)
{
	int src = cJSON_GetObjectItemCaseSensitive(ex, "shell.execute_reply.started") ?
	    QE_TS_JUPYTERLAB : QE_TS_NBCLIENT, approx = 0;
	struct qe_time b, i;

	if (qe_json_time(ex, "iopub.status.busy", &b) && qe_json_time(ex, "iopub.status.idle", &i)) {
		t->busy_us = span(&b, &i, &approx);
		t->have_busy = t->busy_us >= 0;
	}
	return pair(t, ex, "iopub.execute_input", "shell.execute_reply", src, QE_TM_INPUTREPLY) ||
	    pair(t, ex, "shell.execute_reply.started", "shell.execute_reply", src,
	    QE_TM_STARTEDREPLY) ||
	    pair(t, ex, "iopub.status.busy", "iopub.status.idle", src, QE_TM_BUSYIDLE);
}

/* papermill's duration, unless the cell is still pending. */
static int
papermill(const cJSON *pm, struct qe_timing *t)
{
	const cJSON *dur = cJSON_GetObjectItemCaseSensitive(pm, "duration");
	const char *st = qe_json_str(pm, "status");

	if (!cJSON_IsNumber(dur) || !isfinite(dur->valuedouble) ||
	    (st != NULL && strcmp(st, "pending") == 0))
		return 0;
	/* beyond a year is judged invalid; llround would overflow past 9e12 s */
	t->us = fabs(dur->valuedouble) * 1e6 > (double)QE_TIMING_MAX_US ?
	    (dur->valuedouble < 0 ? -1 : QE_TIMING_MAX_US + 1) : llround(dur->valuedouble * 1e6);
	t->source = QE_TS_PAPERMILL;
	t->method = QE_TM_DURATION;
	t->have = 1;
	if (!qe_json_time(pm, "start_time", &t->start) || !qe_json_time(pm, "end_time", &t->end))
		t->start.sec = t->end.sec = INT64_MIN;
	return 1;
}

void
qe_timing_choose(const cJSON *md, struct qe_timing *t)
{
	const cJSON *ex = cJSON_GetObjectItemCaseSensitive(md, "execution");
	const cJSON *pm = cJSON_GetObjectItemCaseSensitive(md, "papermill");
	const cJSON *et = cJSON_GetObjectItemCaseSensitive(md, "ExecuteTime");

	memset(t, 0, sizeof *t);
	if (cJSON_IsObject(ex) && execution(ex, t))
		return;
	if (cJSON_IsObject(pm) && papermill(pm, t))
		return;
	if (cJSON_IsObject(et))
		pair(t, et, "start_time", "end_time", QE_TS_EXECUTETIME, QE_TM_STARTEND);
}

void
qe_timing_hook(struct qe_timing *t, const struct qe_time *start, const struct qe_time *end,
    int64_t us)
{
	t->start = *start;
	t->end = *end;
	t->us = us;
	t->source = QE_TS_HOOK;
	t->method = QE_TM_INKERNEL;
	t->approximate = 0;
	t->have = 1;
	t->have_busy = 0;
}

int64_t
qe_timing_window_exec_us(double execution_seconds)
{
	return isnan(execution_seconds) ? -1 : llround(execution_seconds * 1e6);
}

int
qe_timing_window_outside(const struct qe_window *w, const struct qe_time *start,
    const struct qe_time *end)
{
	struct qe_time lo = w->created;
	int64_t window = (w->exec_us < 0 ? 0 : w->exec_us) + w->margin_us;

	if (!w->have_created)
		return 0;
	/* created - execution_seconds - margin <= start, end <= created + margin */
	lo.sec -= window / 1000000;
	lo.nsec -= (int32_t)(window % 1000000) * 1000;
	if (lo.nsec < 0)
		lo.nsec += 1000000000, lo.sec--;
	return (w->exec_us >= 0 && qe_time_diff_us(&lo, start) < 0) ||
	    (end != NULL && qe_time_diff_us(&w->created, end) > w->margin_us);
}

int
qe_timing_judge(const struct qe_timing *t, const struct qe_window *w)
{
	if (t->start.sec != INT64_MIN && qe_timing_window_outside(w, &t->start, &t->end))
		return QE_TN_STALE;
	if (t->us < 0 || t->us > QE_TIMING_MAX_US ||
	    (w->exec_us >= 0 && t->us > w->exec_us + w->margin_us))
		return QE_TN_INVALID;
	return t->approximate ? QE_TN_APPROXIMATE : -1;
}

int
qe_timing_busy_believable(const struct qe_timing *t, const struct qe_window *w)
{
	return t->busy_us >= 0 && t->busy_us <= QE_TIMING_MAX_US &&
	    (!t->have || t->us < 0 || t->busy_us <= t->us + QE_BUSY_SLACK_US) &&
	    (w->exec_us < 0 || t->busy_us <= w->exec_us + w->margin_us);
}
