/* The hand-written record writer (qe_jw.h). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qe.h"
#include "qe_jw.h"

#ifndef QE_SCHEMA_VERSION
#error "QE_SCHEMA_VERSION (qe.h) is written into every record: include qe.h"
#endif

#define QE_JW_STR_(x) #x
#define QE_JW_STR(x) QE_JW_STR_(x)

static const double pow10d[] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6 };

/*
 * What a byte becomes in a JSON string: 0 as is, else the letter of its
 * named escape, or 'u' for \u00xx.
 */
static const char esc_of[256] = {
	['\b'] = 'b', ['\f'] = 'f', ['\n'] = 'n', ['\r'] = 'r', ['\t'] = 't',
	[0x00] = 'u', [0x01] = 'u', [0x02] = 'u', [0x03] = 'u', [0x04] = 'u',
	[0x05] = 'u', [0x06] = 'u', [0x07] = 'u', [0x0b] = 'u', [0x0e] = 'u',
	[0x0f] = 'u', [0x10] = 'u', [0x11] = 'u', [0x12] = 'u', [0x13] = 'u',
	[0x14] = 'u', [0x15] = 'u', [0x16] = 'u', [0x17] = 'u', [0x18] = 'u',
	[0x19] = 'u', [0x1a] = 'u', [0x1b] = 'u', [0x1c] = 'u', [0x1d] = 'u',
	[0x1e] = 'u', [0x1f] = 'u', ['"'] = '"', ['\\'] = '\\',
};

#define ONES	0x0101010101010101ULL
#define HIGHS	0x8080808080808080ULL

/* 1 if any of the eight bytes of w is '"', '\\' or below 0x20 (those escaped). */
static int
escaped8(uint64_t w)
{
	uint64_t q = w ^ (ONES * '"'), b = w ^ (ONES * '\\');

	return (((w - ONES * 0x20) | (q - ONES) | (b - ONES)) & ~w & HIGHS) != 0;
}

/* One byte escaped at o (its bytes as they are when it needs no escape); the end. */
static char *
escape_byte(char *o, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";
	char e = esc_of[c];

	if (e == 0) {
		*o++ = (char)c;
		return o;
	}
	*o++ = '\\';
	*o++ = e;
	if (e == 'u') {
		*o++ = '0', *o++ = '0';
		*o++ = hex[c >> 4], *o++ = hex[c & 15];
	}
	return o;
}

/*
 * Up to n bytes of p escaped at o, which has room for 6 bytes a byte
 * (\u00xx); the end of what was written. Eight bytes a step while none of
 * them is escaped, else those eight one by one.
 */
static char *
escape_run(char *o, const unsigned char *p, size_t n)
{
	const unsigned char *end = p + n;
	uint64_t w;

	while (end - p >= 8) {
		memcpy(&w, p, 8);
		if (!escaped8(w)) {
			memcpy(o, p, 8);
			o += 8, p += 8;
			continue;
		}
		for (int i = 0; i < 8; i++)
			o = escape_byte(o, *p++);
	}
	while (p < end)
		o = escape_byte(o, *p++);
	return o;
}

/*
 * The string goes in pieces of at most 4 KiB, each into room reserved once
 * for its worst case: a table lookup a byte, no call a run.
 */
void
qe_jw_str(struct qe_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n, k;

	if (s == NULL) {
		qe_jw_raw(b, "null", 4);
		return;
	}
	n = strlen(s);
	k = n < 4096 ? n : 4096;
	if (b->cap - b->len <= k * 6 + 2)
		qe_buf_grow(b, k * 6 + 2);
	b->data[b->len++] = '"';
	for (;;) {
		b->len = (size_t)(escape_run(b->data + b->len, p, k) - b->data);
		p += k, n -= k;
		if (n == 0)
			break;
		k = n < 4096 ? n : 4096;
		qe_buf_grow(b, k * 6 + 1);
	}
	b->data[b->len++] = '"';
	b->data[b->len] = '\0';
}

