/*
 * qe-history - keep every build's stamped report in an SQLite database and
 * read trends, step changes, noise fences, environment comparisons and cost
 * from it. Everything it decides is in lib/history/ (history/history.h): the
 * store qe_hstore.c and qe_hadd.c, reading it back qe_hload.c, the queries
 * qe_h*.c (qe_hquery.h), the rows qe_hout.c.
 */
#include <err.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qe.h"
#include "qe_mem.h"
#include "qe_json.h"
#include "qe_opt.h"
#include "qe_record.h"
#include "history/history.h"

enum { O_FORMAT = QE_OPT_FIRST, O_PENALTY, O_BY, O_PRICES, O_MAIN_REF, O_DIFF, O_REPLACE, O_ALL, O_DEFAULTS };

static const struct option longopts[] = {
	{ "all",      no_argument,       NULL, O_ALL },
	{ "by",       required_argument, NULL, O_BY },
	{ "diff",     required_argument, NULL, O_DIFF },
	{ "defaults", no_argument,       NULL, O_DEFAULTS },
	{ "format",   required_argument, NULL, O_FORMAT },
	{ "help",     no_argument,       NULL, 'h' },
	{ "main-ref", required_argument, NULL, O_MAIN_REF },
	{ "penalty",  required_argument, NULL, O_PENALTY },
	{ "prices",   required_argument, NULL, O_PRICES },
	{ "replace",  no_argument,       NULL, O_REPLACE },
	QE_LONGOPTS_COMMON,
	{ NULL, 0, NULL, 0 }
};

static const char usage[] =
    "usage: qe-history add [-d db] [--main-ref ref] [--replace] report ...\n"
    "       qe-history slowest [-d db] [-n count] [--format ndjson|md]\n"
    "       qe-history series [-d db] [--format ndjson|md] document [cell]\n"
    "       qe-history changes [-d db] [-m builds] [--penalty k] [--format ndjson|md]\n"
    "       qe-history fences [-d db] [-k builds] [-o file] [--format ndjson|md]\n"
    "       qe-history compare [-d db] [--by package|fingerprint|env-file] [--all] [--format ndjson|md]\n"
    "       qe-history cost [-d db] [--prices file] [--format ndjson|md]\n"
    "       qe-history sweeps [-d db] [--format ndjson|md] [document [cell]]\n"
    "       qe-history report [-d db] [--prices file] -o dir\n"
    "       qe-history report [-d db] --format md [--diff file]\n"
    "       qe-history -h | --help | --version | --defaults\n";

/* Options, and which subcommands take them (bits of the table below). */
enum { S_ADD, S_SLOWEST, S_SERIES, S_CHANGES, S_FENCES, S_COMPARE, S_COST, S_REPORT, S_SWEEPS, S_N };
static const char *const subs[S_N] = {
	"add", "slowest", "series", "changes", "fences", "compare", "cost", "report", "sweeps"
};
#define ALL ((1u << S_N) - 1)
#define B(s) (1u << (s))
#define QUERIES (B(S_SLOWEST) | B(S_SERIES) | B(S_CHANGES) | B(S_FENCES) | B(S_COMPARE) | B(S_COST) | \
    B(S_SWEEPS))

static const struct {
	int ch;
	const char *name;
	unsigned subs;
} takes[] = {
	{ 'd', "-d", ALL }, { O_FORMAT, "--format", QUERIES | B(S_REPORT) }, { 'n', "-n", B(S_SLOWEST) },
	{ 'm', "-m", B(S_CHANGES) }, { O_PENALTY, "--penalty", B(S_CHANGES) },
	{ 'k', "-k", B(S_FENCES) }, { 'o', "-o", B(S_FENCES) | B(S_REPORT) },
	{ O_BY, "--by", B(S_COMPARE) }, { O_ALL, "--all", B(S_COMPARE) }, { O_PRICES, "--prices", B(S_COST) | B(S_REPORT) },
	{ O_DIFF, "--diff", B(S_REPORT) },
	{ O_MAIN_REF, "--main-ref", B(S_ADD) }, { O_REPLACE, "--replace", B(S_ADD) },
};

struct cli {
	struct qe_hq q;
	const char *db, *main_ref;
	const char *diff;	/* report --diff */
	int replace;		/* add --replace */
	int defaults;		/* --defaults: print them and stop */
	unsigned given;		/* bit i: takes[i] was given */
};

