/* The pull reader over a JSON text in memory (qe_jscan.h). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "qe_utf8.h"
#include "qe_json.h"
#include "qe_sha.h"
#include "qe_jscan.h"

#define QE_JS_STR2(x) #x
#define QE_JS_STR(x) QE_JS_STR2(x)

/* The words of a refusal; a control character's into buf. */
static const char *
reason(int code, const char *at, char *buf, size_t size)
{
	switch (code) {
	case QE_JSE_SYNTAX:
		return "invalid JSON";
	case QE_JSE_DEEP:
		return "nesting deeper than " QE_JS_STR(QE_JS_MAXDEPTH) " levels";
	case QE_JSE_RANGE:
		return "number out of range (beyond a double's 1.8e308)";
	case QE_JSE_CTRL:
	case QE_JSE_NULESC:
		return qe_json_bad_char_reason(at, 0, code == QE_JSE_NULESC, buf, size);
	case QE_JSE_UTF8:
		return "invalid UTF-8";
	case QE_JSE_NUL:
		return "NUL byte";
	case QE_JSE_TRAILING:
		return "trailing data after JSON value";
	case QE_JSE_NOTOBJ:
		return "not a JSON object";
	default:
		return "";
	}
}

/* *e: code at offset off of text[0..n) (a syntax error's at most at the last byte, as cJSON's). */
static void
set_error(struct qe_js_error *e, const char *text, size_t n, size_t off, int code)
{
	e->offset = off < n ? off : n > 0 ? n - 1 : 0;
	e->code = code;
	e->reason = reason(code, text + e->offset, e->buf, sizeof e->buf);
}

/* The first failure: code at offset off of the text; sticky. */
static int __attribute__((cold, noinline))
fail_off(struct qe_jscan *s, size_t off, int code)
{
	if (!s->fail)
		set_error(&s->err, s->text, (size_t)(s->end - s->text), off, code);
	s->fail = 1;
	return QE_JS_ERR;
}

/* A syntax error at the cursor. */
static int
fail(struct qe_jscan *s)
{
	return fail_off(s, (size_t)(s->p - s->text), QE_JSE_SYNTAX);
}

void
qe_js_init(struct qe_jscan *s, const char *text, size_t n)
{
	s->p = text;
	s->end = text + n;
	s->depth = 0;
	s->first = 0;
	s->fail = 0;
	s->trusted = 0;
	s->text = text;
	s->err.code = QE_JSE_NONE;
	s->err.offset = 0;
	s->err.reason = "";
	s->range_later = 0;
	s->range_at = SIZE_MAX;
	qe_buf_reset(&s->key);
	qe_buf_reset(&s->esc);
}

void
qe_js_free(struct qe_jscan *s)
{
	qe_buf_free(&s->key);
	qe_buf_free(&s->esc);
}

static void
ws(struct qe_jscan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\n' || *s->p == '\r' || *s->p == '\t'))
		s->p++;
}

#if defined(__x86_64__) && defined(__GNUC__) && defined(__SSE2__)
#define QE_JS_AVX2 1
#include <immintrin.h>

/*
 * qe_js_plain_end() 64 bytes a step in two 32-byte blocks, for the long
 * runs (a base64 image is most of a notebook's bytes): half the
 * instructions of the SSE2 loop. Built for AVX2 whatever the compiler's
 * -march, called only when the CPU has it (plain_end()).
 */
