/* SHA-256 through OpenSSL's EVP interface (uses the CPU's SHA extensions). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "qe_mem.h"
#include "qe_sha.h"

void
qe_sha_hex(const unsigned char *raw, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[raw[i] >> 4];
		out[2 * i + 1] = digits[raw[i] & 15];
	}
	out[2 * n] = '\0';
}

int
qe_sha_hexval(int c)
{
	/* a table (value + 1, 0: not hex): digests are unhexed per record, branches mispredict */
	static const unsigned char v[256] = {
		['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8,
		['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15,
		['f'] = 16, ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
	};

	return c >= 0 && c < 256 ? v[c] - 1 : -1;
}

int
qe_sha_unhex(const char *s, size_t n, unsigned char *out)
{
	/* 0x10 | a digit's value, 0 for a byte that is not hex: one test a digest */
	static const unsigned char v[256] = {
		['0'] = 16, ['1'] = 17, ['2'] = 18, ['3'] = 19, ['4'] = 20, ['5'] = 21, ['6'] = 22,
		['7'] = 23, ['8'] = 24, ['9'] = 25, ['a'] = 26, ['b'] = 27, ['c'] = 28, ['d'] = 29,
		['e'] = 30, ['f'] = 31, ['A'] = 26, ['B'] = 27, ['C'] = 28, ['D'] = 29, ['E'] = 30,
		['F'] = 31,
	};
	unsigned good = 0x10;

	for (size_t i = 0; i < n; i++) {
		unsigned hi = v[(unsigned char)s[2 * i]], lo = v[(unsigned char)s[2 * i + 1]];

		good &= hi & lo;
		out[i] = (unsigned char)((hi & 15) << 4 | (lo & 15));
	}
	return good ? 0 : -1;
}

void
qe_sha256_hex(const void *p, size_t n, char out[QE_SHA256_HEX])
{
	unsigned char d[32];
	unsigned int dl = 0;

	if (n == 0) {	/* every cell without outputs: no digest context set up for it */
		memcpy(out, QE_SHA256_EMPTY, QE_SHA256_HEX);
		return;
	}
	if (!EVP_Digest(p, n, d, &dl, EVP_sha256(), NULL))
		qe_mem_oom();	/* only fails on allocation */
	qe_sha_hex(d, 32, out);
}

int
qe_sha256_file(const char *path, char out[QE_SHA256_HEX], unsigned char raw[32])
{
	unsigned char d[32], buf[65536];
	unsigned int dl = 0;
	EVP_MD_CTX *ctx;
	ssize_t n;
	int fd, saved;

	if ((fd = open(path, O_RDONLY)) < 0)
		return -1;
	if ((ctx = EVP_MD_CTX_new()) == NULL || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL))
		qe_mem_oom();
	while ((n = read(fd, buf, sizeof buf)) > 0)
		EVP_DigestUpdate(ctx, buf, (size_t)n);
	saved = errno;
	close(fd);
	if (n < 0) {
		EVP_MD_CTX_free(ctx);
		errno = saved;
		return -1;
	}
	EVP_DigestFinal_ex(ctx, d, &dl);
	EVP_MD_CTX_free(ctx);
	qe_sha_hex(d, 32, out);
	if (raw)
		for (int i = 0; i < 32; i++)
			raw[i] = d[i];
	return 0;
}

void
qe_sha256_begin(struct qe_sha256 *s)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();

	if (ctx == NULL || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL))
		qe_mem_oom();
	s->ctx = ctx;
}

void
qe_sha256_add(struct qe_sha256 *s, const void *p, size_t n)
{
	if (!EVP_DigestUpdate((EVP_MD_CTX *)s->ctx, p, n))
		qe_mem_oom();
}

void
qe_sha256_end(struct qe_sha256 *s, char out[QE_SHA256_HEX])
{
	unsigned char d[32];
	unsigned int dl = 0;

	EVP_DigestFinal_ex((EVP_MD_CTX *)s->ctx, d, &dl);
	qe_sha256_abort(s);
	qe_sha_hex(d, 32, out);
}

void
qe_sha256_abort(struct qe_sha256 *s)
{
	EVP_MD_CTX_free((EVP_MD_CTX *)s->ctx);
	s->ctx = NULL;
}
