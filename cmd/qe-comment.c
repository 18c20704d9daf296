/*
 * qe-comment - turn qe-cell-diff records into the GitHub-flavoured Markdown a
 * reviewer reads in ten seconds: a pull-request comment (with a hidden marker
 * for updating it in place) or, with -s, a job summary. Every string that
 * comes from the build is untrusted and goes through esc_text() or
 * esc_code(); the output never exceeds the byte limit, and only the detail
 * is cut to meet it.
 */
#include <ctype.h>
#include <err.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "qe.h"

#define COMMENT_LIMIT	65536		/* GitHub: characters per comment */
#define SUMMARY_LIMIT	(1024 * 1024)	/* GitHub: bytes per step summary */
#define MIN_LIMIT	4096

/* Display caps, in code points, for strings from the build. */
#define CAP_DOC		80
#define CAP_LABEL	60
#define CAP_LINE	60
#define CAP_REASON	120
#define CAP_FACT	60
#define CAP_TITLE	100
#define CAP_FILE	120

#define SPARK_WIDTH	40

static int sflag;
static long max_rows = -1;
static size_t limit;
static const char *title = "Lecture execution times";
static char *head_sha, *run_number, *run_id, *repo_url;
static int trouble;

/* ---- verdicts and flags, as in schema/diff.json ---------------------------- */

enum { V_REGRESSION, V_IMPROVEMENT, V_UNCHANGED, V_INCONCLUSIVE, V_NEW, V_REMOVED,
	V_NOTIMING, V_NOTCOMPARABLE, V_CACHED, V_NV };
static const char *const verdict_names[V_NV] = { "regression", "improvement", "unchanged",
	"inconclusive", "new", "removed", "no-timing", "not-comparable", "cached" };
static const char *const verdict_words[V_NV] = { "slower", "faster", "unchanged",
	"unclear", "new", "removed", "no timing", "not comparable", "not re-executed" };

enum { F_SOURCE = 1, F_UPSTREAM = 2, F_OUTPUT = 4, F_STATUS = 8, F_NOTCOMP = 16 };
static const char *const flag_names[] = { "source-changed", "upstream-changed",
	"output-changed", "status-changed", "not-comparable" };
#define NFLAGS 5

enum { ST_NONE, ST_OK, ST_ERROR, ST_SKIPPED, ST_NOTRUN, ST_FAILED, ST_OTHER };
static const char *const status_names[] = { NULL, "ok", "error", "skipped", "not-run", "failed" };

struct celld {
	char *doc, *label, *first_line, *reason;
	long bidx, hidx;	/* -1 for null */
	int verdict;
	unsigned flags;
	int st_b, st_h;
	double base_s, head_s, ratio, delta, adj_ratio, share_b, share_h;
	int has_test;
	double p;
	long n_b, n_h;
	long seq;
};

struct nbd {
	char *doc, *reason;
	int verdict;
	unsigned flags;
	int st_b, st_h;
	int whole;		/* measure is execution_seconds */
	int executed;		/* head_origin "executed" */
	double base_s, head_s, ratio, delta;
	long seq;
	/* filled from the cells */
	long c0, nc;		/* first cell in the sorted cell array, count */
	long counts[V_NV];
};

static struct celld *cells;
static size_t ncells, capcells;
static struct nbd *nbs;
static size_t nnbs, capnbs;
static cJSON *summary;
static long seq;

/* ---- reading ----------------------------------------------------------------- */

static double
num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble : NAN;
}

static long
index_of(const cJSON *o, const char *key)
{
	double v = num(o, key);

	return isnan(v) || v < 0 || v > 1e12 || v != floor(v) ? -1 : (long)v;
}

static char *
dup_or_null(const cJSON *o, const char *key)
{
	const char *s = qe_json_str(o, key);

	return s ? qe_xstrdup(s) : NULL;
}

static int
lookup(const char *s, const char *const *names, int n)
{
	if (s == NULL)
		return -1;
	for (int i = 0; i < n; i++)
		if (names[i] && strcmp(s, names[i]) == 0)
			return i;
	return -1;
}

static int
status_of(const cJSON *o, const char *key)
{
	const char *s = qe_json_str(o, key);
	int i;

	if (s == NULL)
		return ST_NONE;
	i = lookup(s, status_names, ST_OTHER);
	return i < 0 ? ST_OTHER : i;
}

static unsigned
flags_of(const cJSON *o)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "flags"), *f;
	unsigned fl = 0;
	int i;

	cJSON_ArrayForEach(f, a)
		if (cJSON_IsString(f) && (i = lookup(f->valuestring, flag_names, NFLAGS)) >= 0)
			fl |= 1u << i;
	return fl;
}

static int
read_record(cJSON *rec, const char *file, long line, void *ctx)
{
	const char *kind = qe_json_str(rec, "kind");
	const char *doc;
	int v;

	(void)ctx;
	if (kind == NULL) {
		warnx("%s:%ld: record without 'kind'", file, line);
		return -1;
	}
	if (strcmp(kind, "diff-summary") == 0) {
		cJSON_Delete(summary);
		summary = qe_json_check(cJSON_Duplicate(rec, 1));
		return 0;
	}
	if (strcmp(kind, "cell-diff") != 0 && strcmp(kind, "notebook-diff") != 0)
		return 0;	/* extraction records and others: not ours */
	if ((doc = qe_json_str(rec, "document")) == NULL) {
		warnx("%s:%ld: %s record without 'document'", file, line, kind);
		return -1;
	}
	if ((v = lookup(qe_json_str(rec, "verdict"), verdict_names, V_NV)) < 0) {
		warnx("%s:%ld: %s record without a known 'verdict'", file, line, kind);
		return -1;
	}
	if (kind[0] == 'c') {
		struct celld *c;

		if (ncells == capcells) {
			capcells = capcells ? capcells * 2 : 64;
			cells = qe_xrealloc(cells, capcells * sizeof *cells);
		}
		c = &cells[ncells++];
		memset(c, 0, sizeof *c);
		c->doc = qe_xstrdup(doc);
		c->label = dup_or_null(rec, "label");
		c->first_line = dup_or_null(rec, "first_line");
		c->reason = dup_or_null(rec, "reason");
		c->bidx = index_of(rec, "base_index");
		c->hidx = index_of(rec, "head_index");
		c->verdict = v;
		c->flags = flags_of(rec);
		c->st_b = status_of(rec, "status_base");
		c->st_h = status_of(rec, "status_head");
		c->base_s = num(rec, "base_s");
		c->head_s = num(rec, "head_s");
		c->ratio = num(rec, "ratio");
		c->delta = num(rec, "delta_s");
		c->adj_ratio = num(rec, "adjusted_ratio");
		c->share_b = num(rec, "share_base");
		c->share_h = num(rec, "share_head");
		{
			const cJSON *t = cJSON_GetObjectItemCaseSensitive(rec, "test");

			if (cJSON_IsObject(t)) {
				c->has_test = 1;
				c->p = num(t, "p");
			}
		}
		c->n_b = index_of(rec, "n_base");
		c->n_h = index_of(rec, "n_head");
		c->seq = seq++;
	} else {
		struct nbd *n;
		const char *m = qe_json_str(rec, "measure"), *o = qe_json_str(rec, "head_origin");

		if (nnbs == capnbs) {
			capnbs = capnbs ? capnbs * 2 : 16;
			nbs = qe_xrealloc(nbs, capnbs * sizeof *nbs);
		}
		n = &nbs[nnbs++];
		memset(n, 0, sizeof *n);
		n->doc = qe_xstrdup(doc);
		n->reason = dup_or_null(rec, "reason");
		n->verdict = v;
		n->flags = flags_of(rec);
		n->st_b = status_of(rec, "status_base");
		n->st_h = status_of(rec, "status_head");
		n->whole = m && strcmp(m, "execution_seconds") == 0;
		n->executed = v != V_CACHED && (o == NULL || strcmp(o, "inherited") != 0) &&
		    v != V_REMOVED;
		n->base_s = num(rec, "base_s");
		n->head_s = num(rec, "head_s");
		n->ratio = num(rec, "ratio");
		n->delta = num(rec, "delta_s");
		n->seq = seq++;
	}
	return 0;
}

