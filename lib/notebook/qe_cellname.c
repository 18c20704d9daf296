/* A code cell's display name and the exercise/solution blocks around it (qe_cellname.h). */
#include <stdlib.h>
#include <string.h>

#include "qe_json.h"
#include "qe_mem.h"
#include "qe_cellname.h"
#include "qe_notebook.h"

/* Fences nested deeper than this are read as literal text. */
#define MAX_FENCES 32

/* The reading of markdown cells, one line at a time. */
struct scan {
	struct qe_cellname_block open;	/* the block open now (across cells) */
	int pending;			/* a -start directive whose options are being read */
	char *plabel;			/* its label so far (owned) */
	int opts, yaml;			/* reading its options; in a --- block of them */
	struct {
		char c;
		size_t n;
		int literal;		/* a code fence: its lines are text */
	} f[MAX_FENCES];
	size_t depth;
};

const char *
qe_cellname_kind(int kind)
{
	return kind == QE_CELLNAME_EXERCISE ? "exercise" : kind == QE_CELLNAME_SOLUTION ? "solution" : NULL;
}

void
qe_cellname_block_free(struct qe_cellname_block *b)
{
	free(b->label);
	b->label = NULL;
	b->kind = QE_CELLNAME_NONE;
}

void
qe_cellname_blocks_free(struct qe_cellname_blocks *b)
{
	for (size_t i = 0; i < b->n; i++)
		qe_cellname_block_free(&b->v[i]);
	free(b->v);
	b->v = NULL;
	b->n = 0;
}

static char *
dup_range(const char *s, const char *e)
{
	char *d = qe_xmalloc((size_t)(e - s) + 1);

	memcpy(d, s, (size_t)(e - s));
	d[e - s] = '\0';
	return d;
}

static int
is(const char *s, const char *e, const char *word)
{
	return (size_t)(e - s) == strlen(word) && memcmp(s, word, (size_t)(e - s)) == 0;
}

/* The -start directive read: its block is open from here. */
static void
commit(struct scan *sc)
{
	if (sc->pending) {
		qe_cellname_block_free(&sc->open);
		sc->open.kind = sc->pending;
		sc->open.label = sc->plabel;
		sc->plabel = NULL;
	}
	sc->pending = sc->opts = sc->yaml = 0;
}

/* An option line s[0..e) of a -start directive; 0 when it is none (options end). */
static int
option(struct scan *sc, const char *s, const char *e, int first)
{
	const char *k, *v;

	if (is(s, e, "---") && (first || sc->yaml)) {
		sc->yaml = !sc->yaml;
		return 1;
	}
	k = s + (!sc->yaml && *s == ':');
	if (!sc->yaml && k == s)
		return 0;
	v = memchr(k, ':', (size_t)(e - k));
	if (v == NULL || v == k)
		return sc->yaml;
	if (is(k, v, "label") && sc->plabel == NULL) {
		for (v++; v < e && (*v == ' ' || *v == '\t'); v++)
			;
		if (v < e)
			sc->plabel = dup_range(v, e);
	}
	return 1;
}

/* A directive {name} arg opening a fence. */
static void
directive(struct scan *sc, const char *name, const char *ne, const char *arg, const char *e)
{
	if (is(name, ne, "exercise-start") || is(name, ne, "solution-start")) {
		sc->pending = *name == 'e' ? QE_CELLNAME_EXERCISE : QE_CELLNAME_SOLUTION;
		free(sc->plabel);
		/* a solution's argument is the exercise it solves; an exercise's, its title */
		sc->plabel = sc->pending == QE_CELLNAME_SOLUTION && arg < e ? dup_range(arg, e) : NULL;
		sc->opts = 1;
	} else if (is(name, ne, "exercise-end") || is(name, ne, "solution-end"))
		qe_cellname_block_free(&sc->open);
}

/* A fence line (a run of 3 or more '`', '~' or ':'); 0 when s[0..e) is none. */
static int
fence(struct scan *sc, const char *s, const char *e)
{
	size_t n = 0;
	const char *r, *ne;

	while (s + n < e && s[n] == *s)
		n++;
	if ((*s != '`' && *s != '~' && *s != ':') || n < 3)
		return 0;
	r = s + n;
	while (r < e && (*r == ' ' || *r == '\t'))
		r++;
	if (r == e && sc->depth > 0 && sc->f[sc->depth - 1].c == *s && n >= sc->f[sc->depth - 1].n) {
		sc->depth--;
		return 1;
	}
	if (sc->depth < MAX_FENCES) {
		sc->f[sc->depth].c = *s;
		sc->f[sc->depth].n = n;
		sc->f[sc->depth].literal = *r != '{';
	}
	sc->depth++;
	if (*r == '{' && (ne = memchr(r, '}', (size_t)(e - r))) != NULL) {
		const char *arg = ne + 1;

		while (arg < e && (*arg == ' ' || *arg == '\t'))
			arg++;
		directive(sc, r + 1, ne, arg, e);
	}
	return 1;
}