/* The decimal digits of v (>= 0) at o, at least `width` (<= 20) of them: two digits a step. */
static char *
put_digits(char *o, unsigned long long v, int width)
{
	static const char d2[] =
	    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	    "8081828384858687888990919293949596979899";
	unsigned long long t = v;
	int n = 1;
	char *e;

	while (t >= 10)
		t /= 10, n++;
	e = o + (n > width ? n : width);
	for (o = e; v >= 100; v /= 100) {
		o -= 2;
		memcpy(o, d2 + 2 * (v % 100), 2);
	}
	if (v >= 10) {
		o -= 2;
		memcpy(o, d2 + 2 * v, 2);
	} else
		*--o = (char)('0' + v);
	while (o > e - width)
		*--o = '0';
	return e;
}

/*
 * y rounded half away from zero, as llround() rounds it (|y| < 2^63): y
 * less its integer part is exact (below 2^53 the integer part is an exact
 * double; from there y is an integer), so one compare with 0.5 decides.
 */
static long long
round_half_away(double y)
{
	long long t = (long long)y;	/* toward zero */
	double f = y - (double)t;

	if (f >= 0.5)
		t++;
	else if (f <= -0.5)
		t--;
	return t;
}

/*
 * 0 < av / 10^decimals < 1e-4 (so av < 100) as %.15g writes it: "De-0N"
 * or "D.De-0N", the exponent -5 or -6. At o, NUL-terminated; the end.
 */
static char *
put_tiny(char *o, long long av, int decimals)
{
	int e = decimals - (av >= 10);

	if (av >= 10 && av % 10 == 0)
		av /= 10;
	if (av >= 10) {
		*o++ = (char)('0' + av / 10);
		*o++ = '.';
		*o++ = (char)('0' + av % 10);
	} else
		*o++ = (char)('0' + av);
	*o++ = 'e', *o++ = '-', *o++ = '0';
	*o++ = (char)('0' + e);
	*o = '\0';
	return o;
}

/*
 * x rounded to `decimals` decimals, in qe_jw_numtext()'s form. Below 1e9
 * in magnitude the rounded value has at most 15 significant digits, so
 * %.15g's text is its digits, written by hand from the rounded integer v:
 * without an exponent from 1e-4 (|v| >= lo below), with one below
 * (put_tiny). From 1e9 (|v| >= hi: 16 or 17 digits may be needed) and
 * beyond 1e12, qe_jw_numfmt of the rounded double.
 */
void
qe_jw_num(struct qe_buf *b, double x, int decimals)
{
	static const long long pow10[] = { 1, 10, 100, 1000, 10000, 100000, 1000000 };
	/* |v| / 10^decimals >= 1e-4 and < 1e9, for a rounded integer v */
	static const long long lo[] = { 1, 1, 1, 1, 1, 10, 100 };
	static const long long hi[] = { 1000000000LL, 10000000000LL, 100000000000LL,
		1000000000000LL, 10000000000000LL, 100000000000000LL, 1000000000000000LL };
	char *o;
	long long v, av, ip, fp;

	if (!(fabs(x) <= 1e12)) {	/* NaN and the infinities too: one compare */
		if (isnan(x) || isinf(x))
			qe_jw_raw(b, "null", 4);
		else
			qe_jw_numfmt(b, qe_jw_round(x, decimals));
		return;
	}
	v = round_half_away(x * (double)pow10[decimals]);
	av = v < 0 ? -v : v;
	if (av >= hi[decimals]) {
		qe_jw_numfmt(b, (double)v / pow10d[decimals]);
		return;
	}
	/* written in place: a sign, at most 19 digits, a point and 6 digits */
	if (b->cap - b->len <= 32)
		qe_buf_grow(b, 32);
	o = b->data + b->len;
	if (v < 0)
		*o++ = '-';
	if (av < lo[decimals] && av != 0) {
		b->len = (size_t)(put_tiny(o, av, decimals) - b->data);
		return;
	}
	ip = av / pow10[decimals];
	fp = av % pow10[decimals];
	o = put_digits(o, (unsigned long long)ip, 1);
	if (fp) {
		int d = decimals;

		while (fp % 10 == 0)
			fp /= 10, d--;
		*o++ = '.';
		o = put_digits(o, (unsigned long long)fp, d);
	}
	*o = '\0';
	b->len = (size_t)(o - b->data);
}

