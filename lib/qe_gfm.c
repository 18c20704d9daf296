/* GitHub-flavoured Markdown: the escaper and the pieces of report text (qe_gfm.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qe_mem.h"
#include "qe_utf8.h"
#include "qe_gfm.h"

#define ZWJ		0x200d
#define REPLACEMENT	0xfffd
#define ELLIPSIS	0x2026

long
qe_gfm_visible(long cp)
{
	if (cp < 0)
		return REPLACEMENT;
	if (cp == '\n')
		return 0x2424;
	if (cp < 0x20)
		return 0x2400 + cp;
	if (cp == 0x7f)
		return 0x2421;
	if ((cp >= 0x80 && cp <= 0x9f) || cp == 0x061c || cp == 0x200e || cp == 0x200f ||
	    (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ||
	    cp == 0xfeff || (cp >= 0xe0000 && cp <= 0xe007f))
		return REPLACEMENT;
	return cp;
}

/*
 * Decode s into at most max code points of visible text (with an ellipsis
 * when cut). Returns a NUL-free array of code points and its length.
 */
static long *
decode(const char *s, size_t max, size_t *np)
{
	size_t n = strlen(s), i = 0, k = 0;
	long *v = qe_xmalloc((max + 2) * sizeof *v);

	while (i < n && k < max) {
		long cp;

		i += qe_utf8_next((const unsigned char *)s + i, n - i, &cp);
		v[k++] = qe_gfm_visible(cp);
	}
	if (i < n)
		v[k++] = ELLIPSIS;
	*np = k;
	return v;
}

static int
lower(long cp)
{
	return cp >= 'A' && cp <= 'Z' ? (int)(cp + 32) : (int)cp;
}

/* 1 when v[i - len..i) spells `word` (lower case), ignoring ASCII case. */
static int
after(const long *v, size_t lo, size_t i, const char *word)
{
	size_t len = strlen(word);

	if (i < lo + len)
		return 0;
	for (size_t k = 0; k < len; k++)
		if (lower(v[i - len + k]) != word[k])
			return 0;
	return 1;
}

/* The HTML entity for c, or NULL when c needs none. */
static const char *
entity(long c)
{
	switch (c) {
	case '<':
		return "&lt;";
	case '>':
		return "&gt;";
	case '&':
		return "&amp;";
	case '"':
		return "&quot;";
	case '\'':
		return "&#39;";
	default:
		return NULL;
	}
}

/*
 * One code point v[i] of the text v[lo..hi). `digits_only`: everything
 * before it was a digit, so a '.' here followed by a blank or the end
 * would make "1." start a list; before anything else ("1.26.4", "12.5 s")
 * it cannot (CommonMark 5.2: the marker is followed by a blank or the
 * line's end), and a version or a number reads as it is.
 */
static void
text_cp(struct qe_buf *b, const long *v, size_t i, size_t lo, size_t hi, int digits_only)
{
	long c = v[i];
	int first = i == lo;

	if (entity(c)) {
		qe_buf_adds(b, entity(c));
		return;
	}
	if (c == '.') {
		if (digits_only && !first && (i + 1 == hi || v[i + 1] == ' ' || v[i + 1] == '\t'))
			qe_buf_addc(b, '\\');	/* "1. " would start a list */
		else if (after(v, lo, i, "www"))
			qe_utf8_put(b, ZWJ);
		qe_buf_addc(b, '.');
		return;
	}
	if ((c > 0 && c < 0x80 && strchr("#\\`*_[]()|~!${}^", (int)c)) ||
	    ((c == '-' || c == '+' || c == '=') && first))
		qe_buf_addc(b, '\\');
	qe_utf8_put(b, c);
	/* "#" only refers to an issue before a digit: no invisible joiner elsewhere */
	if (c == '@' || (c == '#' && i + 1 < hi && v[i + 1] >= '0' && v[i + 1] <= '9') ||
	    (c == '-' && after(v, lo, i, "gh")) ||
	    (c == ':' && i + 1 < hi && v[i + 1] == '/'))
		qe_utf8_put(b, ZWJ);
}