/* One line of a markdown cell, trimmed to s[0..e). */
static void
scan_line(struct scan *sc, const char *s, const char *e, int first_opt)
{
	size_t top = sc->depth < MAX_FENCES ? sc->depth : MAX_FENCES;

	if (sc->depth > MAX_FENCES || (top > 0 && sc->f[top - 1].literal)) {
		/* inside a code fence: only its end counts */
		size_t n = 0;

		while (s + n < e && s[n] == *s)
			n++;
		if (s + n == e && n >= 3 && (sc->depth > MAX_FENCES ||
		    (*s == sc->f[top - 1].c && n >= sc->f[top - 1].n)))
			sc->depth--;
		return;
	}
	if (sc->opts && e > s && option(sc, s, e, first_opt))
		return;
	if (sc->opts)
		commit(sc);
	if (e > s)
		fence(sc, s, e);
}

/* A markdown cell's text: its lines, then the end of its fences. */
static void
scan_text(struct scan *sc, const struct qe_buf *t)
{
	const char *p = t->data ? t->data : "", *end = p + t->len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end, *s = p;
		int was = sc->opts;

		while (s < e && (*s == ' ' || *s == '\t'))
			s++;
		while (e > s && strchr(" \t\r\f\v", e[-1]) != NULL)
			e--;
		scan_line(sc, s, e, was == 1);
		if (was && sc->opts)
			sc->opts = 2;	/* past the first: a --- only ends a block of options */
		p = nl ? nl + 1 : end;
	}
	if (sc->opts || sc->pending)
		commit(sc);
	sc->depth = 0;
}

static const char *
cell_type(const cJSON *cell)
{
	const char *t = qe_json_str(cell, "cell_type");

	return t ? t : "";
}

void
qe_cellname_blocks_read(const cJSON *cells, struct qe_cellname_blocks *b)
{
	struct scan sc = { 0 };
	struct qe_buf t = { 0 };
	const cJSON *cell;
	size_t n = 0;

	cJSON_ArrayForEach(cell, cells)
		n += strcmp(cell_type(cell), "code") == 0;
	b->v = qe_xcalloc(n ? n : 1, sizeof *b->v);
	b->n = 0;
	cJSON_ArrayForEach(cell, cells) {
		if (strcmp(cell_type(cell), "markdown") == 0) {
			if (qe_nb_join_text(cJSON_GetObjectItemCaseSensitive(cell, "source"), &t) == 0)
				scan_text(&sc, &t);
		} else if (strcmp(cell_type(cell), "code") == 0) {
			b->v[b->n].kind = sc.open.kind;
			b->v[b->n++].label = sc.open.label ? qe_xstrdup(sc.open.label) : NULL;
		}
	}
	qe_cellname_block_free(&sc.open);
	free(sc.plabel);
	qe_buf_free(&t);
}

void
qe_cellname_blocks_match(const struct qe_cellname_blocks *b, const char (*have)[QE_SHA256_HEX],
    const char (*want)[QE_SHA256_HEX], size_t n, struct qe_cellname_block *out)
{
	size_t j = 0;

	for (size_t i = 0; i < n; i++) {
		size_t k = j;

		while (k < b->n && memcmp(have[k], want[i], QE_SHA256_HEX) != 0)
			k++;
		if (k == b->n)
			continue;	/* not in the built notebook: no block */
		out[i].kind = b->v[k].kind;
		out[i].label = b->v[k].label ? qe_xstrdup(b->v[k].label) : NULL;
		j = k + 1;
	}
}

char *
qe_cellname_name(const char *label, const struct qe_cellname_block *b, const char *says)
{
	struct qe_buf out = { 0 };

	if (label != NULL)
		return qe_xstrdup(label);
	if (b == NULL || b->kind == QE_CELLNAME_NONE)
		return says ? qe_xstrdup(says) : NULL;
	qe_buf_adds(&out, qe_cellname_kind(b->kind));
	if (b->label) {
		qe_buf_addc(&out, ' ');
		qe_buf_adds(&out, b->label);
	}
	if (says) {
		qe_buf_adds(&out, ": ");
		qe_buf_adds(&out, says);
	}
	return out.data;
}

/* The English ordinal's suffix of k: 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st. */
static const char *
ordinal_suffix(size_t k)
{
	if (k % 100 >= 11 && k % 100 <= 13)
		return "th";
	return k % 10 == 1 ? "st" : k % 10 == 2 ? "nd" : k % 10 == 3 ? "rd" : "th";
}

static int
str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A cell's name and its position in the document. */
struct named {
	const char *name;
	size_t pos;
};

