/* Unit driver for lib/provenance/qe_facts.c: the positive integers of run ids, trimming, omission. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "provenance/qe_facts.h"

static void
posint(const char *in, size_t n, struct qe_buf *out)
{
	(void)n;
	qe_buf_addf(out, "%lld", qe_fact_posint(in));
}

static void
trim(const char *in, size_t n, struct qe_buf *out)
{
	char *s = qe_xstrndup(in, n);

	qe_buf_addf(out, "[%s]", qe_fact_trim(s));
	free(s);
}

/* "KEY=VALUE" -> the object qe_fact_str makes of it. */
static void
fact_str(const char *in, size_t n, struct qe_buf *out)
{
	char *s = qe_xstrndup(in, n), *eq = strchr(s, '=');
	cJSON *o = qe_json_check(cJSON_CreateObject());

	if (eq != NULL) {
		*eq = '\0';
		qe_fact_str(o, s, eq + 1);
	}
	unit_add_json(out, o);
	cJSON_Delete(o);
	free(s);
}

static const struct unit_fn fns[] = {
	{ "posint", posint },
	{ "trim", trim },
	{ "fact-str", fact_str },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
