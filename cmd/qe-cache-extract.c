/*
 * qe-cache-extract - one NDJSON record per notebook and per code cell of a
 * jupyter-cache (directory, or inside a zip/tar artifact), or of notebook
 * files. See man/qe-cache-extract.1 for every rule applied here; the rules
 * live in lib/ (qe_extract.h and the modules it names).
 */
#include <err.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qe.h"
#include "qe_json.h"
#include "qe_opt.h"
#include "notebook/notebook.h"

enum { OPT_STALE_MARGIN = QE_OPT_FIRST, OPT_MAX_NOTEBOOK, OPT_MAX_ARCHIVE_ENTRIES,
	OPT_MAX_ARCHIVE_BYTES, OPT_STORED, OPT_FAILED, OPT_EXECUTION_SECONDS, OPT_JUPYTER_EXECUTE, OPT_RUNS, OPT_LABELS, OPT_BUILDER, OPT_PAGES };

static const struct option longopts[] = {
	{ "all",          no_argument,       NULL, 'a' },
	{ "baseline",     required_argument, NULL, 'b' },
	{ "builder",      required_argument, NULL, OPT_BUILDER },
	{ "execution-seconds", required_argument, NULL, OPT_EXECUTION_SECONDS },
	{ "failed",       required_argument, NULL, OPT_FAILED },
	{ "help",         no_argument,       NULL, 'h' },
	{ "jobs",         required_argument, NULL, 'j' },
	{ "jupyter-execute", required_argument, NULL, OPT_JUPYTER_EXECUTE },
	{ "labels",       no_argument,       NULL, OPT_LABELS },
	{ "max-notebook", required_argument, NULL, OPT_MAX_NOTEBOOK },
	{ "max-archive-entries", required_argument, NULL, OPT_MAX_ARCHIVE_ENTRIES },
	{ "max-archive-bytes", required_argument, NULL, OPT_MAX_ARCHIVE_BYTES },
	{ "max-line",     required_argument, NULL, QE_OPT_MAX_LINE },
	{ "pages",        required_argument, NULL, OPT_PAGES },
	{ "root",         required_argument, NULL, 'r' },
	{ "runs",         required_argument, NULL, OPT_RUNS },
	{ "since",        required_argument, NULL, 's' },
	{ "stale-margin", required_argument, NULL, OPT_STALE_MARGIN },
	{ "stored",       required_argument, NULL, OPT_STORED },
	{ "timings",      required_argument, NULL, 't' },
	{ "version",      no_argument,       NULL, QE_OPT_VERSION },
	{ NULL, 0, NULL, 0 }
};

static const char usage[] =
    "usage: qe-cache-extract [-ah] [--version] [-b baseline] [-j jobs] [-r root] [-s time]\n"
    "                        [-t log] [--stale-margin seconds] [--max-notebook bytes]\n"
    "                        [--max-archive-entries n] [--max-archive-bytes bytes]\n"
    "                        [--max-line bytes] [--execution-seconds seconds]\n"
    "                        [--failed reason] [--jupyter-execute dir] [--pages dir]\n"
    "                        [path ...]\n"
    "       qe-cache-extract [-r root] --stored document cache\n"
    "       qe-cache-extract --runs dir\n"
    "       qe-cache-extract --labels notebook.ipynb\n"
    "       qe-cache-extract --builder which source build [cache]\n";

/* What main() needs beside the extraction's own settings. */
struct cli {
	struct qe_extract *x;
	const char *baseline, *timings;
	const char *stored;		/* --stored: the document */
	const char *runs;		/* --runs: qe-replicate's run folders */
	int labels;			/* --labels */
	const char *builder;		/* --builder: auto, jupyter-book or mystmd */
};

/* One notebook's records to stdout; a write error ends the program. */
static void
emit(struct qe_buf *b)
{
	qe_json_emit_bytes(b->data, b->len);
	qe_buf_reset(b);
}

/* -r: made absolute when it exists (the build's root need not), no trailing '/'. */
static char *
root_arg(const char *arg)
{
	char *r = realpath(arg, NULL), *root = r ? r : qe_xstrdup(arg);
	size_t n = strlen(root);

	while (n > 1 && root[n - 1] == '/')
		root[--n] = '\0';
	return root;
}

/* A number option >= 0 into *out as a double; -1 after the message. */
static int
number_arg(const char *opt, const char *s, double *out)
{
	return qe_opt_number(opt, s, 0, 0, INFINITY, out);
}

/* One option of the command line; -1 for a usage error. */
static int
option(int ch, const char *arg, void *ctx)
{
	struct cli *c = ctx;
	struct qe_extract *x = c->x;
	double v;
	long n;

	switch (ch) {
	case 'a': x->all = 1; return 0;
	case 'b': c->baseline = arg; return 0;
	case 'j':
		if (qe_opt_count("-j", arg, 1, 1024, &n) < 0)
			return -1;
		x->jobs = (int)n;
		return 0;
	case 'r': x->root = root_arg(arg); return 0;
	case 's':
		if (qe_time_parse(arg, &x->since) != 0) {
			warnx("--since: '%s' is not a timestamp (YYYY-MM-DDTHH:MM:SS[.f][Z|+HH:MM])", arg);
			return -1;
		}
		x->have_since = 1;
		return 0;
	case 't': c->timings = arg; return 0;
	case OPT_STALE_MARGIN:
		if (number_arg("--stale-margin", arg, &v) < 0)
			return -1;
		x->stale_margin_us = llround(v * 1e6);
		return 0;
	case OPT_MAX_NOTEBOOK:
		if (number_arg("--max-notebook", arg, &v) < 0)
			return -1;
		/* (size_t) of a double beyond SIZE_MAX is undefined: clamp */
		x->lim.member_bytes = (size_t)fmin(v, 1e18);
		return 0;
	case OPT_MAX_ARCHIVE_ENTRIES:
		return number_arg("--max-archive-entries", arg, &x->lim.entries);
	case OPT_MAX_ARCHIVE_BYTES:
		return number_arg("--max-archive-bytes", arg, &x->lim.total_bytes);
	case OPT_STORED: c->stored = arg; return 0;
	case OPT_FAILED: x->failed = arg; return 0;
	case OPT_RUNS: c->runs = arg; return 0;
	case OPT_LABELS: c->labels = 1; return 0;
	case OPT_BUILDER: c->builder = arg; return 0;
	case OPT_JUPYTER_EXECUTE: x->build_dir = arg; return 0;
	case OPT_PAGES: x->pages = arg; return 0;
	case OPT_EXECUTION_SECONDS:
		return number_arg("--execution-seconds", arg, &x->execution_seconds);
	default:
		return -1;
	}
}

