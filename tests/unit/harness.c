/* The case-file runner of tests/unit (harness.h). */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "qe_sha.h"

/* Undo the escapes of a case line into b. */
static void
unescape(const char *s, struct qe_buf *b)
{
	qe_buf_reset(b);
	qe_buf_add(b, "", 0);
	for (; *s; s++) {
		if (*s != '\\' || s[1] == '\0') {
			qe_buf_addc(b, *s);
			continue;
		}
		switch (*++s) {
		case 'n': qe_buf_addc(b, '\n'); break;
		case 'r': qe_buf_addc(b, '\r'); break;
		case 't': qe_buf_addc(b, '\t'); break;
		case '0': qe_buf_addc(b, '\0'); break;
		case 'e': break;	/* nothing: an empty line */
		case '\\': qe_buf_addc(b, '\\'); break;
		case 'x':
			if (qe_sha_hexval((unsigned char)s[1]) >= 0 && qe_sha_hexval((unsigned char)s[2]) >= 0) {
				qe_buf_addc(b, (char)(qe_sha_hexval((unsigned char)s[1]) << 4 |
				    qe_sha_hexval((unsigned char)s[2])));
				s += 2;
				break;
			}
			/* FALLTHROUGH */
		default: qe_buf_addc(b, '\\'); qe_buf_addc(b, *s); break;
		}
	}
}

/* Show bytes with the same escapes, for messages. */
static void
show(FILE *fp, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\n')
			fputs("\\n", fp);
		else if (c == '\\')
			fputs("\\\\", fp);
		else if (c < 0x20 || c == 0x7f)
			fprintf(fp, "\\x%02x", c);
		else
			fputc(c, fp);
	}
}

struct run {
	const char *file;
	const struct unit_fn *fns;
	long passed, failed;
};

static void
run_case(struct run *r, long line, char **v, int nv)
{
	struct qe_buf in = { 0 }, want = { 0 }, got = { 0 }, one = { 0 };
	const struct unit_fn *f = r->fns;

	while (f->name && strcmp(f->name, v[0]) != 0)
		f++;
	if (f->name == NULL || nv < 3) {
		fprintf(stderr, "%s:%ld: %s: %s\n", r->file, line, v[0],
		    f->name ? "a case needs a name, an input and an output" : "no such function");
		r->failed++;
		return;
	}
	unescape(v[1], &in);
	for (int i = 2; i < nv; i++) {
		unescape(v[i], &one);
		if (i > 2)
			qe_buf_addc(&want, '\n');
		qe_buf_add(&want, one.data, one.len);
	}
	qe_buf_add(&got, "", 0);
	f->fn(in.data, in.len, &got);
	if (got.len == want.len && memcmp(got.data, want.data ? want.data : "", got.len) == 0)
		r->passed++;
	else {
		fprintf(stderr, "%s:%ld: %s: input '", r->file, line, v[0]);
		show(stderr, in.data, in.len);
		fputs("'\n  expected '", stderr);
		show(stderr, want.data ? want.data : "", want.len);
		fputs("'\n  got      '", stderr);
		show(stderr, got.data, got.len);
		fputs("'\n", stderr);
		r->failed++;
	}
	qe_buf_free(&in);
	qe_buf_free(&want);
	qe_buf_free(&got);
	qe_buf_free(&one);
}

static void
run_file(struct run *r, FILE *fp)
{
	char *line = NULL, *v[64];
	size_t cap = 0;
	ssize_t n;
	long lineno = 0, start = 0;
	int nv = 0;

	for (;;) {
		n = getline(&line, &cap, fp);
		lineno++;
		if (n > 0 && line[n - 1] == '\n')
			line[--n] = '\0';
		if (n >= 0 && line[0] == '#')
			continue;
		if (n > 0) {
			if (nv == 0)
				start = lineno;
			if (nv < 64)
				v[nv++] = strdup(line);
			continue;
		}
		if (nv > 0)
			run_case(r, start, v, nv);
		while (nv > 0)
			free(v[--nv]);
		if (n < 0)
			break;
	}
	free(line);
}

int
unit_main(int argc, char **argv, const struct unit_fn *fns)
{
	struct run r = { .fns = fns };

	if (argc < 2)
		errx(2, "usage: %s file.test ...", argv[0]);
	for (int i = 1; i < argc; i++) {
		FILE *fp = fopen(argv[i], "r");

		if (fp == NULL)
			err(2, "%s", argv[i]);
		r.file = argv[i];
		run_file(&r, fp);
		fclose(fp);
	}
	printf("%ld passed, %ld failed\n", r.passed, r.failed);
	return r.failed ? 1 : 0;
}

void
unit_add_double(struct qe_buf *out, double v)
{
	qe_buf_addf(out, "%.17g", v);
}

void
unit_add_json(struct qe_buf *out, const cJSON *v)
{
	char *s = qe_json_print(v);

	qe_buf_adds(out, s);
	cJSON_free(s);
}

int
unit_numbers(const char *s, double *v, int max)
{
	int n = 0;
	char *end;

	while (n < max) {
		double x = strtod(s, &end);

		if (end == s)
			break;
		v[n++] = x;
		s = end;
	}
	return n;
}

int
unit_count_seed(const char *in, long *count, unsigned long long *seed, struct qe_buf *out)
{
	double v[2];

	if (unit_numbers(in, v, 2) != 2 || v[0] < 0 || v[1] < 0) {
		qe_buf_adds(out, "bad case");
		return -1;
	}
	*count = (long)v[0];
	*seed = (unsigned long long)v[1];
	return 0;
}