static int
option(int ch, const char *arg, void *ctx)
{
	struct cli *c = ctx;

	for (size_t i = 0; i < sizeof takes / sizeof takes[0]; i++)
		if (takes[i].ch == ch)
			c->given |= 1u << i;
	switch (ch) {
	case 'd': c->db = arg; return 0;
	case 'n': return qe_opt_count("-n", arg, 1, 100000, &c->q.top);
	case 'm': return qe_opt_count("-m", arg, 1, 1000, &c->q.minseg);
	case 'k': return qe_opt_count("-k", arg, 2, 100000, &c->q.k);
	case 'o': c->q.out = arg; return 0;
	case O_PENALTY: return qe_opt_number("--penalty", arg, 0, 1, 1e6, &c->q.penalty);
	case O_PRICES: c->q.prices = arg; return 0;
	case O_MAIN_REF: c->main_ref = arg; return 0;
	case O_DIFF: c->diff = arg; return 0;
	case O_REPLACE: c->replace = 1; return 0;
	case O_ALL: c->q.all = 1; return 0;
	case O_DEFAULTS: c->defaults = 1; return 0;
	case O_FORMAT:
		if (strcmp(arg, "md") == 0 || strcmp(arg, "ndjson") == 0) {
			c->q.md = strcmp(arg, "md") == 0;
			return 0;
		}
		warnx("--format: invalid value '%s' (ndjson or md)", arg);
		return -1;
	case O_BY:
		if ((c->q.by = qe_vocab_lookup(&qe_vocab_compare_bys, arg)) == QE_BY_PACKAGE || c->q.by < 0) {
			c->q.by = QE_BY_PACKAGE;
			c->q.package = arg;
		} else if (c->q.by == QE_BY_ENVIRONMENT)
			c->q.by = -1;	/* the default: every environment change */
		return 0;
	default:
		return -1;
	}
}

/* Every option given applies to subcommand s? Else a usage error. */
static int
options_fit(const struct cli *c, int s)
{
	for (size_t i = 0; i < sizeof takes / sizeof takes[0]; i++)
		if ((c->given & (1u << i)) && !(takes[i].subs & B(s))) {
			warnx("%s: not an option of %s", takes[i].name, subs[s]);
			return 0;
		}
	return 1;
}

static int
add(struct cli *c, int argc, char **argv)
{
	struct qe_hstore s;
	int status = QE_EXIT_OK;

	if (argc == 0) {
		warnx("add: no report named (- for standard input)");
		return -1;
	}
	if (qe_hstore_open(&s, c->db, 0) < 0)
		return QE_EXIT_TROUBLE;
	for (int i = 0; i < argc; i++)
		if (qe_hadd(&s, argv[i], c->main_ref, c->replace) != QE_EXIT_OK)
			status = QE_EXIT_TROUBLE;
	qe_hstore_close(&s);
	return status;
}

/* Operands a query takes: [min, max]. */
static const int operands[S_N][2] = {
	[S_SLOWEST] = { 0, 0 }, [S_SERIES] = { 1, 2 }, [S_CHANGES] = { 0, 0 },
	[S_FENCES] = { 0, 0 }, [S_COMPARE] = { 0, 0 }, [S_COST] = { 0, 0 }, [S_SWEEPS] = { 0, 2 },
};

static int (*const queries[S_N])(const struct qe_hq *) = {
	[S_SLOWEST] = qe_hq_slowest, [S_SERIES] = qe_hq_series, [S_CHANGES] = qe_hq_changes,
	[S_FENCES] = qe_hq_fences, [S_COMPARE] = qe_hq_compare, [S_COST] = qe_hq_cost,
	[S_SWEEPS] = qe_hq_sweeps,
};

/*
 * fences -o FILE: the records into FILE.tmp, renamed to FILE once they are
 * all written (a reader never sees half a file); nothing on stdout.
 */
