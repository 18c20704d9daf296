/*
 * qe-sweep - the evaluation harness's rules over qe-replicate's records: a
 * scaling sweep (--sweep) into one sweep record per machine, lecture and
 * cell (time and memory against size per version, the speedup, the fitted
 * exponents, the crossover, the recommendation at the lecture's own size),
 * and each profile (--profile) into a hotspot record (top functions, share,
 * Amdahl's bound). qe-comment renders them; qe-history keeps them. With
 * --triage, one version's runs and profile (qe-replicate --triage) into a
 * triage record per lecture: where the as-used time goes, and whether a
 * rewrite could pay (sweep/qe_triage.h holds the rules).
 *
 * The whole stream is read before anything is written: a curve needs all
 * its runs. Records of other kinds pass unread (provenance).
 */
#include <err.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "qe.h"
#include "qe_json.h"
#include "qe_ndjson.h"
#include "qe_opt.h"
#include "sweep/sweep.h"

enum { OPT_DEFAULTS = QE_OPT_FIRST, OPT_FLOOR, OPT_CEILING, OPT_ADDRESSABLE, OPT_EVIDENCE, OPT_X64 };

static const struct option longopts[] = {
	{ "defaults",    no_argument,       NULL, OPT_DEFAULTS },
	{ "help",        no_argument,       NULL, 'h' },
	{ "min-seconds", required_argument, NULL, 'm' },
	{ "ratio",       required_argument, NULL, 'r' },
	{ "triage",      no_argument,       NULL, 'T' },
	{ "floor",       required_argument, NULL, OPT_FLOOR },
	{ "ceiling",     required_argument, NULL, OPT_CEILING },
	{ "addressable", required_argument, NULL, OPT_ADDRESSABLE },
	{ "evidence",    required_argument, NULL, OPT_EVIDENCE },
	{ "x64",         required_argument, NULL, OPT_X64 },
	QE_LONGOPTS_COMMON,
	{ NULL, 0, NULL, 0 }
};

static const char usage[] =
    "usage: qe-sweep [-h] [-m seconds] [-r ratio] [--version] [--max-line bytes] [file ...]\n"
    "       qe-sweep -T [--floor seconds] [--ceiling ratio] [--addressable kinds] [file ...]\n"
    "       qe-sweep --evidence dir [--x64 file] [file ...]\n"
    "       qe-sweep --defaults\n";

/* What the options set: the recommendation's ratio, the negligible time, triage and its rules; --defaults. */
struct cli {
	double ratio, min_s;
	int triage, defaults;
	struct qe_triage_rules rules;
	const char *evidence, *x64;
};

static int
option(int ch, const char *arg, void *ctx)
{
	struct cli *c = ctx;

	if (ch == 'r')
		return qe_opt_number("--ratio", arg, 1, 1, 1e6, &c->ratio);
	if (ch == 'm')
		return qe_opt_number("--min-seconds", arg, 0, 0, 1e6, &c->min_s);
	if (ch == OPT_DEFAULTS)
		return c->defaults = 1, 0;
	if (ch == 'T')
		return c->triage = 1, 0;
	if (ch == OPT_EVIDENCE)
		return c->evidence = arg, 0;
	if (ch == OPT_X64)
		return c->x64 = arg, 0;
	if (ch == OPT_FLOOR)
		return qe_opt_number("--floor", arg, 0, 0, 1e6, &c->rules.floor_s);
	if (ch == OPT_CEILING)
		return qe_opt_number("--ceiling", arg, 1, 0, 1e6, &c->rules.ceiling);
	if (ch == OPT_ADDRESSABLE && qe_triage_kinds(arg, &c->rules.addressable) == 0)
		return 0;
	if (ch == OPT_ADDRESSABLE)
		warnx("--addressable: invalid value '%s' (kinds: compile, library, python, jitted, other)", arg);
	return -1;
}

/* --evidence: QuantEcon's evidence.json and env.json per lecture, nothing on stdout. */
static int
evidence(const struct cli *o, int argc, char *argv[])
{
	struct qe_evidence ev;
	char *x64[] = { (char *)o->x64, NULL };
	int status;

	qe_evidence_init(&ev);
	status = qe_ndjson_each(argc, argv, qe_evidence_take, &ev);
	ev.x64 = 1;
	if (o->x64 != NULL && qe_ndjson_each(1, x64, qe_evidence_take, &ev) != QE_EXIT_OK)
		status = QE_EXIT_TROUBLE;
	if (qe_evidence_write(&ev, o->evidence) < 0)
		status = QE_EXIT_TROUBLE;
	qe_evidence_free(&ev);
	return qe_json_finish(status);
}

/* --triage: a triage record per lecture. */
static int
triage(const struct cli *o, int argc, char *argv[])
{
	struct qe_triage t;
	int status;
	cJSON *rec;

	qe_triage_init(&t, &o->rules);
	status = qe_ndjson_each(argc, argv, qe_triage_take, &t);
	for (size_t i = 0; i < qe_triage_count(&t); i++) {
		qe_json_emit(rec = qe_triage_record(&t, i));
		cJSON_Delete(rec);
	}
	qe_triage_free(&t);
	return qe_json_finish(status);
}

int
main(int argc, char *argv[])
{
	struct cli o = { QE_SWEEP_RATIO, QE_SWEEP_MIN_S, 0, 0,
			 { QE_TRIAGE_FLOOR_S, QE_TRIAGE_CEILING, QE_TRIAGE_ADDRESSABLE }, NULL, NULL };
	const struct qe_cli cli = { "hm:r:T", longopts, usage, option, &o };
	struct qe_sweep sw;
	const cJSON *p;
	cJSON *rec;
	size_t c;
	int status;

	if ((status = qe_cli_parse(&cli, &argc, &argv)) != QE_CLI_GO)
		return status;
	if (o.defaults) {	/* the documentation is tested against this line */
		if (argc != 0)
			return qe_cli_usage_error(&cli);
		rec = qe_json_check(cJSON_CreateObject());
		qe_json_check(cJSON_AddNumberToObject(rec, "ratio", QE_SWEEP_RATIO));
		qe_json_check(cJSON_AddNumberToObject(rec, "min_seconds", QE_SWEEP_MIN_S));
		qe_json_emit(rec);
		cJSON_Delete(rec);
		return qe_json_finish(QE_EXIT_OK);
	}
	if (o.x64 != NULL && o.evidence == NULL) {
		warnx("--x64 goes with --evidence");
		return qe_cli_usage_error(&cli);
	}
	if (o.triage && o.evidence != NULL) {
		warnx("--triage and --evidence: one at a time");
		return qe_cli_usage_error(&cli);
	}
	if (o.triage)
		return triage(&o, argc, argv);
	if (o.evidence != NULL)
		return evidence(&o, argc, argv);
	qe_sweep_init(&sw, o.ratio, o.min_s);
	status = qe_ndjson_each(argc, argv, qe_sweep_take, &sw);
	for (c = 0; c < sw.ncurves; c++) {
		qe_json_emit(rec = qe_sweep_record(&sw, c));
		cJSON_Delete(rec);
	}
	cJSON_ArrayForEach(p, sw.profiles) {
		if ((rec = qe_hotspot_record(p, sw.timed)) == NULL)
			continue;  /* qe_sweep_take refused it already */
		qe_json_emit(rec);
		cJSON_Delete(rec);
	}
	qe_sweep_free(&sw);
	return qe_json_finish(status);
}
