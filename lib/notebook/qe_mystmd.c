/* qe-cache-extract on a mystmd project (qe_mystmd.h). */
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <openssl/evp.h>

#include "qe_file.h"
#include "qe_json.h"
#include "qe_mem.h"
#include "qe_sha.h"
#include "qe_mystmd.h"
#include "qe_nbrecord.h"

/* One executable node of a page, in tree order. */
struct node {
	const cJSON *block;		/* a notebook-code block, or NULL for an inline expression */
	const char *content;		/* the code as the kernel got it, or the expression */
	int raises, skip;
};

/* A page read: its tree and its nodes. */
struct page {
	cJSON *tree;
	const char *location;		/* "/dynamics/markov.md" */
	const char *kernel;		/* frontmatter.kernelspec.name, or "" */
	int have_kernel;		/* the page has frontmatter.kernelspec */
	char *source_kernel;		/* else its source document's, read (owned) */
	struct node *v;			/* executable and skipped code blocks, tree order */
	size_t n, cap;
};

/* A tag list holds tag: a list of strings, or a string (mystmd's `includes`). */
static int
has_tag(const cJSON *tags, const char *tag)
{
	const cJSON *t;

	if (cJSON_IsString(tags))
		return strstr(tags->valuestring, tag) != NULL;
	cJSON_ArrayForEach(t, (cJSON_IsArray(tags) ? tags : NULL))
		if (cJSON_IsString(t) && strcmp(t->valuestring, tag) == 0)
			return 1;
	return 0;
}

static const cJSON *
tags_of(const cJSON *block)
{
	return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(block, "data"), "tags");
}

static int
is_type(const cJSON *n, const char *type)
{
	const char *t = qe_json_str(n, "type");

	return t != NULL && strcmp(t, type) == 0;
}

/* The first descendant of n of `type` (and kind, when not NULL), or NULL. */
static const cJSON *
find(const cJSON *n, const char *type, const char *kind)
{
	const cJSON *c, *f;

	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(n, "children")) {
		const char *k = qe_json_str(c, "kind");

		if (is_type(c, type) && (kind == NULL || (k && strcmp(k, kind) == 0)))
			return c;
		if ((f = find(c, type, kind)) != NULL)
			return f;
	}
	return NULL;
}

static void
add_node(struct page *p, const cJSON *block, const char *content)
{
	struct node *d;

	p->v = qe_mem_grow(p->v, p->n, &p->cap, sizeof *p->v, 16);
	d = memset(&p->v[p->n++], 0, sizeof *d);
	d->block = block;
	d->content = content;
	if (block != NULL) {
		d->raises = has_tag(tags_of(block), "raises-exception");
		d->skip = has_tag(tags_of(block), "skip-execution");
	}
}

/* Collect the executable nodes below n in tree order; -1 for a code block without code. */
static int
walk(struct page *p, const cJSON *n)
{
	const cJSON *c;

	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(n, "children")) {
		const char *kind = qe_json_str(c, "kind");

		if (is_type(c, "block") && kind && strcmp(kind, "notebook-code") == 0) {
			const char *code = qe_json_str(find(c, "code", NULL), "value");

			if (code == NULL)
				return -1;
			add_node(p, c, code);
		} else if (is_type(c, "inlineExpression")) {
			if (qe_json_str(c, "value") == NULL)
				return -1;
			add_node(p, NULL, qe_json_str(c, "value"));
		} else if (walk(p, c) < 0)
			return -1;
	}
	return 0;
}

static void
page_free(struct page *p)
{
	cJSON_Delete(p->tree);
	free(p->v);
	free(p->source_kernel);
	memset(p, 0, sizeof *p);
}