__attribute__((target("avx2"))) static const char *
plain_end_avx2(const char *p, const char *end)
{
	const __m256i q = _mm256_set1_epi8('"'), b = _mm256_set1_epi8('\\'), c = _mm256_set1_epi8(0x20);

	for (; end - p >= 64; p += 64) {
		__m256i v0 = _mm256_loadu_si256((const __m256i *)(const void *)p);
		__m256i v1 = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32));
		/* signed: 0x20 > v is a control character or a byte above 0x7f */
		__m256i m0 = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(v0, q), _mm256_cmpeq_epi8(v0, b)),
		    _mm256_cmpgt_epi8(c, v0));
		__m256i m1 = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(v1, q), _mm256_cmpeq_epi8(v1, b)),
		    _mm256_cmpgt_epi8(c, v1));
		__m256i m = _mm256_or_si256(m0, m1);

		if (!_mm256_testz_si256(m, m))
			return p + __builtin_ctzll((uint64_t)(uint32_t)_mm256_movemask_epi8(m0) |
			    (uint64_t)(uint32_t)_mm256_movemask_epi8(m1) << 32);
	}
	return qe_js_plain_end(p, end);
}

static int use_avx2 = -1;	/* -1: ask the CPU at the first long string */
#endif

void
qe_js_allow_avx2(int on)
{
#ifdef QE_JS_AVX2
	use_avx2 = on ? -1 : 0;
#else
	(void)on;
#endif
}

/*
 * qe_js_plain_end(), by AVX2 past the first 32 bytes when the CPU has it:
 * most strings (a key, a line of text) end in those 32, the rest are
 * often long.
 */
static inline const char *
plain_end(const char *p, const char *end)
{
#ifdef QE_JS_AVX2
	unsigned m;

	if (end - p >= 32) {
		if ((m = qe_js_special16(p)) != 0)
			return p + __builtin_ctz(m);
		if ((m = qe_js_special16(p + 16)) != 0)
			return p + 16 + __builtin_ctz(m);
		p += 32;	/* plain: not scanned again below */
		if (use_avx2 < 0)
			use_avx2 = __builtin_cpu_supports("avx2") != 0;
		if (use_avx2)
			return plain_end_avx2(p, end);
	}
#endif
	return qe_js_plain_end(p, end);
}

/*
 * The first byte at or after p that ends a run of a string: '"', '\\', a
 * control character or a byte that is not well-formed UTF-8; or end.
 */
static const char *
run_end(const char *p, const char *end)
{
	long cp;
	size_t n;

	for (;;) {
		p = plain_end(p, end);
		if (p >= end || (unsigned char)*p < 0x80)
			return p;	/* the end, '"', '\\' or a control character */
		n = qe_utf8_next((const unsigned char *)p, (size_t)(end - p), &cp);
		if (cp < 0)
			return p;
		p += n;
	}
}

static long
hex4(const char *p)
{
	long v = 0;

	for (int i = 0; i < 4; i++) {
		int d = qe_sha_hexval((unsigned char)p[i]);

		if (d < 0)
			return -1;
		v = v << 4 | d;
	}
	return v;
}

/* The decoded byte of each one-letter escape, NUL for the rest (a NUL byte is no escape of these). */
static const char one_letter[128] = {
	['"'] = '"', ['\\'] = '\\', ['/'] = '/', ['b'] = '\b', ['f'] = '\f', ['n'] = '\n', ['r'] = '\r',
	['t'] = '\t',
};

/*
 * The escape at p (p[0] == '\\') decoded as cJSON decodes it: its bytes
 * in *d (one_letter's for a one-letter escape, so "\n" at the end of each
 * line of text costs no copy; else s->esc's), their length in *dn; the
 * bytes it takes, or 0 when cJSON would refuse it or it is \u0000.
 */
static size_t
escape(struct qe_jscan *s, const char *p, const char **d, size_t *dn)
{
	long cp, lo;
	size_t n;
	unsigned char c = p + 1 < s->end ? (unsigned char)p[1] : 0;

	if (c < 128 && one_letter[c] != '\0') {
		*d = &one_letter[c];
		*dn = 1;
		return 2;
	}
	if (s->end - p < 6 || p[1] != 'u' || (cp = hex4(p + 2)) <= 0 || (cp >= 0xdc00 && cp <= 0xdfff))
		return 0;
	if (cp < 0xd800 || cp > 0xdbff)
		n = 6;
	else if (s->end - p < 12 || p[6] != '\\' || p[7] != 'u' || (lo = hex4(p + 8)) < 0xdc00 || lo > 0xdfff)
		return 0;
	else {			/* a surrogate pair */
		cp = 0x10000 + (((cp & 0x3ff) << 10) | (lo & 0x3ff));
		n = 12;
	}
	qe_buf_reset(&s->esc);
	qe_utf8_put(&s->esc, cp);
	*d = s->esc.data;
	*dn = s->esc.len;
	return n;
}

