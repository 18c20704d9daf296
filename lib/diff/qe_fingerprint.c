/* Fingerprints and their differing facts (qe_fingerprint.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qe_mem.h"
#include "qe_json.h"
#include "qe_fingerprint.h"

const char *
qe_fp_intern(struct qe_fingerprints *f, const char *s, const cJSON *facts)
{
	for (int i = 0; i < f->n; i++)
		if (strcmp(f->v[i].fp, s) == 0)
			return f->v[i].fp;
	f->v = qe_xrealloc(f->v, (size_t)(f->n + 1) * sizeof *f->v);
	f->v[f->n].fp = qe_xstrdup(s);
	f->v[f->n].facts = facts ? qe_json_check(cJSON_Duplicate(facts, 1)) : NULL;
	return f->v[f->n++].fp;
}

const cJSON *
qe_fp_facts(const struct qe_fingerprints *f, const char *interned)
{
	for (int i = 0; i < f->n; i++)
		if (f->v[i].fp == interned)
			return f->v[i].facts;
	return NULL;
}

void
qe_fingerprints_free(struct qe_fingerprints *f)
{
	for (int i = 0; i < f->n; i++) {
		free(f->v[i].fp);
		cJSON_Delete(f->v[i].facts);
	}
	free(f->v);
	f->v = NULL;
	f->n = 0;
}

void
qe_fp_note(struct qe_fp_seen *s, const char *interned)
{
	for (int i = 0; i < s->n; i++)
		if (strcmp(s->v[i], interned) == 0)
			return;
	s->v = qe_xrealloc(s->v, sizeof *s->v * (size_t)(s->n + 1));
	s->v[s->n++] = interned;
}

static int
strp_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void
qe_fp_seen_sort(struct qe_fp_seen *s)
{
	if (s->n > 1)
		qsort(s->v, (size_t)s->n, sizeof *s->v, strp_cmp);
}

static char *
fact_text(const cJSON *v)
{
	char *s, *r;

	if (v == NULL)
		return qe_xstrdup("(absent)");
	if (cJSON_IsString(v))
		return qe_xstrdup(v->valuestring);
	s = qe_json_print(v);	/* numbers as they read back */
	r = qe_xstrdup(s);
	cJSON_free(s);
	return r;
}

/* Add (fact, b, h) unless held already; takes b and h. */
static void
factdiff_add(struct qe_factdiffs *d, const char *fact, char *b, char *h)
{
	for (int i = 0; i < d->n; i++)
		if (!strcmp(d->v[i].fact, fact) && !strcmp(d->v[i].base, b) && !strcmp(d->v[i].head, h)) {
			free(b);
			free(h);
			return;
		}
	d->v = qe_xrealloc(d->v, sizeof *d->v * (size_t)(d->n + 1));
	d->v[d->n++] = (struct qe_factdiff){ qe_xstrdup(fact), b, h };
}

/* Name the facts that differ; objects (packages) one level down as a.b. */
static int
facts_compare(struct qe_factdiffs *d, const cJSON *b, const cJSON *h, const char *prefix)
{
	const cJSON *it;
	int any = 0;
	char name[512];

	for (it = b ? b->child : NULL; it; it = it->next) {
		const cJSON *o = h ? cJSON_GetObjectItemCaseSensitive(h, it->string) : NULL;

		snprintf(name, sizeof name, "%s%s", prefix, it->string);
		if (o && cJSON_IsObject(it) && cJSON_IsObject(o) && !*prefix) {
			char sub[512];

			snprintf(sub, sizeof sub, "%s.", it->string);
			any |= facts_compare(d, it, o, sub);
		} else if (o == NULL || !cJSON_Compare(it, o, 1))
			factdiff_add(d, name, fact_text(it), fact_text(o)), any = 1;
	}
	for (it = h ? h->child : NULL; it; it = it->next)
		if (!b || cJSON_GetObjectItemCaseSensitive(b, it->string) == NULL) {
			snprintf(name, sizeof name, "%s%s", prefix, it->string);
			factdiff_add(d, name, fact_text(NULL), fact_text(it)), any = 1;
		}
	return any;
}

void
qe_fp_compare(struct qe_factdiffs *d, const cJSON *b, const cJSON *h, const char *bf, const char *hf)
{
	if (!facts_compare(d, b, h, ""))
		factdiff_add(d, "fingerprint", qe_xstrdup(bf), qe_xstrdup(hf));
}

int
qe_fp_machine_differ(const cJSON *b, const cJSON *h)
{
	const cJSON *it;

	if (b == NULL || h == NULL)
		return 1;
	for (int w = 0; w < 2; w++)
		for (it = (w ? h : b)->child; it; it = it->next) {
			const cJSON *o = cJSON_GetObjectItemCaseSensitive(w ? b : h, it->string);

			if (it->string && strcmp(it->string, "packages") != 0 && (o == NULL || !cJSON_Compare(it, o, 1)))
				return 1;
		}
	return 0;
}

void
qe_fp_packages(struct qe_factdiffs *d, const cJSON *b, const cJSON *h)
{
	facts_compare(d, b, h, "");
}

static int
factdiff_cmp(const void *a, const void *b)
{
	const struct qe_factdiff *x = a, *y = b;
	int c = strcmp(x->fact, y->fact);

	if (c == 0)
		c = strcmp(x->base, y->base);
	return c ? c : strcmp(x->head, y->head);
}

void
qe_fp_factdiffs_sort(struct qe_factdiffs *d)
{
	if (d->n > 1)
		qsort(d->v, (size_t)d->n, sizeof *d->v, factdiff_cmp);
}

void
qe_fp_factdiffs_free(struct qe_factdiffs *d)
{
	for (int i = 0; i < d->n; i++) {
		free(d->v[i].fact);
		free(d->v[i].base);
		free(d->v[i].head);
	}
	free(d->v);
	d->v = NULL;
	d->n = 0;
}