size_t
qe_gfm_text(struct qe_buf *b, const char *s, size_t max)
{
	size_t n, lo = 0, hi;
	long *v = decode(s, max, &n);
	int digits_only = 1;

	hi = n;
	while (lo < hi && v[lo] == ' ')
		lo++;
	while (hi > lo && v[hi - 1] == ' ')
		hi--;
	for (size_t i = lo; i < hi; i++) {
		text_cp(b, v, i, lo, hi, digits_only);
		if (!(v[i] >= '0' && v[i] <= '9'))
			digits_only = 0;
	}
	free(v);
	return hi - lo;
}

static void
fence(struct qe_buf *b, size_t n)
{
	for (size_t k = 0; k < n; k++)
		qe_buf_addc(b, '`');
}

void
qe_gfm_code(struct qe_buf *b, const char *s, size_t max, int intable)
{
	size_t n, run = 0, longest = 0;
	long *v = decode(s, max, &n);
	int pad;

	for (size_t i = 0; i < n; i++) {
		run = v[i] == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	pad = n > 0 && (v[0] == '`' || v[0] == ' ' || v[n - 1] == '`' || v[n - 1] == ' ');
	fence(b, longest + 1);
	if (pad)
		qe_buf_addc(b, ' ');
	for (size_t i = 0, bs = 0; i < n; i++) {
		if (v[i] == '|' && intable) {
			if (bs % 2 == 1)
				qe_buf_addc(b, '\\');
			qe_buf_addc(b, '\\');
		}
		bs = v[i] == '\\' ? bs + 1 : 0;
		qe_utf8_put(b, v[i]);
	}
	if (pad)
		qe_buf_addc(b, ' ');
	fence(b, longest + 1);
	free(v);
}

void
qe_gfm_addf(struct qe_buf *b, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n > 0)
		qe_buf_add(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

void
qe_gfm_decimal(struct qe_buf *b, double x, int places)
{
	char tmp[64];
	double scale = pow(10, places), v = round(x * scale) / scale;
	int n;

	if (!isfinite(v)) {
		qe_buf_adds(b, QE_GFM_NONE);	/* NaN, or a sum beyond a double */
		return;
	}
	if (fabs(v) >= 1e17) {	/* as jq: the shortest %g that reads back */
		for (int p = 1; p <= 17; p++)
			if (snprintf(tmp, sizeof tmp, "%.*g", p, v) > 0 && strtod(tmp, NULL) == v)
				break;
		qe_buf_adds(b, tmp);
		return;
	}
	n = snprintf(tmp, sizeof tmp, "%.*f", places, v);
	if (memchr(tmp, '.', (size_t)n)) {
		while (tmp[n - 1] == '0')
			n--;
		if (tmp[n - 1] == '.')
			n--;
	}
	qe_buf_add(b, tmp, (size_t)n);
}

void
qe_gfm_count(struct qe_buf *b, long n)
{
	char tmp[32];
	int len = snprintf(tmp, sizeof tmp, "%ld", n < 0 ? -n : n);

	if (n < 0)
		qe_buf_addc(b, '-');
	for (int i = 0; i < len; i++) {
		if (i > 0 && (len - i) % 3 == 0)
			qe_buf_addc(b, ',');
		qe_buf_addc(b, tmp[i]);
	}
}

void
qe_gfm_magnitude(struct qe_buf *b, double x)
{
	int e;
	double m;

	if (!(x > 0) || isinf(x)) {
		qe_buf_adds(b, QE_GFM_NONE);
		return;
	}
	if (x < 1e4) {
		qe_gfm_addf(b, "%.4g", x);
		return;
	}
	e = (int)floor(log10(x));
	m = round(x / pow(10, e) * 10) / 10;
	if (m >= 10) {
		m /= 10;
		e++;
	}
	qe_gfm_addf(b, m == floor(m) ? "%.0fe%d" : "%.1fe%d", m, e);
}

const char *
qe_gfm_plural(long n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

void
qe_gfm_dur(struct qe_buf *b, double s)
{
	if (isnan(s))
		qe_buf_adds(b, QE_GFM_NONE);
	else if (s < 0 || !(s <= QE_GFM_MAX_S))	/* "<1 ms" or lround's overflow */
		qe_buf_adds(b, QE_GFM_OUT_OF_RANGE);
	else if (s < 0.0005)
		qe_buf_adds(b, "<1\xc2\xa0ms");
	else if (s < 0.0995)
		qe_gfm_addf(b, "%.0f\xc2\xa0ms", s * 1000);
	else if (s < 10)
		qe_gfm_addf(b, "%.2f\xc2\xa0s", s);
	else if (s < 59.95)
		qe_gfm_addf(b, "%.1f\xc2\xa0s", s);
	else if (s < 3600) {
		long t = lround(s);

		qe_gfm_addf(b, "%ldm\xc2\xa0%02lds", t / 60, t % 60);
	} else {
		long t = lround(s / 60);

		qe_gfm_addf(b, "%ldh\xc2\xa0%02ldm", t / 60, t % 60);
	}
}

void
qe_gfm_delta(struct qe_buf *b, double d)
{
	if (isnan(d)) {
		qe_buf_adds(b, QE_GFM_NONE);
		return;
	}
	if (fabs(d) < 0.0005) {
		qe_buf_adds(b, "0\xc2\xa0ms");
		return;
	}
	if (!(fabs(d) <= QE_GFM_MAX_S)) {	/* not "+-…h" */
		qe_buf_adds(b, QE_GFM_OUT_OF_RANGE);
		return;
	}
	qe_buf_addc(b, d < 0 ? '-' : '+');
	qe_gfm_dur(b, fabs(d));
}

/* d in decimal units with sign in front. */
static void
bytes_signed(struct qe_buf *b, double d, const char *sign)
{
	double a = fabs(d);

	if (isnan(d))
		qe_buf_adds(b, QE_GFM_NONE);
	else if (!(a <= 1e18))
		qe_buf_adds(b, QE_GFM_OUT_OF_RANGE);
	else if (a < 999500)
		qe_gfm_addf(b, "%s%.0f\xc2\xa0kB", sign, a / 1e3);
	else if (a < 9.995e8)
		qe_gfm_addf(b, "%s%.0f\xc2\xa0MB", sign, a / 1e6);
	else
		qe_gfm_addf(b, "%s%.1f\xc2\xa0GB", sign, a / 1e9);
}

void
qe_gfm_bytes_delta(struct qe_buf *b, double d)
{
	bytes_signed(b, d, d > 500 ? "+" : d < -500 ? "-" : "");
}

void
qe_gfm_bytes(struct qe_buf *b, double n)
{
	bytes_signed(b, n, n < -500 ? "-" : "");
}

void
qe_gfm_ratio(struct qe_buf *b, double r)
{
	if (isnan(r))
		qe_buf_adds(b, QE_GFM_NONE);
	else if (r < 0 || !(r <= QE_GFM_MAX_RATIO))	/* not 309 digits */
		qe_buf_adds(b, QE_GFM_OUT_OF_RANGE);
	else if (r >= 100)
		qe_gfm_addf(b, "\xc3\x97%.0f", r);
	else if (r >= 0.01)
		qe_gfm_addf(b, "\xc3\x97%.2f", r);
	else
		qe_buf_adds(b, "\xc3\x97<0.01");
}

void
qe_gfm_pct(struct qe_buf *b, double f)
{
	if (isnan(f))
		qe_buf_adds(b, QE_GFM_NONE);
	else if (!(fabs(f) <= QE_GFM_MAX_RATIO))	/* not "inf%" */
		qe_buf_adds(b, QE_GFM_OUT_OF_RANGE);
	else if (f > 0 && f < 0.005)
		qe_buf_adds(b, "<1%");
	else
		qe_gfm_addf(b, "%.0f%%", f * 100);
}
