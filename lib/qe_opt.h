/*
 * qe_opt.h - what every tool's command line shares: the program's name,
 * --version and --max-line, and option values that are numbers.
 *
 * Invariants:
 *  - option values are checked completely (the whole text, its range) or
 *    refused with "prog: OPT: invalid value 'TEXT'" and -1; the tool then
 *    prints its usage and exits 2. Nothing is clamped silently.
 *  - long-only options of a tool number from QE_OPT_FIRST, so the shared
 *    ones keep their codes in every tool.
 */
#ifndef QE_OPT_H
#define QE_OPT_H

#include <getopt.h>

enum { QE_OPT_VERSION = 256, QE_OPT_MAX_LINE, QE_OPT_FIRST };

/* The long options every tool has, for the end of its getopt table. */
#define QE_LONGOPTS_COMMON \
	{ "max-line", required_argument, NULL, QE_OPT_MAX_LINE }, \
	{ "version",  no_argument,       NULL, QE_OPT_VERSION }

/*
 * A tool's command line: its getopt tables, its usage text (the man page's
 * SYNOPSIS, "usage: prog ...\n" lines) and a function for its own options.
 * -h, --version and --max-line are handled here, the same in every tool.
 */
struct qe_cli {
	const char *shortopts;
	const struct option *longopts;
	const char *usage;
	/* One option: 0, or -1 for a usage error (after saying why, if it can). */
	int (*option)(int ch, const char *arg, void *ctx);
	void *ctx;
};

#define QE_CLI_GO (-1)

/*
 * Parse the options of *argv, then leave *argc and *argv at the operands.
 * Returns QE_CLI_GO to go on, or the status main() returns at once: after -h
 * (usage on stdout) or --version (status 0, stdout closed by qe_json_finish), or
 * a usage error (usage on stderr, status 2).
 */
int qe_cli_parse(const struct qe_cli *cli, int *argc, char ***argv);

/* The usage on stderr, for a usage error main() finds itself: returns 2. */
int qe_cli_usage_error(const struct qe_cli *cli);

/* Name of the running program (the short name), for messages. */
const char *qe_opt_progname(void);

/*
 * A finite decimal number v with min <= v <= max (min < v when `above` is
 * set). Returns 0 and sets *out, or -1 after the message.
 */
int qe_opt_number(const char *opt, const char *s, double min, int above, double max, double *out);

/*
 * A whole number of 1 to 12 decimal digits (no sign, no blanks) within
 * [min, max]. Returns 0 and sets *out, or -1 after the message.
 */
int qe_opt_count(const char *opt, const char *s, long min, long max, long *out);

#endif /* QE_OPT_H */
