/*
 * Unit driver for lib/diff/qe_fingerprint.c: "BASE-FACTS | HEAD-FACTS" (JSON,
 * or "-" for none) -> the differing facts, sorted, as "fact: base -> head"
 * joined by "; ". The fingerprints are "fb" and "fh".
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "diff/qe_fingerprint.h"

static cJSON *
facts(const char *s)
{
	while (*s == ' ')
		s++;
	return *s == '-' ? NULL : cJSON_Parse(s);
}

static void
compare(const char *in, size_t n, struct qe_buf *out)
{
	char *s = qe_xstrndup(in, n), *bar = strchr(s, '|');
	struct qe_factdiffs d = { 0 };
	cJSON *b, *h;

	if (bar == NULL) {
		qe_buf_adds(out, "bad case");
		free(s);
		return;
	}
	*bar = '\0';
	b = facts(s);
	h = facts(bar + 1);
	qe_fp_compare(&d, b, h, "fb", "fh");
	qe_fp_compare(&d, b, h, "fb", "fh");	/* a second document adds nothing */
	qe_fp_factdiffs_sort(&d);
	for (int i = 0; i < d.n; i++)
		qe_buf_addf(out, "%s%s: %s -> %s", i ? "; " : "", d.v[i].fact, d.v[i].base, d.v[i].head);
	qe_fp_factdiffs_free(&d);
	cJSON_Delete(b);
	cJSON_Delete(h);
	free(s);
}

/* Interning "a b a c b": how many distinct, whether equal texts share a pointer, the seen list. */
static void
intern(const char *in, size_t n, struct qe_buf *out)
{
	char *s = qe_xstrndup(in, n), *save = NULL, *tok;
	struct qe_fingerprints f = { 0 };
	struct qe_fp_seen seen = { 0 };
	int shared = 1;

	for (tok = strtok_r(s, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		const char *p = qe_fp_intern(&f, tok, NULL);

		if (qe_fp_intern(&f, tok, NULL) != p || qe_fp_facts(&f, p) != NULL)
			shared = 0;
		qe_fp_note(&seen, p);
	}
	qe_fp_seen_sort(&seen);
	qe_buf_addf(out, "%d interned, %s;", f.n, shared ? "shared" : "copied");
	for (int i = 0; i < seen.n; i++)
		qe_buf_addf(out, " %s", seen.v[i]);
	free(seen.v);
	qe_fingerprints_free(&f);
	free(s);
}

/* "B | H" ("-": none): 1 when a fact that makes timings incomparable differs. */
static void
machine(const char *in, size_t n, struct qe_buf *out)
{
	char *s = qe_xstrndup(in, n), *bar = strchr(s, '|');
	cJSON *b, *h;

	if (bar == NULL) {
		qe_buf_adds(out, "bad case");
		free(s);
		return;
	}
	*bar = '\0';
	b = facts(s);
	h = facts(bar + 1);
	qe_buf_addf(out, "%d", qe_fp_machine_differ(b, h));
	cJSON_Delete(b);
	cJSON_Delete(h);
	free(s);
}

static const struct unit_fn fns[] = {
	{ "compare", compare },
	{ "machine", machine },
	{ "intern", intern },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
