/*
 * Unit driver for lib/qe_align.c. A case is "base items | head items",
 * each item "key" or "key/label" (an empty key: none): level 0 compares
 * keys, level 1 labels, then position. The output lists the pairs as
 * "b:h" ("-" for no partner).
 * A "folders" case is "base paths | head paths" (space-separated): the
 * output is "BASEDIR HEADDIR N" (qe_align_folders), "none", "too many" or
 * "ambiguous: B H / B2 H2".
 * A "relname" case is "PATH DOC": 1 when they match (qe_align_relname).
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "qe_align.h"

struct items {
	char *key[64], *label[64];
	int n;
};

static void
parse(char *s, struct items *it)
{
	char *save = NULL, *tok;

	it->n = 0;
	for (tok = strtok_r(s, " ", &save); tok && it->n < 64; tok = strtok_r(NULL, " ", &save)) {
		char *slash = strchr(tok, '/');

		if (slash)
			*slash = '\0';
		it->key[it->n] = tok;
		it->label[it->n++] = slash ? slash + 1 : "";
	}
}

static int
same(void *arg, int level, int b, int h)
{
	struct items *it = arg;	/* [0] base, [1] head */
	const char *x = level == 0 ? it[0].key[b] : it[0].label[b];
	const char *y = level == 0 ? it[1].key[h] : it[1].label[h];

	return *x && *y && strcmp(x, y) == 0;
}

static void
align(const char *in, size_t n, struct qe_buf *out)
{
	char *s = qe_xstrndup(in, n), *bar = strchr(s, '|');
	struct items it[2];
	struct qe_pair *p;
	int np;

	if (bar == NULL) {
		qe_buf_adds(out, "bad case");
		free(s);
		return;
	}
	*bar = '\0';
	parse(s, &it[0]);
	parse(bar + 1, &it[1]);
	p = qe_align(it[0].n, it[1].n, 2, same, it, &np);
	for (int i = 0; i < np; i++) {
		if (i)
			qe_buf_addc(out, ' ');
		if (p[i].b < 0)
			qe_buf_addc(out, '-');
		else
			qe_buf_addf(out, "%d", p[i].b);
		qe_buf_addc(out, ':');
		if (p[i].h < 0)
			qe_buf_addc(out, '-');
		else
			qe_buf_addf(out, "%d", p[i].h);
	}
	free(p);
	free(s);
}

static int
split(char *s, const char **v)
{
	char *save = NULL, *tok;
	int n = 0;

	for (tok = strtok_r(s, " ", &save); tok && n < 64; tok = strtok_r(NULL, " ", &save))
		v[n++] = tok;
	return n;
}

static void
folders(const char *in, size_t n, struct qe_buf *out)
{
	char *s = qe_xstrndup(in, n), *bar = strchr(s, '|');
	const char *b[64], *h[64];
	struct qe_align_dirs d;
	int nb, nh, rc;

	if (bar == NULL) {
		qe_buf_adds(out, "bad case");
		free(s);
		return;
	}
	*bar = '\0';
	nb = split(s, b);
	nh = split(bar + 1, h);
	rc = qe_align_folders(b, (size_t)nb, h, (size_t)nh, &d);
	if (rc == 1)
		qe_buf_addf(out, "'%s' '%s' %ld", d.base, d.head, d.matched);
	else if (rc == -1)
		qe_buf_addf(out, "ambiguous: '%s' '%s' / '%s' '%s'", d.base, d.head, d.base2, d.head2);
	else
		qe_buf_adds(out, rc == 0 ? "none" : "too many");
	for (int i = 0; rc == 1 && i < nb; i++) {
		const char *r = qe_align_below(b[i], d.base);

		qe_buf_addf(out, " %s", r ? r : "-");
	}
	qe_align_dirs_free(&d);
	free(s);
}

/* "PATH DOC": 1 when they match. */
static void
relname(const char *in, size_t n, struct qe_buf *out)
{
	char *s = qe_xstrndup(in, n), *sp = strchr(s, ' ');

	if (sp == NULL) {
		qe_buf_adds(out, "bad case");
		free(s);
		return;
	}
	*sp = '\0';
	qe_buf_addf(out, "%d", qe_align_relname(s, sp + 1));
	free(s);
}

static const struct unit_fn fns[] = {
	{ "relname", relname },
	{ "align", align },
	{ "folders", folders },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
