/* SHA-256 through OpenSSL's EVP interface (uses the CPU's SHA extensions). */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "qe.h"

static void
tohex(const unsigned char *d, char out[QE_SHA256_HEX])
{
	static const char hex[] = "0123456789abcdef";
	int i;

	for (i = 0; i < 32; i++) {
		out[2 * i] = hex[d[i] >> 4];
		out[2 * i + 1] = hex[d[i] & 15];
	}
	out[64] = '\0';
}

void
qe_sha256_hex(const void *p, size_t n, char out[QE_SHA256_HEX])
{
	unsigned char d[32];
	unsigned int dl = 0;

	if (!EVP_Digest(p, n, d, &dl, EVP_sha256(), NULL))
		qe_json_check(NULL);	/* only fails on allocation */
	tohex(d, out);
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
		qe_json_check(NULL);
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
	tohex(d, out);
	if (raw)
		for (int i = 0; i < 32; i++)
			raw[i] = d[i];
	return 0;
}
