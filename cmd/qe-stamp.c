/*
 * qe-stamp - copy NDJSON records and append to each one provenance object:
 * the commit built, the workflow run, the runner, its hardware, the
 * environment, and a short fingerprint of the facts that make two timings
 * comparable.
 *
 * The descriptor is collected once at start-up and serialised once; every
 * record's bytes are copied and the serialised descriptor spliced in before its
 * closing brace, so a million records cost a million prints, nothing more.
 */
#include <err.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "qe.h"
#include "qe_json.h"
#include "qe_ndjson.h"
#include "qe_opt.h"
#include "provenance/provenance.h"

static const struct option longopts[] = {
	{ "all-packages", no_argument,       NULL, 'a' },
	{ "conda-list",   required_argument, NULL, 'c' },
	{ "describe",     no_argument,       NULL, 'd' },
	{ "env-file",     required_argument, NULL, 'f' },
	{ "help",         no_argument,       NULL, 'h' },
	{ "key-package",  required_argument, NULL, 'k' },
	{ "marker",       required_argument, NULL, 'm' },
	{ "pip-list",     required_argument, NULL, 'p' },
	{ "python-version", required_argument, NULL, 'P' },
	{ "replace",      no_argument,       NULL, 'R' },
	{ "runner-class", required_argument, NULL, 'r' },
	{ "started",      required_argument, NULL, 't' },
	{ "var",          required_argument, NULL, 'v' },
	{ "workspace",    required_argument, NULL, 'w' },
	QE_LONGOPTS_COMMON,
	{ NULL, 0, NULL, 0 }
};

static const char usage[] =
    "usage: qe-stamp [-adhR] [-c conda-list] [-f env-file] [-k package] [-m marker]\n"
    "                [-P python-version] [-p pip-list] [-r class] [-t time] [-v name]\n"
    "                [-w workspace] [--version] [--max-line bytes] [file ...]\n";

/* What the options set. */
struct cli {
	struct qe_provenance p;
	struct qe_time started;
	int dflag, Rflag;
};

static int
stamp(cJSON *rec, const char *raw, size_t rawlen, const char *file, long line, void *ctx)
{
	const char *s;
	size_t n;

	if ((s = qe_splice_raw(ctx, rec, raw, rawlen, &n)) == NULL) {
		warnx("%s:%ld: record already stamped", file, line);
		return -1;
	}
	qe_json_emit_line(s, n);
	return 0;
}

/* The descriptor alone as a record (-d), or spliced into every record. */
static int
run(cJSON *desc, int argc, char **argv, int dflag, int replace)
{
	struct qe_splice sp;
	char *s;
	int status;

	if (dflag) {
		qe_json_emit(desc = qe_provenance_record(desc));
		cJSON_Delete(desc);
		return QE_EXIT_OK;
	}
	s = qe_json_print(desc);
	cJSON_Delete(desc);
	qe_splice_init(&sp, "provenance", s, replace);
	cJSON_free(s);
	status = qe_ndjson_each_raw(argc, argv, stamp, &sp);
	qe_splice_free(&sp);
	return status;
}

/* One option of the command line; -1 for a usage error. */
static int
option(int ch, const char *arg, void *ctx)
{
	struct cli *c = ctx;
	struct qe_provenance *p = &c->p;

	switch (ch) {
	case 'a': p->pkgs.all = 1; return 0;
	case 'c': p->conda_path = arg; return 0;
	case 'd': c->dflag = 1; return 0;
	case 'f': qe_provenance_names_add(&p->files, arg); return 0;
	case 'k': qe_pkgs_add_keys(&p->pkgs, arg); return 0;
	case 'm': p->marker_path = arg; return 0;
	case 'p': p->pip_path = arg; return 0;
	case 'P':
		if (*arg == '\0') {
			warnx("empty Python version");
			return -1;
		}
		p->python_version = arg;
		return 0;
	case 't':
		if (qe_time_parse(arg, &c->started) != 0) {
			warnx("'%s': not a time", arg);
			return -1;
		}
		p->started = &c->started;
		return 0;
	case 'R': c->Rflag = 1; return 0;
	case 'w': p->workspace = arg; return 0;
	case 'r':
		if (*arg == '\0') {
			warnx("empty runner class");
			return -1;
		}
		p->runner_label = arg;
		return 0;
	case 'v':
		if (*arg == '\0' || strchr(arg, '=') != NULL) {
			warnx("'%s': not a variable name", arg);
			return -1;
		}
		qe_provenance_names_add(&p->vars, arg);
		return 0;
	default:
		return -1;
	}
}

int
main(int argc, char *argv[])
{
	struct cli c = { .p = { .tool = "qe-stamp " QE_VERSION } };
	const struct qe_cli cli = { "ac:df:hk:m:P:p:Rr:t:v:w:", longopts, usage, option, &c };
	int status;

	if ((status = qe_cli_parse(&cli, &argc, &argv)) != QE_CLI_GO) {
		qe_provenance_free(&c.p);
		return status;
	}
	if (c.dflag && argc > 0) {
		warnx("--describe reads no input");
		qe_provenance_free(&c.p);
		return qe_cli_usage_error(&cli);
	}
	status = run(qe_provenance_collect(&c.p), argc, argv, c.dflag, c.Rflag);
	if (c.p.unreadable > 0)
		status = QE_EXIT_TROUBLE;
	qe_provenance_free(&c.p);
	return qe_json_finish(status);
}
