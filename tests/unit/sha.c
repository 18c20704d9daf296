/* Unit driver for lib/qe_sha.c: SHA-256 and hexadecimal text. */
#include "harness.h"
#include "qe_sha.h"

static void
sha256(const char *in, size_t n, struct qe_buf *out)
{
	char hex[QE_SHA256_HEX];

	qe_sha256_hex(in, n, hex);
	qe_buf_adds(out, hex);
}

/* Decode the hex input and encode it again: the round trip, or "error". */
static void
unhex(const char *in, size_t n, struct qe_buf *out)
{
	unsigned char raw[64];
	char hex[129];

	if (n % 2 || n > 128 || qe_sha_unhex(in, n / 2, raw) < 0) {
		qe_buf_adds(out, "error");
		return;
	}
	qe_sha_hex(raw, n / 2, hex);
	qe_buf_adds(out, hex);
}

static const struct unit_fn fns[] = {
	{ "sha256", sha256 },
	{ "unhex", unhex },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
