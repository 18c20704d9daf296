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

/* Name of the running program (the short name), for messages. */
const char *qe_progname(void);

/*
 * Make getopt's own messages name the program as warnx() does (under
 * valgrind or a full path argv[0] would be something else).
 */
void qe_opt_init(char **argv);

/* --version: print "prog VERSION" and return qe_finish()'s status. */
int qe_print_version(void);

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
