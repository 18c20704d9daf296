/* Unit driver for lib/notebook/qe_mystmd.c: a page's cache key as mystmd computes it. */
#include <stdio.h>

#include "harness.h"
#include "notebook/qe_mystmd.h"

/*
 * "PAGE": the key of a page of _build/site/content (one line of JSON), ""
 * without an executable node, "refused" (with the message on stderr) when
 * it is not a page.
 */
static void
key(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_hooklog log = { 0 };
	struct qe_mystmd m = { .max_bytes = 1 << 20, .hooks = &log, .root = "/tmp/book" };
	char k[33];

	if (qe_mystmd_page(&m, "unit.json", in, n, NULL, k, out) < 0)
		qe_buf_adds(out, "refused");
	else
		qe_buf_adds(out, k);
}

static const struct unit_fn fns[] = {
	{ "key", key },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