/* Parse a page; -1 after a message. */
static int
page_read(const char *where, const char *s, size_t len, struct page *p)
{
	const cJSON *ks;

	memset(p, 0, sizeof *p);
	if ((p->tree = cJSON_ParseWithLength(s, len)) == NULL || !cJSON_IsObject(p->tree)) {
		warnx("%s: not a mystmd page: not a JSON object", where);
		page_free(p);
		return -1;
	}
	p->location = qe_json_str(p->tree, "location");
	ks = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(p->tree, "frontmatter"),
	    "kernelspec");
	p->kernel = qe_json_str(ks, "name") ? qe_json_str(ks, "name") : "";
	p->have_kernel = cJSON_IsObject(ks);
	if (p->location == NULL || p->location[0] != '/' || strstr(p->location, "/../") ||
	    !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(p->tree, "mdast"))) {
		warnx("%s: not a mystmd page: no 'location' from the project root or no 'mdast'", where);
		page_free(p);
		return -1;
	}
	if (walk(p, cJSON_GetObjectItemCaseSensitive(p->tree, "mdast")) < 0) {
		warnx("%s: a code block without code, or an inline expression without a value", where);
		page_free(p);
		return -1;
	}
	return 0;
}

/* A YAML scalar s[0..n) without its quotes, or its trailing comment when plain. */
static char *
yaml_scalar(const char *s, size_t n)
{
	while (n > 0 && (s[0] == ' ' || s[0] == '\t'))
		s++, n--;
	if (n >= 2 && (s[0] == '"' || s[0] == '\'') && memchr(s + 1, s[0], n - 1))
		return qe_xstrndup(s + 1, (size_t)((const char *)memchr(s + 1, s[0], n - 1) - s - 1));
	for (size_t i = 1; i < n; i++)
		if (s[i] == '#' && (s[i - 1] == ' ' || s[i - 1] == '\t'))
			n = i;
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	return qe_xstrndup(s, n);
}

/* `name:` in a flow mapping s[0..n) ("{name: python3, display_name: ...}"), or NULL. */
static char *
yaml_flow_name(const char *s, size_t n)
{
	for (size_t i = 0; i + 5 <= n; i++)
		if (strncmp(s + i, "name", 4) == 0 && (i == 0 || strchr("{, \t", s[i - 1])) &&
		    s[i + 4] == ':') {
			size_t j = i + 5, k = j;

			while (k < n && s[k] != ',' && s[k] != '}')
				k++;
			return yaml_scalar(s + j, k - j);
		}
	return NULL;
}

/*
 * The kernelspec name of a MyST file's front matter s, or NULL: the block
 * mappings kernelspec.name and jupyter.kernelspec.name (mystmd unnests the
 * latter), or a flow mapping as the kernelspec. A subset of YAML: what
 * mystmd's own reader makes of anything else is not guessed at.
 */
static char *
yaml_kernel(const char *s)
{
	const char *keys[3] = { 0 };
	size_t klen[3], indents[3], depth = 0;

	if (strncmp(s, "---", 3) != 0 || (s[3] != '\n' && s[3] != '\r'))
		return NULL;
	for (s = strchr(s, '\n'); s != NULL && *++s; s = strchr(s, '\n')) {
		size_t ind = strspn(s, " "), eol = strcspn(s, "\n"), k;
		const char *key = s + ind, *colon;

		if (strncmp(s, "---", 3) == 0 || strncmp(s, "...", 3) == 0)
			break;
		if (ind == eol || key[0] == '#' || key[0] == '\r')
			continue;
		if ((colon = memchr(key, ':', eol - ind)) == NULL)
			continue;
		k = (size_t)(colon - key);
		while (depth > 0 && indents[depth - 1] >= ind)
			depth--;
		if (depth >= 3)
			continue;
		keys[depth] = key, klen[depth] = k, indents[depth] = ind;
		{
			const char *v = colon + 1;
			size_t vn = eol - ind - k - 1, d = depth + 1;
			int ks = (d == 1 && k == 10 && strncmp(key, "kernelspec", 10) == 0) ||
			    (d == 2 && klen[0] == 7 && strncmp(keys[0], "jupyter", 7) == 0 &&
			    k == 10 && strncmp(key, "kernelspec", 10) == 0);
			int name = d >= 2 && k == 4 && strncmp(key, "name", 4) == 0 &&
			    klen[d - 2] == 10 && strncmp(keys[d - 2], "kernelspec", 10) == 0 &&
			    (d == 2 || (klen[0] == 7 && strncmp(keys[0], "jupyter", 7) == 0));
			size_t lead = strspn(v, " \t");

			if (name && lead < vn)
				return yaml_scalar(v, vn);
			if (ks && lead < vn && v[lead] == '{')
				return yaml_flow_name(v + lead, vn - lead);
			if (lead < vn && v[lead] != '#' && v[lead] != '\r')
				continue;	/* a scalar: no mapping below it */
		}
		depth++;
	}
	return NULL;
}

