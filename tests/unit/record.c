/*
 * Unit driver for lib/qe_record.c: the type rule, the one check of a
 * record's fields, the display name and the machine's description.
 * `record --dump` prints the field table as "KIND KEY TYPE" lines, which
 * tests/00-unit.bats checks against schema/ (tests/tools/record_fields_check.py).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "qe_record.h"

/* "JSON KIND READER": the message of a bad field of the record (a tree), or "ok". */
static void
check(const char *in, size_t n, struct qe_buf *out, int line)
{
	char *s = qe_xstrndup(in, n), *sp = strrchr(s, ' '), *sp2;
	struct qe_recscan sc = { 0 };
	struct qe_recline l;
	cJSON *t;
	int kind, reader, bad;

	if (sp == NULL || (*sp = '\0', sp2 = strrchr(s, ' ')) == NULL) {
		qe_buf_adds(out, "bad case");
		free(s);
		return;
	}
	*sp2 = '\0';
	kind = strcmp(sp2 + 1, "cell") == 0 ? QE_RKIND_CELL : QE_RKIND_NOTEBOOK;
	reader = strcmp(sp + 1, "status") == 0 ? QE_RREAD_STATUS : QE_RREAD_DIFF;
	if (line) {
		if (qe_recscan_line(&sc, s, strlen(s), &l) != 0)
			qe_buf_adds(out, "not an object");
		else
			qe_buf_addf(out, "%d", qe_record_bad_line(&l, kind, reader, sp2 + 1, "f", 1));
	} else if ((t = cJSON_Parse(s)) == NULL) {
		qe_buf_adds(out, "not JSON");
	} else {
		bad = qe_record_bad_tree(t, kind, reader, sp2 + 1, "f", 1);
		qe_buf_addf(out, "%d", bad);
		cJSON_Delete(t);
	}
	qe_recscan_free(&sc);
	free(s);
}

static void
check_tree(const char *in, size_t n, struct qe_buf *out)
{
	check(in, n, out, 0);
}

static void
check_line(const char *in, size_t n, struct qe_buf *out)
{
	check(in, n, out, 1);
}

/* "NAME|LABEL|FIRST|DEFAULT" ("-": NULL): the display name, or "(null)". */
static void
name(const char *in, size_t n, struct qe_buf *out)
{
	char *s = qe_xstrndup(in, n), *f[4] = { 0 }, *p = s;
	const char *r;

	for (int i = 0; i < 4; i++) {
		f[i] = strsep(&p, "|");
		if (f[i] != NULL && strcmp(f[i], "-") == 0)
			f[i] = NULL;
	}
	r = qe_record_name(f[0], f[1], f[2], f[3]);
	qe_buf_adds(out, r ? r : "(null)");
	free(s);
}

/* A record tree: qe_record_name_of(rec, "dflt"). */
static void
name_of(const char *in, size_t n, struct qe_buf *out)
{
	cJSON *t = cJSON_ParseWithLength(in, n);

	qe_buf_adds(out, t ? qe_record_name_of(t, "dflt") : "not JSON");
	cJSON_Delete(t);
}

/* A provenance: its machine's description. */
static void
machine(const char *in, size_t n, struct qe_buf *out)
{
	cJSON *t = cJSON_ParseWithLength(in, n);

	if (t == NULL) {
		qe_buf_adds(out, "not JSON");
		return;
	}
	qe_record_machine_of(out, t);
	cJSON_Delete(t);
}

static void
brackets(struct qe_buf *b, const char *s)
{
	qe_buf_addf(b, "[%s]", s);
}

/* "RUNNER|CPU|CPUS|MEM|GPU" ("-": none), each string through an escaper that brackets it. */
static void
machine_text(const char *in, size_t n, struct qe_buf *out)
{
	char *s = qe_xstrndup(in, n), *f[5] = { 0 }, *p = s;

	for (int i = 0; i < 5; i++) {
		f[i] = strsep(&p, "|");
		if (f[i] != NULL && strcmp(f[i], "-") == 0)
			f[i] = NULL;
	}
	qe_record_machine(out, f[0], f[1], f[2] ? strtod(f[2], NULL) : NAN, f[3] ? strtod(f[3], NULL) : NAN,
	    f[4], brackets);
	free(s);
}

static const struct unit_fn fns[] = {
	{ "check_tree", check_tree },
	{ "check_line", check_line },
	{ "name", name },
	{ "name_of", name_of },
	{ "machine", machine },
	{ "machine_text", machine_text },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	static const char *const types[] = { "string", "number", "boolean", "object", "array" };

	if (argc == 2 && strcmp(argv[1], "--dump") == 0) {
		for (size_t i = 0; i < qe_record_nfields; i++) {
			const struct qe_record_field *f = &qe_record_fields[i];

			if (f->kinds & QE_RKIND_NOTEBOOK)
				printf("notebook %s %s\n", f->key, types[f->type]);
			if (f->kinds & QE_RKIND_CELL)
				printf("cell %s %s\n", f->key, types[f->type]);
		}
		return 0;
	}
	return unit_main(argc, argv, fns);
}