/*
 * The first '"' or '\\' at or after p in a string already validated, or end:
 * one pass (a memchr for the quote from each run would scan the rest of the
 * string again for every escape in it).
 */
static const char *
run_end_trusted(const char *p, const char *end)
{
#ifdef __SSE2__
	const __m128i q = _mm_set1_epi8('"'), b = _mm_set1_epi8('\\');

	for (; end - p >= 16; p += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, q),
		    _mm_cmpeq_epi8(v, b)));

		if (m)
			return p + __builtin_ctz(m);
	}
#endif
	while (p < end && *p != '"' && *p != '\\')
		p++;
	return p;
}

/*
 * 1 when the string whose first byte after the quote is p ends before end,
 * as cJSON's first scan finds its end (a backslash takes the next byte).
 */
static int
terminated(const char *p, const char *end)
{
	for (; p < end && *p != '"'; p++)
		if (*p == '\\' && ++p >= end)
			return 0;
	return p < end;
}

/*
 * The string at s->p stopped at q: a control character, a byte that is not
 * UTF-8, or an escape cJSON refuses or \u0000 (as cJSON, which checks the
 * string's end first, says: an unterminated string is said after its quote).
 */
static int __attribute__((cold, noinline))
bad_in_string(struct qe_jscan *s, const char *q)
{
	size_t off = (size_t)(q - s->text);

	if ((unsigned char)*q < 0x20)
		return fail_off(s, off, QE_JSE_CTRL);
	if (*q != '\\')
		return fail_off(s, off, QE_JSE_UTF8);
	if (!terminated(s->p + 1, s->end))
		return fail_off(s, (size_t)(s->p + 1 - s->text), QE_JSE_SYNTAX);
	if (s->end - q >= 6 && memcmp(q + 1, "u0000", 5) == 0)
		return fail_off(s, off, QE_JSE_NULESC);
	return fail_off(s, off, QE_JSE_SYNTAX);
}

int
qe_js_str(struct qe_jscan *s, qe_js_sink fn, void *arg)
{
	const char *p, *q, *d;
	size_t n, dn;

	if (s->fail || qe_js_type(s) != QE_JS_STR)
		return fail(s);
	for (p = s->p + 1;; p = q) {
		q = s->trusted ? run_end_trusted(p, s->end) : run_end(p, s->end);
		if (q > p && fn)
			fn(arg, p, (size_t)(q - p));
		if (q >= s->end)	/* unterminated: cJSON points after the quote */
			return fail_off(s, (size_t)(s->p + 1 - s->text), QE_JSE_SYNTAX);
		if (*q == '"')
			break;
		if (*q != '\\' || (n = escape(s, q, &d, &dn)) == 0)
			return bad_in_string(s, q);
		if (fn)
			fn(arg, d, dn);
		q += n;
	}
	s->p = q + 1;
	return QE_JS_STR;
}

void
qe_js_sink_buf(void *arg, const char *p, size_t n)
{
	qe_buf_add(arg, p, n);
}

int
qe_js_str_buf(struct qe_jscan *s, struct qe_buf *out)
{
	qe_buf_grow(out, 0);	/* "" even when the string is empty */
	return qe_js_str(s, qe_js_sink_buf, out);
}

/*
 * The length of the RFC 8259 number at p, or 0 with *bad the offset of the
 * byte where it stops being one; *exp when it has an exponent.
 */