/*
 * The kernelspec name of the page's source document root/LOCATION, for a
 * page that has none: its .ipynb metadata or MyST front matter; "" when
 * it names none (mystmd then executes nothing), or it cannot be read (said).
 */
static void
page_source_kernel(struct qe_mystmd *m, struct page *p)
{
	char *path = qe_xmalloc(strlen(m->root) + strlen(p->location) + 1), *bytes;
	size_t len, n = strlen(p->location);

	sprintf(path, "%s%s", m->root, p->location);
	if ((bytes = qe_file_slurp(path, m->max_bytes, &len)) == NULL) {
		warn("%s", path);
		m->problems++;
	} else if (n > 6 && strcmp(p->location + n - 6, ".ipynb") == 0) {
		cJSON *nb = cJSON_ParseWithLength(bytes, len);
		const char *name = qe_json_str(cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(nb, "metadata"), "kernelspec"), "name");

		p->source_kernel = name ? qe_xstrdup(name) : NULL;
		cJSON_Delete(nb);
	} else
		p->source_kernel = yaml_kernel(bytes);
	free(bytes);
	free(path);
	p->kernel = p->source_kernel ? p->source_kernel : "";
}

/* A string as JavaScript's JSON.stringify writes it. */
static void
js_string(struct qe_buf *b, const char *s)
{
	qe_buf_addc(b, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			qe_buf_addc(b, '\\');
			qe_buf_addc(b, (char)c);
		} else if (c == '\b')
			qe_buf_adds(b, "\\b");
		else if (c == '\f')
			qe_buf_adds(b, "\\f");
		else if (c == '\n')
			qe_buf_adds(b, "\\n");
		else if (c == '\r')
			qe_buf_adds(b, "\\r");
		else if (c == '\t')
			qe_buf_adds(b, "\\t");
		else if (c < 0x20)
			qe_buf_addf(b, "\\u%04x", c);
		else
			qe_buf_addc(b, (char)c);
	}
	qe_buf_addc(b, '"');
}

/*
 * The cache key (myst-execute's buildCacheKey): md5 of the kernel's name
 * and the JSON of the executed nodes' kind, content and raises flag; ""
 * without one.
 */
static void
page_key(const struct page *p, char key[33])
{
	struct qe_buf b = { 0 };
	unsigned char d[EVP_MAX_MD_SIZE];
	unsigned int dl = 0;
	int first = 1;

	key[0] = '\0';
	qe_buf_adds(&b, p->kernel);
	qe_buf_addc(&b, '[');
	for (size_t i = 0; i < p->n; i++) {
		if (p->v[i].skip)
			continue;
		qe_buf_adds(&b, first ? "{\"kind\":" : ",{\"kind\":");
		qe_buf_adds(&b, p->v[i].block ? "\"block\"" : "\"inlineExpression\"");
		qe_buf_adds(&b, ",\"content\":");
		js_string(&b, p->v[i].content);
		qe_buf_adds(&b, p->v[i].raises ? ",\"raisesException\":true}" : ",\"raisesException\":false}");
		first = 0;
	}
	qe_buf_addc(&b, ']');
	if (!first && EVP_Digest(b.data, b.len, d, &dl, EVP_md5(), NULL) && dl == 16)
		qe_sha_hex(d, 16, key);
	qe_buf_free(&b);
}

/* The cache entry of a page, read. */
struct entry {
	cJSON *tree;			/* a list of slots, or an .ipynb; NULL: none */
	int ipynb;
	char *where;
	struct qe_time created;
	int have_created;
	double seconds;			/* .ipynb's duration_ms / 1000; NAN */
};

/* Slot i's outputs of the entry, or NULL when it has none (said by the caller). */
static const cJSON *
slot(const struct entry *e, size_t i)
{
	const cJSON *v;

	if (!e->ipynb) {
		v = cJSON_GetArrayItem(e->tree, (int)i);
		return cJSON_IsArray(v) ? v : NULL;
	}
	v = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(e->tree, "cells"), (int)i);
	v = cJSON_GetObjectItemCaseSensitive(v, "outputs");
	return cJSON_IsArray(v) ? v : NULL;
}

