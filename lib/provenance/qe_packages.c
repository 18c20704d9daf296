/* Package lists of a build environment (qe_packages.h). */
#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "qe_mem.h"
#include "qe_json.h"
#include "qe_file.h"
#include "qe_sha.h"
#include "qe_facts.h"
#include "qe_packages.h"

#define LIST_LIMIT	(256u << 20)
#define NELEM(a)	(sizeof (a) / sizeof (a)[0])

/* Key packages when none is named: recorded and fingerprinted. */
static const char *const default_keys[] = {
	"python", "numpy", "scipy", "numba", "jax", "jaxlib", "torch",
	"quantecon", "numpyro"
};
/* Recorded but kept out of the fingerprint: they measure, they don't run. */
static const char *const build_tools[] = {
	"jupyter-book", "myst-nb", "jupyter-cache", "nbclient", "ipykernel", "mystmd"
};

char *
qe_pkg_norm(const char *s)
{
	char *r = qe_xmalloc(strlen(s) + 1), *w = r;

	for (; *s; s++) {
		if (*s == '-' || *s == '_' || *s == '.') {
			if (w == r || w[-1] != '-')
				*w++ = '-';
		} else
			*w++ = (char)(*s >= 'A' && *s <= 'Z' ? *s - 'A' + 'a' : *s);
	}
	*w = '\0';
	return r;
}

void
qe_pkgs_add_keys(struct qe_pkgs *p, const char *list)
{
	char *copy = qe_xstrdup(list), *s = copy, *tok, *save = NULL;

	for (; (tok = strtok_r(s, ",", &save)) != NULL; s = NULL)
		if (*(tok = qe_fact_trim(tok)) != '\0') {
			p->keys = qe_xrealloc(p->keys, (p->nkeys + 1) * sizeof *p->keys);
			p->keys[p->nkeys++] = qe_pkg_norm(tok);
		}
	free(copy);
}

static int
in_list(const char *name, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(name, v[i]) == 0)
			return 1;
	return 0;
}

int
qe_pkgs_is_key(const struct qe_pkgs *p, const char *name)
{
	if (p->nkeys == 0)
		return in_list(name, default_keys, NELEM(default_keys));
	return in_list(name, (const char *const *)p->keys, p->nkeys);
}

int
qe_pkgs_parse(struct qe_pkgs *p, const char *s, size_t n, const char *what)
{
	cJSON *arr = cJSON_ParseWithLength(s, n);
	const cJSON *e;

	if (!cJSON_IsArray(arr)) {
		warnx("%s: %s", what, arr ? "not a JSON array of packages" : "invalid JSON");
		cJSON_Delete(arr);
		return -1;
	}
	cJSON_ArrayForEach(e, arr)
		qe_pkgs_add(p, qe_json_str(e, "name"), qe_json_str(e, "version"));
	cJSON_Delete(arr);
	return 0;
}

void
qe_pkgs_add(struct qe_pkgs *p, const char *name, const char *ver)
{
	if (name == NULL || ver == NULL || *name == '\0' || *ver == '\0' ||
	    !qe_fact_utf8(name) || !qe_fact_utf8(ver))
		return;
	p->v = qe_xrealloc(p->v, (p->n + 1) * sizeof *p->v);
	p->v[p->n].name = qe_pkg_norm(name);
	p->v[p->n].version = qe_xstrdup(ver);
	p->v[p->n].seq = p->n;
	p->n++;
}

int
qe_pkgs_read(struct qe_pkgs *p, const char *path)
{
	struct qe_buf b = { 0 };
	int rc;

	if (qe_file_read(path, LIST_LIMIT, &b) < 0) {
		warn("%s", path);
		qe_buf_free(&b);
		return -1;
	}
	rc = qe_pkgs_parse(p, b.data, b.len, path);
	qe_buf_free(&b);
	return rc;
}

char *
qe_pkg_series(const char *v)
{
	size_t n = strspn(v, "0123456789");

	if (n == 0)
		return qe_xstrdup(v);
	if (v[n] == '.' && v[n + 1] >= '0' && v[n + 1] <= '9')
		n += 1 + strspn(v + n + 1, "0123456789");
	return qe_xstrndup(v, n);
}

static int
pkg_cmp(const void *a, const void *b)
{
	const struct qe_pkg *p = a, *q = b;
	int c = strcmp(p->name, q->name);

	return c != 0 ? c : (p->seq > q->seq) - (p->seq < q->seq);
}

/* Sort by name; of duplicates keep the one read last (pip over conda). */
static void
settle(struct qe_pkgs *p)
{
	size_t i, n = 0;

	if (p->n == 0)
		return;
	qsort(p->v, p->n, sizeof *p->v, pkg_cmp);
	for (i = 0; i < p->n; i++) {
		if (i + 1 < p->n && strcmp(p->v[i].name, p->v[i + 1].name) == 0) {
			free(p->v[i].name);
			free(p->v[i].version);
			continue;
		}
		p->v[n++] = p->v[i];
	}
	p->n = n;
}

void
qe_pkgs_describe(struct qe_pkgs *p, cJSON *env, cJSON *facts)
{
	cJSON *kept = qe_json_check(cJSON_CreateObject());
	struct qe_buf all = { 0 };
	char hex[QE_SHA256_HEX];

	settle(p);
	for (size_t i = 0; i < p->n; i++) {
		const struct qe_pkg *k = &p->v[i];
		int key = qe_pkgs_is_key(p, k->name);

		qe_buf_addf(&all, "%s==%s\n", k->name, k->version);
		if (p->all || key || in_list(k->name, build_tools, NELEM(build_tools)))
			qe_fact_str(kept, k->name, k->version);
		if (key) {
			char *s = qe_pkg_series(k->version);

			qe_fact_str(facts, k->name, s);
			free(s);
		}
	}
	qe_fact_item(env, "packages", kept);
	qe_fact_num(env, "package_count", (double)p->n);
	qe_sha256_hex(all.data ? all.data : "", all.len, hex);
	qe_fact_str(env, "packages_sha256", hex);
	qe_buf_free(&all);
}

void
qe_pkgs_free(struct qe_pkgs *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].name);
		free(p->v[i].version);
	}
	free(p->v);
	for (size_t i = 0; i < p->nkeys; i++)
		free(p->keys[i]);
	free(p->keys);
	memset(p, 0, sizeof *p);
}