static int
named_cmp(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c != 0 ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

/* The name "N (kth)" for the first k after *k that no cell has as its own (taken[0..nt), sorted). */
static char *
next_free(const char *name, size_t *k, char *const *taken, size_t nt, struct qe_buf *b)
{
	const char *key;

	do {
		++*k;
		qe_buf_reset(b);
		qe_buf_addf(b, "%s (%zu%s)", name, *k, ordinal_suffix(*k));
		key = b->data;
	} while (bsearch(&key, taken, nt, sizeof *taken, str_cmp) != NULL);
	return qe_xstrdup(b->data);
}

void
qe_cellname_unique(char **names, size_t n)
{
	struct named *v = qe_xcalloc(n ? n : 1, sizeof *v);
	char **taken = qe_xcalloc(n ? n : 1, sizeof *taken), **made = qe_xcalloc(n ? n : 1, sizeof *made);
	struct qe_buf b = { 0 };
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		if (names[i] != NULL) {
			v[m].name = taken[m] = names[i];
			v[m++].pos = i;
		}
	qsort(taken, m, sizeof *taken, str_cmp);
	qsort(v, m, sizeof *v, named_cmp);
	/*
	 * "N (kth)" is told from its N and k by its end, so the names made from
	 * two names never meet: only the cells' own names can be taken. The
	 * made ones replace them at the end (taken[] points into names[]).
	 */
	for (size_t g = 0, e; g < m; g = e) {
		size_t k = 1;

		for (e = g + 1; e < m && strcmp(v[e].name, v[g].name) == 0; e++)
			made[v[e].pos] = next_free(v[g].name, &k, taken, m, &b);
	}
	for (size_t i = 0; i < n; i++)
		if (made[i] != NULL) {
			free(names[i]);
			names[i] = made[i];
		}
	qe_buf_free(&b);
	free(made);
	free(taken);
	free(v);
}

/* The MyST splitter's state: the cell being read. */
struct myst {
	cJSON *cells;
	struct qe_buf text;		/* the cell's text so far */
	int code;			/* inside a {code-cell} fence */
	int opts;			/* its options still being read: 1 first line, 2 ---, 3 :key: */
	char fc;			/* the open fence's character and length (code or other) */
	size_t fn;
	int depth;			/* a fence open at the top level that is not a code cell */
};

static void
myst_cell(struct myst *m, const char *type)
{
	cJSON *c = qe_json_check(cJSON_CreateObject());
	struct qe_buf *t = &m->text;

	while (t->len > 0 && (t->data[t->len - 1] == '\n' || t->data[t->len - 1] == ' '))
		t->len--;
	qe_json_check(cJSON_AddStringToObject(c, "cell_type", type));
	qe_buf_addc(t, '\0');
	qe_json_check(cJSON_AddStringToObject(c, "source", t->data));
	if (strcmp(type, "code") == 0 || t->len > 1)
		cJSON_AddItemToArray(m->cells, c);
	else
		cJSON_Delete(c);
	qe_buf_reset(t);
}

/* The run of fence characters at s (3 or more '`' or '~'), its length; 0 for none. */
static size_t
fence_run(const char *s, const char *e)
{
	size_t n = 0;

	while (s + n < e && s[n] == *s)
		n++;
	return (*s == '`' || *s == '~') && n >= 3 ? n : 0;
}

/* A line of a {code-cell}: an option, its end, or source. */
static void
myst_code_line(struct myst *m, const char *l, const char *le, const char *s, const char *e)
{
	if (m->opts == 1 && is(s, e, "---")) {
		m->opts = 2;
		return;
	}
	if (m->opts == 2) {
		if (is(s, e, "---"))
			m->opts = 0;
		return;
	}
	if (m->opts && s < e && *s == ':' && memchr(s + 1, ':', (size_t)(e - s - 1))) {
		m->opts = 3;
		return;
	}
	m->opts = 0;
	qe_buf_add(&m->text, l, (size_t)(le - l));
	qe_buf_addc(&m->text, '\n');
}

/* One line l[0..le) of the source (s[0..e): trimmed). */
static void
myst_line(struct myst *m, const char *l, const char *le, const char *s, const char *e)
{
	size_t n = s < e ? fence_run(s, e) : 0;
	const char *r = s + n;

	while (r < e && (*r == ' ' || *r == '\t'))
		r++;
	if ((m->code || m->depth) && n >= m->fn && *s == m->fc && r == e) {
		if (m->code)
			myst_cell(m, "code");
		else
			qe_buf_add(&m->text, l, (size_t)(le - l)), qe_buf_addc(&m->text, '\n');
		m->code = m->depth = 0;
		return;
	}
	if (m->code) {
		myst_code_line(m, l, le, s, e);
		return;
	}
	if (!m->depth && n > 0) {
		m->fc = *s, m->fn = n;
		if ((size_t)(e - r) >= 11 && memcmp(r, "{code-cell}", 11) == 0) {
			myst_cell(m, "markdown");
			m->code = 1;
			m->opts = 1;
			return;
		}
		m->depth = 1;
	}
	qe_buf_add(&m->text, l, (size_t)(le - l));
	qe_buf_addc(&m->text, '\n');
}

cJSON *
qe_cellname_myst(const char *text, size_t len)
{
	struct myst m = { .cells = qe_json_check(cJSON_CreateArray()) };
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *s = p, *e = le;

		if (e > s && e[-1] == '\r')
			e--, le--;
		while (s < e && (*s == ' ' || *s == '\t'))
			s++;
		while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		myst_line(&m, p, le, s, e);
		p = nl ? nl + 1 : end;
	}
	myst_cell(&m, m.code ? "code" : "markdown");
	qe_buf_free(&m.text);
	return m.cells;
}
