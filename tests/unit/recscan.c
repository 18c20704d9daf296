/*
 * Unit driver for lib/qe_recscan.c: record lines read with the pull reader.
 * The input's lines are read in order by one struct qe_recscan.
 */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "qe_recscan.h"

/* What a case writes for one line the reader read (line: its bytes). */
typedef void line_fn(const struct qe_recline *l, const char *line, size_t len, struct qe_buf *out);

/* Read every line of in[0..n) with one reader: "refused" for a line it refuses, else show(). */
static void
each_line(const char *in, size_t n, struct qe_buf *out, line_fn *show)
{
	struct qe_recscan sc = { 0 };
	struct qe_recline l;
	const char *p = in, *end = in + n;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end;

		if (out->len)
			qe_buf_addc(out, ' ');
		if (qe_recscan_line(&sc, p, (size_t)(e - p), &l) != 0)
			qe_buf_adds(out, "refused");
		else
			show(&l, p, (size_t)(e - p), out);
		p = e + (nl != NULL);
	}
	qe_recscan_free(&sc);
}

/*
 * kind, document, index, duration and the provenance's fingerprint, with
 * "new" (parsed) or "same" (the previous line's tree, recognised by its
 * bytes).
 */
static void
show_line(const struct qe_recline *l, const char *line, size_t len, struct qe_buf *out)
{
	const char *fp = qe_json_str(l->prov, "fingerprint");

	(void)line;
	(void)len;
	qe_buf_addf(out, "%s/%s/%g/%g/%s", l->str[QE_RK_KIND] ? l->str[QE_RK_KIND] : "-",
	    l->str[QE_RK_DOCUMENT] ? l->str[QE_RK_DOCUMENT] : "-", l->num[QE_RK_INDEX],
	    l->num[QE_RK_DURATION], fp ? fp : "-");
	if (l->prov)
		qe_buf_adds(out, l->reused ? ":same" : ":new");
}

static void
lines(const char *in, size_t n, struct qe_buf *out)
{
	each_line(in, n, out, show_line);
}

/*
 * qe-replicate's members: version, warm_s, peak_growth_bytes,
 * result_sha256 and kernel_env's "modules" as JSON ("-" for an absent
 * string or tree, nan for an absent number).
 */
static void
show_replicate(const struct qe_recline *l, const char *line, size_t len, struct qe_buf *out)
{
	char *mods = l->kenv ? cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(l->kenv, "modules")) : NULL;

	(void)line;
	(void)len;
	qe_buf_addf(out, "%s/%g/%g/%s/%s", l->str[QE_RK_VERSION] ? l->str[QE_RK_VERSION] : "-",
	    l->type[QE_RK_WARM_S] == QE_JS_NUM ? l->num[QE_RK_WARM_S] : NAN,
	    l->type[QE_RK_PEAK_GROWTH] == QE_JS_NUM ? l->num[QE_RK_PEAK_GROWTH] : NAN,
	    l->str[QE_RK_RESULT] ? l->str[QE_RK_RESULT] : "-", mods ? mods : "-");
	cJSON_free(mods);
}

static void
replicate(const char *in, size_t n, struct qe_buf *out)
{
	each_line(in, n, out, show_replicate);
}

/*
 * "duration_s" as read: "same" when it is bit for bit the double cJSON's
 * parse of the line gives (strtod's), else its %a and cJSON's; its type
 * word when it is not a number.
 */
static void
show_number(const struct qe_recline *l, const char *line, size_t len, struct qe_buf *out)
{
	if (l->type[QE_RK_DURATION] != QE_JS_NUM) {
		qe_buf_adds(out, l->type[QE_RK_DURATION] == QE_JS_NULL ? "null" :
		    l->type[QE_RK_DURATION] == QE_JS_TRUE ? "true" : l->type[QE_RK_DURATION] == QE_JS_FALSE ?
		    "false" : "other");
		return;
	}
	cJSON *t = cJSON_ParseWithLength(line, len);
	double c = cJSON_GetObjectItemCaseSensitive(t, "duration_s")->valuedouble;

	if (memcmp(&c, &l->num[QE_RK_DURATION], sizeof c) == 0)
		qe_buf_adds(out, "same");
	else
		qe_buf_addf(out, "%a!=%a", l->num[QE_RK_DURATION], c);
	cJSON_Delete(t);
}

static void
numbers(const char *in, size_t n, struct qe_buf *out)
{
	each_line(in, n, out, show_number);
}

/*
 * Every member read, in id order: id=TYPE:value@pos (strings, numbers
 * %a, "obj" for the trees given, "arrN" for concurrent's of N), then the repeated ones: +id=TYPE@pos.
 */
static void
show_all(const struct qe_recline *l, struct qe_buf *out)
{
	static const char tn[] = "?OASNtfn";

	for (int id = 0; id < QE_RK_N; id++) {
		if (l->type[id] == 0)
			continue;
		qe_buf_addf(out, "%d=%c", id, tn[l->type[id]]);
		if (l->str[id])
			qe_buf_addf(out, ":%s", l->str[id]);
		else if (l->type[id] == QE_JS_NUM)
			qe_buf_addf(out, ":%a", l->num[id]);
		else if ((id == QE_RK_PROVENANCE && l->prov) || (id == QE_RK_TIMEOUT && l->tc) ||
		    (id == QE_RK_KENV && l->kenv))
			qe_buf_adds(out, ":obj");
		else if (id == QE_RK_CONCURRENT && l->concurrent)
			qe_buf_addf(out, ":arr%d", cJSON_GetArraySize(l->concurrent));
		qe_buf_addf(out, "@%u;", l->pos[id]);
	}
	for (size_t i = 0; i < l->ndup; i++)
		qe_buf_addf(out, "+%d=%c@%u;", l->dup[i].id, tn[l->dup[i].type], l->dup[i].pos);
}

static void
show_members(const struct qe_recline *l, const char *line, size_t len, struct qe_buf *out)
{
	(void)line;
	(void)len;
	show_all(l, out);
}

static void
members(const char *in, size_t n, struct qe_buf *out)
{
	each_line(in, n, out, show_members);
}

/*
 * The line read from its bytes beside its cJSON tree read by
 * qe_recscan_tree(): "same" when every member, position and repetition
 * reads alike, else both.
 */
static void
show_tree(const struct qe_recline *l, const char *line, size_t len, struct qe_buf *out)
{
	struct qe_recscan sc = { 0 };
	struct qe_recline t;
	struct qe_buf a = { 0 }, b = { 0 };
	cJSON *tree = cJSON_ParseWithLength(line, len);

	show_all(l, &a);
	if (tree == NULL)
		qe_buf_adds(&b, "cjson refuses");
	else {
		qe_recscan_tree(&sc, tree, &t);
		show_all(&t, &b);
	}
	if (strcmp(a.data ? a.data : "", b.data ? b.data : "") == 0)
		qe_buf_adds(out, "same");
	else
		qe_buf_addf(out, "differ: %s / %s", a.data, b.data);
	qe_buf_free(&a);
	qe_buf_free(&b);
	cJSON_Delete(tree);
	qe_recscan_free(&sc);
}

static void
tree(const char *in, size_t n, struct qe_buf *out)
{
	each_line(in, n, out, show_tree);
}

static const struct unit_fn fns[] = {
	{ "lines", lines },
	{ "numbers", numbers },
	{ "replicate", replicate },
	{ "members", members },
	{ "tree", tree },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
