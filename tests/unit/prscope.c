/* Unit driver for lib/diff/qe_prscope.c: changed paths and ignore entries against documents. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "diff/qe_prscope.h"

/* "SPEC SPEC ... | DOC LABEL": ignored_doc and ignored_cell ("-": no label). */
static void
ignored(const char *in, size_t n, struct qe_buf *out)
{
	char *s = qe_xstrndup(in, n), *bar = strstr(s, " | "), *save = NULL, *tok, *doc, *label;
	struct qe_prscope p = { 0 };
	int bad = 0;

	if (bar == NULL) {
		qe_buf_adds(out, "bad case");
		free(s);
		return;
	}
	*bar = '\0';
	for (tok = strtok_r(s, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		bad |= qe_prscope_ignore(&p, tok) < 0;
	doc = strtok_r(bar + 3, " ", &save);
	label = strtok_r(NULL, " ", &save);
	if (label && strcmp(label, "-") == 0)
		label = NULL;
	qe_buf_addf(out, "%d %d %d", bad, qe_prscope_ignored_doc(&p, doc),
	    qe_prscope_ignored_cell(&p, doc, label));
	qe_prscope_free(&p);
	free(s);
}

static const struct unit_fn fns[] = {
	{ "ignored", ignored },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
