/* Unit driver for lib/notebook/qe_operand.c: paths made absolute as given. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "notebook/qe_operand.h"

/* "CWD PATH": PATH made absolute after CWD, by the text alone. */
static void
abspath(const char *in, size_t n, struct qe_buf *out)
{
	const char *sp = memchr(in, ' ', n);
	char *cwd = qe_xstrndup(in, sp ? (size_t)(sp - in) : n);
	char *a = qe_operand_abspath(sp ? sp + 1 : "", cwd);

	qe_buf_adds(out, a);
	free(a);
	free(cwd);
}

static const struct unit_fn fns[] = {
	{ "abspath", abspath },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
