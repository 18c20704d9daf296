/*
 * Unit driver for lib/qe_jscan.c: the pull reader's walk of a text against
 * cJSON's tree of it (tests/unit/jscan-dump.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "qe_utf8.h"
#include "jscan-dump.h"

/* The pull reader's dump of the input, or "refused". */
static void
walk(const char *in, size_t n, struct qe_buf *out)
{
	if (dump_text_js(in, n, out) < 0) {
		qe_buf_reset(out);
		qe_buf_adds(out, "refused");
	}
}

/*
 * Both readers: "same" when both take it alike, "refused" when both
 * refuse it, "refused, cjson takes it" where cJSON reads what is no JSON
 * (the tools refuse it: one validator), "cjson refuses" or "differ" (a
 * defect: the pull reader must never take what cJSON and the checks
 * refuse, nor read it otherwise).
 */
static void
agree(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_buf a = { 0 }, b = { 0 };
	int ra = dump_text_js(in, n, &a), rb = dump_text_cj(in, n, &b);

	if (ra < 0)
		qe_buf_adds(out, rb < 0 ? "refused" : "refused, cjson takes it");
	else if (rb < 0)
		qe_buf_adds(out, "cjson refuses");
	else
		qe_buf_adds(out, a.len == b.len && memcmp(a.data, b.data, a.len) == 0 ? "same" : "differ");
	qe_buf_free(&a);
	qe_buf_free(&b);
}

/* qe_js_check() of an NDJSON line: "ok", or its words and column. */
static void
why(const char *in, size_t n, struct qe_buf *out)
{
	why_now(in, n, out);
}

/* qe_js_check() of a whole text (any value, any blank after it): "ok", or its words and offset. */
static void
why_text(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_js_error e;

	if (qe_js_check(in, n, 0, &e) == 0)
		qe_buf_adds(out, "ok");
	else
		qe_buf_addf(out, "%s at byte %zu", e.reason, e.offset);
}

/*
 * qe_js_check() beside what the NDJSON reader said before it (cJSON and
 * the checks): "same: WORDS" when both say the same; "stricter: WORDS"
 * when only the one reader refuses (a text cJSON took that is no JSON: a
 * leading zero, "1.", a control byte as a blank); else "differ: NOW /
 * BEFORE" (a defect).
 */
static void
why_as_before(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_buf a = { 0 }, b = { 0 };

	why_now(in, n, &a);
	why_before(in, n, &b);
	if (strcmp(a.data, b.data) == 0)
		qe_buf_addf(out, "same: %s", a.data);
	else if (strcmp(b.data, "ok") == 0)
		qe_buf_addf(out, "stricter: %s", a.data);
	else
		qe_buf_addf(out, "differ: %s / %s", a.data, b.data);
	qe_buf_free(&a);
	qe_buf_free(&b);
}

/* The pull reader's own refusal of a walk: its words and offset (s->err), or "taken". */
static void
walk_why(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_buf o = { 0 };
	struct qe_jscan s = { 0 };

	qe_js_init(&s, in, n);
	if (dump_js(&s, &o) < 0 || qe_js_done(&s) < 0)
		qe_buf_addf(out, "%s at byte %zu", s.err.reason, s.err.offset);
	else
		qe_buf_adds(out, "taken");
	qe_js_free(&s);
	qe_buf_free(&o);
}

/* qe_js_bom(): the bytes of a byte order mark at the start, then what follows it. */
static void
bom(const char *in, size_t n, struct qe_buf *out)
{
	size_t b = qe_js_bom(in, n);

	qe_buf_addf(out, "%zu ", b);
	qe_buf_add(out, in + b, n - b);
}

/* Skip the first value, then print what is left from the cursor. */
static void
skip(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_jscan s = { 0 };

	qe_js_init(&s, in, n);
	if (qe_js_skip(&s) < 0)
		qe_buf_adds(out, "refused");
	else
		qe_buf_add(out, s.p, (size_t)(s.end - s.p));
	qe_js_free(&s);
}

/* A random JSON number of up to 17 digits, some with a fraction or exponent. */
static size_t
random_number(unsigned long long *st, char *buf)
{
	size_t n = 0;
	int digits, point;

	*st = *st * 6364136223846793005ULL + 1442695040888963407ULL;
	digits = 1 + (int)((*st >> 33) % 17);
	point = 1 + (int)((*st >> 40) % (unsigned)digits);	/* digits before '.' */
	if ((*st >> 50) & 1)
		buf[n++] = '-';
	for (int i = 0; i < digits; i++) {
		*st = *st * 6364136223846793005ULL + 1442695040888963407ULL;
		if (i == point)
			buf[n++] = '.';
		if (i == 0 && point > 1)	/* no leading zero before more digits */
			buf[n++] = (char)('1' + (*st >> 33) % 9);
		else
			buf[n++] = (char)('0' + (*st >> 33) % 10);
	}
	if ((*st >> 45) % 8 == 0)
		n += (size_t)sprintf(buf + n, "e%d", (int)((*st >> 20) % 40) - 20);
	buf[n] = '\0';
	return n;
}

