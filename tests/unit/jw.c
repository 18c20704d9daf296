/*
 * Unit driver for lib/qe_jw.c: each case writes a value with the hand
 * writer and with cJSON_PrintUnformatted (of the same string, or of the
 * number qe_jw_round gives), and prints the writer's bytes, followed by
 * " != cJSON " and cJSON's bytes when the two differ.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "qe_jw.h"

static void
compare(struct qe_buf *out, struct qe_buf *jw, cJSON *item)
{
	char *cj = qe_json_print(qe_json_check(item));

	qe_buf_add(out, jw->data, jw->len);
	if (strcmp(jw->data, cj) != 0)
		qe_buf_addf(out, " != cJSON %s", cj);
	cJSON_free(cj);
	cJSON_Delete(item);
	qe_buf_free(jw);
}

/* The input bytes as a string. */
static void
str(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_buf jw = { 0 };

	(void)n;
	qe_jw_str(&jw, in);
	compare(out, &jw, cJSON_CreateString(in));
}

/* "X D": X with D decimals. */
static void
num(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_buf jw = { 0 };
	double v[2];

	(void)n;
	if (unit_numbers(in, v, 2) != 2 || v[1] < 0 || v[1] > 6) {
		qe_buf_adds(out, "bad case");
		return;
	}
	qe_jw_num(&jw, v[0], (int)v[1]);
	compare(out, &jw, cJSON_CreateNumber(qe_jw_round(v[0], (int)v[1])));
}

/* A record: begin, two keys, end. */
static void
record(const char *in, size_t n, struct qe_buf *out)
{
	(void)n;
	qe_jw_begin(out, in);
	qe_jw_key(out, "a\"b"), qe_jw_num(out, 1.5, 1);
	qe_jw_key(out, "n"), qe_jw_str(out, NULL);
	qe_buf_addc(out, '}');
}

static const struct unit_fn fns[] = {
	{ "str", str },
	{ "num", num },
	{ "record", record },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
