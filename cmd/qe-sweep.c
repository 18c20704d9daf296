/*
 * qe-sweep - the evaluation harness's rules over qe-replicate's records: a
 * scaling sweep (--sweep) into one sweep record per machine, lecture and
 * cell (time and memory against size per version, the speedup, the fitted
 * exponents, the crossover, the recommendation at the lecture's own size),
 * and each profile (--profile) into a hotspot record (top functions, share,
 * Amdahl's bound). qe-comment renders them; qe-history keeps them.
 *
 * The whole stream is read before anything is written: a curve needs all
 * its runs. Records of other kinds pass unread (provenance).
 */
#include <err.h>
#include <getopt.h>
#include <stdlib.h>

#include "qe.h"
#include "qe_json.h"
#include "qe_ndjson.h"
#include "qe_opt.h"
#include "sweep/sweep.h"

enum { OPT_DEFAULTS = QE_OPT_FIRST };

static const struct option longopts[] = {
	{ "defaults",    no_argument,       NULL, OPT_DEFAULTS },
	{ "help",        no_argument,       NULL, 'h' },
	{ "min-seconds", required_argument, NULL, 'm' },
	{ "ratio",       required_argument, NULL, 'r' },
	QE_LONGOPTS_COMMON,
	{ NULL, 0, NULL, 0 }
};

static const char usage[] =
    "usage: qe-sweep [-h] [-m seconds] [-r ratio] [--version] [--max-line bytes] [file ...]\n"
    "       qe-sweep --defaults\n";

/* What the options set: the recommendation's ratio, the negligible time; --defaults. */
struct cli {
	double ratio, min_s;
	int defaults;
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
	return -1;
}

int
main(int argc, char *argv[])
{
	struct cli o = { QE_SWEEP_RATIO, QE_SWEEP_MIN_S, 0 };
	const struct qe_cli cli = { "hm:r:", longopts, usage, option, &o };
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
