/*
 * Unit driver for lib/notebook/qe_timing.c: which writer's stamps give a cell's
 * duration, and the note a duration gets inside a record's window.
 */
#include <math.h>
#include <stdint.h>

#include "harness.h"
#include "qe_record.h"
#include "notebook/qe_timing.h"

static void
add_time(struct qe_buf *out, const char *key, const struct qe_time *t)
{
	char buf[QE_TIME_BUFSZ];

	qe_buf_addf(out, " %s=%s", key, t->sec == INT64_MIN ? "-" : qe_time_format(t, buf));
}

static void
describe(const struct qe_timing *t, struct qe_buf *out)
{
	if (!t->have) {
		qe_buf_adds(out, "none");
		return;
	}
	qe_buf_addf(out, "%s %s %lld", qe_vocab_name(&qe_vocab_timing_sources, t->source),
	    qe_vocab_name(&qe_vocab_timing_methods, t->method), (long long)t->us);
	add_time(out, "start", &t->start);
	add_time(out, "end", &t->end);
	if (t->have_busy)
		qe_buf_addf(out, " busy=%lld", (long long)t->busy_us);
	if (t->approximate)
		qe_buf_adds(out, " approximate");
}

/* A cell's metadata (JSON): "SOURCE METHOD US start=.. end=.. [busy=US] [approximate]" or "none". */
static void
choose(const char *in, size_t n, struct qe_buf *out)
{
	cJSON *md = cJSON_ParseWithLength(in, n);
	struct qe_timing t;

	if (md == NULL) {
		qe_buf_adds(out, "bad case");
		return;
	}
	qe_timing_choose(md, &t);
	describe(&t, out);
	cJSON_Delete(md);
}

/*
 * {"metadata": {...}, "created": TIME, "execution_seconds": S, "margin": S}:
 * the timing note of the chosen duration ("none" without a timing, "ok"
 * for a believable exact one).
 */
static void
judge(const char *in, size_t n, struct qe_buf *out)
{
	cJSON *c = cJSON_ParseWithLength(in, n);
	const cJSON *ex = cJSON_GetObjectItemCaseSensitive(c, "execution_seconds");
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(c, "margin");
	const char *created = qe_json_str(c, "created");
	struct qe_window w = { .margin_us = 5000000 };
	struct qe_timing t;
	int note;

	if (c == NULL || (created && qe_time_parse(created, &w.created) != 0)) {
		qe_buf_adds(out, "bad case");
		cJSON_Delete(c);
		return;
	}
	w.have_created = created != NULL;
	w.exec_us = qe_timing_window_exec_us(cJSON_IsNumber(ex) ? ex->valuedouble : NAN);
	if (cJSON_IsNumber(m))
		w.margin_us = llround(m->valuedouble * 1e6);
	qe_timing_choose(cJSON_GetObjectItemCaseSensitive(c, "metadata"), &t);
	note = t.have ? qe_timing_judge(&t, &w) : -1;
	qe_buf_adds(out, !t.have ? "none" : note < 0 ? "ok" : qe_vocab_name(&qe_vocab_timing_notes, note));
	cJSON_Delete(c);
}

static const struct unit_fn fns[] = {
	{ "choose", choose },
	{ "judge", judge },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