static int
slots(const struct entry *e)
{
	return cJSON_GetArraySize(e->ipynb ? cJSON_GetObjectItemCaseSensitive(e->tree, "cells") : e->tree);
}

/* .ipynb: metadata.mystContext's duration and timestamp. */
static void
entry_context(struct entry *e)
{
	const cJSON *ctx = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(e->tree, "metadata"), "mystContext");
	const cJSON *ms = cJSON_GetObjectItemCaseSensitive(ctx, "duration_ms");
	const char *ts = qe_json_str(ctx, "timestamp");
	struct qe_time t;

	if (cJSON_IsNumber(ms) && isfinite(ms->valuedouble) && ms->valuedouble >= 0)
		e->seconds = ms->valuedouble / 1000.0;
	if (ts != NULL && qe_time_parse(ts, &t) == 0) {
		e->created = t;
		e->have_created = 1;
	}
}

/*
 * Read execdir/KEY.ipynb, else KEY.json, into e: 0 when there is none or
 * it was read; -1 after a message when it cannot be read.
 */
static int
entry_read(struct qe_mystmd *m, const char *execdir, const char *key, struct entry *e)
{
	static const char *const ext[] = { ".ipynb", ".json" };
	struct stat sb;
	char *bytes;
	size_t len;

	memset(e, 0, sizeof *e);
	e->seconds = NAN;
	for (int k = 0; k < 2 && execdir != NULL && key[0]; k++) {
		free(e->where);
		e->where = qe_xmalloc(strlen(execdir) + 40);
		sprintf(e->where, "%s/%s%s", execdir, key, ext[k]);
		if (stat(e->where, &sb) != 0)
			continue;
		e->ipynb = k == 0;
		if ((bytes = qe_file_slurp(e->where, m->max_bytes, &len)) == NULL) {
			warn("%s", e->where);
			return -1;
		}
		e->tree = cJSON_ParseWithLength(bytes, len);
		free(bytes);
		if (e->ipynb ? !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(e->tree, "cells")) :
		    !cJSON_IsArray(e->tree)) {
			warnx("%s: not a mystmd cache entry: %s", e->where,
			    e->ipynb ? "no list of 'cells'" : "not a JSON list");
			cJSON_Delete(e->tree);
			e->tree = NULL;
			return -1;
		}
		memset(&e->created, 0, sizeof e->created);
		e->created.sec = sb.st_mtim.tv_sec;
		e->created.nsec = (int32_t)sb.st_mtim.tv_nsec;
		e->created.zone = 1;
		e->created.frac_digits = 9;
		e->have_created = 1;
		if (e->ipynb)
			entry_context(e);
		return 0;
	}
	free(e->where);
	e->where = NULL;
	return 0;
}

static void
entry_free(struct entry *e)
{
	cJSON_Delete(e->tree);
	free(e->where);
}

/* The text below n, its text nodes' values joined. */
static void
text_of(const cJSON *n, struct qe_buf *b)
{
	const cJSON *c;

	if (is_type(n, "text") || is_type(n, "inlineCode"))
		qe_buf_adds(b, qe_json_str(n, "value") ? qe_json_str(n, "value") : "");
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(n, "children"))
		text_of(c, b);
}

/* A markdown cell of the page's headings below n ("## Title" lines): what names its cells. */
static void
headings(const cJSON *n, struct qe_buf *b)
{
	const cJSON *c;

	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(n, "children")) {
		if (is_type(c, "heading")) {
			double d = qe_json_num(c, "depth");
			int depth = isfinite(d) && d >= 1 && d <= 6 ? (int)d : 1;

			for (int i = 0; i < depth; i++)
				qe_buf_addc(b, '#');
			qe_buf_addc(b, ' ');
			text_of(c, b);
			qe_buf_addc(b, '\n');
		} else if (!is_type(c, "block") || qe_json_str(c, "kind") == NULL)
			headings(c, b);
	}
}

