/*
 * qe_sha.h - SHA-256 (OpenSSL's EVP, which uses the CPU's SHA extensions)
 * and hexadecimal text.
 *
 * Invariants: digests are printed as 64 lowercase hex digits; nothing here
 * prints a message. Allocation failure inside OpenSSL ends the program like
 * any other out-of-memory.
 */
#ifndef QE_SHA_H
#define QE_SHA_H

#include <stddef.h>

#define QE_SHA256_HEX 65	/* 64 hex digits and a NUL */

/* SHA-256 of a byte string as lowercase hex. */
void qe_sha256_hex(const void *p, size_t n, char out[QE_SHA256_HEX]);

/* The digest of no bytes (qe_sha256_hex() gives it without asking OpenSSL). */
#define QE_SHA256_EMPTY "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

/*
 * SHA-256 of a file's bytes as lowercase hex, and optionally the raw 32-byte
 * digest. Returns 0, or -1 with errno set (nothing printed).
 */
int qe_sha256_file(const char *path, char out[QE_SHA256_HEX], unsigned char raw[32]);

/*
 * SHA-256 of bytes that arrive in pieces: begin, add each piece, end (which
 * writes the hex digest and releases the context). A context that is begun
 * must be ended, or released with qe_sha256_abort.
 */
struct qe_sha256 {
	void *ctx;	/* OpenSSL's EVP_MD_CTX */
};
void qe_sha256_begin(struct qe_sha256 *s);
void qe_sha256_add(struct qe_sha256 *s, const void *p, size_t n);
void qe_sha256_end(struct qe_sha256 *s, char out[QE_SHA256_HEX]);
void qe_sha256_abort(struct qe_sha256 *s);

/* raw[0..n) as 2n lowercase hex digits and a NUL in out. */
void qe_sha_hex(const unsigned char *raw, size_t n, char *out);

/* The value of one hex digit (either case), or -1. */
int qe_sha_hexval(int c);

/*
 * Decode the first 2n characters of s (hex digits, either case) into
 * out[0..n). Returns 0, or -1 when one of them is not a hex digit.
 */
int qe_sha_unhex(const char *s, size_t n, unsigned char *out);

#endif /* QE_SHA_H */
