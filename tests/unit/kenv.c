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

static const struct unit_fn fns[] = {
	{ "changes", changes },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