/* The label of a code block: its identifier, else its figure's. */
static const char *
label_of(const cJSON *block)
{
	const char *id = qe_json_str(block, "identifier");

	return id ? id : qe_json_str(find(block, "container", "figure"), "identifier");
}

/* The outputs the page shows for a block (a failed document has no entry). */
static cJSON *
page_outputs(const cJSON *block)
{
	cJSON *out = qe_json_check(cJSON_CreateArray());
	const cJSON *outs = find(block, "outputs", NULL), *o;

	if (outs == NULL) {	/* mystmd 1.8 may put output nodes straight in the block */
		cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(block, "children"))
			if (is_type(o, "output") && cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(o, "jupyter_data")))
				cJSON_AddItemToArray(out, qe_json_check(cJSON_Duplicate(
				    cJSON_GetObjectItemCaseSensitive(o, "jupyter_data"), 1)));
		return out;
	}
	cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(outs, "children"))
		if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(o, "jupyter_data")))
			cJSON_AddItemToArray(out, qe_json_check(cJSON_Duplicate(
			    cJSON_GetObjectItemCaseSensitive(o, "jupyter_data"), 1)));
	return out;
}

/* 1 when outputs hold an error output. */
static int
has_error(const cJSON *outputs)
{
	const cJSON *o;

	cJSON_ArrayForEach(o, outputs) {
		const char *t = qe_json_str(o, "output_type");

		if (t && strcmp(t, "error") == 0)
			return 1;
	}
	return 0;
}

/* The code cell of node d: its code, tags, label, outputs and execution count (0: none). */
static cJSON *
code_cell(const struct node *d, cJSON *outputs, int count)
{
	cJSON *cell = qe_json_check(cJSON_CreateObject()), *md;
	const cJSON *tags = tags_of(d->block);
	const char *label = label_of(d->block);

	qe_json_check(cJSON_AddStringToObject(cell, "cell_type", "code"));
	md = qe_json_check(cJSON_AddObjectToObject(cell, "metadata"));
	if (cJSON_IsArray(tags))
		cJSON_AddItemToObject(md, "tags", qe_json_check(cJSON_Duplicate(tags, 1)));
	else if (cJSON_IsString(tags))	/* `:tags: raises-exception` */
		cJSON_AddItemToObject(md, "tags", qe_json_check(cJSON_CreateStringArray((const char *const *)&tags->valuestring, 1)));
	if (label != NULL)
		qe_json_check(cJSON_AddStringToObject(md, "name", label));
	qe_json_check(cJSON_AddStringToObject(cell, "source", d->content));
	cJSON_AddItemToObject(cell, "outputs", outputs);
	if (count > 0)
		qe_json_check(cJSON_AddNumberToObject(cell, "execution_count", count));
	else
		qe_json_check(cJSON_AddNullToObject(cell, "execution_count"));
	return cell;
}

/*
 * The page as a notebook: a markdown cell of its headings, then a code cell
 * per block, with the entry's outputs (slot by slot: an expression's slot
 * is passed over) or, without an entry, the page's own up to the first
 * error not tolerated. *failed is set when that error exists; -1 when the
 * entry's slots are not the page's nodes (said).
 */
