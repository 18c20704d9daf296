/*
 * Unit driver for lib/provenance/qe_packages.c: name normal form, release series, key
 * packages, and what provenance records of conda and pip lists.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "provenance/qe_packages.h"

static void
norm(const char *in, size_t n, struct qe_buf *out)
{
	char *s = qe_pkg_norm(in);

	(void)n;
	qe_buf_adds(out, s);
	free(s);
}

static void
series(const char *in, size_t n, struct qe_buf *out)
{
	char *s = qe_pkg_series(in);

	(void)n;
	qe_buf_adds(out, s);
	free(s);
}

/* -k's argument: the key names kept, one blank between. */
static void
keys(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_pkgs p = { 0 };

	(void)n;
	qe_pkgs_add_keys(&p, in);
	for (size_t i = 0; i < p.nkeys; i++)
		qe_buf_addf(out, "%s%s", i ? " " : "", p.keys[i]);
	qe_pkgs_free(&p);
}

/*
 * "[-a] [-k KEYS] LIST [|| LIST ...]": the lists read in order, then the
 * environment's package facts and the fingerprint's, one line each.
 */
static void
describe(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_pkgs p = { 0 };
	cJSON *env = qe_json_check(cJSON_CreateObject());
	cJSON *facts = qe_json_check(cJSON_CreateObject());
	char *text = qe_xstrndup(in, n), *s = text, *sep;

	if (strncmp(s, "-a ", 3) == 0) {
		p.all = 1;
		s += 3;
	}
	if (strncmp(s, "-k ", 3) == 0 && (sep = strchr(s + 3, ' ')) != NULL) {
		*sep = '\0';
		qe_pkgs_add_keys(&p, s + 3);
		s = sep + 1;
	}
	for (; s != NULL; s = sep ? sep + 4 : NULL) {
		if ((sep = strstr(s, " || ")) != NULL)
			*sep = '\0';
		if (qe_pkgs_parse(&p, s, strlen(s), "list") < 0)
			qe_buf_adds(out, "refused\n");
	}
	qe_pkgs_describe(&p, env, facts);
	unit_add_json(out, env);
	qe_buf_addc(out, '\n');
	unit_add_json(out, facts);
	cJSON_Delete(env);
	cJSON_Delete(facts);
	qe_pkgs_free(&p);
	free(text);
}

static const struct unit_fn fns[] = {
	{ "norm", norm },
	{ "series", series },
	{ "keys", keys },
	{ "describe", describe },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
