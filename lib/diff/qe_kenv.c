/* What changed between two kernels' environments (qe_kenv.h). */
#include <stdlib.h>
#include <string.h>

#include "qe_mem.h"
#include "qe_json.h"
#include "qe_kenv.h"

/* A fact as text: strings as they are, arrays joined with ",", other values as JSON; NULL: "none". */
static char *
fact_text(const cJSON *v)
{
	struct qe_buf b = { 0 };
	const cJSON *e;

	if (v == NULL || cJSON_IsNull(v))
		return qe_xstrdup("none");
	if (cJSON_IsString(v))
		return qe_xstrdup(v->valuestring);
	if (cJSON_IsArray(v)) {
		cJSON_ArrayForEach(e, v) {
			char *t = fact_text(e);

			qe_buf_addf(&b, "%s%s", e == v->child ? "" : ",", t);
			free(t);
		}
		if (b.len == 0)
			qe_buf_adds(&b, "[]");
		return b.data;
	}
	if (cJSON_IsNumber(v) && v->valuedouble == (double)(long long)v->valuedouble)
		qe_buf_addf(&b, "%lld", (long long)v->valuedouble);
	else
		qe_buf_adds(&b, cJSON_IsTrue(v) ? "true" : cJSON_IsFalse(v) ? "false" : "?");
	return b.data;
}

/* "what b -> h" when the facts differ. */
static void
compare(cJSON *arr, const char *what, const cJSON *b, const cJSON *h)
{
	char *tb = fact_text(b), *th = fact_text(h);

	if (strcmp(tb, th) != 0) {
		struct qe_buf m = { 0 };

		qe_buf_addf(&m, "%s %s -> %s", what, tb, th);
		cJSON_AddItemToArray(arr, qe_json_check(cJSON_CreateString(m.data)));
		qe_buf_free(&m);
	}
	free(tb);
	free(th);
}

static const cJSON *
get(const cJSON *o, const char *k1, const char *k2)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k1);

	return k2 ? cJSON_GetObjectItemCaseSensitive(v, k2) : v;
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * Every key of b[k] and h[k], sorted and unique, by name. onesided < 0:
 * each compared (prefixed) into arr; 0: only those both have; > 0: only
 * those one side lacks, "name value" into only[0] (BASE's alone) or only[1].
 */
static void
keys(cJSON *arr, const cJSON *b, const cJSON *h, const char *k, const char *prefix, int onesided,
    cJSON *const *only)
{
	const cJSON *ob = get(b, k, NULL), *oh = get(h, k, NULL), *e;
	const char **names = qe_xcalloc((size_t)(cJSON_GetArraySize(ob) + cJSON_GetArraySize(oh)) + 1,
	    sizeof *names);
	size_t n = 0;

	cJSON_ArrayForEach(e, ob)
		names[n++] = e->string;
	cJSON_ArrayForEach(e, oh)
		names[n++] = e->string;
	qsort(names, n, sizeof *names, name_cmp);
	for (size_t i = 0; i < n; i++) {
		struct qe_buf what = { 0 };
		const cJSON *vb, *vh;
		int one;

		if (names[i] == NULL || (i > 0 && strcmp(names[i], names[i - 1]) == 0))
			continue;
		vb = get(ob, names[i], NULL);
		vh = get(oh, names[i], NULL);
		one = (vb == NULL) != (vh == NULL);

		if (onesided > 0 && one) {
			char *t = fact_text(vb ? vb : vh);

			qe_buf_addf(&what, "%s %s", names[i], t);
			cJSON_AddItemToArray(only[vb ? 0 : 1], qe_json_check(cJSON_CreateString(what.data)));
			free(t);
		} else if (onesided < 0 || (onesided == 0 && !one)) {
			qe_buf_addf(&what, "%s%s", prefix, names[i]);
			compare(arr, what.data, vb, vh);
		}
		qe_buf_free(&what);
	}
	free(names);
}

/* 1 when both list their modules and only one kernel imported module m: its facts are no change. */
static int
imported_once(const cJSON *b, const cJSON *h, const char *m)
{
	const cJSON *mb = get(b, "modules", NULL), *mh = get(h, "modules", NULL);

	return cJSON_IsObject(mb) && cJSON_IsObject(mh) &&
	    (get(mb, m, NULL) == NULL) != (get(mh, m, NULL) == NULL);
}

void
qe_kenv_changes(const cJSON *b, const cJSON *h, cJSON *arr)
{
	if (!cJSON_IsObject(b) || !cJSON_IsObject(h))
		return;
	if (!imported_once(b, h, "jax")) {
		compare(arr, "jax backend", get(b, "jax", "backend"), get(h, "jax", "backend"));
		compare(arr, "jax devices", get(b, "jax", "devices"), get(h, "jax", "devices"));
		compare(arr, "jax x64", get(b, "jax", "x64"), get(h, "jax", "x64"));
	}
	if (!imported_once(b, h, "numba")) {
		compare(arr, "numba threading layer", get(b, "numba", "threading_layer"),
		    get(h, "numba", "threading_layer"));
		compare(arr, "numba threads", get(b, "numba", "num_threads"), get(h, "numba", "num_threads"));
	}
	keys(arr, b, h, "threads", "", -1, NULL);
	/* a module one kernel lacks is the version's import where both list theirs */
	keys(arr, b, h, "modules", "", cJSON_IsObject(get(b, "modules", NULL)) &&
	    cJSON_IsObject(get(h, "modules", NULL)) ? 0 : -1, NULL);
}

void
qe_kenv_imports(const cJSON *b, const cJSON *h, cJSON *only_b, cJSON *only_h)
{
	cJSON *only[2] = { only_b, only_h };

	if (!cJSON_IsObject(b) || !cJSON_IsObject(h) || !cJSON_IsObject(get(b, "modules", NULL)) ||
	    !cJSON_IsObject(get(h, "modules", NULL)))
		return;
	keys(NULL, b, h, "modules", "", 1, only);
}