static cJSON *
page_notebook(struct qe_mystmd *m, const struct page *p, const struct entry *e, int *failed)
{
	cJSON *nb = qe_json_check(cJSON_CreateObject()), *cells, *md, *ks;
	struct qe_buf h = { 0 };
	size_t slotn = 0;
	int count = 0, stopped = 0;

	*failed = 0;
	qe_json_check(cJSON_AddNumberToObject(nb, "nbformat", 4));
	qe_json_check(cJSON_AddNumberToObject(nb, "nbformat_minor", 5));
	md = qe_json_check(cJSON_AddObjectToObject(nb, "metadata"));
	ks = qe_json_check(cJSON_AddObjectToObject(md, "kernelspec"));
	qe_json_check(cJSON_AddStringToObject(ks, "name", p->kernel));
	cells = qe_json_check(cJSON_AddArrayToObject(nb, "cells"));
	headings(cJSON_GetObjectItemCaseSensitive(p->tree, "mdast"), &h);
	if (h.len > 0) {
		cJSON *mc = qe_json_check(cJSON_CreateObject());

		qe_json_check(cJSON_AddStringToObject(mc, "cell_type", "markdown"));
		qe_buf_addc(&h, '\0');
		qe_json_check(cJSON_AddStringToObject(mc, "source", h.data));
		cJSON_AddItemToObject(mc, "metadata", qe_json_check(cJSON_CreateObject()));
		cJSON_AddItemToArray(cells, mc);
	}
	qe_buf_free(&h);
	for (size_t i = 0; i < p->n; i++) {
		const struct node *d = &p->v[i];
		cJSON *outs;

		if (d->skip) {
			cJSON_AddItemToArray(cells, code_cell(d, qe_json_check(cJSON_CreateArray()), 0));
			continue;
		}
		slotn++;
		if (d->block == NULL)
			continue;	/* an expression: a slot, no cell */
		if (e->tree != NULL) {
			const cJSON *o = slot(e, slotn - 1);

			outs = qe_json_check(o ? cJSON_Duplicate(o, 1) : cJSON_CreateArray());
			cJSON_AddItemToArray(cells, code_cell(d, outs, ++count));
			continue;
		}
		outs = stopped ? qe_json_check(cJSON_CreateArray()) : page_outputs(d->block);
		cJSON_AddItemToArray(cells, code_cell(d, outs, stopped ? 0 : ++count));
		if (!stopped && !d->raises && has_error(outs))
			stopped = *failed = 1;
	}
	(void)m;
	return nb;
}

/* Whether the build measured made the entry: with -s only; a failure is re-run by every build. */
static const char *
origin_of(const struct qe_mystmd *m, const struct entry *e)
{
	if (m->since == NULL)
		return NULL;
	if (e->tree == NULL || (e->have_created && qe_time_diff_us(m->since, &e->created) >= 0))
		return "executed";
	return "inherited";
}

/* The records of a page read (p) with its entry (e) onto out. */
static void
page_records(struct qe_mystmd *m, const char *where, const struct page *p, struct entry *e,
    const char *key, struct qe_buf *out)
{
	int failed;
	cJSON *nb = page_notebook(m, p, e, &failed);
	char *doc = qe_xstrdup(p->location + 1), *dot = strrchr(doc, '.'), *bytes;
	char *path = qe_xmalloc(strlen(m->root) + strlen(p->location) + 1);
	struct qe_nbctx ctx = { .where = path, .document = doc, .input = "mystmd",
	    .cache_key = e->tree ? key : NULL, .pk = -1, .current = -1,
	    .origin = origin_of(m, e), .stable_ids = 0, .execution_seconds = e->seconds,
	    .created = e->created, .have_created = e->have_created,
	    .stale_margin_us = m->stale_margin_us, .hooks = m->hooks,
	    .hook_document = p->location + 1, .hook_root = m->root, .engine = "mystmd" };

	(void)where;
	if (dot != NULL && strchr(dot, '/') == NULL)
		*dot = '\0';
	sprintf(path, "%s%s", m->root, p->location);
	bytes = qe_json_print(nb);
	cJSON_Delete(nb);
	if (qe_nbrecord_notebook(&ctx, bytes, strlen(bytes), free, out) < 0)
		m->problems++;
	m->problems += ctx.problems;
	free(doc);
	free(path);
}

int
qe_mystmd_page(struct qe_mystmd *m, const char *where, const char *bytes, size_t len,
    const char *execdir, char key[33], struct qe_buf *out)
{
	struct page p;
	struct entry e;
	size_t want = 0;
	int failed = 0, ret = 0;

	key[0] = '\0';
	if (page_read(where, bytes, len, &p) < 0) {
		m->problems++;
		return -1;
	}
	if (!p.have_kernel && m->root != NULL)
		page_source_kernel(m, &p);
	page_key(&p, key);
	if (key[0] == '\0') {	/* no executable node: not a notebook */
		page_free(&p);
		return 1;
	}
	if (entry_read(m, execdir, key, &e) < 0)
		m->problems++;
	for (size_t i = 0; i < p.n; i++)
		want += !p.v[i].skip;
	if (e.tree != NULL && (size_t)slots(&e) != want) {
		warnx("%s: %d outputs for the %zu executed nodes of %s: its outputs are not read",
		    e.where, slots(&e), want, p.location + 1);
		m->problems++;
		cJSON_Delete(e.tree);
		e.tree = NULL;
		e.have_created = 0;
		e.seconds = NAN;
	}
	if (e.tree == NULL) {
		cJSON_Delete(page_notebook(m, &p, &e, &failed));
		if (!failed) {	/* no entry and no error: not executed */
			m->not_executed++;
			ret = 1;
		}
	}
	if (ret == 0)
		page_records(m, where, &p, &e, key, out);
	entry_free(&e);
	page_free(&p);
	return ret;
}

