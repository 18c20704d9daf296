/*
 * libFuzzer targets for the shared library (lib/):
 *   TIME    qe_time_parse: no crash, and a parsed time formats and re-parses
 *           to the same instant (to the microsecond)
 *   NDJSON  qe_each_record over a whole stream (plain or gzip)
 *   JSCAN   the pull reader (qe_jscan) beside cJSON and the tools' checks:
 *           whatever it takes, they take too and read the same (strings
 *           byte for byte, numbers bit for bit); else abort()
 *   JWNUM   qe_jw_num (digits written by hand) against the snprintf writer
 *           it replaced (tests/unit/jw-ref.h): the input's first 8 bytes
 *           are the double, the 9th the decimals (mod 7); else abort()
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "qe.h"
#if defined(TARGET_JSCAN)
#include "../tests/unit/jscan-dump.h"
#endif
#if defined(TARGET_JWNUM)
#include "../tests/unit/jw-ref.h"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#if defined(TARGET_NDJSON)
static int
count(cJSON *rec, const char *file, long line, void *ctx)
{
	(void)file;
	(void)line;
	(*(long *)ctx)++;
	return cJSON_IsObject(rec) ? 0 : -1;
}
#endif

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
#if defined(TARGET_TIME)
	char *s = malloc(size + 1), buf[QE_TIME_BUFSZ];
	struct qe_time t, u;

	memcpy(s, data, size);
	s[size] = '\0';
	if (qe_time_parse(s, &t) == 0 && t.sec > -62135596800LL && t.sec < 253402300799LL) {
		qe_time_format(&t, buf);
		if (qe_time_parse(buf, &u) != 0 || u.sec != t.sec || u.nsec / 1000 != t.nsec / 1000)
			abort();
	}
	free(s);
#elif defined(TARGET_NDJSON)
	char path[64], *argv[1] = { path };
	int fd = memfd_create("fuzz", 0);
	long n = 0;

	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
		abort();
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	qe_max_line = 1 << 16;
	qe_each_record(1, argv, count, &n);
	close(fd);
#elif defined(TARGET_JSCAN)
	struct qe_buf a = { 0 }, b = { 0 };

	if (dump_text_js((const char *)data, size, &a) == 0 &&
	    (dump_text_cj((const char *)data, size, &b) < 0 || a.len != b.len ||
	    memcmp(a.data, b.data, a.len) != 0))
		abort();
	qe_buf_free(&a);
	qe_buf_free(&b);
#elif defined(TARGET_JWNUM)
	struct qe_buf a = { 0 }, r = { 0 };
	double x;

	if (size < 9)
		return 0;
	memcpy(&x, data, sizeof x);
	if (!jw_num_agrees(x, data[8] % 7, &a, &r))
		abort();
	qe_buf_free(&a);
	qe_buf_free(&r);
#else
#error "define one TARGET_*"
#endif
	return 0;
}
