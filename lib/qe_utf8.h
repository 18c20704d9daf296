/*
 * qe_utf8.h - UTF-8 validation and decoding: the one decoder of the project.
 *
 * Invariants: well-formed means RFC 3629 (no overlongs, no surrogates,
 * nothing above U+10FFFF). Functions never read past s[n - 1] and never
 * allocate.
 */
#ifndef QE_UTF8_H
#define QE_UTF8_H

#include <stddef.h>

struct qe_buf;

/* Offset of the first byte of s[0..n) that is not well-formed UTF-8, or n. */
size_t qe_utf8_valid(const char *s, size_t n);

/*
 * Decode one code point of s[0..n), n >= 1. Returns the bytes used (at least
 * 1) and sets *cp, or sets *cp to -1 (and returns 1) for a byte that does
 * not start a well-formed sequence.
 */
size_t qe_utf8_next(const unsigned char *s, size_t n, long *cp);

/* Append the UTF-8 encoding of code point cp (0 <= cp <= 0x10ffff). */
void qe_utf8_put(struct qe_buf *b, long cp);

/*
 * Append s[0..n) to b with every byte that does not start a well-formed
 * sequence (a lone byte, an overlong form, a surrogate) replaced by U+FFFD.
 * Returns the number of replacements: the caller says so when it is > 0.
 */
size_t qe_utf8_repair(struct qe_buf *b, const char *s, size_t n);

/*
 * Repair b in place with qe_utf8_repair(): 1 when a byte was replaced (the
 * caller says so), 0 when b was UTF-8 already (b unchanged).
 */
int qe_utf8_repair_buf(struct qe_buf *b);

#endif /* QE_UTF8_H */
