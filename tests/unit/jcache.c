/* Unit driver for lib/notebook/qe_jcache.c: the error line of a stored traceback. */
#include <stdlib.h>

#include "harness.h"
#include "notebook/qe_jcache.h"

/* A traceback: its exception line, or "(none)". */
static void
exception_line(const char *in, size_t n, struct qe_buf *out)
{
	char *s = qe_jcache_exception_line(in);

	(void)n;
	qe_buf_adds(out, s ? s : "(none)");
	free(s);
}

static const struct unit_fn fns[] = {
	{ "exception_line", exception_line },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
