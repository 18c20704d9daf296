/* Provenance differences and compare's values (qe_hprov.h). */
#include <string.h>

#include "qe_json.h"
#include "qe_mem.h"
#include "qe_record.h"
#include "qe_hprov.h"

static void
add(cJSON *out, int what, const char *name, const char *b, const char *a)
{
	cJSON *c = qe_json_check(cJSON_CreateObject());

	cJSON_AddStringToObject(c, "what", qe_vocab_name(&qe_vocab_prov_whats, what));
	qe_json_add_str_or_null(c, "name", name);
	qe_json_add_str_or_null(c, "before", b);
	qe_json_add_str_or_null(c, "after", a);
	cJSON_AddItemToArray(out, qe_json_check(c));
}

static const cJSON *
env(const cJSON *prov, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(prov, "environment"), key);
}

/* The smallest key of object o greater than `after` (NULL: any), or NULL. */
static const char *
next_key(const cJSON *o, const char *after)
{
	const cJSON *c;
	const char *best = NULL;

	cJSON_ArrayForEach(c, o)
		if ((after == NULL || strcmp(c->string, after) > 0) &&
		    (best == NULL || strcmp(c->string, best) < 0))
			best = c->string;
	return best;
}

static void
packages(const cJSON *pb, const cJSON *pa, cJSON *out)
{
	const char *k = NULL, *kb, *ka;

	for (;;) {
		kb = next_key(pb, k);
		ka = next_key(pa, k);
		if (kb == NULL && ka == NULL)
			return;
		k = kb == NULL ? ka : ka == NULL ? kb : strcmp(kb, ka) < 0 ? kb : ka;
		if (!qe_mem_streq(qe_json_str(pb, k), qe_json_str(pa, k)))
			add(out, QE_PW_PACKAGE, k, qe_json_str(pb, k), qe_json_str(pa, k));
	}
}

/* The sha256 of environment file `path` in files, or NULL. */
static const char *
file_sha(const cJSON *files, const char *path)
{
	const cJSON *f;

	cJSON_ArrayForEach(f, files)
		if (qe_mem_streq(qe_json_str(f, "path"), path))
			return qe_json_str(f, "sha256");
	return NULL;
}

static void
env_files(const cJSON *before, const cJSON *after, cJSON *out)
{
	const cJSON *fb = env(before, "files"), *fa = env(after, "files"), *f;
	int n = cJSON_GetArraySize(out);

	cJSON_ArrayForEach(f, fb) {
		const char *p = qe_json_str(f, "path");

		if (!qe_mem_streq(qe_json_str(f, "sha256"), file_sha(fa, p)))
			add(out, QE_PW_ENVFILE, p, qe_json_str(f, "sha256"), file_sha(fa, p));
	}
	cJSON_ArrayForEach(f, fa)
		if (file_sha(fb, qe_json_str(f, "path")) == NULL)
			add(out, QE_PW_ENVFILE, qe_json_str(f, "path"), NULL, qe_json_str(f, "sha256"));
	if (cJSON_GetArraySize(out) == n && !qe_mem_streq(qe_hprov_value(before, QE_BY_ENVFILE, NULL),
	    qe_hprov_value(after, QE_BY_ENVFILE, NULL)))
		add(out, QE_PW_ENVFILE, NULL, qe_hprov_value(before, QE_BY_ENVFILE, NULL),
		    qe_hprov_value(after, QE_BY_ENVFILE, NULL));
}

void
qe_hprov_diff(const cJSON *before, const cJSON *after, cJSON *out)
{
	const char *rb = qe_json_str(cJSON_GetObjectItemCaseSensitive(before, "runner"), "class");
	const char *ra = qe_json_str(cJSON_GetObjectItemCaseSensitive(after, "runner"), "class");
	int n = cJSON_GetArraySize(out);

	packages(env(before, "packages"), env(after, "packages"), out);
	if (!qe_mem_streq(rb, ra))
		add(out, QE_PW_RUNNER, NULL, rb, ra);
	env_files(before, after, out);
	if (cJSON_GetArraySize(out) == n && !qe_mem_streq(qe_json_str(before, "fingerprint"),
	    qe_json_str(after, "fingerprint")))
		add(out, QE_PW_FINGERPRINT, NULL, qe_json_str(before, "fingerprint"),
		    qe_json_str(after, "fingerprint"));
}

const char *
qe_hprov_value(const cJSON *prov, int by, const char *package)
{
	const cJSON *files, *h;

	switch (by) {
	case QE_BY_PACKAGE:
		return qe_json_str(env(prov, "packages"), package);
	case QE_BY_FINGERPRINT:
		return qe_json_str(prov, "fingerprint");
	case QE_BY_ENVFILE:
		if (cJSON_IsString(h = env(prov, "hash_files")))
			return h->valuestring;
		files = env(prov, "files");
		return cJSON_GetArraySize(files) == 1 ? qe_json_str(cJSON_GetArrayItem(files, 0), "sha256") : NULL;
	default:
		return NULL;
	}
}
