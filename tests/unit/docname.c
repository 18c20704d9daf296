/* Unit driver for lib/notebook/qe_docname.c: the document names of a set of paths. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "notebook/qe_docname.h"

/*
 * "[root=DIR] PATH PATH ...": each path's document name, relative to the
 * root or to the set's common directory, space-separated.
 */
static void
names(const char *in, size_t n, struct qe_buf *out)
{
	char *s = qe_xstrndup(in, n), *save = NULL, *tok, *v[32];
	const char *root = NULL;
	size_t nv = 0, baselen;

	for (tok = strtok_r(s, " ", &save); tok && nv < 32; tok = strtok_r(NULL, " ", &save))
		if (strncmp(tok, "root=", 5) == 0)
			root = tok + 5;
		else
			v[nv++] = tok;
	if (nv == 0) {
		qe_buf_adds(out, "bad case");
		free(s);
		return;
	}
	baselen = qe_docname_dir_len(v[0]);
	for (size_t i = 1; i < nv; i++)
		qe_docname_common(v[i], v[0], &baselen);
	for (size_t i = 0; i < nv; i++) {
		char *d = qe_docname(v[i], root, v[0], baselen);

		qe_buf_addf(out, "%s%s", i ? " " : "", d);
		free(d);
	}
	free(s);
}

/*
 * "PATH PATH ...", the last the newest: the root qe_docname_guess() finds
 * ("-" for none), then each path's document name under it.
 */
static void
guess(const char *in, size_t n, struct qe_buf *out)
{
	char *s = qe_xstrndup(in, n), *save = NULL, *tok, *root;
	const char *v[32];
	size_t nv = 0, baselen;

	for (tok = strtok_r(s, " ", &save); tok && nv < 32; tok = strtok_r(NULL, " ", &save))
		v[nv++] = tok;
	if (nv == 0) {
		qe_buf_adds(out, "bad case");
		free(s);
		return;
	}
	root = qe_docname_guess(v[nv - 1], v, nv);
	qe_buf_addf(out, "%s:", root ? root : "-");
	baselen = qe_docname_dir_len(v[0]);
	for (size_t i = 1; i < nv; i++)
		qe_docname_common(v[i], v[0], &baselen);
	for (size_t i = 0; i < nv; i++) {
		char *d = qe_docname(v[i], root, v[0], baselen);

		qe_buf_addf(out, " %s", d);
		free(d);
	}
	free(root);
	free(s);
}

static const struct unit_fn fns[] = {
	{ "names", names },
	{ "guess", guess },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
