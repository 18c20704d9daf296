/*
 * libFuzzer targets for the shared library (lib/):
 *   TIME    qe_time_parse: no crash, and a parsed time formats and re-parses
 *           to the same instant (to the microsecond)
 *   NDJSON  qe_ndjson_each over a whole stream (plain or gzip)
 *   JSCAN   the pull reader (qe_jscan) beside cJSON and the tools' checks:
 *           whatever it takes, they take too and read the same (strings
 *           byte for byte, numbers bit for bit); whatever they refused,
 *           qe_js_check() refuses in the same words at the same column
 *           (or at a syntax error before it, where cJSON read on over
 *           what is no JSON);
 *           the record reader (qe_recscan) takes a line exactly when
 *           qe_js_check() does; else abort()
 *   JWNUM   qe_jw_num (digits written by hand) against the snprintf writer
 *           it replaced (tests/unit/jw-ref.h): the input's first 8 bytes
 *           are the double, the 9th the decimals (mod 7); else abort()
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <stdint.h>

#include "qe.h"
#include "qe_json.h"
#include "qe_mem.h"
#include "qe_ndjson.h"
#include "qe_time.h"
#include "qe_utf8.h"
#if defined(TARGET_JSCAN)
#include "../tests/unit/jscan-dump.h"
#include "qe_recscan.h"
#endif
#if defined(TARGET_JWNUM)
#include "../tests/unit/jw-ref.h"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#if defined(TARGET_JSCAN)
/*
 * qe_js_check() said `now` where the reader before it said `before`, both
 * refusing: allowed only when the one reader stops at a syntax error (or
 * trailing data: "00") before the column said before (cJSON read on over
 * what is no JSON: a leading zero, a VT as a blank, ...) or where it said
 * no column.
 */
static int
stricter(const char *now, const char *before)
{
	const char *c = strstr(before, " at column ");
	long n, b;

	if (sscanf(now, "invalid JSON at column %ld", &n) != 1 &&
	    sscanf(now, "trailing data after JSON value at column %ld", &n) != 1)
		return 0;
	if (c == NULL)
		return 1;
	b = strtol(c + 11, NULL, 10);
	return n < b;
}
#endif

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
	qe_ndjson_max_line = 1 << 16;
	qe_ndjson_each(1, argv, count, &n);
	close(fd);
#elif defined(TARGET_JSCAN)
	struct qe_buf a = { 0 }, b = { 0 };
	struct qe_recscan sc = { 0 };
	struct qe_recline l;
	struct qe_js_error e;
	const char *text = (const char *)data;
	char *z = malloc(size + 1);	/* NUL-terminated, as qe_ndjson gives a line */

	memcpy(z, data, size);
	z[size] = '\0';

	if (dump_text_js(text, size, &a) == 0 &&
	    (dump_text_cj(text, size, &b) < 0 || a.len != b.len ||
	    memcmp(a.data, b.data, a.len) != 0))
		abort();
	qe_buf_reset(&a);
	qe_buf_reset(&b);
	why_now(z, size, &a);
	why_before(z, size, &b);
	if (strcmp(b.data, "ok") != 0 && strcmp(a.data, b.data) != 0 && !stricter(a.data, b.data))
		abort();
	if ((qe_recscan_line(&sc, text, size, &l) == 0) !=
	    (qe_js_check(text, size, QE_JS_OBJECT | QE_JS_SPTAB, &e) == 0))
		abort();
	qe_recscan_free(&sc);
	free(z);
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
