/*
 * qe-cell-diff - a screening verdict for each cell and notebook of a build
 * (HEAD) against its baseline (BASE), from two streams of qe-cache-extract
 * records. Reading is lib/diff/qe_reader.c, the verdicts lib/diff/qe_diff.c, the
 * records lib/diff/qe_diffrec.c; this file holds the options.
 */
#include <err.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qe.h"
#include "qe_json.h"
#include "qe_mem.h"
#include "qe_opt.h"
#include "diff/diff.h"

enum {
	OPT_NB_RATIO = QE_OPT_FIRST, OPT_NB_ABS, OPT_EXEC_ABS, OPT_ALPHA, OPT_CHANGED, OPT_IGNORE_FILE,
	OPT_FENCES, OPT_REP_RATIO, OPT_REP_ABS, OPT_MEM_ABS, OPT_MEM_RATIO, OPT_TIME_ABS, OPT_CELL_TIMEOUT,
	OPT_IMPORT_ABS, OPT_NO_ADJUST, OPT_ARMS, OPT_RTOL, OPT_ATOL, OPT_MEM_SHARE, OPT_DEFAULTS
};

static const struct option longopts[] = {
	{ "abs",           required_argument, NULL, 'a' },
	{ "adjust",        no_argument,       NULL, 'A' },
	{ "alpha",         required_argument, NULL, OPT_ALPHA },
	{ "arms",          required_argument, NULL, OPT_ARMS },
	{ "atol",          required_argument, NULL, OPT_ATOL },
	{ "cell-timeout",  required_argument, NULL, OPT_CELL_TIMEOUT },
	{ "changed",       required_argument, NULL, OPT_CHANGED },
	{ "defaults",      no_argument,       NULL, OPT_DEFAULTS },
	{ "document-key",  required_argument, NULL, 'd' },
	{ "exit-code",     no_argument,       NULL, 'e' },
	{ "exec-abs",      required_argument, NULL, OPT_EXEC_ABS },
	{ "fences",        required_argument, NULL, OPT_FENCES },
	{ "filter",        required_argument, NULL, 'f' },
	{ "help",          no_argument,       NULL, 'h' },
	{ "ignore",        required_argument, NULL, 'i' },
	{ "ignore-file",   required_argument, NULL, OPT_IGNORE_FILE },
	{ "import-abs",    required_argument, NULL, OPT_IMPORT_ABS },
	{ "key",           required_argument, NULL, 'k' },
	{ "mem-abs",       required_argument, NULL, OPT_MEM_ABS },
	{ "mem-ratio",     required_argument, NULL, OPT_MEM_RATIO },
	{ "mem-share",     required_argument, NULL, OPT_MEM_SHARE },
	{ "nb-abs",        required_argument, NULL, OPT_NB_ABS },
	{ "nb-ratio",      required_argument, NULL, OPT_NB_RATIO },
	{ "no-adjust",     no_argument,       NULL, OPT_NO_ADJUST },
	{ "ratio",         required_argument, NULL, 'r' },
	{ "rep-abs",       required_argument, NULL, OPT_REP_ABS },
	{ "rep-ratio",     required_argument, NULL, OPT_REP_RATIO },
	{ "rtol",          required_argument, NULL, OPT_RTOL },
	{ "time-abs",      required_argument, NULL, OPT_TIME_ABS },
	QE_LONGOPTS_COMMON,
	{ NULL, 0, NULL, 0 }
};

static const char usage[] =
    "usage: qe-cell-diff [-Aeh] [--version] [-a seconds] [-d expr] [-f expr] [-i doc[#label]]\n"
    "                    [-k expr] [-r ratio] [--alpha p] [--cell-timeout seconds]\n"
    "                    [--changed file] [--exec-abs seconds] [--fences file]\n"
    "                    [--ignore-file file] [--import-abs seconds] [--nb-abs seconds]\n"
    "                    [--nb-ratio ratio] [--mem-abs bytes] [--mem-ratio ratio] [--no-adjust]\n"
    "                    [--rep-abs seconds] [--rep-ratio ratio] [--time-abs seconds]\n"
    "                    [--arms base,head] [--rtol r] [--atol a] [--mem-share percent]\n"
    "                    [--max-line bytes] base head\n"
    "       qe-cell-diff --defaults\n";

/* The user's jq expressions, by option letter. */
struct exprs {
	struct qe_jqx key, doc, filter;
};

