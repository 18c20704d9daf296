/* Unit driver for lib/history/qe_hbuild.c and lib/history/qe_hprov.c. */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "qe_record.h"
#include "history/qe_hbuild.h"
#include "history/qe_hprov.h"

/* A provenance object (JSON; "none" for no provenance): the build or why not. */
static void
from(const char *in, size_t n, struct qe_buf *out)
{
	cJSON *p = strcmp(in, "none") == 0 ? NULL : cJSON_ParseWithLength(in, n);
	struct qe_hbuild b;
	const char *why;

	if (qe_hbuild_from(&b, p, QE_HBUILD_MAIN_REF, &why) < 0)
		qe_buf_addf(out, "refused: %s", why);
	else
		qe_buf_addf(out, "%s %s %s %s %ld %s", b.build, qe_vocab_name(&qe_vocab_series_words, b.series),
		    b.commit ? b.commit : "-", b.started_at, b.run_number,
		    b.runner_class ? b.runner_class : "-");
	qe_hbuild_free(&b);
	cJSON_Delete(p);
}

/* "[before, after]": qe_hprov_diff's array, compact. */
static void
diff(const char *in, size_t n, struct qe_buf *out)
{
	cJSON *pair = cJSON_ParseWithLength(in, n), *arr = qe_json_check(cJSON_CreateArray());

	qe_hprov_diff(cJSON_GetArrayItem(pair, 0), cJSON_GetArrayItem(pair, 1), arr);
	unit_add_json(out, arr);
	cJSON_Delete(arr);
	cJSON_Delete(pair);
}

/* "BY NAME PROVENANCE": qe_hprov_value, or "null". */
static void
value(const char *in, size_t n, struct qe_buf *out)
{
	char by[32], name[64];
	int used = 0;
	cJSON *p;
	const char *v;

	if (sscanf(in, "%31s %63s %n", by, name, &used) != 2) {
		qe_buf_adds(out, "bad case");
		return;
	}
	p = cJSON_ParseWithLength(in + used, n - (size_t)used);
	v = qe_hprov_value(p, qe_vocab_lookup(&qe_vocab_compare_bys, by), name);
	qe_buf_adds(out, v ? v : "null");
	cJSON_Delete(p);
}

static const struct unit_fn fns[] = {
	{ "from", from },
	{ "diff", diff },
	{ "value", value },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
