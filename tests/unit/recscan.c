/*
 * Unit driver for lib/qe_recscan.c: record lines read with the pull reader.
 * The input's lines are read in order by one struct qe_recscan.
 */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "qe_recscan.h"

/*
 * Per line: "tree" (left to cJSON's way), or kind, document, index,
 * duration and the provenance's fingerprint with "new" (parsed) or "same"
 * (the previous line's tree, recognised by its bytes).
 */
static void
lines(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_recscan sc = { 0 };
	struct qe_recline l;
	const char *p = in, *end = in + n;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end;

		if (out->len)
			qe_buf_addc(out, ' ');
		if (qe_recscan_line(&sc, p, (size_t)(e - p), &l) != 0)
			qe_buf_adds(out, "tree");
		else {
			const char *fp = qe_json_str(l.prov, "fingerprint");

			qe_buf_addf(out, "%s/%s/%g/%g/%s", l.str[QE_RK_KIND] ? l.str[QE_RK_KIND] : "-",
			    l.str[QE_RK_DOCUMENT] ? l.str[QE_RK_DOCUMENT] : "-", l.num[QE_RK_INDEX],
			    l.num[QE_RK_DURATION], fp ? fp : "-");
			if (l.prov)
				qe_buf_adds(out, l.reused ? ":same" : ":new");
		}
		p = e + (nl != NULL);
	}
	qe_recscan_free(&sc);
}

/*
 * Per line: "tree", or qe-replicate's members: version, warm_s,
 * peak_growth_bytes, result_sha256 and kernel_env's "modules" as JSON ("-"
 * for an absent string or tree, nan for an absent number).
 */
static void
replicate(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_recscan sc = { 0 };
	struct qe_recline l;
	const char *p = in, *end = in + n;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end;
		char *mods;

		if (out->len)
			qe_buf_addc(out, ' ');
		if (qe_recscan_line(&sc, p, (size_t)(e - p), &l) != 0)
			qe_buf_adds(out, "tree");
		else {
			mods = l.kenv ? cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(l.kenv, "modules")) : NULL;
			qe_buf_addf(out, "%s/%g/%g/%s/%s", l.str[QE_RK_VERSION] ? l.str[QE_RK_VERSION] : "-",
			    l.type[QE_RK_WARM_S] == QE_JS_NUM ? l.num[QE_RK_WARM_S] : NAN,
			    l.type[QE_RK_PEAK_GROWTH] == QE_JS_NUM ? l.num[QE_RK_PEAK_GROWTH] : NAN,
			    l.str[QE_RK_RESULT] ? l.str[QE_RK_RESULT] : "-", mods ? mods : "-");
			cJSON_free(mods);
		}
		p = e + (nl != NULL);
	}
	qe_recscan_free(&sc);
}

/*
 * Per line: "tree", or "duration_s" as read, "same" when it is bit for bit
 * the double cJSON's parse of the line gives (strtod's), else its %a and
 * cJSON's; its type word when it is not a number.
 */
static void
numbers(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_recscan sc = { 0 };
	struct qe_recline l;
	const char *p = in, *end = in + n;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end;

		if (out->len)
			qe_buf_addc(out, ' ');
		if (qe_recscan_line(&sc, p, (size_t)(e - p), &l) != 0)
			qe_buf_adds(out, "tree");
		else if (l.type[QE_RK_DURATION] != QE_JS_NUM)
			qe_buf_adds(out, l.type[QE_RK_DURATION] == QE_JS_NULL ? "null" :
			    l.type[QE_RK_DURATION] == QE_JS_TRUE ? "true" : l.type[QE_RK_DURATION] == QE_JS_FALSE ?
			    "false" : "other");
		else {
			cJSON *t = cJSON_ParseWithLength(p, (size_t)(e - p));
			double c = cJSON_GetObjectItemCaseSensitive(t, "duration_s")->valuedouble;

			if (memcmp(&c, &l.num[QE_RK_DURATION], sizeof c) == 0)
				qe_buf_adds(out, "same");
			else
				qe_buf_addf(out, "%a!=%a", l.num[QE_RK_DURATION], c);
			cJSON_Delete(t);
		}
		p = e + (nl != NULL);
	}
	qe_recscan_free(&sc);
}

static const struct unit_fn fns[] = {
	{ "lines", lines },
	{ "numbers", numbers },
	{ "replicate", replicate },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
