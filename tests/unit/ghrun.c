/*
 * Unit driver for lib/comment/qe_ghrun.c: the checked identity of a run. Output is
 * the accepted value, or "refused" and the warning (after "! ").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "comment/qe_ghrun.h"

/* Call check(in, "FROM") with stderr captured; the value or the warning. */
static void
checked(const char *in, struct qe_buf *out, char *(*check)(const char *, const char *))
{
	FILE *tmp = tmpfile();
	int saved = dup(2);
	char line[512], *v;

	fflush(stderr);
	if (tmp == NULL || saved < 0 || dup2(fileno(tmp), 2) < 0)
		abort();
	v = check(in, "FROM");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	qe_buf_adds(out, v ? v : "refused");
	while (fgets(line, sizeof line, tmp)) {
		line[strcspn(line, "\n")] = '\0';
		qe_buf_addf(out, "\n! %s", line);
	}
	fclose(tmp);
	free(v);
}

static void
sha(const char *in, size_t n, struct qe_buf *out)
{
	(void)n;
	checked(in, out, qe_ghrun_sha);
}

static void
number(const char *in, size_t n, struct qe_buf *out)
{
	(void)n;
	checked(in, out, qe_ghrun_number);
}

static void
url(const char *in, size_t n, struct qe_buf *out)
{
	(void)n;
	checked(in, out, qe_ghrun_url);
}

static const struct unit_fn fns[] = {
	{ "sha", sha },
	{ "number", number },
	{ "url", url },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