static size_t
num_len(const char *p, const char *end, int *exp, size_t *bad)
{
	const char *q = p;

	*exp = 0;
	if (q < end && *q == '-')
		q++;
	if (q < end && *q == '0')
		q++;
	else if (q < end && *q >= '1' && *q <= '9')
		while (q < end && *q >= '0' && *q <= '9')
			q++;
	else
		goto bad;
	if (q < end && *q == '.') {
		if (++q >= end || *q < '0' || *q > '9')
			goto bad;
		while (q < end && *q >= '0' && *q <= '9')
			q++;
	}
	if (q < end && (*q == 'e' || *q == 'E')) {
		*exp = 1;
		if (++q < end && (*q == '+' || *q == '-'))
			q++;
		if (q >= end || *q < '0' || *q > '9')
			goto bad;
		while (q < end && *q >= '0' && *q <= '9')
			q++;
	}
	return (size_t)(q - p);
bad:
	*bad = (size_t)(q - p);
	return 0;
}

/* strtod of p[0..n), NUL-terminated in a copy; *used: how many bytes it read. */
static double
strtod_n(const char *p, size_t n, size_t *used)
{
	char buf[64], *b = n < sizeof buf ? buf : qe_xmalloc(n + 1), *e;
	double v;

	memcpy(b, p, n);
	b[n] = '\0';
	v = strtod(b, &e);
	*used = (size_t)(e - b);
	if (b != buf)
		free(b);
	return v;
}

/* The SP and TAB at p (before end). */
static size_t
strspn_n(const char *p, const char *end)
{
	const char *q = p;

	while (q < end && (*q == ' ' || *q == '\t'))
		q++;
	return (size_t)(q - p);
}

/*
 * A number refused (not RFC 8259's, bad at offset `bad`): where cJSON
 * points when it refuses the same bytes (after what strtod reads of its
 * [0-9+-eE.]: at p when nothing), else (cJSON reads more: "1.", "-.5")
 * where the number goes wrong.
 */
static int __attribute__((cold, noinline))
bad_number(struct qe_jscan *s, size_t bad)
{
	size_t n = 0, c;

	while (s->p + n < s->end && s->p[n] != '\0' && strchr("0123456789+-eE.", s->p[n]))
		n++;
	(void)strtod_n(s->p, n, &c);
	/* the whole text a number: cJSON took what strtod read, the rest is trailing data */
	if (s->depth == 0 && c > 0 && c <= bad)
		return fail_off(s, (size_t)(s->p - s->text) + c + strspn_n(s->p + c, s->end), QE_JSE_TRAILING);
	return fail_off(s, (size_t)(s->p - s->text) + (bad < c ? bad : c), QE_JSE_SYNTAX);
}

/* Pass a number; its value in *d when d is not NULL (or it has an exponent). */
/*
 * A number without exponent of at most 15 digits in all, read exactly (1)
 * as strtod reads it, or 0 when strtod must. Its digits as an integer m
 * below 10^15 < 2^53 and 10^k (k <= 15) are both exact doubles, so m / 10^k
 * is the double nearest the decimal value (one correctly rounded division:
 * Clinger's fast path), as strtod's result is; -0 stays -0.
 */
static int
decimal(const char *p, size_t n, double *d)
{
	static const double p10[] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8,
	    1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15 };
	double m = 0;
	int digits = 0, k = -1;

	for (size_t i = *p == '-'; i < n; i++) {
		if (p[i] == '.') {
			k = 0;
			continue;
		}
		m = m * 10 + (p[i] - '0');
		digits++;
		k += k >= 0;
	}
	if (digits > 15)
		return 0;
	m = k > 0 ? m / p10[k] : m;
	*d = *p == '-' ? -m : m;
	return 1;
}