/*
 * "N SEED": N random numbers read by qe_js_num and by strtod: "N agree"
 * (bit for bit, the sign of zero too), or the first that differs.
 */
static void
random_num(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_jscan s = { 0 };
	double d, e;
	unsigned long long st;
	char buf[64];
	long i, count;

	(void)n;
	if (unit_count_seed(in, &count, &st, out) < 0)
		return;
	for (i = 0; i < count; i++) {
		size_t len = random_number(&st, buf);

		qe_js_init(&s, buf, len);
		e = strtod(buf, NULL);
		if (qe_js_num(&s, &d) != QE_JS_NUM || memcmp(&d, &e, sizeof d) != 0) {
			qe_buf_addf(out, "%s: %a != strtod's %a", buf, d, e);
			break;
		}
	}
	if (i == count)
		qe_buf_addf(out, "%ld agree", i);
	qe_js_free(&s);
}

/*
 * "MAXLEN avx2|plain": every string of 1 to MAXLEN bytes of 'x' with one
 * special byte at each position (the closing quote early, an escape, a
 * control character, DEL, two-byte UTF-8, a byte that is not UTF-8),
 * read by qe_js_str from a text that ends at its closing quote, against
 * what a byte-by-byte reading expects: decoded bytes, the cursor after it,
 * or a refusal. "N agree", or the first case that does not.
 */
static void
positions(const char *in, size_t n, struct qe_buf *out)
{
	static const char *const kinds[] = { "\"", "\\n", "\x01", "\x7f", "\xc3\xa9", "\xff" };
	char mode[8] = "";
	long maxlen = 0, count = 0;
	struct qe_buf text = { 0 }, got = { 0 }, want = { 0 };

	(void)n;
	if (sscanf(in, "%ld %7s", &maxlen, mode) != 2 || maxlen < 1) {
		qe_buf_adds(out, "usage: MAXLEN avx2|plain");
		return;
	}
	qe_js_allow_avx2(strcmp(mode, "plain") != 0);
	for (long len = 1; len <= maxlen; len++)
		for (long k = 0; k < len; k++)
			for (size_t kind = 0; kind < sizeof kinds / sizeof *kinds; kind++) {
				const char *sp = kinds[kind];
				size_t spn = strlen(sp), cursor;
				int refuse = kind == 2 || kind == 5, r;
				struct qe_jscan s = { 0 };

				if (k + (long)spn > len)
					continue;
				qe_buf_reset(&text), qe_buf_reset(&got), qe_buf_reset(&want);
				qe_buf_addc(&text, '"');
				for (long i = 0; i < len; i++)
					qe_buf_addc(&text, 'x');
				memcpy(text.data + 1 + k, sp, spn);
				qe_buf_addc(&text, '"');
				/* what it must read */
				for (long i = 0; i < k; i++)
					qe_buf_addc(&want, 'x');
				if (kind == 0)
					cursor = (size_t)k + 2;
				else {
					qe_buf_add(&want, kind == 1 ? "\n" : sp, kind == 1 ? 1 : spn);
					for (long i = k + (long)spn; i < len; i++)
						qe_buf_addc(&want, 'x');
					cursor = (size_t)len + 2;
				}
				/* a copy of exactly the text: a scan past its end is caught by ASan */
				char *exact = qe_xmalloc(text.len);

				memcpy(exact, text.data, text.len);
				qe_js_init(&s, exact, text.len);
				r = qe_js_str(&s, qe_js_sink_buf, &got);
				if (refuse ? r >= 0 : r < 0 || (size_t)(s.p - exact) != cursor || got.len != want.len ||
				    (want.len > 0 && memcmp(got.data, want.data, want.len) != 0)) {
					qe_buf_addf(out, "length %ld, byte %ld, kind %zu: %s", len, k, kind,
					    r < 0 ? "refused" : "read otherwise");
					free(exact);
					qe_js_free(&s);
					goto done;
				}
				free(exact);
				qe_js_free(&s);
				count++;
			}
	qe_buf_addf(out, "%ld agree", count);
done:
	qe_js_allow_avx2(1);
	qe_buf_free(&text);
	qe_buf_free(&got);
	qe_buf_free(&want);
}

static const struct unit_fn fns[] = {
	{ "positions", positions },
	{ "random-num", random_num },
	{ "walk", walk },
	{ "agree", agree },
	{ "skip", skip },
	{ "why", why },
	{ "why-text", why_text },
	{ "why-as-before", why_as_before },
	{ "walk-why", walk_why },
	{ "bom", bom },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
