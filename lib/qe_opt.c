/* The shared part of every tool's command line (qe_opt.h). */
#include <err.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qe.h"
#include "qe_json.h"
#include "qe_ndjson.h"
#include "qe_opt.h"

extern char *program_invocation_short_name;

const char *
qe_opt_progname(void)
{
	return program_invocation_short_name;
}

int
qe_cli_usage_error(const struct qe_cli *cli)
{
	fputs(cli->usage, stderr);
	return QE_EXIT_TROUBLE;
}

int
qe_cli_parse(const struct qe_cli *cli, int *argc, char ***argv)
{
	int ch, bad;

	/* getopt's messages name the program as warnx's do (not valgrind's argv[0]) */
	(*argv)[0] = program_invocation_short_name;
	while ((ch = getopt_long(*argc, *argv, cli->shortopts, cli->longopts, NULL)) != -1) {
		if (ch == 'h') {
			fputs(cli->usage, stdout);
			return qe_json_finish(QE_EXIT_OK);
		}
		if (ch == QE_OPT_VERSION) {
			printf("%s %s\n", qe_opt_progname(), QE_VERSION);
			return qe_json_finish(QE_EXIT_OK);
		}
		if (ch == QE_OPT_MAX_LINE)
			bad = qe_ndjson_set_max_line(optarg) < 0;
		else
			bad = ch == '?' || cli->option(ch, optarg, cli->ctx) < 0;
		if (bad)
			return qe_cli_usage_error(cli);
	}
	*argc -= optind;
	*argv += optind;
	return QE_CLI_GO;
}

static int
invalid(const char *opt, const char *s)
{
	warnx("%s: invalid value '%s'", opt, s);
	return -1;
}

int
qe_opt_number(const char *opt, const char *s, double min, int above, double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (*s == '\0' || *end != '\0' || errno == ERANGE || !isfinite(v) || v < min ||
	    (above && v == min) || v > max)
		return invalid(opt, s);
	*out = v;
	return 0;
}

int
qe_opt_count(const char *opt, const char *s, long min, long max, long *out)
{
	size_t n = strlen(s);
	long v;

	if (n == 0 || n > 12 || strspn(s, "0123456789") != n)
		return invalid(opt, s);
	v = strtol(s, NULL, 10);
	if (v < min || v > max)
		return invalid(opt, s);
	*out = v;
	return 0;
}