static int
number(struct qe_jscan *s, double *d)
{
	int exp;
	size_t bad = 0, used, n = num_len(s->p, s->end, &exp, &bad);
	double v;

	if (n == 0)
		return bad_number(s, bad);
	if (d != NULL && !exp && decimal(s->p, n, d)) {
		/* exact: strtod's value */
	} else if (d != NULL || exp || n > 309) {
		/* (without an exponent, more than 309 digits may be beyond a double) */
		v = strtod_n(s->p, n, &used);
		if (!isfinite(v)) {	/* qe_json_nonfinite() refuses it */
			if (!s->range_later)
				return fail_off(s, (size_t)(s->p - s->text), QE_JSE_RANGE);
			if (s->range_at == SIZE_MAX)
				s->range_at = (size_t)(s->p - s->text);
		}
		if (d != NULL)
			*d = v;
	}
	s->p += n;
	return QE_JS_NUM;
}

int
qe_js_num(struct qe_jscan *s, double *d)
{
	if (s->fail || qe_js_type(s) != QE_JS_NUM)
		return fail(s);
	return number(s, d);
}

int
qe_js_type(struct qe_jscan *s)
{
	if (s->fail)
		return QE_JS_ERR;
	ws(s);
	if (s->p >= s->end)
		return fail(s);
	switch (*s->p) {
	case '{':
		return QE_JS_OBJ;
	case '[':
		return QE_JS_ARR;
	case '"':
		return QE_JS_STR;
	case 't':
		return QE_JS_TRUE;
	case 'f':
		return QE_JS_FALSE;
	case 'n':
		return QE_JS_NULL;
	default:
		return *s->p == '-' || (*s->p >= '0' && *s->p <= '9') ? QE_JS_NUM : fail(s);
	}
}

int
qe_js_enter(struct qe_jscan *s, int type)
{
	if (qe_js_type(s) != type || (type != QE_JS_OBJ && type != QE_JS_ARR))
		return fail(s);
	if (s->depth >= QE_JS_MAXDEPTH)
		return fail_off(s, (size_t)(s->p - s->text), QE_JSE_DEEP);
	s->p++;
	s->depth++;
	s->first = 1;
	return 0;
}

/* Before a member or element: 1 one follows, 0 the container was left. */
static int
next(struct qe_jscan *s, char close)
{
	if (s->fail)
		return QE_JS_ERR;
	ws(s);
	if (s->p < s->end && *s->p == close) {
		s->p++;
		s->depth--;
		s->first = 0;
		return 0;
	}
	if (!s->first) {
		if (s->p >= s->end || *s->p != ',')
			return fail(s);
		s->p++;
	}
	s->first = 0;
	return 1;
}

int
qe_js_key(struct qe_jscan *s, const char **k, size_t *n)
{
	const char *q;
	int r = next(s, '}');

	if (r <= 0)
		return r;
	ws(s);
	if (s->p >= s->end || *s->p != '"')	/* cJSON points after the byte that is no key */
		return fail_off(s, (size_t)(s->p - s->text) + 1, QE_JSE_SYNTAX);
	q = run_end(s->p + 1, s->end);
	if (q < s->end && *q == '"') {
		*k = s->p + 1;
		*n = (size_t)(q - *k);
		s->p = q + 1;
	} else {
		qe_buf_reset(&s->key);
		if (qe_js_str_buf(s, &s->key) < 0)
			return QE_JS_ERR;
		*k = s->key.data;
		*n = s->key.len;
	}
	ws(s);
	if (s->p >= s->end || *s->p != ':')
		return fail(s);
	s->p++;
	return 1;
}

int
qe_js_elem(struct qe_jscan *s)
{
	int r = next(s, ']');

	/* "[1,]": an element must follow the comma */
	if (r == 1 && qe_js_type(s) == QE_JS_ERR)
		return QE_JS_ERR;
	return r;
}

