/* Unit driver for lib/notebook/qe_runs.c: the records of a run folder. */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "notebook/qe_extract.h"
#include "notebook/qe_runs.h"

static struct qe_buf *got;

static void
keep(struct qe_buf *records)
{
	qe_buf_add(got, records->data, records->len);
	qe_buf_reset(records);
}

/* Write n bytes of text to DIR/name, each '@' the folder's path; -1 on failure. */
static int
put_file(const char *dir, const char *name, const char *text, size_t n)
{
	char path[4096];
	FILE *f;
	int bad;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (strchr(name, '/') != NULL) {
		char sub[4096];

		snprintf(sub, sizeof sub, "%s/%.*s", dir, (int)(strchr(name, '/') - name), name);
		mkdir(sub, 0700);
	}
	if ((f = fopen(path, "w")) == NULL)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (text[i] == '@')
			fputs(dir, f);
		else
			fputc(text[i], f);
	bad = fclose(f) != 0;
	return bad ? -1 : 0;
}

/*
 * "RUN[\0NAME\0TEXT]...": a run folder with the run line RUN and the files
 * named (an '@' in any text is the folder's path); its records, one a
 * line, then "problems N" when something was reported.
 */
static void
folder(const char *in, size_t n, struct qe_buf *out)
{
	char dir[] = "/tmp/qe-unit-runs.XXXXXX", cmd[4200];
	const char *p = in, *end = in + n, *z;
	struct qe_extract x;
	struct qe_runs rs;

	if (mkdtemp(dir) == NULL) {
		qe_buf_adds(out, "bad case");
		return;
	}
	z = memchr(p, '\0', (size_t)(end - p));
	put_file(dir, "run", p, (size_t)((z ? z : end) - p));
	for (p = z ? z + 1 : end; p < end; ) {
		const char *name = p, *text;

		z = memchr(p, '\0', (size_t)(end - p));
		text = z ? z + 1 : end;
		z = memchr(text, '\0', (size_t)(end - text));
		put_file(dir, name, text, (size_t)((z ? z : end) - text));
		p = z ? z + 1 : end;
	}
	qe_extract_init(&x, keep);
	got = out;
	rs = (struct qe_runs)QE_RUNS_OF(&x);
	qe_runs_extract(&rs, dir);
	if (rs.problems)
		qe_buf_addf(out, "problems %d", rs.problems);
	while (out->len > 0 && out->data[out->len - 1] == '\n')
		out->data[--out->len] = '\0';
	qe_extract_free(&x);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		warnx("%s: not removed", dir);
}

/* A notebook's JSON text: its labelled cells (ordinal NUL name NUL each). */
static void
labels(const char *in, size_t n, struct qe_buf *out)
{
	char dir[] = "/tmp/qe-unit-labels.XXXXXX", path[4200];
	struct qe_extract x;
	struct qe_runs rs;

	if (mkdtemp(dir) == NULL || put_file(dir, "nb.ipynb", in, n) < 0) {
		qe_buf_adds(out, "bad case");
		return;
	}
	snprintf(path, sizeof path, "%s/nb.ipynb", dir);
	qe_extract_init(&x, keep);
	rs = (struct qe_runs)QE_RUNS_OF(&x);
	if (qe_runs_labels(&rs, path, out) < 0)
		qe_buf_adds(out, "problems");
	qe_extract_free(&x);
	unlink(path);
	rmdir(dir);
}

static const struct unit_fn fns[] = {
	{ "folder", folder },
	{ "labels", labels },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
