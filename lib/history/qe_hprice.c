/* Runner minute prices: defaults and the user's file (qe_hprice.h). */
#include <err.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qe_mem.h"
#include "qe_file.h"
#include "qe_jscan.h"
#include "qe_json.h"
#include "qe_hprice.h"

/*
 * GitHub-hosted runners' per-minute list prices in USD (docs.github.com,
 * "Actions runner pricing", 2025): {cpus, Linux, Windows, macOS}; 0 where
 * GitHub has no such runner.
 */
static const struct {
	int cpus;
	double linux, windows, macos;
} table[] = {
	{ 2, 0.008, 0.016, 0 },
	{ 3, 0, 0, 0.08 },
	{ 4, 0.016, 0.032, 0.08 },
	{ 5, 0, 0, 0.16 },
	{ 8, 0.032, 0.064, 0 },
	{ 12, 0, 0, 0.12 },
	{ 16, 0.064, 0.128, 0 },
	{ 32, 0.128, 0.256, 0 },
	{ 64, 0.256, 0.512, 0 },
	{ 96, 0.384, 0.768, 0 },
};

double
qe_hprice_default(const char *cls)
{
	const char *d, *c;
	char *end;
	long n;

	if (cls == NULL || strncmp(cls, "github-hosted/", 14) != 0)
		return NAN;
	d = cls + 14;
	if ((c = strrchr(d, '/')) == NULL || c[1] < '1' || c[1] > '9')
		return NAN;
	errno = 0;
	n = strtol(c + 1, &end, 10);
	if (errno || strcmp(end, "cpu") != 0)
		return NAN;
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
		double v = 0;

		if (table[i].cpus != n)
			continue;
		if (strncmp(d, "ubuntu-", 7) == 0 || strncmp(d, "debian-", 7) == 0)
			v = table[i].linux;
		else if (strncmp(d, "windows-", 8) == 0)
			v = table[i].windows;
		else if (strncmp(d, "macos-", 6) == 0)
			v = table[i].macos;
		return v > 0 ? v : NAN;
	}
	return NAN;
}

int
qe_hprice_line(const char *line, char **cls, double *usd, const char **why)
{
	const char *s = line + strspn(line, " \t"), *e = s + strlen(s), *w;
	char *end, *num;

	while (e > s && strchr(" \t\r\n", e[-1]))
		e--;
	if (e == s || *s == '#')
		return 0;
	for (w = e; w > s && !strchr(" \t", w[-1]); w--)
		continue;
	if (w == s) {
		*why = "a class and a price (USD per minute) are needed";
		return -1;
	}
	num = qe_xstrndup(w, (size_t)(e - w));
	errno = 0;
	*usd = strtod(num, &end);
	if (errno || *end || end == num || !isfinite(*usd) || *usd < 0 ||
	    strspn(num, "0123456789.eE+-") != strlen(num) || !strchr("0123456789.", *num)) {
		free(num);
		*why = "the price is not a number of 0 or more";
		return -1;
	}
	free(num);
	while (w > s && strchr(" \t", w[-1]))
		w--;
	*cls = qe_xstrndup(s, (size_t)(w - s));
	return 1;
}

static void
put(struct qe_hprices *p, char *cls, double usd, size_t *pc, size_t *uc)
{
	p->cls = qe_mem_grow(p->cls, (size_t)p->n, pc, sizeof *p->cls, 8);
	p->usd = qe_mem_grow(p->usd, (size_t)p->n, uc, sizeof *p->usd, 8);
	p->cls[p->n] = cls;
	p->usd[p->n++] = usd;
}

/*
 * A JSON price table, {"CLASS": USD_PER_MINUTE, ...}, text[0..n): 0, or -1
 * after "prog: file: reason" (the one validator's words for bad JSON).
 */
static int
load_json(struct qe_hprices *p, const char *file, const char *text, size_t n)
{
	struct qe_js_error e;
	size_t pc = 0, uc = 0;
	cJSON *t, *c;

	if (qe_js_check(text, n, QE_JS_OBJECT, &e) < 0) {
		warnx("%s: %s (a price table is one JSON object: class -> USD per minute)", file, e.reason);
		return -1;
	}
	t = qe_json_check(cJSON_ParseWithLength(text, n));
	cJSON_ArrayForEach(c, t)
		if (!cJSON_IsNumber(c) || !isfinite(c->valuedouble) || c->valuedouble < 0) {
			warnx("%s: \"%s\": the price is not a number of 0 or more", file, c->string);
			qe_hprices_free(p);
			cJSON_Delete(t);
			return -1;
		} else
			put(p, qe_xstrdup(c->string), c->valuedouble, &pc, &uc);
	cJSON_Delete(t);
	return 0;
}

/* A file whose first character that is not blank is '{' is a JSON table. */
static int
is_json(const char *file, char **text, size_t *n)
{
	*text = qe_file_slurp(file, 1 << 20, n);
	if (*text == NULL)
		return -1;
	return (*text)[strspn(*text, " \t\r\n")] == '{';
}

int
qe_hprices_load(struct qe_hprices *p, const char *file)
{
	FILE *fp;
	char *line = NULL, *cls;
	size_t cap = 0, pc = 0, uc = 0;
	long no = 0;
	double usd;
	const char *why;
	int r, ret = 0;

	char *text;
	size_t tn;

	memset(p, 0, sizeof *p);
	if (file == NULL)
		return 0;
	if ((r = is_json(file, &text, &tn)) != 0) {
		if (r < 0)
			qe_file_warn(file);
		else
			ret = load_json(p, file, text, tn);
		free(text);
		return r < 0 ? -1 : ret;
	}
	free(text);
	if ((fp = fopen(file, "r")) == NULL) {
		warn("%s", file);
		return -1;
	}
	while (ret == 0 && getline(&line, &cap, fp) >= 0) {
		no++;
		if ((r = qe_hprice_line(line, &cls, &usd, &why)) < 0) {
			warnx("%s:%ld: %s", file, no, why);
			ret = -1;
		} else if (r > 0)
			put(p, cls, usd, &pc, &uc);
	}
	free(line);
	fclose(fp);
	return ret;
}

void
qe_hprices_free(struct qe_hprices *p)
{
	for (int i = 0; i < p->n; i++)
		free(p->cls[i]);
	free(p->cls);
	free(p->usd);
	memset(p, 0, sizeof *p);
}

double
qe_hprice(const struct qe_hprices *p, const char *cls)
{
	if (cls == NULL)
		return NAN;
	for (int i = p->n - 1; i >= 0; i--)	/* the last line for a class wins */
		if (strcmp(p->cls[i], cls) == 0)
			return p->usd[i];
	return qe_hprice_default(cls);
}
