/* The hand-written record writer (qe_jw.h). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "qe.h"
#include "qe_jw.h"

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

/*
 * Up to n bytes of p escaped at o, which has room for 6 bytes a byte
 * (\u00xx); the end of what was written.
 */
static char *
escape_run(char *o, const unsigned char *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	for (const unsigned char *end = p + n; p < end; p++) {
		char e = esc_of[*p];

		if (e == 0) {
			*o++ = (char)*p;
			continue;
		}
		*o++ = '\\';
		*o++ = e;
		if (e == 'u') {
			*o++ = '0', *o++ = '0';
			*o++ = hex[*p >> 4], *o++ = hex[*p & 15];
		}
	}
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
	size_t n;

	if (s == NULL) {
		qe_buf_adds(b, "null");
		return;
	}
	n = strlen(s);
	qe_buf_grow(b, (n < 4096 ? n : 4096) * 6 + 2);
	b->data[b->len++] = '"';
	for (;;) {
		size_t k = n < 4096 ? n : 4096;

		b->len = (size_t)(escape_run(b->data + b->len, p, k) - b->data);
		p += k, n -= k;
		if (n == 0)
			break;
		qe_buf_grow(b, (n < 4096 ? n : 4096) * 6 + 1);
	}
	b->data[b->len++] = '"';
	b->data[b->len] = '\0';
}

/* The decimal digits of v (>= 0) at o, at least `width` of them. */
static char *
put_digits(char *o, unsigned long long v, int width)
{
	char tmp[24];
	int n = 0;

	do
		tmp[n++] = (char)('0' + v % 10), v /= 10;
	while (v);
	while (n < width)
		tmp[n++] = '0';
	while (n)
		*o++ = tmp[--n];
	return o;
}

void
qe_jw_num(struct qe_buf *b, double x, int decimals)
{
	static const long long pow10[] = { 1, 10, 100, 1000, 10000, 100000, 1000000 };
	char tmp[48], *end;
	long long v, ip, fp;
	int n = 0;

	if (isnan(x) || isinf(x) || fabs(x) > 1e12) {
		if (isnan(x) || isinf(x))
			qe_buf_adds(b, "null");
		else {
			qe_json_numfmt(tmp, x);
			qe_buf_adds(b, tmp);
		}
		return;
	}
	v = llround(x * (double)pow10[decimals]);
	if (v < 0)
		tmp[n++] = '-', v = -v;
	ip = v / pow10[decimals];
	fp = v % pow10[decimals];
	end = put_digits(tmp + n, (unsigned long long)ip, 1);
	if (fp) {
		int d = decimals;

		while (fp % 10 == 0)
			fp /= 10, d--;
		*end++ = '.';
		end = put_digits(end, (unsigned long long)fp, d);
	}
	qe_buf_add(b, tmp, (size_t)(end - tmp));
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
	qe_buf_adds(b, "{\"kind\":");
	qe_jw_str(b, kind);
	qe_buf_adds(b, ",\"schema_version\":" QE_JW_STR(QE_SCHEMA_VERSION));
}

double
qe_jw_round(double x, int decimals)
{
	return round(x * pow10d[decimals]) / pow10d[decimals];
}

void
qe_jw_add_rounded(cJSON *obj, const char *key, double v, int decimals)
{
	if (isnan(v) || isinf(v))
		qe_json_check(cJSON_AddNullToObject(obj, key));
	else
		qe_json_check(cJSON_AddNumberToObject(obj, key, qe_jw_round(v, decimals)));
}