/* What the options set. */
struct cli {
	struct qe_diff_opts opts;
	struct exprs x;
	struct qe_prscope scope;	/* --changed, -i, --ignore-file */
	int eflag;
	int time_abs_set;	/* --time-abs given: --cell-timeout leaves the bound */
	int defaults;		/* --defaults: print them and stop */
	const char *fences;	/* --fences FILE */
	char *arms;		/* --arms BASE,HEAD, split in place */
	const char *arm[2];
};

/* --arms BASE,HEAD: two names of qe-replicate --arm; -1 (reported) otherwise. */
static int
arms_option(struct cli *c, const char *arg)
{
	char *comma;

	free(c->arms);
	c->arms = qe_xstrdup(arg);
	comma = strchr(c->arms, ',');
	if (comma == NULL || comma == c->arms || comma[1] == '\0' || strchr(comma + 1, ',')) {
		warnx("option '--arms': '%s' is not BASE,HEAD (two arm names)", arg);
		return -1;
	}
	*comma = '\0';
	c->arm[0] = c->arms, c->arm[1] = comma + 1;
	return 0;
}

/* One option of the command line; -1 for a usage error. */
static int
option(int ch, const char *arg, void *ctx)
{
	struct cli *c = ctx;
	struct qe_diff_opts *o = &c->opts;
	struct exprs *x = &c->x;

	switch (ch) {
	case 'A': o->adjust = 1; return 0;
	case OPT_NO_ADJUST: o->adjust = -1; return 0;
	case OPT_TIME_ABS:
		c->time_abs_set = 1;
		return qe_opt_number("--time-abs", arg, 0, 0, INFINITY, &o->cell.time_abs);
	case OPT_CELL_TIMEOUT:
		return qe_opt_number("--cell-timeout", arg, 0, 1, INFINITY, &o->cell_timeout);
	case OPT_IMPORT_ABS: return qe_opt_number("--import-abs", arg, 0, 0, INFINITY, &o->import_abs);
	case 'e': c->eflag = 1; return 0;
	case OPT_DEFAULTS: c->defaults = 1; return 0;
	case 'd': x->doc.text = arg; return 0;
	case 'f': x->filter.text = arg; return 0;
	case 'k': x->key.text = arg; return 0;
	case 'i': return qe_prscope_ignore(&c->scope, arg);
	case OPT_IGNORE_FILE: return qe_prscope_ignore_file(&c->scope, arg);
	case OPT_CHANGED: return qe_prscope_changed_file(&c->scope, arg);
	case 'a': return qe_opt_number("-a", arg, 0, 0, INFINITY, &o->cell.abs);
	case 'r': return qe_opt_number("-r", arg, 1, 0, INFINITY, &o->cell.ratio);
	case OPT_EXEC_ABS: return qe_opt_number("--exec-abs", arg, 0, 0, INFINITY, &o->exec_abs);
	case OPT_NB_ABS: return qe_opt_number("--nb-abs", arg, 0, 0, INFINITY, &o->nb.abs);
	case OPT_NB_RATIO: return qe_opt_number("--nb-ratio", arg, 1, 0, INFINITY, &o->nb.ratio);
	case OPT_FENCES: c->fences = arg; return 0;
	case OPT_MEM_ABS: return qe_opt_number("--mem-abs", arg, 0, 0, INFINITY, &o->mem_abs);
	case OPT_MEM_RATIO: return qe_opt_number("--mem-ratio", arg, 1, 0, INFINITY, &o->mem_ratio);
	case OPT_MEM_SHARE: return qe_opt_number("--mem-share", arg, 0, 0, 100, &o->mem_share);
	case OPT_REP_ABS:	/* the replicate rule is one, for cells and lectures */
		if (qe_opt_number("--rep-abs", arg, 0, 0, INFINITY, &o->cell.rep_abs) < 0)
			return -1;
		o->nb.rep_abs = o->cell.rep_abs;
		return 0;
	case OPT_REP_RATIO:
		if (qe_opt_number("--rep-ratio", arg, 1, 0, INFINITY, &o->cell.rep_ratio) < 0)
			return -1;
		o->nb.rep_ratio = o->cell.rep_ratio;
		return 0;
	case OPT_ARMS: return arms_option(c, arg);
	case OPT_RTOL: return qe_opt_number("--rtol", arg, 0, 0, INFINITY, &o->rtol);
	case OPT_ATOL: return qe_opt_number("--atol", arg, 0, 0, INFINITY, &o->atol);
	case OPT_ALPHA:
		if (qe_opt_number("--alpha", arg, 0, 1, nextafter(1, 0), &o->cell.alpha) < 0)
			return -1;
		o->nb.alpha = o->cell.alpha;
		return 0;
	}
	return -1;
}

