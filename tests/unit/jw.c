/*
 * Unit driver for lib/qe_jw.c, the one JSON writer. Strings and trees are
 * written by qe_jw and by cJSON_PrintUnformatted, the writer it replaced
 * (kept here as the reference of the bytes published before): the case
 * prints qe_jw's bytes, followed by " != cJSON " and cJSON's where they
 * differ. Numbers are checked against the slow form (jw-ref.h:
 * qe_jw_numtext of the rounded value).
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "qe_jw.h"
#include "jw-ref.h"

static void
compare(struct qe_buf *out, struct qe_buf *jw, cJSON *item)
{
	char *cj = cJSON_PrintUnformatted(qe_json_check(item));

	if (cj == NULL)
		qe_mem_oom();
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

/* A JSON text parsed by cJSON, written back by qe_jw_value (qe_json_print). */
static void
value(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_buf jw = { 0 };
	cJSON *v = cJSON_ParseWithLength(in, n);
	char *s;

	if (v == NULL) {
		qe_buf_adds(out, "invalid JSON");
		return;
	}
	qe_jw_value(&jw, v);
	s = qe_json_print(v);
	if (strcmp(s, jw.data) != 0)
		qe_buf_addf(out, "qe_json_print %s != ", s);
	free(s);
	compare(out, &jw, v);
}

/* "X D": X with D decimals, and " != slow " with the slow form's bytes where they differ. */
static void
num(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_buf jw = { 0 }, ref = { 0 };
	double v[2];

	(void)n;
	if (unit_numbers(in, v, 2) != 2 || v[1] < 0 || v[1] > 6) {
		qe_buf_adds(out, "bad case");
		return;
	}
	if (!jw_num_agrees(v[0], (int)v[1], &jw, &ref))
		qe_buf_addf(out, "%s != slow %s", jw.data, ref.data);
	else
		qe_buf_adds(out, jw.data);
	qe_buf_free(&jw);
	qe_buf_free(&ref);
}

/* "X": X as qe_jw_numfmt writes it, and " != " qe_jw_numtext's text where they differ. */
static void
numfmt(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_buf jw = { 0 };
	char buf[32];
	double v;

	(void)n;
	if (unit_numbers(in, &v, 1) != 1) {
		qe_buf_adds(out, "bad case");
		return;
	}
	qe_jw_numfmt(&jw, v);
	qe_jw_numtext(buf, v);
	qe_buf_adds(out, jw.data);
	if (strcmp(jw.data, buf) != 0)
		qe_buf_addf(out, " != %s", buf);
	qe_buf_free(&jw);
}

/*
 * The key "in" written after every prefix of 0 to 600 bytes: "ok" when
 * each time the bytes are right and the buffer kept room for its NUL (a
 * key ending exactly at the end of the buffer wrote its NUL past it).
 */
static void
keyfill(const char *in, size_t n, struct qe_buf *out)
{
	for (size_t l = 0; l <= 600; l++) {
		struct qe_buf b = { 0 }, want = { 0 };

		for (size_t i = 0; i < l; i++)
			qe_buf_addc(&b, 'x'), qe_buf_addc(&want, 'x');
		qe_jw_key(&b, in);
		qe_buf_addf(&want, ",\"%.*s\":", (int)n, in);
		if (b.len >= b.cap || b.len != want.len || memcmp(b.data, want.data, b.len) != 0) {
			qe_buf_addf(out, "wrong after %zu bytes", l);
			qe_buf_free(&b), qe_buf_free(&want);
			return;
		}
		qe_buf_free(&b), qe_buf_free(&want);
	}
	qe_buf_adds(out, "ok");
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

/* A random double of one of several shapes (the 64-bit state advances). */
static double
random_double(unsigned long long *st)
{
	unsigned long long r;
	double u;

	*st = *st * 6364136223846793005ULL + 1442695040888963407ULL;
	r = *st >> 11;
	u = (double)r / 9007199254740992.0;	/* [0, 1) */
	switch ((*st >> 3) % 6) {
	case 0:		/* seconds as measured */
		return u * 1e4;
	case 1:		/* a tie or near one at some decimal */
		return floor(u * 1e7) / 1e6 + 5e-7 * ((*st >> 8) % 3);
	case 2:		/* an integer */
		return floor(u * 1e12);
	case 3:		/* any magnitude the fast path takes, either sign */
		return (u - 0.5) * pow(10, (double)((*st >> 9) % 26) - 13);
	case 4:		/* beyond 1e12: the slow path */
		return (u + 1) * pow(10, (double)((*st >> 9) % 300));
	default:	/* any bits: NaN, infinities, subnormals */
		memcpy(&u, st, sizeof u);
		return u;
	}
}

/*
 * "N SEED": N random doubles at every decimals 0..6 written by qe_jw_num
 * and by the reference (jw-ref.h, snprintf's digits): "N agree", or the
 * first value that differs.
 */
static void
random_num(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_buf a = { 0 }, r = { 0 };
	unsigned long long st;
	long i, count;

	(void)n;
	if (unit_count_seed(in, &count, &st, out) < 0)
		return;
	for (i = 0; i < count; i++) {
		double x = random_double(&st);
		int d = (int)(i % 7);

		if (!jw_num_agrees(x, d, &a, &r)) {
			qe_buf_addf(out, "%a %d: %s != %s", x, d, a.data, r.data);
			break;
		}
	}
	if (i == count)
		qe_buf_addf(out, "%ld agree", i);
	qe_buf_free(&a);
	qe_buf_free(&r);
}

/*
 * "N SEED": N random doubles, each written by qe_jw_numfmt, by qe_json_print
 * of the cJSON number and, at every decimals 0..6, by qe_jw_num against
 * qe_json_print of what qe_json_add_rounded adds (the diff-summary's
 * runner_factor): "N agree", or the first value that differs.
 */
static void
random_exact(const char *in, size_t n, struct qe_buf *out)
{
	unsigned long long st;
	long i, count;

	(void)n;
	if (unit_count_seed(in, &count, &st, out) < 0)
		return;
	for (i = 0; i < count; i++) {
		double x = random_double(&st);
		struct qe_buf a = { 0 }, r = { 0 };
		char *cj, buf[32];
		cJSON *o = qe_json_check(cJSON_CreateObject()), *num = qe_json_check(cJSON_CreateNumber(x));
		int d = (int)(i % 7), same;

		qe_jw_numfmt(&a, x);
		QE_JW_LIT(&a, " ");
		qe_jw_num(&a, x, d);
		qe_jw_numtext(buf, x);
		cj = qe_json_print(num);
		same = strcmp(cj, buf) == 0;
		qe_buf_adds(&r, cj);
		cJSON_free(cj);
		cJSON_Delete(num);
		qe_json_add_rounded(o, "x", x, d);
		cj = qe_json_print(cJSON_GetObjectItem(o, "x"));
		qe_buf_addf(&r, " %s", cj);
		cJSON_free(cj);
		cJSON_Delete(o);
		same = same && strcmp(a.data, r.data) == 0;
		if (!same)
			qe_buf_addf(out, "%a %d: %s != %s (%s)", x, d, a.data, r.data, buf);
		qe_buf_free(&a);
		qe_buf_free(&r);
		if (!same)
			return;
	}
	qe_buf_addf(out, "%ld agree", i);
}

static const struct unit_fn fns[] = {
	{ "random-exact", random_exact },
	{ "value", value },
	{ "numfmt", numfmt },
	{ "random-num", random_num },
	{ "str", str },
	{ "num", num },
	{ "record", record },
	{ "keyfill", keyfill },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