static int
to_file(struct cli *c)
{
	struct qe_buf tmp = { 0 };
	int fd, saved = dup(STDOUT_FILENO), status;

	qe_buf_addf(&tmp, "%s.tmp", c->q.out);
	if (saved < 0 || (fd = open(tmp.data, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0) {
		warn("%s", tmp.data);
		qe_buf_free(&tmp);
		return QE_EXIT_TROUBLE;
	}
	fflush(stdout);
	dup2(fd, STDOUT_FILENO);
	close(fd);
	status = qe_hq_fences(&c->q);
	qe_json_emit_flush();
	dup2(saved, STDOUT_FILENO);
	close(saved);
	if (status == QE_EXIT_OK && rename(tmp.data, c->q.out) < 0) {
		warn("%s", c->q.out);
		status = QE_EXIT_TROUBLE;
	}
	if (status != QE_EXIT_OK)
		unlink(tmp.data);
	qe_buf_free(&tmp);
	return status;
}

static int
query(struct cli *c, int s, int argc, char **argv)
{
	struct qe_hstore st;
	int status;

	if (argc < operands[s][0] || argc > operands[s][1]) {
		warnx("%s: %s", subs[s], argc < operands[s][0] ? "a document to follow is missing" :
		    "too many operands");
		return -1;
	}
	if (s == S_FENCES && c->q.out && c->q.md) {
		warnx("fences: -o writes NDJSON: --format md does not go with it");
		return -1;
	}
	c->q.doc = argc > 0 ? argv[0] : NULL;
	c->q.cell = argc > 1 ? argv[1] : NULL;
	if (qe_hstore_open(&st, c->db, 1) < 0)
		return QE_EXIT_TROUBLE;
	c->q.db = st.db;
	c->q.path = c->db;
	if (s == S_FENCES && c->q.out)
		status = to_file(c);
	else
		status = queries[s](&c->q);
	qe_hstore_close(&st);
	return status;
}

/* report: the page (-o dir) or the Markdown trend table (--format md) */
static int
report(struct cli *c, int argc, char **argv)
{
	struct qe_hstore st;
	int status;

	(void)argv;
	if (argc > 0 || (c->q.out == NULL) == !c->q.md || (c->diff && !c->q.md)) {
		warnx("report: %s", argc > 0 ? "too many operands" :
		    "-o dir (the page) or --format md (the trend table, with --diff), one of them");
		return -1;
	}
	if (qe_hstore_open(&st, c->db, 1) < 0)
		return QE_EXIT_TROUBLE;
	c->q.db = st.db;
	c->q.path = c->db;
	status = c->q.md ? qe_hreport_md(&c->q, c->diff) : qe_hreport_html(&c->q, c->q.out);
	qe_hstore_close(&st);
	return status;
}

static int
run(struct cli *c, int s, int argc, char **argv)
{
	if (!options_fit(c, s))
		return -1;
	if (s == S_ADD)
		return add(c, argc, argv);
	if (s == S_REPORT)
		return report(c, argc, argv);
	return query(c, s, argc, argv);
}

/*
 * --defaults: the defaults of the options and the rules the documentation
 * states (qe_hquery.h), as one JSON object; tests/defaults.bats checks the
 * pages that repeat them against it.
 */
static int
print_defaults(void)
{
	static const struct {
		const char *key;
		double v;
	} d[] = {
		{ "slowest_rows", QE_HQ_TOP }, { "changes_min_segment", QE_HQ_MINSEG },
		{ "changes_penalty", QE_HQ_PENALTY }, { "changes_alpha", QE_HQ_ALPHA },
		{ "min_ratio", QE_HQ_MIN_RATIO }, { "unexplained_z", QE_HQ_UNEXPLAINED_Z },
		{ "fence_builds", QE_HQ_FENCE_K }, { "fence_min_builds", QE_HQ_FENCE_MIN },
	};
	cJSON *o = qe_json_check(cJSON_CreateObject());

	for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
		qe_json_check(cJSON_AddNumberToObject(o, d[i].key, d[i].v));
	qe_json_emit(o);
	cJSON_Delete(o);
	return qe_json_finish(QE_EXIT_OK);
}

int
main(int argc, char **argv)
{
	struct cli c = { .q = { .top = QE_HQ_TOP, .minseg = QE_HQ_MINSEG,
	    .penalty = QE_HQ_PENALTY, .k = QE_HQ_FENCE_K, .by = -1 }, .db = QE_HSTORE_DEFAULT,
	    .main_ref = QE_HBUILD_MAIN_REF };
	const struct qe_cli cli = { "d:hk:m:n:o:", longopts, usage, option, &c };
	int status, s;

	if ((status = qe_cli_parse(&cli, &argc, &argv)) != QE_CLI_GO)
		return status;
	if (c.defaults)
		return argc == 0 ? print_defaults() : qe_cli_usage_error(&cli);
	if (argc == 0) {
		warnx("no subcommand");
		return qe_cli_usage_error(&cli);
	}
	for (s = 0; s < S_N && strcmp(argv[0], subs[s]) != 0; s++)
		continue;
	if (s == S_N) {
		warnx("%s: no such subcommand", argv[0]);
		return qe_cli_usage_error(&cli);
	}
	if ((status = run(&c, s, argc - 1, argv + 1)) < 0)
		return qe_cli_usage_error(&cli);
	return qe_json_finish(status);
}
