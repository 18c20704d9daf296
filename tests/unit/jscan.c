/*
 * Unit driver for lib/qe_jscan.c: the pull reader's walk of a text against
 * cJSON's tree of it (tests/unit/jscan-dump.h).
 */
#include "harness.h"
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
 * Both readers: "same" when both take it alike, "refused" when the pull
 * reader refuses it (the tools then go cJSON's way), "cjson refuses" or
 * "differ" (a defect: the pull reader must never take what cJSON and the
 * checks refuse, nor read it otherwise).
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

static const struct unit_fn fns[] = {
	{ "walk", walk },
	{ "agree", agree },
	{ "skip", skip },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