static int
literal(struct qe_jscan *s, const char *word, int type)
{
	size_t n = strlen(word);

	if ((size_t)(s->end - s->p) < n || memcmp(s->p, word, n) != 0)
		return fail(s);
	s->p += n;
	return type;
}

int
qe_js_skip(struct qe_jscan *s)
{
	const char *k;
	size_t n;
	int t = qe_js_type(s), r;

	switch (t) {
	case QE_JS_OBJ:
	case QE_JS_ARR:
		if (qe_js_enter(s, t) < 0)
			return QE_JS_ERR;
		while ((r = t == QE_JS_OBJ ? qe_js_key(s, &k, &n) : qe_js_elem(s)) == 1)
			if (qe_js_skip(s) < 0)
				return QE_JS_ERR;
		return r < 0 ? QE_JS_ERR : t;
	case QE_JS_STR:
		return qe_js_str(s, NULL, NULL);
	case QE_JS_NUM:
		return number(s, NULL);
	case QE_JS_TRUE:
		return literal(s, "true", t);
	case QE_JS_FALSE:
		return literal(s, "false", t);
	case QE_JS_NULL:
		return literal(s, "null", t);
	default:
		return QE_JS_ERR;
	}
}

int
qe_js_done(struct qe_jscan *s)
{
	if (s->fail)
		return QE_JS_ERR;
	ws(s);
	return s->p == s->end ? 0 : fail_off(s, (size_t)(s->p - s->text), QE_JSE_TRAILING);
}

size_t
qe_js_bom(const char *s, size_t n)
{
	return n >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
}

/* e from the reader's first failure (its words in e's own buffer). */
static void
copy_error(struct qe_js_error *e, const struct qe_js_error *from)
{
	*e = *from;
	if (from->reason == from->buf)
		e->reason = e->buf;
}

/*
 * s[0..n) walked whole as one value (range_later: a number out of range
 * said after the rest, as the tools said it): 0, or -1 with *e.
 */
static int
walk_whole(const char *s, size_t n, unsigned flags, int range_later, struct qe_js_error *e)
{
	struct qe_jscan js = { 0 };
	const char *p, *end = s + n;
	int type, r = -1;

	qe_js_init(&js, s, n);
	js.range_later = range_later;
	type = qe_js_type(&js);
	if (qe_js_skip(&js) < 0)
		copy_error(e, &js.err);
	else {
		for (p = js.p; p < end && (*p == ' ' || *p == '\t' ||
		    (!(flags & QE_JS_SPTAB) && (*p == '\n' || *p == '\r'))); p++)
			;
		if (p != end)
			set_error(e, s, n, (size_t)(p - s), QE_JSE_TRAILING);
		else if ((flags & QE_JS_OBJECT) && type != QE_JS_OBJ)
			set_error(e, s, n, 0, QE_JSE_NOTOBJ);
		else if (js.range_at != SIZE_MAX)
			set_error(e, s, n, js.range_at, QE_JSE_RANGE);
		else
			r = 0;
	}
	qe_js_free(&js);
	return r;
}

int
qe_js_check(const char *s, size_t n, unsigned flags, struct qe_js_error *e)
{
	const char *p;
	size_t bad;
	long at;
	int nul;

	/* a good text costs one walk: the walk refuses all that the checks below find */
	if (walk_whole(s, n, flags, 0, e) == 0) {
		set_error(e, s, n, 0, QE_JSE_NONE);
		return 0;
	}
	if ((p = memchr(s, '\0', n)) != NULL)
		set_error(e, s, n, (size_t)(p - s), QE_JSE_NUL);
	else if ((bad = qe_utf8_valid(s, n)) != n)
		set_error(e, s, n, bad, QE_JSE_UTF8);
	else if ((at = qe_json_bad_char(s, n, &nul)) >= 0)
		set_error(e, s, n, (size_t)at, nul ? QE_JSE_NULESC : QE_JSE_CTRL);
	else
		return walk_whole(s, n, flags, 1, e);
	return -1;
}
