/*
 * qe-exec-status - one execution status document per build
 * (schema/execution-status.json) from qe-cache-extract / qe-stamp records;
 * with -t, the exec-time lookup the Sphinx extension reads
 * (schema/exec-times.json). Reading and the newest-record rule are
 * lib/status/qe_status.c; the records are read by the one NDJSON reader and
 * written by the one writer.
 */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qe.h"
#include "qe_json.h"
#include "qe_ndjson.h"
#include "qe_opt.h"
#include "qe_file.h"
#include "qe_time.h"
#include "status/status.h"

enum { OPT_STARTED = QE_OPT_FIRST, OPT_FINISHED, OPT_GENERATOR, OPT_INPUT, OPT_DIGITS, OPT_STYLE, OPT_QE_STATUS };

static const struct option longopts[] = {
	{ "digits",     required_argument, NULL, OPT_DIGITS },
	{ "finished",   required_argument, NULL, OPT_FINISHED },
	{ "generator",  required_argument, NULL, OPT_GENERATOR },
	{ "help",       no_argument,       NULL, 'h' },
	{ "input",      required_argument, NULL, OPT_INPUT },
	{ "output",     required_argument, NULL, 'o' },
	{ "provenance", required_argument, NULL, 'p' },
	{ "qe-status",  required_argument, NULL, OPT_QE_STATUS },
	{ "report",     required_argument, NULL, 'R' },
	{ "started",    required_argument, NULL, OPT_STARTED },
	{ "style",      required_argument, NULL, OPT_STYLE },
	{ "times",      no_argument,       NULL, 't' },
	QE_LONGOPTS_COMMON,
	{ NULL, 0, NULL, 0 }
};

static const char usage[] =
    "usage: qe-exec-status [-ht] [--version] [-o file] [-p file] [-R report]\n"
    "                      [--started time] [--finished time] [--generator text]\n"
    "                      [--input name] [--digits n] [--style si|en]\n"
    "                      [--qe-status file]\n"
    "                      [--max-line bytes] [report ...]\n";

struct cli {
	const char *output, *provenance, *started, *finished, *generator;
	const char *qe_status;	/* --qe-status: the dashboard's execution block */
	char **inputs;		/* --input, in order */
	char **reports;		/* -R: stored reports a cache hit's times come from */
	int ninputs, nreports, times;
	struct qe_status_form form;	/* --digits, --style */
};

/* A time option: RFC 3339 as qe_time_parse() reads it, else a usage error. */
static int
time_opt(const char *opt, const char *arg, const char **slot)
{
	struct qe_time t;

	if (qe_time_parse(arg, &t) < 0) {
		warnx("%s: invalid value '%s'", opt, arg);
		return -1;
	}
	*slot = arg;
	return 0;
}

/* --digits: 0 to QE_EXTIME_DIGITS_MAX, else a usage error. */
static int
digits_opt(const char *arg, int *slot)
{
	long n;

	if (qe_opt_count("--digits", arg, 0, QE_EXTIME_DIGITS_MAX, &n) < 0)
		return -1;
	*slot = (int)n;
	return 0;
}

static int
option(int ch, const char *arg, void *ctx)
{
	struct cli *c = ctx;

	switch (ch) {
	case 'o': c->output = arg; return 0;
	case 'p': c->provenance = arg; return 0;
	case 't': c->times = 1; return 0;
	case OPT_STARTED: return time_opt("--started", arg, &c->started);
	case OPT_FINISHED: return time_opt("--finished", arg, &c->finished);
	case OPT_GENERATOR: c->generator = arg; return 0;
	case OPT_QE_STATUS: c->qe_status = arg; return 0;
	case OPT_DIGITS: return digits_opt(arg, &c->form.digits);
	case OPT_STYLE:
		if ((c->form.style = qe_extime_style(arg)) >= 0)
			return 0;
		warnx("--style: invalid value '%s' (one of %s)", arg, qe_extime_styles());
		return -1;
	case OPT_INPUT:
		c->inputs = qe_xrealloc(c->inputs, (size_t)(c->ninputs + 1) * sizeof *c->inputs);
		c->inputs[c->ninputs++] = (char *)arg;
		return 0;
	case 'R':
		c->reports = qe_xrealloc(c->reports, (size_t)(c->nreports + 1) * sizeof *c->reports);
		c->reports[c->nreports++] = (char *)arg;
		return 0;
	default:
		return -1;
	}
}

/*
 * The build's provenance from a file holding qe-stamp -d's record, or NULL
 * (after the message) when it cannot be read or is not one.
 */
