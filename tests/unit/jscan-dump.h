/*
 * jscan-dump.h - one text for a JSON value, made either by walking it
 * with lib/qe_jscan.c or from cJSON's tree, so the two readers can be
 * compared byte for byte: strings as length:bytes, numbers as %a (exact),
 * members in order. Shared by tests/unit/jscan.c and fuzz/fuzz-lib.c.
 */
#ifndef JSCAN_DUMP_H
#define JSCAN_DUMP_H

#include <string.h>

#include "qe.h"
#include "qe_jscan.h"

static void
dump_bytes(struct qe_buf *o, const char *p, size_t n)
{
	qe_buf_addf(o, "%zu:", n);
	qe_buf_add(o, p, n);
}

/* The value at the cursor; -1 when the reader refused it. */
static int
dump_js(struct qe_jscan *s, struct qe_buf *o)
{
	struct qe_buf t = { 0 };
	const char *k;
	size_t n;
	double d;
	int type = qe_js_type(s), r = -1;

	if (type == QE_JS_OBJ || type == QE_JS_ARR) {
		if (qe_js_enter(s, type) < 0)
			return -1;
		qe_buf_addc(o, type == QE_JS_OBJ ? '{' : '[');
		while ((r = type == QE_JS_OBJ ? qe_js_key(s, &k, &n) : qe_js_elem(s)) == 1) {
			if (type == QE_JS_OBJ)
				dump_bytes(o, k, n);
			if (dump_js(s, o) < 0)
				return -1;
			qe_buf_addc(o, ',');
		}
		qe_buf_addc(o, type == QE_JS_OBJ ? '}' : ']');
	} else if (type == QE_JS_STR) {
		if ((r = qe_js_str_buf(s, &t)) > 0)
			dump_bytes(o, t.data, t.len);
		qe_buf_free(&t);
	} else if (type == QE_JS_NUM) {
		if ((r = qe_js_num(s, &d)) > 0)
			qe_buf_addf(o, "%a", d);
	} else if (type > 0) {
		if ((r = qe_js_skip(s)) > 0)
			qe_buf_adds(o, type == QE_JS_TRUE ? "true" : type == QE_JS_FALSE ? "false" : "null");
	}
	return r < 0 ? -1 : 0;
}

static void
dump_cj(const cJSON *v, struct qe_buf *o)
{
	const cJSON *c;

	if (cJSON_IsObject(v) || cJSON_IsArray(v)) {
		qe_buf_addc(o, cJSON_IsObject(v) ? '{' : '[');
		cJSON_ArrayForEach(c, v) {
			if (cJSON_IsObject(v))
				dump_bytes(o, c->string, strlen(c->string));
			dump_cj(c, o);
			qe_buf_addc(o, ',');
		}
		qe_buf_addc(o, cJSON_IsObject(v) ? '}' : ']');
	} else if (cJSON_IsString(v))
		dump_bytes(o, v->valuestring, strlen(v->valuestring));
	else if (cJSON_IsNumber(v))
		qe_buf_addf(o, "%a", v->valuedouble);
	else
		qe_buf_adds(o, cJSON_IsTrue(v) ? "true" : cJSON_IsFalse(v) ? "false" : "null");
}

/* The whole text by the pull reader: 0 with its dump, or -1 (refused). */
static int
dump_text_js(const char *s, size_t n, struct qe_buf *o)
{
	struct qe_jscan js = { 0 };
	int r;

	qe_js_init(&js, s, n);
	r = dump_js(&js, o) < 0 || qe_js_done(&js) < 0 ? -1 : 0;
	qe_js_free(&js);
	return r;
}

/*
 * The whole text as the tools took it before the pull reader: no NUL,
 * UTF-8, no raw control character or \u0000 in a string, cJSON's parse
 * with only " \t\r\n" after it, every number finite. 0 with its dump, or -1.
 */
static int
dump_text_cj(const char *s, size_t n, struct qe_buf *o)
{
	const char *end = NULL;
	int nul;
	cJSON *v;

	if (memchr(s, '\0', n) || qe_utf8_valid(s, n) != n || qe_json_bad_char(s, n, &nul) >= 0)
		return -1;
	if ((v = cJSON_ParseWithLengthOpts(s, n, &end, 0)) == NULL)
		return -1;
	while (end < s + n && strchr(" \t\r\n", *end))
		end++;
	if (end != s + n || qe_json_nonfinite(v)) {
		cJSON_Delete(v);
		return -1;
	}
	dump_cj(v, o);
	cJSON_Delete(v);
	return 0;
}

/*
 * What the NDJSON reader said of a line before the one reader (cJSON's
 * parse after the checks of qe_json.c): "ok", or "REASON at column N" /
 * "REASON", into o. The reference qe_js_check() is held to (it must say
 * the same wherever this refuses).
 */
static void
why_before(const char *s, size_t n, struct qe_buf *o)
{
	const char *end = NULL;
	char why[64];
	size_t bad;
	long at, deep;
	int nul;
	cJSON *v;

	if (memchr(s, '\0', n) != NULL) {
		qe_buf_addf(o, "NUL byte at column %ld", (long)((const char *)memchr(s, '\0', n) - s) + 1);
		return;
	}
	if ((bad = qe_utf8_valid(s, n)) != n) {
		qe_buf_addf(o, "invalid UTF-8 at column %zu", bad + 1);
		return;
	}
	if ((at = qe_json_bad_char(s, n, &nul)) >= 0) {
		qe_buf_addf(o, "%s at column %ld", qe_json_bad_char_reason(s, at, nul, why, sizeof why), at + 1);
		return;
	}
	if ((v = cJSON_ParseWithLengthOpts(s, n, &end, 0)) == NULL) {
		deep = qe_json_too_deep(s, end ? (size_t)(end - s) + 1 : n);
		if (deep >= 0)
			qe_buf_addf(o, "nesting deeper than 1000 levels at column %ld", deep + 1);
		else if (end)
			qe_buf_addf(o, "invalid JSON at column %ld", (long)(end - s) + 1);
		else
			qe_buf_adds(o, "invalid JSON");
		return;
	}
	end += strspn(end, " \t");
	if (end != s + n)
		qe_buf_addf(o, "trailing data after JSON value at column %ld", (long)(end - s) + 1);
	else if (!cJSON_IsObject(v))
		qe_buf_adds(o, "not a JSON object");
	else if (qe_json_nonfinite(v->child))
		qe_buf_adds(o, "number out of range (beyond a double's 1.8e308)");
	else
		qe_buf_adds(o, "ok");
	cJSON_Delete(v);
}

/* qe_js_check()'s answer for an NDJSON line in the tools' words, into o. */
static void
why_now(const char *s, size_t n, struct qe_buf *o)
{
	struct qe_js_error e;

	if (qe_js_check(s, n, QE_JS_OBJECT | QE_JS_SPTAB, &e) == 0)
		qe_buf_adds(o, "ok");
	else if (e.code == QE_JSE_NOTOBJ || e.code == QE_JSE_RANGE)
		qe_buf_adds(o, e.reason);
	else
		qe_buf_addf(o, "%s at column %zu", e.reason, e.offset + 1);
}

#endif /* JSCAN_DUMP_H */
