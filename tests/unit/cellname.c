/*
 * Unit driver for lib/notebook/qe_cellname.c: the exercise and solution
 * blocks read from a notebook's markdown cells, the match of a cache's
 * code cells to a built notebook's, and the display name (qe_cellname.h).
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "notebook/qe_cellname.h"

/* One line per code cell: "kind label" ("-" for none). */
static void
add_blocks(struct qe_buf *out, const struct qe_cellname_block *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		qe_buf_addf(out, "%s%s %s", i ? "\n" : "", v[i].kind ? qe_cellname_kind(v[i].kind) : "-",
		    v[i].label ? v[i].label : "-");
	if (n == 0)
		qe_buf_adds(out, "(no code cells)");
}

/* A "cells" array (JSON): each code cell's block. */
static void
blocks(const char *in, size_t n, struct qe_buf *out)
{
	cJSON *cells = cJSON_ParseWithLength(in, n);
	struct qe_cellname_blocks b = { 0 };

	if (!cJSON_IsArray(cells)) {
		qe_buf_adds(out, "bad case");
		cJSON_Delete(cells);
		return;
	}
	qe_cellname_blocks_read(cells, &b);
	add_blocks(out, b.v, b.n);
	qe_cellname_blocks_free(&b);
	cJSON_Delete(cells);
}

/*
 * {"cells": [...built notebook's cells...], "have": "abc", "want": "xbc"}:
 * each letter a digest (the built notebook's code cells, the cache's); the
 * blocks the cache's cells take.
 */
static void
match(const char *in, size_t n, struct qe_buf *out)
{
	cJSON *o = cJSON_ParseWithLength(in, n);
	const char *have = qe_json_str(o, "have"), *want = qe_json_str(o, "want");
	struct qe_cellname_blocks b = { 0 };
	char (*h)[QE_SHA256_HEX], (*w)[QE_SHA256_HEX];
	struct qe_cellname_block *got;
	size_t nh, nw;

	if (have == NULL || want == NULL) {
		qe_buf_adds(out, "bad case");
		cJSON_Delete(o);
		return;
	}
	qe_cellname_blocks_read(cJSON_GetObjectItemCaseSensitive(o, "cells"), &b);
	nh = strlen(have), nw = strlen(want);
	h = qe_xcalloc(nh + 1, sizeof *h);
	w = qe_xcalloc(nw + 1, sizeof *w);
	for (size_t i = 0; i < nh; i++)
		memset(h[i], have[i], QE_SHA256_HEX);
	for (size_t i = 0; i < nw; i++)
		memset(w[i], want[i], QE_SHA256_HEX);
	got = qe_xcalloc(nw + 1, sizeof *got);
	if (b.n == nh)
		qe_cellname_blocks_match(&b, (const char (*)[QE_SHA256_HEX])h,
		    (const char (*)[QE_SHA256_HEX])w, nw, got);
	add_blocks(out, got, nw);
	for (size_t i = 0; i < nw; i++)
		qe_cellname_block_free(&got[i]);
	free(got);
	free(h);
	free(w);
	qe_cellname_blocks_free(&b);
	cJSON_Delete(o);
}

/* "label|kind|block label|says" ("-" for none): the display name, or "(none)". */
static void
name(const char *in, size_t n, struct qe_buf *out)
{
	char *s = qe_xmalloc(n + 1), *f[4] = { 0 }, *p = s;
	struct qe_cellname_block b = { 0 };
	char *nm;

	memcpy(s, in, n);
	s[n] = '\0';
	for (int i = 0; i < 4; i++) {
		f[i] = strsep(&p, "|");
		if (f[i] != NULL && strcmp(f[i], "-") == 0)
			f[i] = NULL;
	}
	b.kind = f[1] && strcmp(f[1], "exercise") == 0 ? QE_CELLNAME_EXERCISE :
	    f[1] && strcmp(f[1], "solution") == 0 ? QE_CELLNAME_SOLUTION : QE_CELLNAME_NONE;
	b.label = f[2];
	nm = qe_cellname_name(f[0], &b, f[3]);
	qe_buf_adds(out, nm ? nm : "(none)");
	free(nm);
	free(s);
}

/* One name a line ("-" for none, a blank cell): each made unique, one a line. */
static void
unique(const char *in, size_t n, struct qe_buf *out)
{
	char **names = qe_xcalloc(n + 1, sizeof *names);
	size_t m = 0;

	for (const char *p = in, *end = in + n, *nl; p <= end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		nl = nl ? nl : end;
		names[m++] = nl - p == 1 && *p == '-' ? NULL : qe_xstrndup(p, (size_t)(nl - p));
	}
	qe_cellname_unique(names, m);
	for (size_t i = 0; i < m; i++) {
		qe_buf_addf(out, "%s%s", i ? "\n" : "", names[i] ? names[i] : "-");
		free(names[i]);
	}
	free(names);
}

static const struct unit_fn fns[] = {
	{ "blocks", blocks },
	{ "match", match },
	{ "name", name },
	{ "unique", unique },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