static cJSON *
read_provenance(const char *path)
{
	size_t n;
	char *text = qe_file_slurp(path, (size_t)16 << 20, &n);
	cJSON *p;
	const char *kind;

	if (text == NULL) {
		qe_file_warn(path);
		return NULL;
	}
	p = cJSON_ParseWithLength(text, n);
	free(text);
	kind = qe_json_str(p, "kind");
	if (!cJSON_IsObject(p) || (kind != NULL && strcmp(kind, "provenance") != 0)) {
		warnx("%s: not a provenance record (qe-stamp -d)", path);
		cJSON_Delete(p);
		return NULL;
	}
	return p;
}

/* Replace path whole with b, through a temporary file beside it: 0, or -1 after the message. */
static int
write_file(const char *path, const struct qe_buf *b)
{
	struct qe_buf tmp = { 0 };
	int fd, ok;
	FILE *f;

	qe_buf_addf(&tmp, "%s.XXXXXX", path);
	if ((fd = mkstemp(tmp.data)) < 0 || (f = fdopen(fd, "w")) == NULL) {
		warn("%s", path);
		if (fd >= 0)
			close(fd), unlink(tmp.data);
		qe_buf_free(&tmp);
		return -1;
	}
	ok = fwrite(b->data, 1, b->len, f) == b->len;
	ok = (fclose(f) == 0) && ok;
	if (!ok || rename(tmp.data, path) < 0) {
		warn("%s", path);
		unlink(tmp.data);
		qe_buf_free(&tmp);
		return -1;
	}
	qe_buf_free(&tmp);
	return 0;
}

/* --qe-status FILE: the dashboard's execution block, replaced whole: 0, or -1 after the message. */
static int
write_dashboard(const char *path, struct qe_status *s)
{
	struct qe_buf b = { 0 };
	int rc;

	qe_status_dashboard(&b, s);
	rc = write_file(path, &b);
	qe_buf_free(&b);
	return rc;
}

/* The document (or -t lookup) of the operands' records; the exit status. */
static int
run(struct cli *c, int argc, char **argv)
{
	struct qe_status s = { .times = c->times }, reports = { 0 };
	struct qe_buf out = { 0 };
	cJSON *prov = NULL;
	int status = QE_EXIT_OK, n = 0;
	char **names = c->inputs ? c->inputs : qe_xmalloc(sizeof *names * (size_t)(argc + 1));

	if (c->provenance && (prov = read_provenance(c->provenance)) == NULL)
		status = QE_EXIT_TROUBLE;
	if (qe_ndjson_each(argc, argv, qe_status_record, &s) != QE_EXIT_OK)
		status = QE_EXIT_TROUBLE;
	if (c->nreports > 0 && qe_ndjson_each(c->nreports, c->reports, qe_status_record, &reports) != QE_EXIT_OK)
		status = QE_EXIT_TROUBLE;
	if (c->times)
		qe_status_times(&out, &s, prov, &c->form);
	else {
		struct qe_status_build b = { c->generator ? c->generator : "qe-exec-status " QE_VERSION,
			c->started, c->finished, names, c->ninputs, prov, c->nreports ? &reports : NULL };

		for (int i = 0; !c->inputs && i < argc; i++)
			if (strcmp(argv[i], "-") != 0)
				names[n++] = argv[i];
		if (!c->inputs)
			b.ninputs = n;
		qe_status_document(&out, &s, &b);
	}
	if (c->output == NULL)
		qe_json_emit_bytes(out.data, out.len);
	else if (write_file(c->output, &out) < 0)
		status = QE_EXIT_TROUBLE;
	if (c->qe_status && write_dashboard(c->qe_status, &s) < 0)
		status = QE_EXIT_TROUBLE;
	if (names != c->inputs)
		free(names);
	qe_buf_free(&out);
	cJSON_Delete(prov);
	qe_status_free(&s);
	qe_status_free(&reports);
	return status;
}

int
main(int argc, char **argv)
{
	struct cli c = { .form = { QE_EXTIME_DIGITS, QE_EXTIME_SI } };
	const struct qe_cli cli = { "ho:p:R:t", longopts, usage, option, &c };
	int status;

	if ((status = qe_cli_parse(&cli, &argc, &argv)) != QE_CLI_GO) {
		free(c.inputs);
		free(c.reports);
		return status;
	}
	status = run(&c, argc, argv);
	free(c.inputs);
	free(c.reports);
	return qe_json_finish(status);
}
