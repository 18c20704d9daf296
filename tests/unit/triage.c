/* Unit driver for lib/sweep/qe_triage.c: the kinds, the rules, a lecture's records. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "qe_record.h"
#include "sweep/qe_triage.h"

static const struct qe_triage_rules defaults = { QE_TRIAGE_FLOOR_S, QE_TRIAGE_CEILING, QE_TRIAGE_ADDRESSABLE };

/* "FUNCTION|FILE|JITNAME" (FILE "-": a builtin; JITNAME optional): the kind, or -1. */
static void
kind(const char *in, size_t n, struct qe_buf *out)
{
	char buf[512], *file, *jit;
	cJSON *names = qe_json_check(cJSON_CreateObject());
	int k;

	if (n >= sizeof buf || (file = strchr(memcpy(buf, in, n + 1), '|')) == NULL) {
		qe_buf_adds(out, "bad case");
		cJSON_Delete(names);
		return;
	}
	*file++ = '\0';
	if ((jit = strchr(file, '|')) != NULL) {
		*jit++ = '\0';
		qe_json_check(cJSON_AddTrueToObject(names, jit));
	}
	k = qe_triage_kind(buf, strcmp(file, "-") == 0 ? NULL : file, names);
	qe_buf_adds(out, k < 0 ? "-1" : qe_vocab_name(&qe_vocab_time_kinds, k));
	cJSON_Delete(names);
}

/*
 * "total min max runs | compile library python jitted other | function
 * [| floor ceiling]": the decision line and the sensitivity line.
 */
static void
decide(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_triage_rules r = defaults;
	struct qe_triage_split sp = { { 0 }, 0, 0, 0, 0, NULL };
	struct qe_triage_verdict v;
	const char *p1 = strchr(in, '|'), *p2 = p1 ? strchr(p1 + 1, '|') : NULL, *p3;
	char fn[128] = "";
	double t[4], rr[2];

	(void)n;
	if (p2 == NULL || unit_numbers(in, t, 4) != 4 || unit_numbers(p1 + 1, sp.s, QE_NTIME_KINDS) != QE_NTIME_KINDS) {
		qe_buf_adds(out, "bad case");
		return;
	}
	p3 = strchr(p2 + 1, '|');
	sscanf(p2 + 1, " %127[^ |]", fn);
	if (p3 != NULL && unit_numbers(p3 + 1, rr, 2) == 2)
		r.floor_s = rr[0], r.ceiling = rr[1];
	sp.total_s = t[0], sp.run_min = t[1], sp.run_max = t[2], sp.runs = (int)t[3];
	sp.function = fn[0] != '\0' ? fn : NULL;
	qe_triage_decide(&r, &sp, &v);
	qe_triage_line(out, &r, &sp, &v);
	qe_buf_adds(out, "\n");
	qe_triage_sensitivity(out, &r, &sp, &v);
}

/* One record a line (\n): each lecture's "decision binding time | line". */
static void
stream(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_triage t;
	const char *p = in, *nl;
	cJSON *rec;

	qe_triage_init(&t, &defaults);
	for (; p < in + n; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(in + n - p))) == NULL)
			nl = in + n;
		if ((rec = cJSON_ParseWithLength(p, (size_t)(nl - p))) == NULL) {
			qe_buf_adds(out, "bad case");
			qe_triage_free(&t);
			return;
		}
		qe_triage_take(rec, "case", 1, &t);
		cJSON_Delete(rec);
	}
	for (size_t i = 0; i < qe_triage_count(&t); i++) {
		rec = qe_triage_record(&t, i);
		qe_buf_addf(out, "%s%s %s ", i ? "\n" : "", qe_json_str(rec, "decision"), qe_json_str(rec, "binding"));
		unit_add_json(out, cJSON_GetObjectItemCaseSensitive(rec, "time"));
		qe_buf_adds(out, " | ");
		qe_buf_adds(out, qe_json_str(rec, "line"));
		cJSON_Delete(rec);
	}
	qe_triage_free(&t);
}

/* "python,jitted": the mask, or -1. */
static void
kinds(const char *in, size_t n, struct qe_buf *out)
{
	unsigned m;

	(void)n;
	if (qe_triage_kinds(in, &m) < 0)
		qe_buf_adds(out, "-1");
	else
		qe_buf_addf(out, "%u", m);
}

static const struct unit_fn fns[] = {
	{ "kind", kind },
	{ "decide", decide },
	{ "stream", stream },
	{ "kinds", kinds },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