/* 1 when dir/sub is a regular file */
static int
is_file(const char *dir, const char *sub)
{
	char path[4096];
	struct stat sb;

	snprintf(path, sizeof path, "%s/%s", dir, sub);
	return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

static int
is_dir(const char *dir, const char *sub)
{
	char path[4096];
	struct stat sb;

	snprintf(path, sizeof path, "%s/%s", dir, sub);
	return stat(path, &sb) == 0 && (sub[0] == 'm' ? S_ISREG(sb.st_mode) : S_ISDIR(sb.st_mode));
}

int
qe_mystmd_is_project(const char *path, struct qe_buf *root)
{
	size_t n = strlen(path);

	qe_buf_reset(root);
	while (n > 1 && path[n - 1] == '/')
		n--;
	if (is_dir(path, "myst.yml")) {
		qe_buf_add(root, path, n);
		return 1;
	}
	if (!is_dir(path, "execute") && !is_dir(path, "site/content"))
		return 0;
	while (n > 0 && path[n - 1] != '/')	/* the _build's parent */
		n--;
	if (n == 0)
		qe_buf_adds(root, ".");
	else
		qe_buf_add(root, path, n > 1 ? n - 1 : 1);
	qe_buf_addc(root, '\0');
	root->len--;
	return 1;
}

/* path without its trailing '/'s and its last component into b ("." for none) */
static void
parent_of(const char *path, struct qe_buf *b)
{
	size_t n = strlen(path);

	while (n > 1 && path[n - 1] == '/')
		n--;
	while (n > 0 && path[n - 1] != '/')
		n--;
	while (n > 1 && path[n - 1] == '/')
		n--;
	qe_buf_reset(b);
	if (n == 0)
		qe_buf_adds(b, ".");
	else
		qe_buf_add(b, path, n);
	qe_buf_addc(b, '\0');
	b->len--;
}

int
qe_mystmd_builder(const char *which, const char *source, const char *build,
    const char *cache, struct qe_buf *out)
{
	struct qe_buf project = { 0 };
	int myst = is_dir(source, "myst.yml");

	if (strchr(source, '\n') || strchr(build, '\n') || (cache && strchr(cache, '\n'))) {
		warnx("--builder: a path holds a newline");
		return -1;
	}
	if (strcmp(which, "auto") == 0)
		which = myst && !is_file(source, "_config.yml") && !is_file(source, "_toc.yml")
		    ? "mystmd" : "jupyter-book";
	qe_buf_reset(out);
	if (strcmp(which, "jupyter-book") == 0) {
		qe_buf_addf(out, "builder=jupyter-book\nbuild=%s\nread=", build);
		if (cache != NULL && cache[0] != '\0') {
			if (is_file(cache, "global.db"))
				qe_buf_adds(out, cache);
		} else if (is_file(build, ".jupyter_cache/global.db"))
			qe_buf_addf(out, "%s/.jupyter_cache", build);
		qe_buf_addc(out, '\n');
		return 0;
	}
	if (strcmp(which, "mystmd") != 0) {
		warnx("--builder: expected auto, jupyter-book or mystmd, got '%s'", which);
		return -1;
	}
	if (myst)
		qe_buf_adds(&project, source);
	else
		parent_of(build, &project);
	qe_buf_addc(&project, '\0');
	/* a build that executed: its cache, or its pages (a failure is never cached) */
	qe_buf_addf(out, "builder=mystmd\nbuild=%s/_build\nread=%s\n", project.data,
	    is_dir(project.data, "_build/execute") || is_dir(project.data, "_build/site/content") ? project.data : "");
	qe_buf_free(&project);
	return 0;
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in dir ending in ext, sorted (free each and the list); NULL when it cannot be read. */
static char **
names(const char *dir, const char *ext, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v = NULL;
	size_t cap = 0, el = strlen(ext);

	*n = 0;
	if (d == NULL)
		return NULL;
	while ((de = readdir(d)) != NULL) {
		size_t len = strlen(de->d_name);

		if (len > el && strcmp(de->d_name + len - el, ext) == 0 && de->d_name[0] != '.') {
			v = qe_mem_grow(v, *n, &cap, sizeof *v, 16);
			v[(*n)++] = qe_xstrdup(de->d_name);
		}
	}
	closedir(d);
	if (*n > 0)
		qsort(v, *n, sizeof *v, name_cmp);
	return v ? v : qe_xcalloc(1, sizeof *v);
}

static void
names_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* 1 when name is "<32 hex>.json" or "<32 hex>.ipynb" whose key is one of keys[0..n). */
static int
keyed(const char *name, char (*keys)[33], size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strncmp(name, keys[i], 32) == 0 && name[32] == '.')
			return 1;
	return 0;
}

/* The entries of execdir no page keys to: counted and said once. */
static void
stale_entries(const char *execdir, char (*keys)[33], size_t nkeys)
{
	static const char *const ext[] = { ".json", ".ipynb" };
	struct qe_buf b = { 0 };
	size_t stale = 0;

	for (int k = 0; k < 2; k++) {
		size_t n;
		char **v = names(execdir, ext[k], &n);

		for (size_t i = 0; v && i < n; i++)
			if (strlen(v[i]) == 32 + strlen(ext[k]) && !keyed(v[i], keys, nkeys)) {
				qe_buf_adds(&b, stale++ ? ", " : "");
				qe_buf_adds(&b, v[i]);
			}
		names_free(v, v ? n : 0);
	}
	if (stale > 0)
		warnx("%s: %zu cache entr%s belong%s to no document of the build (an edited document's "
		    "old outputs): not read: %s", execdir, stale, stale == 1 ? "y" : "ies",
		    stale == 1 ? "s" : "", b.data);
	qe_buf_free(&b);
}

void
qe_mystmd_extract(struct qe_mystmd *m, const char *root)
{
	struct qe_buf content = { 0 }, execdir = { 0 }, out = { 0 }, where = { 0 };
	size_t n = 0, nkeys = 0;
	char **v, (*keys)[33];

	m->root = root;
	if (m->pages != NULL)
		qe_buf_adds(&content, m->pages);
	else
		qe_buf_addf(&content, "%s/_build/site/content", root);
	qe_buf_addf(&execdir, "%s/_build/execute", root);
	if ((v = names(content.data, ".json", &n)) == NULL) {
		warnx("%s: no site content (run myst build --site or --html with --execute): "
		    "nothing read", content.data);
		m->problems++;
		goto out;
	}
	keys = qe_xcalloc(n ? n : 1, sizeof *keys);
	for (size_t i = 0; i < n; i++) {
		size_t len;
		char *bytes;

		qe_buf_reset(&where);
		qe_buf_addf(&where, "%s/%s", content.data, v[i]);
		if ((bytes = qe_file_slurp(where.data, m->max_bytes, &len)) == NULL) {
			warn("%s", where.data);
			m->problems++;
			continue;
		}
		if (qe_mystmd_page(m, where.data, bytes, len, execdir.data, keys[nkeys], &out) >= 0 &&
		    keys[nkeys][0] != '\0')
			nkeys++;
		free(bytes);
		if (out.len > 0)
			m->emit(&out);
	}
	if (m->not_executed > 0)
		warnx("%s: %d document%s with code ha%s no cache entry and no error: not executed "
		    "(myst build --execute), no records", root, m->not_executed,
		    m->not_executed == 1 ? "" : "s", m->not_executed == 1 ? "s" : "ve");
	stale_entries(execdir.data, keys, nkeys);
	free(keys);
out:
	names_free(v, n);
	qe_buf_free(&content);
	qe_buf_free(&execdir);
	qe_buf_free(&out);
	qe_buf_free(&where);
}