/* Compile the expressions given and hand them to the reader: -1 if one does not compile. */
static int
compile(struct exprs *x, struct qe_reader *r)
{
	if (x->key.text) {
		if (qe_jqx_compile(&x->key, x->key.text, "-k") < 0)
			return -1;
		r->key = qe_jqx_text, r->key_arg = &x->key;
	}
	if (x->doc.text) {
		if (qe_jqx_compile(&x->doc, x->doc.text, "-d") < 0)
			return -1;
		r->document = qe_jqx_text, r->document_arg = &x->doc;
	}
	if (x->filter.text) {
		if (qe_jqx_compile(&x->filter, x->filter.text, "-f") < 0)
			return -1;
		r->filter = qe_jqx_test, r->filter_arg = &x->filter;
	}
	return 0;
}

static void
exprs_free(struct exprs *x)
{
	qe_jqx_free(&x->key);
	qe_jqx_free(&x->doc);
	qe_jqx_free(&x->filter);
}

static const char *
display(const char *operand)
{
	return strcmp(operand, "-") ? operand : "<stdin>";
}

int
main(int argc, char **argv)
{
	struct cli c = { QE_DIFF_OPTS_DEFAULT, { { 0 }, { 0 }, { 0 } }, { 0 }, 0, 0, 0, NULL, NULL, { NULL, NULL } };
	const struct qe_diff_opts defaults = QE_DIFF_OPTS_DEFAULT;
	const struct qe_cli cli = { "Aa:d:ef:hi:k:r:", longopts, usage, option, &c };
	struct qe_reader rd = { 0 };
	struct qe_fences fs = { 0 };
	int status, s;
	long regressions;
	struct qe_diffrec dw;
	struct qe_diff_emit e;

	if ((status = qe_cli_parse(&cli, &argc, &argv)) != QE_CLI_GO) {
		qe_prscope_free(&c.scope);
		free(c.arms);
		return status;
	}
	if (c.defaults) {
		qe_prscope_free(&c.scope);
		free(c.arms);
		if (argc != 0)
			return qe_cli_usage_error(&cli);
		qe_diffrec_defaults(&defaults);
		return qe_json_finish(QE_EXIT_OK);
	}
	rd.arms[0] = c.arm[0], rd.arms[1] = c.arm[1];
	c.opts.scope = &c.scope;
	if (c.opts.cell_timeout > 0 && !c.time_abs_set)
		c.opts.cell.time_abs = c.opts.cell_timeout / QE_DIFF_TIME_SHARE;
	if (argc != 2 || (strcmp(argv[0], "-") == 0 && strcmp(argv[1], "-") == 0)) {
		if (argc == 2)
			warnx("only one of base and head may be '-'");
		qe_prscope_free(&c.scope);
		free(c.arms);
		return qe_cli_usage_error(&cli);
	}
	if (compile(&c.x, &rd) < 0) {
		exprs_free(&c.x);
		qe_prscope_free(&c.scope);
		free(c.arms);
		return qe_json_finish(QE_EXIT_TROUBLE);
	}
	status = QE_EXIT_OK;
	for (int w = 0; w < 2; w++)
		if ((s = qe_reader_read(&rd, w == 0 ? QE_BASE : QE_HEAD, argv[w])) != QE_EXIT_OK)
			status = s;
	qe_reader_relayout(&rd);
	if (rd.nrecords[QE_BASE] == 0) {
		warnx("%s: no baseline records", display(argv[0]));
		status = QE_EXIT_TROUBLE;
	}
	if (c.fences && qe_fences_load(&fs, c.fences) != QE_EXIT_OK)
		status = QE_EXIT_TROUBLE;
	c.opts.fences = c.fences ? &fs : NULL;
	c.opts.runner_mem = qe_diff_runner_mem(&rd);
	e = qe_diffrec_emitter(&dw, &c.opts, &rd, display(argv[0]), display(argv[1]));
	regressions = qe_diff_all(&c.opts, &rd, &e);
	qe_diffrec_free(&dw);
	qe_fences_free(&fs);
	exprs_free(&c.x);
	qe_prscope_free(&c.scope);
	qe_reader_free(&rd);
	free(c.arms);
	if (status == QE_EXIT_OK && c.eflag && regressions > 0)
		status = QE_EXIT_ANSWER;
	return qe_json_finish(status);
}
