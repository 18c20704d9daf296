/* Unit driver for lib/diff/qe_kenv.c: what changed between two kernel_env objects. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "diff/qe_kenv.h"

/* "BASE-JSON | HEAD-JSON" ("null" for none): the changes joined by "; ", or "-" for none. */
static void
changes(const char *in, size_t n, struct qe_buf *out)
{
	const char *bar = strstr(in, " | ");
	char *bt;
	cJSON *b, *h, *arr = cJSON_CreateArray(), *e;

	(void)n;
	if (bar == NULL || arr == NULL) {
		qe_buf_adds(out, "bad case");
		cJSON_Delete(arr);
		return;
	}
	bt = qe_xstrndup(in, (size_t)(bar - in));
	b = cJSON_Parse(bt);
	h = cJSON_Parse(bar + 3);
	qe_kenv_changes(b, h, arr);
	cJSON_ArrayForEach(e, arr)
		qe_buf_addf(out, "%s%s", e == arr->child ? "" : "; ", e->valuestring);
	if (arr->child == NULL)
		qe_buf_adds(out, "-");
	free(bt);
	cJSON_Delete(b);
	cJSON_Delete(h);
	cJSON_Delete(arr);
}

/* "BASE-JSON | HEAD-JSON": the modules only one imported, "base: a, b / head: c". */
static void
imports(const char *in, size_t n, struct qe_buf *out)
{
	const char *bar = strstr(in, " | ");
	char *bt;
	cJSON *b, *h, *ob = cJSON_CreateArray(), *oh = cJSON_CreateArray(), *e;

	(void)n;
	if (bar == NULL || ob == NULL || oh == NULL) {
		qe_buf_adds(out, "bad case");
		cJSON_Delete(ob);
		cJSON_Delete(oh);
		return;
	}
	bt = qe_xstrndup(in, (size_t)(bar - in));
	b = cJSON_Parse(bt);
	h = cJSON_Parse(bar + 3);
	qe_kenv_imports(b, h, ob, oh);
	qe_buf_adds(out, "base:");
	cJSON_ArrayForEach(e, ob)
		qe_buf_addf(out, " %s", e->valuestring);
	qe_buf_adds(out, " / head:");
	cJSON_ArrayForEach(e, oh)
		qe_buf_addf(out, " %s", e->valuestring);
	free(bt);
	cJSON_Delete(b);
	cJSON_Delete(h);
	cJSON_Delete(ob);
	cJSON_Delete(oh);
}

static const struct unit_fn fns[] = {
	{ "changes", changes },
	{ "imports", imports },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