int
qe_jw_numtext(char *buf, double d)
{
	int n = 0;

	if (!isfinite(d))
		return snprintf(buf, 32, "null");
	if (d == 0)
		return snprintf(buf, 32, "0");
	for (int prec = 15; prec <= 17; prec++) {
		n = snprintf(buf, 32, "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	return n;
}

/*
 * An integer below 1e15 in magnitude is its digits (%.15g's, and cJSON's
 * %d within int), else qe_jw_numtext()'s text (-0 as 0, not finite as
 * null).
 */
void
qe_jw_numfmt(struct qe_buf *b, double x)
{
	char tmp[32], *end = tmp;

	if (x == floor(x) && fabs(x) < 1e15) {	/* NaN and the infinities fail */
		long long v = (long long)x;

		if (v < 0)
			*end++ = '-', v = -v;
		end = put_digits(end, (unsigned long long)v, 1);
		qe_jw_raw(b, tmp, (size_t)(end - tmp));
		return;
	}
	qe_jw_raw(b, tmp, (size_t)qe_jw_numtext(tmp, x));
}

/* One byte of JSON punctuation. */
static inline void
put_c(struct qe_buf *b, char c)
{
	if (b->cap - b->len <= 1)
		qe_buf_grow(b, 1);
	b->data[b->len++] = c;
	b->data[b->len] = '\0';
}

/*
 * The tree, compact: members in their order, keys and strings escaped by
 * qe_jw_str (a NULL key or string as ""), numbers by qe_jw_numfmt, raw
 * items as their text.
 */
void
qe_jw_value(struct qe_buf *b, const cJSON *v)
{
	const cJSON *c;
	int obj = cJSON_IsObject(v);

	switch (v->type & 0xFF) {
	case cJSON_NULL:
		qe_jw_raw(b, "null", 4);
		return;
	case cJSON_False:
		qe_jw_raw(b, "false", 5);
		return;
	case cJSON_True:
		qe_jw_raw(b, "true", 4);
		return;
	case cJSON_Number:
		qe_jw_numfmt(b, v->valuedouble);
		return;
	case cJSON_Raw:
		qe_buf_adds(b, v->valuestring ? v->valuestring : "");
		return;
	case cJSON_String:
		qe_jw_str(b, v->valuestring ? v->valuestring : "");
		return;
	}
	put_c(b, obj ? '{' : '[');
	for (c = v->child; c != NULL; c = c->next) {
		if (c != v->child)
			put_c(b, ',');
		if (obj) {
			qe_jw_str(b, c->string ? c->string : "");
			put_c(b, ':');
		}
		qe_jw_value(b, c);
	}
	put_c(b, obj ? '}' : ']');
}

void
qe_jw_bool(struct qe_buf *b, int v)
{
	if (v)
		qe_jw_raw(b, "true", 4);
	else
		qe_jw_raw(b, "false", 5);
}

void
qe_jw_key(struct qe_buf *b, const char *k)
{
	size_t n = 0;
	char *o;

	while (k[n] && esc_of[(unsigned char)k[n]] == 0)
		n++;
	if (k[n]) {	/* a byte to escape: the string writer */
		qe_buf_addc(b, ',');
		qe_jw_str(b, k);
		qe_buf_addc(b, ':');
		return;
	}
	qe_buf_grow(b, n + 4);	/* ,"key": is n + 4 bytes */
	o = b->data + b->len;
	*o++ = ',', *o++ = '"';
	memcpy(o, k, n);
	o += n;
	*o++ = '"', *o++ = ':', *o = '\0';
	b->len = (size_t)(o - b->data);
}

void
qe_jw_begin(struct qe_buf *b, const char *kind)
{
	static const char sv[] = ",\"schema_version\":" QE_JW_STR(QE_SCHEMA_VERSION);

	qe_jw_raw(b, "{\"kind\":", 8);
	qe_jw_str(b, kind);
	qe_jw_raw(b, sv, sizeof sv - 1);
}

/* From 2^53 a double is an integer: x as it is (x * 1e6 could overflow to infinity). */
double
qe_jw_round(double x, int decimals)
{
	if (!(fabs(x) < 9007199254740992.0) || decimals < 0 || decimals > 6)
		return x;	/* past the table (0 to 6 decimals): x as it is, never a read past it */
	return round(x * pow10d[decimals]) / pow10d[decimals];
}