/* ---- escaping: any string from the build becomes inert GFM inline text ------ */

/*
 * Decode one code point of s[0..n). Returns the bytes used (at least 1) and
 * sets *cp, or -1 for a byte that does not start well-formed UTF-8.
 */
static size_t
utf8_next(const unsigned char *s, size_t n, long *cp)
{
	unsigned c = s[0];
	size_t len;
	long v, min;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, min = 0x80, v = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, min = 0x800, v = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, min = 0x10000, v = c & 0x07;
	else {
		*cp = -1;
		return 1;
	}
	if (n < len) {
		*cp = -1;
		return 1;
	}
	for (size_t k = 1; k < len; k++) {
		if ((s[k] & 0xc0) != 0x80) {
			*cp = -1;
			return 1;
		}
		v = v << 6 | (s[k] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) {
		*cp = -1;
		return 1;
	}
	*cp = v;
	return len;
}

static void
put_cp(struct qe_buf *b, long cp)
{
	char u[4];

	if (cp < 0x80)
		qe_buf_addc(b, (char)cp);
	else if (cp < 0x800) {
		u[0] = (char)(0xc0 | cp >> 6);
		u[1] = (char)(0x80 | (cp & 0x3f));
		qe_buf_add(b, u, 2);
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | cp >> 12);
		u[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		qe_buf_add(b, u, 3);
	} else {
		u[0] = (char)(0xf0 | cp >> 18);
		u[1] = (char)(0x80 | (cp >> 12 & 0x3f));
		u[2] = (char)(0x80 | (cp >> 6 & 0x3f));
		u[3] = (char)(0x80 | (cp & 0x3f));
		qe_buf_add(b, u, 4);
	}
}

#define ZWJ		0x200d
#define REPLACEMENT	0xfffd
#define ELLIPSIS	"\xe2\x80\xa6"

/*
 * The visible stand-in for an invisible or layout-changing code point, or cp
 * itself. C0 controls become their Control Pictures (newline: U+2424), DEL
 * U+2421; C1 controls, bidirectional controls, line/paragraph separators,
 * BOM, tag characters and invalid UTF-8 (-1) become U+FFFD.
 */
static long
visible(long cp)
{
	if (cp < 0)
		return REPLACEMENT;
	if (cp == '\n')
		return 0x2424;
	if (cp < 0x20)
		return 0x2400 + cp;
	if (cp == 0x7f)
		return 0x2421;
	if ((cp >= 0x80 && cp <= 0x9f) || cp == 0x061c || cp == 0x200e || cp == 0x200f ||
	    (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ||
	    cp == 0xfeff || (cp >= 0xe0000 && cp <= 0xe007f))
		return REPLACEMENT;
	return cp;
}

/*
 * Decode s into at most max code points of visible text (with an ellipsis
 * when cut). Returns a NUL-free array of code points and its length.
 */
static long *
decode(const char *s, size_t max, size_t *np)
{
	size_t n = strlen(s), i = 0, k = 0;
	long *v = qe_xmalloc((max + 2) * sizeof *v);

	while (i < n && k < max) {
		long cp;

		i += utf8_next((const unsigned char *)s + i, n - i, &cp);
		v[k++] = visible(cp);
	}
	if (i < n)
		v[k++] = 0x2026;	/* … */
	*np = k;
	return v;
}

static int
is_ws(long cp)
{
	return cp == ' ';
}

static int
lower(long cp)
{
	return cp >= 'A' && cp <= 'Z' ? (int)(cp + 32) : (int)cp;
}

/*
 * Append s as inert inline text: HTML special characters as entities, Markdown
 * punctuation backslash-escaped (a table cell cannot break on '|'), and a zero-
 * width joiner after '@' and '#', in "GH-", "://" and "www." so that no
 * mention, reference or autolink forms, on GitHub or in cmark-gfm. Blanks at
 * either end are dropped. Returns the number of code points shown.
 */
static size_t
esc_text(struct qe_buf *b, const char *s, size_t max)
{
	size_t n, lo = 0, hi;
	long *v = decode(s, max, &n);
	int digits_only = 1;

	hi = n;
	while (lo < hi && is_ws(v[lo]))
		lo++;
	while (hi > lo && is_ws(v[hi - 1]))
		hi--;
	for (size_t i = lo; i < hi; i++) {
		long c = v[i];
		int first = i == lo;

		switch (c) {
		case '<':
			qe_buf_adds(b, "&lt;");
			break;
		case '>':
			qe_buf_adds(b, "&gt;");
			break;
		case '&':
			qe_buf_adds(b, "&amp;");
			break;
		case '"':
			qe_buf_adds(b, "&quot;");
			break;
		case '\'':
			qe_buf_adds(b, "&#39;");
			break;
		case '@':
			qe_buf_addc(b, '@');
			put_cp(b, ZWJ);
			break;
		case '#':
			qe_buf_adds(b, "\\#");
			put_cp(b, ZWJ);
			break;
		case '\\': case '`': case '*': case '_': case '[': case ']': case '(': case ')':
		case '|': case '~': case '!': case '$': case '{': case '}': case '^':
			qe_buf_addc(b, '\\');
			qe_buf_addc(b, (char)c);
			break;
		case '-': case '+': case '=':
			if (first)
				qe_buf_addc(b, '\\');
			qe_buf_addc(b, (char)c);
			if (c == '-' && i >= lo + 2 && lower(v[i - 2]) == 'g' && lower(v[i - 1]) == 'h')
				put_cp(b, ZWJ);
			break;
		case '.':
			if (digits_only && !first)
				qe_buf_addc(b, '\\');	/* "1." would start a list */
			else if (i >= lo + 3 && lower(v[i - 3]) == 'w' && lower(v[i - 2]) == 'w' &&
			    lower(v[i - 1]) == 'w')
				put_cp(b, ZWJ);
			qe_buf_addc(b, '.');
			break;
		case ':':
			qe_buf_addc(b, ':');
			if (i + 1 < hi && v[i + 1] == '/')
				put_cp(b, ZWJ);
			break;
		default:
			put_cp(b, c);
		}
		if (!(c >= '0' && c <= '9'))
			digits_only = 0;
	}
	free(v);
	return hi - lo;
}

/*
 * Append s as a code span: nothing inside is interpreted, so only controls
 * (made visible), the fence (one backtick longer than the longest run inside)
 * and, in a table, '|' need care. The table scanner reads "\|" as an escaped
 * pipe; an odd run of backslashes before a pipe gets one more backslash, so
 * the row never splits (the reader then sees one extra backslash).
 */
static void
esc_code(struct qe_buf *b, const char *s, size_t max, int intable)
{
	size_t n, run = 0, longest = 0;
	long *v = decode(s, max, &n);
	int pad;

	for (size_t i = 0; i < n; i++) {
		run = v[i] == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	pad = n > 0 && (v[0] == '`' || v[0] == ' ' || v[n - 1] == '`' || v[n - 1] == ' ');
	for (size_t k = 0; k <= longest; k++)
		qe_buf_addc(b, '`');
	if (pad)
		qe_buf_addc(b, ' ');
	for (size_t i = 0, bs = 0; i < n; i++) {
		if (v[i] == '|' && intable) {
			if (bs % 2 == 1)
				qe_buf_addc(b, '\\');
			qe_buf_addc(b, '\\');
		}
		bs = v[i] == '\\' ? bs + 1 : 0;
		put_cp(b, v[i]);
	}
	if (pad)
		qe_buf_addc(b, ' ');
	for (size_t k = 0; k <= longest; k++)
		qe_buf_addc(b, '`');
	free(v);
}

/* ---- number formatting (C locale: never call setlocale) ------------------ */

static void
addf(struct qe_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
addf(struct qe_buf *b, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n > 0)
		qe_buf_add(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* 12345 -> "12,345" */
static void
add_count(struct qe_buf *b, long n)
{
	char tmp[32];
	int len = snprintf(tmp, sizeof tmp, "%ld", n < 0 ? -n : n);

	if (n < 0)
		qe_buf_addc(b, '-');
	for (int i = 0; i < len; i++) {
		if (i > 0 && (len - i) % 3 == 0)
			qe_buf_addc(b, ',');
		qe_buf_addc(b, tmp[i]);
	}
}

static const char *
plural(long n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* A duration: "8 ms", "0.304 s"... "2m 05s", "1h 02m". */
static void
add_dur(struct qe_buf *b, double s)
{
	if (isnan(s))
		qe_buf_adds(b, "\xe2\x80\x94");	/* — */
	else if (s < 0.0005)
		qe_buf_adds(b, "<1\xc2\xa0ms");
	else if (s < 0.0995)
		addf(b, "%.0f\xc2\xa0ms", s * 1000);
	else if (s < 10)
		addf(b, "%.2f\xc2\xa0s", s);
	else if (s < 59.95)
		addf(b, "%.1f\xc2\xa0s", s);
	else if (s < 3600) {
		long t = lround(s);

		addf(b, "%ldm\xc2\xa0%02lds", t / 60, t % 60);
	} else {
		long t = lround(s / 60);

		addf(b, "%ldh\xc2\xa0%02ldm", t / 60, t % 60);
	}
}

static void
add_delta(struct qe_buf *b, double d)
{
	if (isnan(d)) {
		qe_buf_adds(b, "\xe2\x80\x94");
		return;
	}
	if (fabs(d) < 0.0005) {
		qe_buf_adds(b, "0\xc2\xa0ms");
		return;
	}
	qe_buf_addc(b, d < 0 ? '-' : '+');
	add_dur(b, fabs(d));
}

static void
add_ratio(struct qe_buf *b, double r)
{
	if (isnan(r))
		qe_buf_adds(b, "\xe2\x80\x94");
	else if (r >= 100)
		addf(b, "\xc3\x97%.0f", r);
	else if (r >= 0.01)
		addf(b, "\xc3\x97%.2f", r);
	else
		qe_buf_adds(b, "\xc3\x97<0.01");
}

static void
add_pct(struct qe_buf *b, double f)
{
	if (isnan(f))
		qe_buf_adds(b, "\xe2\x80\x94");
	else if (f > 0 && f < 0.005)
		qe_buf_adds(b, "<1%");
	else
		addf(b, "%.0f%%", f * 100);
}

/* ---- the model: sorted cells, per-lecture counts, the top rows ------------ */

static int
cell_cmp(const void *a, const void *b)
{
	const struct celld *x = a, *y = b;
	int c = strcmp(x->doc, y->doc);
	long xi = x->hidx >= 0 ? x->hidx : x->bidx, yi = y->hidx >= 0 ? y->hidx : y->bidx;

	if (c)
		return c;
	if (xi != yi)
		return xi < yi ? -1 : 1;
	/* a removed cell sits before the head cell that took its place */
	if ((x->hidx < 0) != (y->hidx < 0))
		return x->hidx < 0 ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int
nb_cmp(const void *a, const void *b)
{
	const struct nbd *x = a, *y = b;
	int c = strcmp(x->doc, y->doc);

	return c ? c : x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int
now_failing(const struct celld *c)
{
	return c->st_h == ST_ERROR && c->bidx >= 0 && c->st_b != ST_ERROR;
}

static int
fixed(const struct celld *c)
{
	return c->st_b == ST_ERROR && c->hidx >= 0 && c->st_h != ST_ERROR && c->st_h != ST_NONE;
}

/* A row of the top table: a cell, or a whole lecture without cell timings. */
struct toprow {
	const struct celld *c;
	const struct nbd *n;
	int rank;
	double key;
};

static int
top_rank(int verdict, int failing)
{
	if (verdict == V_REGRESSION)
		return 0;
	if (failing)
		return 1;
	if (verdict == V_INCONCLUSIVE)
		return 2;
	if (verdict == V_IMPROVEMENT)
		return 3;
	return -1;
}

static int
top_cmp(const void *a, const void *b)
{
	const struct toprow *x = a, *y = b;
	const char *xd = x->c ? x->c->doc : x->n->doc, *yd = y->c ? y->c->doc : y->n->doc;
	long xs = x->c ? x->c->seq : x->n->seq, ys = y->c ? y->c->seq : y->n->seq;
	int c;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	if ((c = strcmp(xd, yd)) != 0)
		return c;
	return xs < ys ? -1 : xs > ys;
}

static double
top_key(int rank, double delta)
{
	if (isnan(delta))
		return -INFINITY;
	return rank == 3 ? -delta : rank == 2 ? fabs(delta) : delta;
}

static struct toprow *tops;
static size_t ntops;

/* Totals over everything read. */
static long ccount[V_NV], nbcount[V_NV];
static long n_executed, n_cached, n_failed, n_failed_new, n_fixed_nb, n_whole;
static long n_now_failing, n_fixed_cells, n_notcomp_cells;
static long nb_only_regressions, nb_only_improvements;

static void
build_model(void)
{
	size_t j = 0;

	if (ncells > 0)		/* qsort(NULL, 0, ...) is undefined */
		qsort(cells, ncells, sizeof *cells, cell_cmp);
	if (nnbs > 0)
		qsort(nbs, nnbs, sizeof *nbs, nb_cmp);
	for (size_t i = 0; i < ncells; i++) {
		const struct celld *c = &cells[i];

		ccount[c->verdict]++;
		if (now_failing(c))
			n_now_failing++;
		if (fixed(c))
			n_fixed_cells++;
		if (c->flags & F_NOTCOMP)
			n_notcomp_cells++;
	}
	/* cells of each notebook: both arrays are sorted by document */
	for (size_t i = 0; i < nnbs; i++) {
		struct nbd *n = &nbs[i];
		int c;

		while (j < ncells && (c = strcmp(cells[j].doc, n->doc)) < 0)
			j++;
		n->c0 = (long)j;
		while (j < ncells && strcmp(cells[j].doc, n->doc) == 0) {
			n->counts[cells[j].verdict]++;
			j++;
		}
		n->nc = (long)j - n->c0;
		if (i + 1 < nnbs && strcmp(nbs[i + 1].doc, n->doc) == 0)
			j = (size_t)n->c0;	/* a repeated document shares its cells */
		nbcount[n->verdict]++;
		if (n->executed && n->st_h != ST_FAILED)
			n_executed++;
		if (n->verdict == V_CACHED)
			n_cached++;
		if (n->st_h == ST_FAILED) {
			n_failed++;
			if (n->st_b != ST_FAILED)
				n_failed_new++;
		} else if (n->st_b == ST_FAILED && n->st_h == ST_OK)
			n_fixed_nb++;
		if (n->executed && n->whole)
			n_whole++;
	}

	tops = qe_xmalloc((ncells + nnbs + 1) * sizeof *tops);
	for (size_t i = 0; i < ncells; i++) {
		int r = top_rank(cells[i].verdict, now_failing(&cells[i]));

		if (r >= 0)
			tops[ntops++] = (struct toprow){ .c = &cells[i], .rank = r,
			    .key = top_key(r, cells[i].delta) };
	}
	/* a lecture's verdict that its cells do not show (no cell timings) */
	for (size_t i = 0; i < nnbs; i++) {
		const struct nbd *n = &nbs[i];
		int r = top_rank(n->verdict, 0);

		if (r < 0 || n->counts[n->verdict] > 0)
			continue;
		tops[ntops++] = (struct toprow){ .n = n, .rank = r, .key = top_key(r, n->delta) };
		if (n->verdict == V_REGRESSION)
			nb_only_regressions++;
		if (n->verdict == V_IMPROVEMENT)
			nb_only_improvements++;
	}
	if (ntops > 0)
		qsort(tops, ntops, sizeof *tops, top_cmp);
}

/* ---- pieces of the output -------------------------------------------------- */

static void
add_verdict_word(struct qe_buf *b, int v, int failing)
{
	if (v == V_REGRESSION)
		qe_buf_adds(b, "\xf0\x9f\x94\xb4 slower");		/* 🔴 */
	else if (v == V_IMPROVEMENT)
		qe_buf_adds(b, "\xf0\x9f\x9f\xa2 faster");		/* 🟢 */
	else if (failing)
		qe_buf_adds(b, "\xe2\x9d\x8c now fails");		/* ❌ */
	else if (v == V_INCONCLUSIVE)
		qe_buf_adds(b, "\xf0\x9f\x9f\xa1 unclear");		/* 🟡 */
	else
		qe_buf_adds(b, verdict_words[v]);
}

static void
add_cell_name(struct qe_buf *b, const struct celld *c)
{
	long idx = c->hidx >= 0 ? c->hidx : c->bidx;

	if (c->label && *c->label) {
		struct qe_buf t = { 0 };

		if (esc_text(&t, c->label, CAP_LABEL) > 0) {
			qe_buf_add(b, t.data, t.len);
			qe_buf_free(&t);
			return;
		}
		qe_buf_free(&t);
	}
	qe_buf_adds(b, "code cell ");
	if (idx >= 0)
		add_count(b, idx + 1);
	else
		qe_buf_adds(b, "?");
	if (c->first_line && *c->first_line) {
		qe_buf_addc(b, ' ');
		esc_code(b, c->first_line, CAP_LINE, 1);
	}
}

static void
add_doc(struct qe_buf *b, const char *doc)
{
	if (esc_text(b, doc, CAP_DOC) == 0)
		qe_buf_adds(b, "(unnamed)");
}

static void
add_notes(struct qe_buf *b, const struct celld *c, const struct nbd *n)
{
	unsigned fl = c ? c->flags : n->flags;
	const char *sep = "";

#define NOTE(s) do { qe_buf_adds(b, sep); qe_buf_adds(b, s); sep = ", "; } while (0)
	if (n)
		NOTE(n->whole ? "whole notebook" : "lecture total");
	if (fl & F_SOURCE)
		NOTE("source changed");
	if (fl & F_UPSTREAM)
		NOTE("earlier cell changed");
	if (fl & F_OUTPUT)
		NOTE("output changed");
	if (c && now_failing(c)) {
		if (c->verdict == V_REGRESSION || c->verdict == V_IMPROVEMENT)
			NOTE("now fails");
	}
	else if (c && fixed(c))
		NOTE("no longer fails");
	else if (fl & F_STATUS)
		NOTE("status changed");
	if (fl & F_NOTCOMP)
		NOTE("machines differ");
	if (c && c->has_test && !isnan(c->p)) {
		qe_buf_adds(b, sep);
		addf(b, "p = %.3g, %ld + %ld runs", c->p, c->n_b, c->n_h);
		sep = ", ";
	}
#undef NOTE
}

static void
add_top_row(struct qe_buf *b, const struct toprow *t, int adjusted)
{
	const struct celld *c = t->c;
	const struct nbd *n = t->n;

	qe_buf_adds(b, "| ");
	add_verdict_word(b, c ? c->verdict : n->verdict, c && now_failing(c));
	qe_buf_adds(b, " | ");
	add_doc(b, c ? c->doc : n->doc);
	qe_buf_adds(b, " | ");
	if (c)
		add_cell_name(b, c);
	else
		qe_buf_adds(b, "*whole lecture*");
	qe_buf_adds(b, " | ");
	add_dur(b, c ? c->base_s : n->base_s);
	qe_buf_adds(b, "\xc2\xa0\xe2\x86\x92 ");	/* → */
	add_dur(b, c ? c->head_s : n->head_s);
	qe_buf_adds(b, " | ");
	add_ratio(b, c ? c->ratio : n->ratio);
	if (adjusted && c && !isnan(c->adj_ratio)) {
		qe_buf_adds(b, " (adj. ");
		add_ratio(b, c->adj_ratio);
		qe_buf_addc(b, ')');
	}
	qe_buf_adds(b, " | ");
	add_delta(b, c ? c->delta : n->delta);
	qe_buf_adds(b, " | ");
	if (c)
		add_pct(b, !isnan(c->share_h) ? c->share_h : c->share_b);
	else
		qe_buf_adds(b, "\xe2\x80\x94");
	qe_buf_adds(b, " | ");
	add_notes(b, c, n);
	qe_buf_adds(b, " |\n");
}

static const char top_header[] =
    "| | Lecture | Cell | Base \xe2\x86\x92 Head | Ratio | \xce\x94 | Share | Notes |\n"
    "|---|---|---|--:|--:|--:|--:|---|\n";

static const char *const spark_levels[] = { "\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83",
	"\xe2\x96\x84", "\xe2\x96\x85", "\xe2\x96\x86", "\xe2\x96\x87", "\xe2\x96\x88" };

/* Head time of each cell in document order, as a sparkline (max per bin). */
static void
add_spark(struct qe_buf *b, const struct nbd *n)
{
	long nc = n->nc, w = nc < SPARK_WIDTH ? nc : SPARK_WIDTH;
	double bins[SPARK_WIDTH], max = 0;
	int any[SPARK_WIDTH], timed = 0;

	if (nc == 0) {
		qe_buf_adds(b, "\xe2\x80\x94");
		return;
	}
	for (long k = 0; k < w; k++)
		bins[k] = 0, any[k] = 0;
	for (long i = 0; i < nc; i++) {
		const struct celld *c = &cells[n->c0 + i];
		double v = !isnan(c->head_s) ? c->head_s : c->base_s;
		long k = i * w / nc;

		if (!isnan(v)) {
			any[k] = timed = 1;
			if (v > bins[k])
				bins[k] = v;
			if (v > max)
				max = v;
		}
	}
	if (!timed) {
		qe_buf_adds(b, "\xe2\x80\x94");
		return;
	}
	qe_buf_addc(b, '`');
	for (long k = 0; k < w; k++) {
		if (!any[k])
			qe_buf_adds(b, "\xc2\xb7");	/* · */
		else {
			int lv = max > 0 ? (int)floor(bins[k] / max * 7 + 0.5) : 0;

			qe_buf_adds(b, spark_levels[lv < 0 ? 0 : lv > 7 ? 7 : lv]);
		}
	}
	qe_buf_addc(b, '`');
}

static void
add_cell_counts(struct qe_buf *b, const long *counts)
{
	static const int order[] = { V_REGRESSION, V_IMPROVEMENT, V_INCONCLUSIVE, V_UNCHANGED,
		V_NEW, V_REMOVED, V_NOTIMING, V_NOTCOMPARABLE };
	const char *sep = "";

	for (size_t k = 0; k < sizeof order / sizeof *order; k++)
		if (counts[order[k]] > 0) {
			qe_buf_adds(b, sep);
			add_count(b, counts[order[k]]);
			qe_buf_addc(b, ' ');
			qe_buf_adds(b, verdict_words[order[k]]);
			sep = ", ";
		}
	if (*sep == '\0')
		qe_buf_adds(b, "\xe2\x80\x94");
}

static void
add_nb_row(struct qe_buf *b, const struct nbd *n)
{
	qe_buf_adds(b, "| ");
	add_doc(b, n->doc);
	qe_buf_adds(b, " | ");
	if (n->st_h == ST_FAILED)
		qe_buf_adds(b, "\xe2\x9d\x8c failed");
	else
		add_verdict_word(b, n->verdict, 0);
	qe_buf_adds(b, " | ");
	add_dur(b, n->base_s);
	qe_buf_adds(b, "\xc2\xa0\xe2\x86\x92 ");
	add_dur(b, n->head_s);
	if (n->whole)
		qe_buf_adds(b, " (whole notebook)");
	qe_buf_adds(b, " | ");
	add_ratio(b, n->ratio);
	qe_buf_adds(b, " | ");
	add_delta(b, n->delta);
	qe_buf_adds(b, " | ");
	add_cell_counts(b, n->counts);
	qe_buf_adds(b, " | ");
	add_spark(b, n);
	qe_buf_adds(b, " |\n");
}

static const char nb_header[] =
    "| Lecture | Verdict | Base \xe2\x86\x92 Head | Ratio | \xce\x94 | Cells | Time by cell (head) |\n"
    "|---|---|--:|--:|--:|---|---|\n";

static void
add_cell_row(struct qe_buf *b, const struct celld *c, int adjusted)
{
	qe_buf_adds(b, "| ");
	add_doc(b, c->doc);
	qe_buf_adds(b, " | ");
	add_cell_name(b, c);
	qe_buf_adds(b, " | ");
	add_verdict_word(b, c->verdict, now_failing(c));
	qe_buf_adds(b, " | ");
	add_dur(b, c->base_s);
	qe_buf_adds(b, " | ");
	add_dur(b, c->head_s);
	qe_buf_adds(b, " | ");
	add_ratio(b, c->ratio);
	if (adjusted && !isnan(c->adj_ratio)) {
		qe_buf_adds(b, " (adj. ");
		add_ratio(b, c->adj_ratio);
		qe_buf_addc(b, ')');
	}
	qe_buf_adds(b, " | ");
	add_delta(b, c->delta);
	qe_buf_adds(b, " | ");
	add_pct(b, !isnan(c->share_h) ? c->share_h : c->share_b);
	qe_buf_adds(b, " | ");
	{
		size_t before = b->len;

		add_notes(b, c, NULL);
		/* the reason, unless it only repeats "machines differ" */
		if (c->reason && *c->reason && strcmp(c->reason, "no timing") != 0 && !(c->flags & F_NOTCOMP && c->verdict != V_NOTIMING &&
		    c->verdict != V_NOTCOMPARABLE)) {
			if (b->len > before)
				qe_buf_adds(b, "; ");
			esc_text(b, c->reason, CAP_REASON);
		}
	}
	qe_buf_adds(b, " |\n");
}

static const char cell_header[] =
    "| Lecture | Cell | Verdict | Base | Head | Ratio | \xce\x94 | Share | Notes |\n"
    "|---|---|---|--:|--:|--:|--:|--:|---|\n";

/* ---- the summary record's facts ------------------------------------------- */

static double
sum_num(const char *key)
{
	return summary ? num(summary, key) : NAN;
}

/*
 * A count from the summary record, or -1 when it is missing or not a count:
 * (long) of a NaN or of 1e300 is undefined behaviour (found by fuzz-comment).
 */
static long
sum_count(const char *key)
{
	return summary ? index_of(summary, key) : -1;
}

/* A count from the summary, '?' when it has none. */
static void
add_sum_count(struct qe_buf *b, const char *key)
{
	long n = sum_count(key);

	if (n < 0)
		qe_buf_addc(b, '?');
	else
		add_count(b, n);
}

static double
threshold(const char *key)
{
	const cJSON *t = summary ? cJSON_GetObjectItemCaseSensitive(summary, "thresholds") : NULL;

	return t ? num(t, key) : NAN;
}

static int
sum_bool(const char *key)
{
	return summary && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(summary, key));
}

static const char *
machines(void)
{
	const char *m = summary ? qe_json_str(summary, "machines") : NULL;

	return m ? m : "unknown";
}

/* ---- assembling the document under the limit ------------------------------- */

static struct qe_buf out;

/* Room left for optional parts, keeping `reserve` bytes for what follows. */
static size_t
room(size_t reserve)
{
	return out.len + reserve < limit ? limit - out.len - reserve : 0;
}

static void
add_marker(void)
{
	const char *sep = "";

	qe_buf_adds(&out, "<!-- qe-telemetry: {");
	if (head_sha) {
		addf(&out, "\"head_sha\":\"%s\"", head_sha);
		sep = ",";
	}
	if (run_number) {
		addf(&out, "%s\"run_number\":%s", sep, run_number);
		sep = ",";
	}
	if (run_id)
		addf(&out, "%s\"run_id\":%s", sep, run_id);
	qe_buf_adds(&out, "} -->\n");
}

static void
add_headline(struct qe_buf *b)
{
	long slower = ccount[V_REGRESSION], faster = ccount[V_IMPROVEMENT];
	long same = ccount[V_UNCHANGED], unclear = ccount[V_INCONCLUSIVE];
	long compared = slower + faster + same + unclear;
	int differ = strcmp(machines(), "different") == 0;
	int red = (slower > 0 || nb_only_regressions > 0) && !differ;
	int yellow = slower > 0 || nb_only_regressions > 0 || unclear > 0 || n_failed > 0 ||
	    n_now_failing > 0 || differ || nbcount[V_INCONCLUSIVE] > 0;

	if (ncells + nnbs == 0) {
		qe_buf_adds(b, "\xe2\x9a\xa0\xef\xb8\x8f **No timing comparison available**: "
		    "the input held no qe-cell-diff records.\n");
		return;
	}
	qe_buf_adds(b, red ? "\xf0\x9f\x94\xb4 " : yellow ? "\xf0\x9f\x9f\xa1 " : "\xf0\x9f\x9f\xa2 ");
	if (compared > 0 && !yellow && faster == 0 && nb_only_improvements == 0 &&
	    nbcount[V_IMPROVEMENT] == 0) {
		qe_buf_adds(b, "No cell moved beyond the thresholds: ");
		add_count(b, same);
		qe_buf_adds(b, " unchanged in ");
		add_count(b, n_executed);
		qe_buf_adds(b, plural(n_executed, " re-executed lecture", " re-executed lectures"));
	} else if (compared > 0) {
		if (slower > 0) {
			qe_buf_adds(b, "**");
			add_count(b, slower);
			qe_buf_adds(b, plural(slower, " cell slower**", " cells slower**"));
		} else
			qe_buf_adds(b, "0 cells slower");
		qe_buf_adds(b, ", ");
		add_count(b, faster);
		qe_buf_adds(b, " faster, ");
		if (unclear > 0) {
			add_count(b, unclear);
			qe_buf_adds(b, " unclear, ");
		}
		add_count(b, same);
		qe_buf_adds(b, " unchanged in ");
		add_count(b, n_executed);
		qe_buf_adds(b, plural(n_executed, " re-executed lecture", " re-executed lectures"));
		if (nb_only_regressions > 0) {
			qe_buf_adds(b, "; **");
			add_count(b, nb_only_regressions);
			qe_buf_adds(b, plural(nb_only_regressions, " lecture slower** in total",
			    " lectures slower** in total"));
		}
	} else if (n_executed > 0) {
		long ls = nbcount[V_REGRESSION], lf = nbcount[V_IMPROVEMENT];
		long lu = nbcount[V_UNCHANGED], li = nbcount[V_INCONCLUSIVE];

		qe_buf_adds(b, "No per-cell timings; whole lectures: ");
		if (ls > 0) {
			qe_buf_adds(b, "**");
			add_count(b, ls);
			qe_buf_adds(b, " slower**");
		} else
			qe_buf_adds(b, "0 slower");
		qe_buf_adds(b, ", ");
		add_count(b, lf);
		qe_buf_adds(b, " faster, ");
		if (li > 0) {
			add_count(b, li);
			qe_buf_adds(b, " unclear, ");
		}
		add_count(b, lu);
		qe_buf_adds(b, " unchanged of ");
		add_count(b, n_executed);
		qe_buf_adds(b, " re-executed");
	} else
		qe_buf_adds(b, "No lecture was re-executed in this build: nothing to compare");
	if (n_failed > 0) {
		qe_buf_adds(b, "; **");
		add_count(b, n_failed);
		qe_buf_adds(b, plural(n_failed, " lecture failed**", " lectures failed**"));
	}
	if (n_now_failing > 0) {
		qe_buf_adds(b, "; **");
		add_count(b, n_now_failing);
		qe_buf_adds(b, plural(n_now_failing, " cell now fails**", " cells now fail**"));
	}
	if (differ)
		qe_buf_adds(b, " (machines differ: not comparable)");
	qe_buf_adds(b, "\n");
}

/* Names of notebooks matching pred, escaped, comma-separated, at most max. */
static void
add_doc_list(struct qe_buf *b, int (*pred)(const struct nbd *), long max)
{
	long shown = 0, total = 0;

	for (size_t i = 0; i < nnbs; i++) {
		if (!pred(&nbs[i]))
			continue;
		total++;
		if (shown < max) {
			if (shown > 0)
				qe_buf_adds(b, ", ");
			add_doc(b, nbs[i].doc);
			if (pred(&nbs[i]) == 2)
				qe_buf_adds(b, " (failed in base too)");
			shown++;
		}
	}
	if (total > shown) {
		qe_buf_adds(b, " and ");
		add_count(b, total - shown);
		qe_buf_adds(b, " more");
	}
}

static int
pred_failed(const struct nbd *n)
{
	return n->st_h == ST_FAILED ? n->st_b == ST_FAILED ? 2 : 1 : 0;
}

static int
pred_whole(const struct nbd *n)
{
	return n->executed && n->whole;
}

static int
pred_cached(const struct nbd *n)
{
	return n->verdict == V_CACHED;
}

static void
add_warnings(struct qe_buf *b, int input_trouble)
{
	struct qe_buf w = { 0 }, note = { 0 };
	double rf = sum_num("runner_factor");

	if (strcmp(machines(), "different") == 0) {
		const cJSON *facts = cJSON_GetObjectItemCaseSensitive(summary, "differing_facts"), *f;
		int k = 0, total = cJSON_GetArraySize(facts);

		qe_buf_adds(&w, "> - **Machines differ**: base and head ran on different machines, "
		    "so no verdict here can fail the check");
		cJSON_ArrayForEach(f, facts) {
			const char *fact = qe_json_str(f, "fact"), *fb = qe_json_str(f, "base"),
			    *fh = qe_json_str(f, "head");

			if (k == 8)
				break;
			qe_buf_adds(&w, k == 0 ? ". Differing: " : "; ");
			esc_code(&w, fact ? fact : "?", CAP_FACT, 0);
			qe_buf_adds(&w, " ");
			esc_code(&w, fb ? fb : "?", CAP_FACT, 0);
			qe_buf_adds(&w, " \xe2\x86\x92 ");
			esc_code(&w, fh ? fh : "?", CAP_FACT, 0);
			k++;
		}
		if (total > k) {
			qe_buf_adds(&w, " and ");
			add_count(&w, total - k);
			qe_buf_adds(&w, " more");
		}
		qe_buf_adds(&w, ".\n");
	}
	if (n_failed > 0) {
		qe_buf_adds(&w, "> - **");
		add_count(&w, n_failed);
		qe_buf_adds(&w, plural(n_failed, " lecture failed**", " lectures failed**"));
		qe_buf_adds(&w, " in head: ");
		add_doc_list(&w, pred_failed, 10);
		qe_buf_adds(&w, ".\n");
	}
	if (n_now_failing > 0) {
		long k = 0;

		qe_buf_adds(&w, "> - **");
		add_count(&w, n_now_failing);
		qe_buf_adds(&w, plural(n_now_failing, " cell now raises an error**: ",
		    " cells now raise an error**: "));
		for (size_t i = 0; i < ncells && k < 5; i++)
			if (now_failing(&cells[i])) {
				if (k++ > 0)
					qe_buf_adds(&w, "; ");
				add_doc(&w, cells[i].doc);
				qe_buf_adds(&w, ", ");
				add_cell_name(&w, &cells[i]);
			}
		if (n_now_failing > k) {
			qe_buf_adds(&w, " and ");
			add_count(&w, n_now_failing - k);
			qe_buf_adds(&w, " more");
		}
		qe_buf_adds(&w, ".\n");
	}
	if (!isnan(rf) && (rf >= 1.25 || rf <= 0.8)) {
		qe_buf_adds(&w, "> - **Runner speed**: cells whose code did not change ran ");
		add_ratio(&w, rf);
		qe_buf_adds(&w, " as long in head (median of ");
		add_sum_count(&w, "runner_factor_cells");
		qe_buf_adds(&w, " cells)");
		if (sum_bool("adjusted"))
			qe_buf_adds(&w, "; verdicts are adjusted for it.\n");
		else
			qe_buf_adds(&w, "; verdicts are not adjusted for it (`qe-cell-diff -A`).\n");
	}
	if (input_trouble) {
		qe_buf_adds(&w, "> - **Incomplete input**: some lines of the diff could not be read; "
		    "this report may miss cells.\n");
	}

	if (nnbs + ncells > 0 && summary == NULL)
		qe_buf_adds(&note, "> - No diff summary in the input: it may have been cut short.\n");
	if (n_whole > 0) {
		qe_buf_adds(&note, "> - No per-cell timings in ");
		add_count(&note, n_whole);
		qe_buf_adds(&note, plural(n_whole, " re-executed lecture (", " re-executed lectures ("));
		add_doc_list(&note, pred_whole, 5);
		qe_buf_adds(&note, "): whole-notebook time compared instead.\n");
	}
	if (ccount[V_NOTIMING] > 0) {
		long notrun = 0, missing;

		for (size_t i = 0; i < ncells; i++)
			if (cells[i].verdict == V_NOTIMING &&
			    (cells[i].st_h == ST_NOTRUN || cells[i].st_h == ST_SKIPPED))
				notrun++;
		missing = ccount[V_NOTIMING] - notrun;
		if (notrun > 0) {
			qe_buf_adds(&note, "> - ");
			add_count(&note, notrun);
			qe_buf_adds(&note, plural(notrun, " cell was", " cells were"));
			qe_buf_adds(&note, " not run in head (skipped, or after an error).\n");
		}
		if (missing > 0) {
			qe_buf_adds(&note, "> - ");
			add_count(&note, missing);
			qe_buf_adds(&note, plural(missing, " cell has", " cells have"));
			qe_buf_adds(&note, " no usable timing on one side or both (missing or stale).\n");
		}
	}
	if (ccount[V_NOTCOMPARABLE] > 0) {
		qe_buf_adds(&note, "> - ");
		add_count(&note, ccount[V_NOTCOMPARABLE]);
		qe_buf_adds(&note, plural(ccount[V_NOTCOMPARABLE], " cell was", " cells were"));
		qe_buf_adds(&note, " timed by different tools in base and head and not compared.\n");
	}
	if (w.len > 0) {
		qe_buf_adds(b, "> [!WARNING]\n");
		qe_buf_add(b, w.data, w.len);
	}
	if (note.len > 0) {
		if (w.len > 0)
			qe_buf_adds(b, "\n");
		qe_buf_adds(b, "> [!NOTE]\n");
		qe_buf_add(b, note.data, note.len);
	}
	qe_buf_free(&w);
	qe_buf_free(&note);
}

static void
add_thresholds(struct qe_buf *b)
{
	double cr = threshold("cell_ratio"), ca = threshold("cell_abs_s");
	double nr = threshold("notebook_ratio"), na = threshold("notebook_abs_s");
	double ea = threshold("execution_abs_s"), rf = sum_num("runner_factor");

	if (!isnan(cr) && !isnan(ca)) {
		qe_buf_adds(b, "Slower or faster means beyond ");
		add_ratio(b, cr);
		qe_buf_adds(b, " and by more than ");
		add_dur(b, ca);
		qe_buf_adds(b, " per cell");
		if (!isnan(nr) && !isnan(na)) {
			qe_buf_adds(b, ", ");
			add_ratio(b, nr);
			qe_buf_adds(b, " and ");
			add_dur(b, na);
			qe_buf_adds(b, " per lecture");
			if (!isnan(ea)) {
				qe_buf_adds(b, " (");
				add_dur(b, ea);
				qe_buf_adds(b, " for whole-notebook time)");
			}
		}
		qe_buf_adds(b, ". ");
	}
	if (!isnan(rf)) {
		qe_buf_adds(b, "Runner factor ");
		add_ratio(b, rf);
		qe_buf_adds(b, " (");
		add_sum_count(b, "runner_factor_cells");
		qe_buf_adds(b, " cells). ");
	}
	qe_buf_adds(b, "Machines: ");
	qe_buf_adds(b, machines());
	qe_buf_adds(b, ".");
}

static void
add_run_link(struct qe_buf *b)
{
	if (head_sha) {
		qe_buf_adds(b, " Head ");
		if (repo_url)
			addf(b, "[`%.7s`](%s/commit/%s)", head_sha, repo_url, head_sha);
		else
			addf(b, "`%.7s`", head_sha);
	}
	if (run_number || run_id) {
		qe_buf_adds(b, head_sha ? ", run " : " Run ");
		if (repo_url && run_id)
			addf(b, "[%s](%s/actions/runs/%s)", run_number ? run_number : run_id, repo_url, run_id);
		else
			qe_buf_adds(b, run_number ? run_number : run_id);
	}
	if (head_sha || run_number || run_id)
		qe_buf_adds(b, ".");
}

static void
add_footer(struct qe_buf *b)
{
	qe_buf_adds(b, "<sub>");
	add_thresholds(b);
	add_run_link(b);
	qe_buf_adds(b, " Timings are single runs on shared runners: small changes are noise.</sub>\n");
}

/* The summary flavour's extra section: what was compared with what. */
static void
add_sources(struct qe_buf *b)
{
	const char *bf = summary ? qe_json_str(summary, "base") : NULL;
	const char *hf = summary ? qe_json_str(summary, "head") : NULL;

	if (summary == NULL)
		return;
	/* the file names, not the runner's temporary folders */
	if (bf && strrchr(bf, '/') && strrchr(bf, '/')[1])
		bf = strrchr(bf, '/') + 1;
	if (hf && strrchr(hf, '/') && strrchr(hf, '/')[1])
		hf = strrchr(hf, '/') + 1;
	qe_buf_adds(b, "\n#### Compared\n\n");
	qe_buf_adds(b, "- Base: ");
	esc_code(b, bf ? bf : "?", CAP_FILE, 0);
	qe_buf_adds(b, " (");
	add_sum_count(b, "base_records");
	qe_buf_adds(b, " records); head: ");
	esc_code(b, hf ? hf : "?", CAP_FILE, 0);
	qe_buf_adds(b, " (");
	add_sum_count(b, "head_records");
	qe_buf_adds(b, " records).\n");
	for (int w = 0; w < 2; w++) {
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(summary,
		    w ? "fingerprints_head" : "fingerprints_base"), *f;
		int k = 0;

		qe_buf_adds(b, w ? "- Head machine fingerprints: " : "- Base machine fingerprints: ");
		cJSON_ArrayForEach(f, a) {
			if (!cJSON_IsString(f))
				continue;
			if (k == 10) {
				qe_buf_adds(b, ", \xe2\x80\xa6");
				break;
			}
			if (k++ > 0)
				qe_buf_adds(b, ", ");
			esc_code(b, f->valuestring, CAP_FACT, 0);
		}
		qe_buf_adds(b, k ? ".\n" : "none recorded.\n");
	}
	qe_buf_adds(b, "- Lectures: ");
	add_count(b, (long)nnbs);
	qe_buf_adds(b, " in total, ");
	add_count(b, n_executed);
	qe_buf_adds(b, " re-executed, ");
	add_count(b, n_cached);
	qe_buf_adds(b, " not re-executed");
	if (n_fixed_nb > 0) {
		qe_buf_adds(b, ", ");
		add_count(b, n_fixed_nb);
		qe_buf_adds(b, " no longer failing");
	}
	qe_buf_adds(b, ". Cells: ");
	add_count(b, (long)ncells);
	qe_buf_adds(b, " compared");
	if (n_fixed_cells > 0) {
		qe_buf_adds(b, ", ");
		add_count(b, n_fixed_cells);
		qe_buf_adds(b, " no longer failing");
	}
	qe_buf_adds(b, ".\n");
}

static void
truncation_note(struct qe_buf *b, long shown, long total, const char *what)
{
	qe_buf_adds(b, "\n*Truncated: ");
	add_count(b, total - shown);
	qe_buf_adds(b, " of ");
	add_count(b, total);
	qe_buf_addc(b, ' ');
	qe_buf_adds(b, what);
	qe_buf_adds(b, " not listed, to stay within the size limit.*\n");
}

/*
 * A folded table: rows are added while they fit in `budget` bytes (summary,
 * header, closing tag and the truncation note included). Returns rows shown.
 */
typedef void (*row_fn)(struct qe_buf *, long, void *);

static long
add_folded(struct qe_buf *b, const char *summary_text, const char *header, long total,
    row_fn row, void *arg, size_t budget, const char *what, int open)
{
	static const size_t note_room = 160;
	struct qe_buf r = { 0 };
	size_t start = b->len;
	long shown = 0;

	qe_buf_adds(b, open ? "\n<details open>\n<summary>" : "\n<details>\n<summary>");
	qe_buf_adds(b, summary_text);
	qe_buf_adds(b, "</summary>\n\n");
	qe_buf_adds(b, header);
	for (long i = 0; i < total; i++) {
		qe_buf_reset(&r);
		row(&r, i, arg);
		if (b->len - start + r.len + note_room + 16 > budget)
			break;
		qe_buf_add(b, r.data, r.len);
		shown++;
	}
	qe_buf_free(&r);
	if (shown == 0 && total > 0) {
		b->len = start;		/* not even one row: leave the section out */
		b->data[b->len] = '\0';
		return 0;
	}
	if (shown < total)
		truncation_note(b, shown, total, what);
	qe_buf_adds(b, "\n</details>\n");
	return shown;
}

static void
nb_row(struct qe_buf *b, long i, void *arg)
{
	const struct nbd **list = arg;

	add_nb_row(b, list[i]);
}

static void
cell_row(struct qe_buf *b, long i, void *arg)
{
	add_cell_row(b, &cells[i], *(int *)arg);
}

static void
render(int input_trouble)
{
	struct qe_buf foot = { 0 }, tmp = { 0 }, src = { 0 };
	size_t resv;
	int adjusted = sum_bool("adjusted");
	long rows = max_rows >= 0 ? max_rows : sflag ? 25 : 10;
	const struct nbd **listed = qe_xmalloc((nnbs + 1) * sizeof *listed);
	long nlisted = 0, nshown_top = 0, ncached_list;
	int quiet;

	/* the part that is never cut: marker, title, headline */
	if (!sflag)
		add_marker();
	qe_buf_adds(&out, "### ");
	if (esc_text(&out, title, CAP_TITLE) == 0)
		qe_buf_adds(&out, "Lecture execution times");
	qe_buf_adds(&out, "\n\n");
	add_headline(&out);

	add_footer(&foot);
	if (sflag)
		add_sources(&src);	/* kept: it says what the numbers are */
	qe_buf_add(&foot, "", 0);
	resv = foot.len + src.len + 2;
	quiet = ntops == 0 && n_failed == 0 && strcmp(machines(), "different") != 0 && !input_trouble;

	/* warnings: short by construction; left out only if the limit is tiny */
	add_warnings(&tmp, input_trouble);
	if (tmp.len > 0 && tmp.len + 1 <= room(resv)) {
		qe_buf_adds(&out, "\n");
		qe_buf_add(&out, tmp.data, tmp.len);
	}
	qe_buf_reset(&tmp);

	/* the top table, row by row */
	if (rows > 0 && ntops > 0 && room(resv) > sizeof top_header + 2) {
		struct qe_buf r = { 0 };
		size_t start = out.len;

		qe_buf_adds(&out, "\n");
		qe_buf_adds(&out, top_header);
		for (size_t i = 0; i < ntops && nshown_top < rows; i++) {
			qe_buf_reset(&r);
			add_top_row(&r, &tops[i], adjusted);
			if (r.len + 120 > room(resv))
				break;
			qe_buf_add(&out, r.data, r.len);
			nshown_top++;
		}
		qe_buf_free(&r);
		if (nshown_top == 0) {
			out.len = start;
			out.data[out.len] = '\0';
		} else if ((size_t)nshown_top < ntops) {
			qe_buf_adds(&out, "\n");
			add_count(&out, (long)ntops - nshown_top);
			qe_buf_adds(&out, (long)ntops - nshown_top == 1 ? " more change" : " more changes");
			qe_buf_adds(&out, " not shown in this table.\n");
		}
	}

	/* per-lecture totals (re-executed lectures; the cached ones in a line) */
	for (size_t i = 0; i < nnbs; i++)
		if (nbs[i].verdict != V_CACHED)
			listed[nlisted++] = &nbs[i];
	ncached_list = (long)nnbs - nlisted;
	if (nlisted > 0) {
		qe_buf_reset(&tmp);
		qe_buf_adds(&tmp, "Per-lecture totals: ");
		add_count(&tmp, nlisted);
		qe_buf_adds(&tmp, plural(nlisted, " lecture", " lectures"));
		add_folded(&out, tmp.data, nb_header, nlisted, nb_row, listed,
		    room(resv), "lectures", 0);
	}
	if (ncached_list > 0) {
		qe_buf_reset(&tmp);
		qe_buf_adds(&tmp, "\n");
		add_count(&tmp, ncached_list);
		qe_buf_adds(&tmp, plural(ncached_list, " lecture was", " lectures were"));
		qe_buf_adds(&tmp, " not re-executed (cache reused): ");
		add_doc_list(&tmp, pred_cached, sflag ? 200 : 20);
		qe_buf_adds(&tmp, ".\n");
		if (tmp.len <= room(resv))
			qe_buf_add(&out, tmp.data, tmp.len);
	}

	/* every cell */
	if (ncells > 0 && !(quiet && !sflag)) {
		qe_buf_reset(&tmp);
		qe_buf_adds(&tmp, "All cells: ");
		add_count(&tmp, (long)ncells);
		add_folded(&out, tmp.data, cell_header, (long)ncells, cell_row, &adjusted,
		    room(resv), "cells", 0);
	}

	if (src.len > 0 && src.len <= room(foot.len + 1))
		qe_buf_add(&out, src.data, src.len);
	if (out.len + 1 + foot.len <= limit) {
		qe_buf_adds(&out, "\n");
		qe_buf_add(&out, foot.data, foot.len);
	}
	qe_buf_free(&foot);
	qe_buf_free(&src);
	qe_buf_free(&tmp);
	free(listed);
}

/* ---- options ------------------------------------------------------------------ */

static int
all_of(const char *s, const char *set, size_t min, size_t max)
{
	size_t n = strlen(s);

	return n >= min && n <= max && strspn(s, set) == n;
}

/* A 7-64 hex SHA (lowercased), or NULL after a warning that does not echo it. */
static char *
valid_sha(const char *s, const char *from)
{
	char *r;

	if (!all_of(s, "0123456789abcdefABCDEF", 7, 64)) {
		warnx("%s: not a hexadecimal SHA of 7 to 64 digits; left out", from);
		trouble = 1;
		return NULL;
	}
	r = qe_xstrdup(s);
	for (char *p = r; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return r;
}

/* Digits only (at most 19, leading zeros dropped), or NULL after a warning. */
static char *
valid_number(const char *s, const char *from)
{
	if (!all_of(s, "0123456789", 1, 19)) {
		warnx("%s: not a number of 1 to 19 digits; left out", from);
		trouble = 1;
		return NULL;
	}
	while (s[0] == '0' && s[1] != '\0')
		s++;
	return qe_xstrdup(s);
}

/* https://host[:port][/path], with a conservative character set; no query. */
static char *
valid_url(const char *s)
{
	const char *host = s + 8;
	size_t hl, n;
	char *r;

	if (strncmp(s, "https://", 8) != 0)
		goto bad;
	hl = strspn(host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-");
	if (hl == 0 || host[0] == '.' || host[0] == '-')
		goto bad;
	if (host[hl] == ':') {
		size_t pl = strspn(host + hl + 1, "0123456789");

		if (pl == 0 || pl > 5)
			goto bad;
		hl += 1 + pl;
	}
	if (host[hl] != '\0' && host[hl] != '/')
		goto bad;
	if (strlen(host + hl) != strspn(host + hl,
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._~/-") ||
	    strstr(host + hl, "//") != NULL || strlen(s) > 200)
		goto bad;
	r = qe_xstrdup(s);
	n = strlen(r);
	while (n > 8 && r[n - 1] == '/')
		r[--n] = '\0';
	return r;
bad:
	warnx("--repo-url: not an https URL of the form https://host/path; left out");
	trouble = 1;
	return NULL;
}

enum { OPT_VERSION = 256, OPT_MAX_LINE };

static const struct option longopts[] = {
	{ "head-sha",   required_argument, NULL, 'S' },
	{ "help",       no_argument,       NULL, 'h' },
	{ "limit",      required_argument, NULL, 'l' },
	{ "max-rows",   required_argument, NULL, 'n' },
	{ "repo-url",   required_argument, NULL, 'u' },
	{ "run-id",     required_argument, NULL, 'I' },
	{ "run-number", required_argument, NULL, 'N' },
	{ "summary",    no_argument,       NULL, 's' },
	{ "title",      required_argument, NULL, 't' },
	{ "version",    no_argument,       NULL, OPT_VERSION },
	{ "max-line",   required_argument, NULL, OPT_MAX_LINE },
	{ NULL, 0, NULL, 0 }
};

static void usage(FILE *fp, int status) __attribute__((noreturn));

static void
usage(FILE *fp, int status)
{
	fprintf(fp, "usage: qe-comment [-hs] [--version] [-I run-id] [-l bytes] [-N run-number]\n"
	    "                  [-n rows] [-S sha] [-t title] [-u url] [--max-line bytes]\n"
	    "                  [file ...]\n");
	exit(status);
}

static long
count_arg(const char *opt, const char *s, long min, long max)
{
	char *end;
	long v;

	if (!all_of(s, "0123456789", 1, 12) || (v = strtol(s, &end, 10)) < min || v > max) {
		warnx("%s: invalid value '%s'", opt, s);
		usage(stderr, QE_EXIT_TROUBLE);
	}
	return v;
}

int
main(int argc, char **argv)
{
	int ch, status;
	const char *e;
	long lim = -1;

	/* getopt's messages name argv[0]: the same short name as warnx's */
	argv[0] = (char *)qe_progname();
	while ((ch = getopt_long(argc, argv, "I:hl:N:n:S:st:u:", longopts, NULL)) != -1)
		switch (ch) {
		case 'I':
			free(run_id);
			run_id = valid_number(optarg, "--run-id");
			break;
		case 'h':
			usage(stdout, QE_EXIT_OK);
		case 'l':
			lim = count_arg("-l", optarg, MIN_LIMIT, 1L << 30);
			break;
		case 'N':
			free(run_number);
			run_number = valid_number(optarg, "--run-number");
			break;
		case 'n':
			max_rows = count_arg("-n", optarg, 0, 1000);
			break;
		case 'S':
			free(head_sha);
			head_sha = valid_sha(optarg, "--head-sha");
			break;
		case 's':
			sflag = 1;
			break;
		case 't':
			title = optarg;
			break;
		case 'u':
			free(repo_url);
			repo_url = valid_url(optarg);
			break;
		case OPT_MAX_LINE:
			if (qe_set_max_line(optarg) < 0)
				usage(stderr, QE_EXIT_TROUBLE);
			break;
		case OPT_VERSION:
			printf("qe-comment %s\n", QE_VERSION);
			return QE_EXIT_OK;
		default:
			usage(stderr, QE_EXIT_TROUBLE);
		}
	argc -= optind;
	argv += optind;

	/* options win; GitHub's variables fill the gaps (a bad option stays out) */
	if (head_sha == NULL && (e = getenv("GITHUB_SHA")) != NULL && *e)
		head_sha = valid_sha(e, "GITHUB_SHA");
	if (run_number == NULL && (e = getenv("GITHUB_RUN_NUMBER")) != NULL && *e)
		run_number = valid_number(e, "GITHUB_RUN_NUMBER");
	if (run_id == NULL && (e = getenv("GITHUB_RUN_ID")) != NULL && *e)
		run_id = valid_number(e, "GITHUB_RUN_ID");
	limit = lim > 0 ? (size_t)lim : sflag ? SUMMARY_LIMIT : COMMENT_LIMIT;

	status = qe_each_record(argc, argv, read_record, NULL);
	if (ncells + nnbs == 0) {
		warnx("no qe-cell-diff records in the input");
		status = QE_EXIT_TROUBLE;
	}
	build_model();
	render(status != QE_EXIT_OK && ncells + nnbs > 0);
	if (fwrite(out.data, 1, out.len, stdout) != out.len) {
		/* qe_finish reports the error */
	}
	if (trouble)
		status = QE_EXIT_TROUBLE;
	return qe_finish(status);
}