/* --stored: where one document's notebook is kept; the exit status. */
static int
stored(struct qe_extract *x, const char *document, int argc, char **argv)
{
	struct qe_buf out = { 0 };
	int status = QE_EXIT_TROUBLE;

	if (argc != 1)
		warnx("--stored reads one cache folder, not %d operands", argc);
	else if (qe_extract_stored(x, argv[0], document, &out) == 0) {
		qe_json_emit_bytes(out.data, out.len);
		status = QE_EXIT_OK;
	}
	qe_buf_free(&out);
	free((char *)x->root);
	qe_extract_free(x);
	return qe_json_finish(status);
}

/* --labels: the labelled cells of one notebook file; the exit status. */
static int
labels(struct qe_extract *x, int argc, char **argv)
{
	struct qe_buf out = { 0 };
	struct qe_runs rs = QE_RUNS_OF(x);
	int status = QE_EXIT_TROUBLE;

	if (argc != 1)
		warnx("--labels reads one notebook file, not %d operands", argc);
	else if (qe_runs_labels(&rs, argv[0], &out) == 0)
		status = QE_EXIT_OK;
	qe_json_emit_bytes(out.data, out.len);
	qe_buf_free(&out);
	qe_extract_free(x);
	return qe_json_finish(status);
}

/* --builder: which builder made the build and where its records are; the exit status. */
static int
builder(struct qe_extract *x, const char *which, int argc, char **argv)
{
	struct qe_buf out = { 0 };
	int status = QE_EXIT_TROUBLE;

	if (argc != 2 && argc != 3)
		warnx("--builder takes the lecture folder, the build folder and the cache folder (optional), not %d operands", argc);
	else if (qe_mystmd_builder(which, argv[0], argv[1], argc == 3 ? argv[2] : NULL, &out) == 0) {
		fwrite(out.data, 1, out.len, stdout);
		status = QE_EXIT_OK;
	}
	qe_buf_free(&out);
	qe_extract_free(x);
	return qe_json_finish(status);
}

int
main(int argc, char *argv[])
{
	struct qe_extract x;
	struct qe_paths ops = { 0 };
	struct cli c = { &x, NULL, NULL, NULL, NULL, 0, NULL };
	const struct qe_cli cli = { "ab:hj:r:s:t:", longopts, usage, option, &c };
	int status;

	/*
	 * Notebook after notebook: no fresh pages for each (qe_mem.h). Set
	 * before any -j worker is forked, which inherits it: without it a new
	 * worker took 20 % more CPU than the same notebooks in one process.
	 */
	qe_mem_hold_large();
	qe_extract_init(&x, emit);
	x.jobs = qe_par_cpus();
	if ((status = qe_cli_parse(&cli, &argc, &argv)) != QE_CLI_GO) {
		qe_extract_free(&x);
		return status;
	}
	if (c.stored != NULL)
		return stored(&x, c.stored, argc, argv);
	if (c.labels)
		return labels(&x, argc, argv);
	if (c.builder != NULL)
		return builder(&x, c.builder, argc, argv);
	if (c.runs != NULL) {	/* a run folder holds its own hook log */
		struct qe_runs rs = QE_RUNS_OF(&x);

		qe_runs_extract(&rs, c.runs);
		status = rs.problems > 0 ? QE_EXIT_TROUBLE : QE_EXIT_OK;
		qe_extract_free(&x);
		return qe_json_finish(status);
	}
	if (c.timings != NULL && qe_hooklog_load(&x.hooks, c.timings) != QE_EXIT_OK)
		x.problems++;	/* bad lines were reported; the good ones still join */
	if (c.timings != NULL && x.have_since)	/* a log kept across builds: only this build's kernels */
		qe_hooklog_drop_before(&x.hooks, &x.since);
	if (c.baseline != NULL && qe_extract_baseline(&x, c.baseline) < 0)
		return qe_json_finish(QE_EXIT_TROUBLE);
	for (int i = 0; i < argc; i++)
		if (strcmp(argv[i], "-") != 0)
			qe_operand_paths_add(&ops, argv[i]);
	if (argc == 0 || ops.n < (size_t)argc)	/* paths, one per line, on stdin */
		qe_operand_paths_read_lines(&ops, stdin);
	qe_extract_operands(&x, &ops);
	qe_hooklog_report_unused(&x.hooks);
	status = x.problems > 0 ? QE_EXIT_TROUBLE : QE_EXIT_OK;
	qe_operand_paths_free(&ops);
	free((char *)x.root);
	qe_extract_free(&x);
	return qe_json_finish(status);
}
