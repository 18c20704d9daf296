/* UTF-8 validation, decoding and encoding (qe_utf8.h). */
#include <stdint.h>
#include <string.h>

#include "qe_mem.h"

size_t
qe_utf8_next(const unsigned char *s, size_t n, long *cp)
{
	unsigned c = s[0];
	size_t len;
	long v, min;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, min = 0x80, v = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, min = 0x800, v = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, min = 0x10000, v = c & 0x07;
	else
		goto bad;
	if (n < len)
		goto bad;
	for (size_t k = 1; k < len; k++) {
		if ((s[k] & 0xc0) != 0x80)
			goto bad;
		v = v << 6 | (s[k] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		goto bad;
	*cp = v;
	return len;
bad:
	*cp = -1;
	return 1;
}

size_t
qe_utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	uint64_t w;
	long cp;

	while (i < n) {
		/* ASCII fast path: eight bytes at a time while no high bit is set */
		while (n - i >= 8 && (memcpy(&w, p + i, 8), (w & 0x8080808080808080ULL) == 0))
			i += 8;
		if (i >= n)
			break;
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		i += qe_utf8_next(p + i, n - i, &cp);
		if (cp < 0)
			return i - 1;
	}
	return n;
}

void
qe_utf8_put(struct qe_buf *b, long cp)
{
	char u[4];

	if (cp < 0x80)
		qe_buf_addc(b, (char)cp);
	else if (cp < 0x800) {
		u[0] = (char)(0xc0 | cp >> 6);
		u[1] = (char)(0x80 | (cp & 0x3f));
		qe_buf_add(b, u, 2);
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | cp >> 12);
		u[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		qe_buf_add(b, u, 3);
	} else {
		u[0] = (char)(0xf0 | cp >> 18);
		u[1] = (char)(0x80 | (cp >> 12 & 0x3f));
		u[2] = (char)(0x80 | (cp >> 6 & 0x3f));
		u[3] = (char)(0x80 | (cp & 0x3f));
		qe_buf_add(b, u, 4);
	}
}

size_t
qe_utf8_repair(struct qe_buf *b, const char *s, size_t n)
{
	size_t i = 0, bad = 0;

	qe_buf_add(b, "", 0);
	while (i < n) {
		long cp;
		size_t k = qe_utf8_next((const unsigned char *)s + i, n - i, &cp);

		if (cp < 0) {
			qe_utf8_put(b, 0xfffd);
			bad++;
		} else
			qe_buf_add(b, s + i, k);
		i += k;
	}
	return bad;
}

int
qe_utf8_repair_buf(struct qe_buf *b)
{
	struct qe_buf fixed = { 0 };

	if (b->len == 0 || qe_utf8_valid(b->data, b->len) == b->len)
		return 0;
	qe_utf8_repair(&fixed, b->data, b->len);
	qe_buf_free(b);
	*b = fixed;
	return 1;
}
