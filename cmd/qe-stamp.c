/*
 * qe-stamp - copy NDJSON records and append to each one provenance object:
 * the commit built, the workflow run, the runner, its hardware, the
 * environment, and a short fingerprint of the facts that make two timings
 * comparable.
 *
 * The descriptor is collected once at start-up and serialised once; every
 * record is printed and the serialised descriptor spliced in before its
 * closing brace, so a million records cost a million prints, nothing more.
 */
#include <err.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "qe.h"
#include "qe_provenance.h"
#include "qe_splice.h"

static const struct option longopts[] = {
	{ "all-packages", no_argument,       NULL, 'a' },
	{ "conda-list",   required_argument, NULL, 'c' },
	{ "describe",     no_argument,       NULL, 'd' },
	{ "env-file",     required_argument, NULL, 'f' },
	{ "help",         no_argument,       NULL, 'h' },
	{ "key-package",  required_argument, NULL, 'k' },
	{ "marker",       required_argument, NULL, 'm' },
	{ "pip-list",     required_argument, NULL, 'p' },
	{ "replace",      no_argument,       NULL, 'R' },
	{ "runner-class", required_argument, NULL, 'r' },
	{ "var",          required_argument, NULL, 'v' },
	{ "workspace",    required_argument, NULL, 'w' },
	QE_LONGOPTS_COMMON,
	{ NULL, 0, NULL, 0 }
};

static void usage(FILE *, int) __attribute__((noreturn));

static void
usage(FILE *fp, int status)
{
	fprintf(fp, "usage: %s [-adhR] [-c conda-list] [-f env-file] [-k package] [-m marker]\n"
	    "                [-p pip-list] [-r class] [-v name] [-w workspace] [--version]\n"
	    "                [--max-line bytes] [file ...]\n", qe_progname());
	exit(status);
}

static int
stamp(cJSON *rec, const char *file, long line, void *ctx)
{
	const char *s;
	size_t n;

	if ((s = qe_splice_record(ctx, rec, &n)) == NULL) {
		warnx("%s:%ld: record already stamped", file, line);
		return -1;
	}
	qe_emit_line(s, n);
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
		qe_emit(desc = qe_provenance_record(desc));
		cJSON_Delete(desc);
		return QE_EXIT_OK;
	}
	s = qe_json_print(desc);
	cJSON_Delete(desc);
	qe_splice_init(&sp, "provenance", s, replace);
	cJSON_free(s);
	status = qe_each_record(argc, argv, stamp, &sp);
	qe_splice_free(&sp);
	return status;
}

/* One option into p; 'd' and 'R' are main's, the rest usage errors. */
static void
option(struct qe_provenance *p, int ch, char *arg)
{
	switch (ch) {
	case 'a':
		p->pkgs.all = 1;
		break;
	case 'c':
		p->conda_path = arg;
		break;
	case 'f':
		qe_names_add(&p->files, arg);
		break;
	case 'h':
		usage(stdout, QE_EXIT_OK);
	case 'k':
		qe_pkgs_add_keys(&p->pkgs, arg);
		break;
	case 'm':
		p->marker_path = arg;
		break;
	case 'p':
		p->pip_path = arg;
		break;
	case 'w':
		p->workspace = arg;
		break;
	case 'r':
		if (*arg == '\0') {
			warnx("empty runner class");
			usage(stderr, QE_EXIT_TROUBLE);
		}
		p->runner_label = arg;
		break;
	case 'v':
		if (*arg == '\0' || strchr(arg, '=') != NULL) {
			warnx("'%s': not a variable name", arg);
			usage(stderr, QE_EXIT_TROUBLE);
		}
		qe_names_add(&p->vars, arg);
		break;
	case QE_OPT_MAX_LINE:
		if (qe_set_max_line(arg) < 0)
			usage(stderr, QE_EXIT_TROUBLE);
		break;
	default:
		usage(stderr, QE_EXIT_TROUBLE);
	}
}

int
main(int argc, char *argv[])
{
	struct qe_provenance p = { .tool = "qe-stamp " QE_VERSION };
	int ch, dflag = 0, Rflag = 0, status;

	qe_opt_init(argv);
	while ((ch = getopt_long(argc, argv, "ac:df:hk:m:p:Rr:v:w:", longopts, NULL)) != -1)
		if (ch == 'd')
			dflag = 1;
		else if (ch == 'R')
			Rflag = 1;
		else if (ch == QE_OPT_VERSION) {
			qe_provenance_free(&p);
			return qe_print_version();
		} else
			option(&p, ch, optarg);
	argc -= optind;
	argv += optind;
	if (dflag && argc > 0) {
		warnx("--describe reads no input");
		usage(stderr, QE_EXIT_TROUBLE);
	}
	status = run(qe_provenance_collect(&p), argc, argv, dflag, Rflag);
	if (p.unreadable > 0)
		status = QE_EXIT_TROUBLE;
	qe_provenance_free(&p);
	return qe_finish(status);
}
