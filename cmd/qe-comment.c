/*
 * qe-comment - turn qe-cell-diff records into the GitHub-flavoured Markdown a
 * reviewer reads in ten seconds: a pull-request comment (with a hidden marker
 * for updating it in place) or, with -s, a job summary; with -r, the job
 * summary of one build from its qe-cache-extract / qe-stamp records. Reading
 * is lib/qe_diffread.c, the model lib/qe_review.c, the document
 * lib/qe_comment.c (-r: lib/qe_buildsum.c); every string from the build is
 * escaped by lib/qe_gfm.c.
 */
#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "qe.h"
#include "qe_buildsum.h"
#include "qe_comment.h"
#include "qe_diffread.h"
#include "qe_ghrun.h"
#include "qe_review.h"

static int trouble;		/* a value was left out: exit status 2 */
static int rflag;		/* -r: the summary of one build */

static const struct option longopts[] = {
	{ "head-sha",   required_argument, NULL, 'S' },
	{ "help",       no_argument,       NULL, 'h' },
	{ "limit",      required_argument, NULL, 'l' },
	{ "max-rows",   required_argument, NULL, 'n' },
	{ "repo-url",   required_argument, NULL, 'u' },
	{ "report",     no_argument,       NULL, 'r' },
	{ "run-id",     required_argument, NULL, 'I' },
	{ "run-number", required_argument, NULL, 'N' },
	{ "summary",    no_argument,       NULL, 's' },
	{ "title",      required_argument, NULL, 't' },
	QE_LONGOPTS_COMMON,
	{ NULL, 0, NULL, 0 }
};

static void usage(FILE *fp, int status) __attribute__((noreturn));

static void
usage(FILE *fp, int status)
{
	fprintf(fp, "usage: qe-comment [-hrs] [--version] [-I run-id] [-l bytes] [-N run-number]\n"
	    "                  [-n rows] [-S sha] [-t title] [-u url] [--max-line bytes]\n"
	    "                  [file ...]\n");
	exit(status);
}

/* Replace *slot with a checked value (NULL when refused, which is trouble). */
static void
set(char **slot, char *checked)
{
	free(*slot);
	*slot = checked;
	if (checked == NULL)
		trouble = 1;
}

/* Options win; GitHub's variables fill the gaps (a bad option stays out). */
static void
from_env(struct qe_ghrun *run)
{
	const char *e;

	if (run->head_sha == NULL && (e = getenv("GITHUB_SHA")) != NULL && *e)
		set(&run->head_sha, qe_ghrun_sha(e, "GITHUB_SHA"));
	if (run->run_number == NULL && (e = getenv("GITHUB_RUN_NUMBER")) != NULL && *e)
		set(&run->run_number, qe_ghrun_number(e, "GITHUB_RUN_NUMBER"));
	if (run->run_id == NULL && (e = getenv("GITHUB_RUN_ID")) != NULL && *e)
		set(&run->run_id, qe_ghrun_number(e, "GITHUB_RUN_ID"));
}

/* One option of getopt into o; -1 for a usage error. */
static int
option(int ch, struct qe_comment_opts *o)
{
	long lim;

	switch (ch) {
	case 'I':
		set(&o->run.run_id, qe_ghrun_number(optarg, "--run-id"));
		return 0;
	case 'l':
		if (qe_opt_count("-l", optarg, QE_COMMENT_MIN_LIMIT, 1L << 30, &lim) < 0)
			return -1;
		o->limit = (size_t)lim;
		return 0;
	case 'N':
		set(&o->run.run_number, qe_ghrun_number(optarg, "--run-number"));
		return 0;
	case 'n':
		return qe_opt_count("-n", optarg, 0, 1000, &o->max_rows);
	case 'r':
		rflag = 1;
		return 0;
	case 'S':
		set(&o->run.head_sha, qe_ghrun_sha(optarg, "--head-sha"));
		return 0;
	case 's':
		o->summary = 1;
		return 0;
	case 't':
		o->title = optarg;
		return 0;
	case 'u':
		set(&o->run.repo_url, qe_ghrun_url(optarg, "--repo-url"));
		return 0;
	case QE_OPT_MAX_LINE:
		return qe_set_max_line(optarg);
	default:
		return -1;
	}
}

/* Write the document; qe_finish() reports a failed write. */
static void
put(struct qe_buf *out)
{
	if (out->len > 0 && fwrite(out->data, 1, out->len, stdout) != out->len) {
		/* qe_finish reports the error */
	}
	qe_buf_free(out);
}

/* The comment (or -s summary) of a qe-cell-diff stream; the exit status. */
static int
comment(int argc, char **argv, const struct qe_comment_opts *o)
{
	struct qe_diffset d = { 0 };
	struct qe_review r;
	struct qe_buf out = { 0 };
	int status = qe_each_record(argc, argv, qe_diffread_record, &d);

	if (d.ncells + d.nnbs == 0) {
		warnx("no qe-cell-diff records in the input");
		status = QE_EXIT_TROUBLE;
	}
	qe_review_build(&r, &d);
	qe_comment_render(&out, o, &r, status != QE_EXIT_OK && d.ncells + d.nnbs > 0);
	put(&out);
	qe_review_free(&r);
	qe_diffset_free(&d);
	return status;
}

/* -r: the summary of one build's records; the exit status. */
static int
report(int argc, char **argv, size_t limit)
{
	struct qe_buildsum s = { 0 };
	struct qe_buf out = { 0 };
	int status = qe_each_record(argc, argv, qe_buildsum_record, &s);

	qe_buildsum_render(&out, &s, limit ? limit : QE_SUMMARY_LIMIT);
	put(&out);
	qe_buildsum_free(&s);
	return status;
}

int
main(int argc, char **argv)
{
	struct qe_comment_opts o = { .max_rows = -1 };
	int ch, status;

	qe_opt_init(argv);
	while ((ch = getopt_long(argc, argv, "I:hl:N:n:rS:st:u:", longopts, NULL)) != -1) {
		if (ch == 'h')
			usage(stdout, QE_EXIT_OK);
		if (ch == QE_OPT_VERSION)
			return qe_print_version();
		if (option(ch, &o) < 0)
			usage(stderr, QE_EXIT_TROUBLE);
	}
	argc -= optind;
	argv += optind;
	if (rflag)
		status = report(argc, argv, o.limit);
	else {
		from_env(&o.run);
		status = comment(argc, argv, &o);
	}
	qe_ghrun_free(&o.run);
	return qe_finish(trouble ? QE_EXIT_TROUBLE : status);
}
