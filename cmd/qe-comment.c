/*
 * qe-comment - turn qe-cell-diff records into the GitHub-flavoured Markdown a
 * reviewer reads in ten seconds: a pull-request comment (with a hidden marker
 * for updating it in place) or, with -s, a job summary; with -r, the job
 * summary of one build from its qe-cache-extract / qe-stamp records. Reading
 * is lib/comment/qe_diffread.c, the model lib/comment/qe_review.c, the document
 * lib/comment/qe_comment.c (-r: lib/comment/qe_buildsum.c); every string from the build is
 * escaped by lib/qe_gfm.c.
 */
#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "qe.h"
#include "qe_mem.h"
#include "qe_gfm.h"
#include "qe_json.h"
#include "qe_ndjson.h"
#include "qe_opt.h"
#include "comment/comment.h"

enum { OPT_FACTS = QE_OPT_FIRST, OPT_FLAGGED, OPT_FLAGGED_CELLS };

static const struct option longopts[] = {
	{ "facts",      no_argument,       NULL, OPT_FACTS },
	{ "flagged",    no_argument,       NULL, OPT_FLAGGED },
	{ "flagged-cells", no_argument,    NULL, OPT_FLAGGED_CELLS },
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

static const char usage[] =
    "usage: qe-comment [-hrs] [--version] [-I run-id] [-l bytes] [-N run-number]\n"
    "                  [-n rows] [-S sha] [-t title] [-u url] [--max-line bytes]\n"
    "                  [file ...]\n"
    "       qe-comment --facts | --flagged | --flagged-cells [--max-line bytes] [file ...]\n";

/* What the options set. */
struct cli {
	struct qe_comment_opts o;
	int rflag;		/* -r: the summary of one build */
	int answer;		/* --facts, --flagged: what a workflow step reads */
	int trouble;		/* a value was left out: exit status 2 */
};

/* Replace *slot with a checked value (NULL when refused, which is trouble). */
static void
set(struct cli *c, char **slot, char *checked)
{
	free(*slot);
	*slot = checked;
	if (checked == NULL)
		c->trouble = 1;
}

/* Options win; GitHub's variables fill the gaps (a bad option stays out). */
static void
from_env(struct cli *c)
{
	struct qe_ghrun *run = &c->o.run;
	const char *e;

	if (run->head_sha == NULL && (e = getenv("GITHUB_SHA")) != NULL && *e)
		set(c, &run->head_sha, qe_ghrun_sha(e, "GITHUB_SHA"));
	if (run->run_number == NULL && (e = getenv("GITHUB_RUN_NUMBER")) != NULL && *e)
		set(c, &run->run_number, qe_ghrun_number(e, "GITHUB_RUN_NUMBER"));
	if (run->run_id == NULL && (e = getenv("GITHUB_RUN_ID")) != NULL && *e)
		set(c, &run->run_id, qe_ghrun_number(e, "GITHUB_RUN_ID"));
}

/* One option of the command line; -1 for a usage error. */
static int
option(int ch, const char *arg, void *ctx)
{
	struct cli *c = ctx;
	struct qe_comment_opts *o = &c->o;
	long lim;

	switch (ch) {
	case 'I': set(c, &o->run.run_id, qe_ghrun_number(arg, "--run-id")); return 0;
	case 'l':
		if (qe_opt_count("-l", arg, QE_COMMENT_MIN_LIMIT, 1L << 30, &lim) < 0)
			return -1;
		o->limit = (size_t)lim;
		return 0;
	case 'N': set(c, &o->run.run_number, qe_ghrun_number(arg, "--run-number")); return 0;
	case 'n':
		return qe_opt_count("-n", arg, 0, 1000, &o->max_rows);
	case 'r': c->rflag = 1; return 0;
	case 'S': set(c, &o->run.head_sha, qe_ghrun_sha(arg, "--head-sha")); return 0;
	case 's': o->summary = 1; return 0;
	case 't': o->title = arg; return 0;
	case 'u': set(c, &o->run.repo_url, qe_ghrun_url(arg, "--repo-url")); return 0;
	case OPT_FACTS: case OPT_FLAGGED: case OPT_FLAGGED_CELLS: c->answer = ch; return 0;
	default:
		return -1;
	}
}

/* Write the document (a failed write ends the program, status 2). */
static void
put(struct qe_buf *out)
{
	qe_json_emit_bytes(out->data, out->len);
	qe_buf_free(out);
}

/* The records a comment reads: qe-cell-diff's, and qe-sweep's (evaluation). */
struct input {
	struct qe_diffset d;
	struct qe_evalset e;
};

static int
take(cJSON *rec, const char *file, long line, void *ctx)
{
	struct input *in = ctx;

	if (qe_evalmd_record(rec, file, line, &in->e) < 0)
		return -1;
	return qe_diffread_record(rec, file, line, &in->d);
}

/* A stream of qe-sweep's records alone: the evaluation as a document of its own. */
static void
eval_only(struct qe_buf *out, const struct qe_comment_opts *o, const struct qe_diffset *d,
    const struct qe_evalset *e)
{
	qe_buf_adds(out, "### ");
	if (o->title == NULL || qe_gfm_text(out, o->title, 200) == 0)
		qe_buf_adds(out, "Evaluation");
	qe_buf_adds(out, "\n\n");
	qe_decide_lines(out, d, e);
	qe_evalmd_recommend(out, e);
	qe_evalmd_sections(out, e);
	qe_buf_adds(out, "<sub>Machine: ");
	if (!qe_evalmd_machine(out, e))
		qe_buf_adds(out, "as each table says");
	qe_buf_adds(out, ".</sub>\n");
}

/* The comment (or -s summary) of a qe-cell-diff stream; the exit status. */
static int
comment(int argc, char **argv, const struct qe_comment_opts *o)
{
	struct input in = { { 0 }, { 0 } };
	struct qe_diffset *d = &in.d;
	struct qe_comment_opts with = *o;
	struct qe_review r;
	struct qe_buf out = { 0 };
	int status = qe_ndjson_each(argc, argv, take, &in);

	with.eval = &in.e;
	if (d->ncells + d->nnbs == 0 && qe_evalmd_any(&in.e)) {
		eval_only(&out, o, d, &in.e);
		put(&out);
		qe_diffset_free(d);
		qe_evalmd_free(&in.e);
		return status;
	}
	if (d->ncells + d->nnbs == 0) {
		warnx("no qe-cell-diff records in the input");
		status = QE_EXIT_TROUBLE;
	}
	qe_review_build(&r, d);
	qe_comment_render(&out, &with, &r, status != QE_EXIT_OK && d->ncells + d->nnbs > 0);
	put(&out);
	qe_review_free(&r);
	qe_diffset_free(d);
	qe_evalmd_free(&in.e);
	return status;
}

/* --facts, --flagged: answers for a workflow step; the exit status. */
static int
answer(int argc, char **argv, int which)
{
	struct qe_diffset d = { 0 };
	struct qe_buf out = { 0 };
	int status = qe_ndjson_each(argc, argv, qe_diffread_record, &d);

	if (which == OPT_FACTS && d.summary == NULL) {
		warnx("no diff-summary record in the input: the facts are false");
		status = QE_EXIT_TROUBLE;
	}
	if (which == OPT_FACTS)
		qe_comment_facts(&out, &d);
	else if (which == OPT_FLAGGED)
		qe_comment_flagged(&out, &d);
	else
		qe_comment_flagged_cells(&out, &d);
	put(&out);
	qe_diffset_free(&d);
	return status;
}

/* -r: the summary of one build's records; the exit status. */
static int
report(int argc, char **argv, size_t limit)
{
	struct qe_buildsum s = { 0 };
	struct qe_buf out = { 0 };
	int status = qe_ndjson_each(argc, argv, qe_buildsum_record, &s);

	qe_buildsum_render(&out, &s, limit ? limit : QE_SUMMARY_LIMIT);
	put(&out);
	qe_buildsum_free(&s);
	return status;
}

int
main(int argc, char **argv)
{
	struct cli c = { .o = { .max_rows = -1 } };
	const struct qe_cli cli = { "I:hl:N:n:rS:st:u:", longopts, usage, option, &c };
	int status;

	if ((status = qe_cli_parse(&cli, &argc, &argv)) != QE_CLI_GO) {
		qe_ghrun_free(&c.o.run);
		return status;
	}
	if (c.answer)
		status = answer(argc, argv, c.answer);
	else if (c.rflag)
		status = report(argc, argv, c.o.limit);
	else {
		from_env(&c);
		status = comment(argc, argv, &c.o);
	}
	qe_ghrun_free(&c.o.run);
	return qe_json_finish(c.trouble ? QE_EXIT_TROUBLE : status);
}
