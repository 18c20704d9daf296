/* A notebook's rules: cell sources, first lines, the output text as digested (qe_notebook.h). */
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "qe_json.h"
#include "qe_notebook.h"

int
qe_nb_join_text(const cJSON *v, struct qe_buf *out)
{
	const cJSON *it;

	qe_buf_reset(out);
	if (v == NULL)
		return 0;
	if (cJSON_IsString(v)) {
		qe_buf_adds(out, v->valuestring);
		return 0;
	}
	if (!cJSON_IsArray(v))
		return -1;
	cJSON_ArrayForEach(it, v) {
		if (!cJSON_IsString(it))
			return -1;
		qe_buf_adds(out, it->valuestring);
	}
	return 0;
}

void
qe_nb_normalise(struct qe_buf *b)
{
	size_t i, j;

	for (i = j = 0; i < b->len; i++) {
		if (b->data[i] == '\r') {
			b->data[j++] = '\n';
			if (i + 1 < b->len && b->data[i + 1] == '\n')
				i++;
		} else
			b->data[j++] = b->data[i];
	}
	while (j > 0 && strchr(" \t\n\r\f\v", b->data[j - 1]) != NULL)
		j--;
	b->len = j;
	if (b->data)
		b->data[j] = '\0';
}

/* s[0..e) cut to QE_FIRST_LINE_MAX characters, on a UTF-8 boundary. */
static char *
cut_line(const char *s, const char *e)
{
	size_t n = 0, chars = 0;
	struct qe_buf out = { 0 };

	while (s + n < e && chars < QE_FIRST_LINE_MAX) {
		n++;
		while (s + n < e && ((unsigned char)s[n] & 0xc0) == 0x80)
			n++;
		chars++;
	}
	qe_buf_add(&out, s, n);
	if (s + n < e)
		qe_buf_adds(&out, "\xe2\x80\xa6");	/* … */
	return out.data;
}

char *
qe_nb_first_line(const struct qe_buf *src)
{
	const char *p = src->data ? src->data : "", *end = p + src->len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end, *s = p;

		while (s < e && (*s == ' ' || *s == '\t'))
			s++;
		while (e > s && strchr(" \t\f\v", e[-1]) != NULL)
			e--;
		if (e > s)
			return cut_line(s, e);
		p = e == end ? end : (nl ? nl + 1 : end);
	}
	return NULL;
}

int
qe_nb_has_tag(const cJSON *tags, const char *tag)
{
	const cJSON *t;

	cJSON_ArrayForEach(t, (cJSON_IsArray(tags) ? tags : NULL))
		if (cJSON_IsString(t) && strcmp(t->valuestring, tag) == 0)
			return 1;
	return 0;
}

void
qe_nb_md_str(EVP_MD_CTX *md, const char *s)
{
	EVP_DigestUpdate(md, s, strlen(s) + 1);	/* the NUL separates fields */
}

static int
is_alnum(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static int
is_hex(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Bytes of an ANSI CSI sequence at p ("\33[" ... final byte), or 0. */
static size_t
csi_len(const char *p, const char *end)
{
	const char *q = p + 2;

	if (end - p < 2 || p[0] != '\033' || p[1] != '[')
		return 0;
	while (q < end && !(*q >= 0x40 && *q <= 0x7e))
		q++;
	return (size_t)(q < end ? q + 1 - p : end - p);
}

/* Bytes of "In [12]", "In[12]" or "Out[12]" at p (an execution count), or 0. */
static size_t
count_len(const char *p, const char *end, int prev)
{
	const char *q = p;

	if (is_alnum(prev))
		return 0;
	if (end - q >= 2 && q[0] == 'I' && q[1] == 'n')
		q += 2;
	else if (end - q >= 3 && memcmp(q, "Out", 3) == 0)
		q += 3;
	else
		return 0;
	if (q < end && *q == ' ')
		q++;
	if (q >= end || *q != '[' || q + 1 >= end || !(q[1] >= '0' && q[1] <= '9'))
		return 0;
	for (q++; q < end && *q >= '0' && *q <= '9'; q++)
		;
	return q < end && *q == ']' ? (size_t)(q + 1 - p) : 0;
}

/* Past the bytes at p where no rule of normalise_line() starts (ESC, "In", "Out", "0x"). */
static const char *
plain_run(const char *p, const char *end)
{
	for (; p < end; p++)
		if (*p == '\033' || (p + 1 < end && ((*p == 'I' && p[1] == 'n') ||
		    (*p == 'O' && p[1] == 'u') || (*p == '0' && p[1] == 'x'))))
			break;
	return p;
}

/* IPython's %timeit warning, a line of its own when one run was 4 times the fastest. */
#define SLOWEST "The slowest run took "
#define CACHED " times longer than the fastest. This could mean that an intermediate result is being cached."

/* One line, normalised (see qe_notebook.h), onto out; 1 when the line is left out, '\n' and all. */
static int
normalise_line(const char *p, const char *end, struct qe_buf *out)
{
	size_t n, line0 = out->len;

	if (end - p >= (long)(sizeof SLOWEST - 1 + sizeof CACHED - 1) &&
	    memcmp(p, SLOWEST, sizeof SLOWEST - 1) == 0 &&
	    memmem(p, (size_t)(end - p), CACHED, sizeof CACHED - 1) != NULL)
		return 1;	/* a loaded machine's preemption, not the result */
	if ((end - p >= 10 && memcmp(p, "CPU times:", 10) == 0) ||
	    (end - p >= 10 && memcmp(p, "Wall time:", 10) == 0)) {
		qe_buf_add(out, p, 10);	/* %time: the times are not the result */
		return 0;
	}
	n = (size_t)(end - p);
	/* each marker holds a '(' or a ']': the memmem()s only when one is there */
	if ((memchr(p, '(', n) && memmem(p, n, " per loop (mean ", 16)) ||
	    (memchr(p, ']', n) && (memmem(p, n, "it/s]", 5) || memmem(p, n, "s/it]", 5)))) {
		qe_buf_adds(out, "(timing)");	/* %timeit, a tqdm progress bar */
		return 0;
	}
	while (p < end) {
		int prev;
		const char *q = plain_run(p, end);

		if (q > p) {	/* no rule starts in it: as it stands, in one piece */
			qe_buf_add(out, p, (size_t)(q - p));
			p = q;
			continue;
		}
		prev = out->len > line0 ? (unsigned char)out->data[out->len - 1] : ' ';
		if ((n = csi_len(p, end)) > 0) {
			p += n;
		} else if ((n = count_len(p, end, prev)) > 0) {
			qe_buf_add(out, p, (size_t)((const char *)memchr(p, '[', n) - p));
			qe_buf_adds(out, "[#]");
			p += n;
		} else if (end - p >= 8 && p[0] == '0' && p[1] == 'x' && !is_alnum(prev) &&
		    is_hex((unsigned char)p[2])) {
			for (n = 2; p + n < end && is_hex((unsigned char)p[n]); n++)
				;
			qe_buf_adds(out, n >= 8 ? "0x#" : "");
			if (n < 8)
				qe_buf_add(out, p, n);
			p += n;
		} else
			qe_buf_addc(out, *p++);
	}
	return 0;
}

void
qe_nb_normalise_text(const char *s, size_t len, struct qe_buf *out)
{
	const char *end = s + len, *nl;

	while (s < end) {
		nl = memchr(s, '\n', (size_t)(end - s));
		if (normalise_line(s, nl ? nl : end, out) == 0 && nl)
			qe_buf_addc(out, '\n');
		if (!nl)
			break;
		s = nl + 1;
	}
}

/* Normalised text waiting in ns->out is digested in pieces of about this size. */
enum { NS_FLUSH = 1 << 16 };

static void
ns_flush(struct qe_nb_ns *ns)
{
	EVP_DigestUpdate(ns->md, ns->out.data ? ns->out.data : "", ns->out.len);
	qe_buf_reset(&ns->out);
}

/* One line normalised onto ns->out (with its '\n' when nl), digested when enough waits. */
static void
ns_line(struct qe_nb_ns *ns, const char *p, size_t len, int nl)
{
	if (normalise_line(p, p + len, &ns->out) == 0 && nl)
		qe_buf_addc(&ns->out, '\n');
	if (ns->out.len >= NS_FLUSH)
		ns_flush(ns);
}

/* A kept run (qe_nb_ns_run) copied onto ns->line: the line goes on in another piece. */
static void
ns_unkeep(struct qe_nb_ns *ns)
{
	if (ns->run != NULL) {
		qe_buf_add(&ns->line, ns->run, ns->nrun);
		ns->run = NULL;
	}
}

void
qe_nb_ns_run(struct qe_nb_ns *ns, const char *s, size_t len)
{
	if (ns->run == NULL && ns->line.len == 0) {
		ns->run = s;
		ns->nrun = len;
		return;
	}
	ns_unkeep(ns);
	qe_buf_add(&ns->line, s, len);
}

void
qe_nb_ns_feed(struct qe_nb_ns *ns, const char *s, size_t len)
{
	const char *nl;

	if (ns->run != NULL && len > 0 && *s == '\n') {	/* a kept run, then its line's end */
		ns_line(ns, ns->run, ns->nrun, 1);
		ns->run = NULL;
		s++, len--;
	}
	ns_unkeep(ns);
	while ((nl = memchr(s, '\n', len)) != NULL) {
		size_t seg = (size_t)(nl - s);

		if (ns->line.len) {
			qe_buf_add(&ns->line, s, seg);
			ns_line(ns, ns->line.data, ns->line.len, 1);
			qe_buf_reset(&ns->line);
		} else
			ns_line(ns, s, seg, 1);
		s = nl + 1;
		len -= seg + 1;
	}
	qe_buf_add(&ns->line, s, len);
}

void
qe_nb_ns_end(struct qe_nb_ns *ns)
{
	if (ns->run != NULL)
		ns_line(ns, ns->run, ns->nrun, 0);
	else
		ns_line(ns, ns->line.data ? ns->line.data : "", ns->line.len, 0);
	ns->run = NULL;
	ns_flush(ns);
	qe_buf_free(&ns->line);
	qe_buf_free(&ns->out);
}

char *
qe_nb_error_text(const cJSON *errout)
{
	const char *en = qe_json_str(errout, "ename"), *ev = qe_json_str(errout, "evalue");
	struct qe_buf e = { 0 };

	qe_buf_adds(&e, en ? en : "Error");
	if (ev && *ev) {
		qe_buf_adds(&e, ": ");
		qe_buf_adds(&e, ev);
	}
	return e.data;
}

const char *
qe_nb_label(const cJSON *md)
{
	const char *label = qe_json_str(md, "name");

	if (label == NULL)
		label = qe_json_str(cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(md, "mystnb"), "figure"), "name");
	return label;
}

/* The length of a magic's word at s (after its '%' or "%%"). */
static size_t
magic_word(const char *s, const char *e)
{
	size_t n = 0;

	while (s + n < e && (is_alnum((unsigned char)s[n]) || s[n] == '_'))
		n++;
	return n;
}

/* 1 for a line magic whose argument is a statement it runs (%time f(x)). */
static int
runs_statement(const char *w, size_t n)
{
	static const char *const m[] = { "time", "timeit", "prun", "memit" };

	for (size_t i = 0; i < sizeof m / sizeof *m; i++)
		if (strlen(m[i]) == n && memcmp(m[i], w, n) == 0)
			return 1;
	return 0;
}

static const char *
skip_blanks(const char *s, const char *e)
{
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	return s;
}

/* 1 for a cell magic that writes its cell to a file (%%file, %%writefile). */
static int
writes_file(const char *w, size_t n)
{
	return (n == 4 && memcmp(w, "file", 4) == 0) || (n == 9 && memcmp(w, "writefile", 9) == 0);
}

/*
 * A %%file line *sp..*ep: 1 with *sp, *ep narrowed to the file it writes
 * (its last argument, options such as -a left out); 0 when it names none.
 */
static int
file_named(const char **sp, const char **ep)
{
	const char *s = *sp, *e = *ep, *w = NULL;

	while (s < e && *s != ' ' && *s != '\t')
		s++;	/* the magic's word */
	for (s = skip_blanks(s, e); s < e; s = skip_blanks(s, e)) {
		const char *a = s;

		while (s < e && *s != ' ' && *s != '\t')
			s++;
		if (*a != '-')
			w = a;
	}
	if (w == NULL)
		return 0;
	*sp = w;
	for (*ep = w; *ep < e && **ep != ' ' && **ep != '\t'; ++*ep)
		;
	return 1;
}

/*
 * A trimmed line s[0..e) for qe_nb_says(): 1 when it says something, with
 * *s, *e narrowed to what (a %time's statement); 0 for a comment or a
 * magic, which is added to `magics`.
 */
static int
says_line(const char **sp, const char **ep, struct qe_buf *magics)
{
	const char *s = *sp, *e = *ep;
	size_t pct = (e - s > 1 && s[1] == '%') ? 2 : 1, n;

	if (*s == '#')
		return 0;
	if (*s != '%' || (n = magic_word(s + pct, e)) == 0)
		return 1;	/* code, or a '%' that begins no magic */
	qe_buf_adds(magics, magics->len ? " " : " (");
	qe_buf_add(magics, s, pct + n);
	if (pct == 2 && writes_file(s + 2, n))
		return file_named(sp, ep);
	if (pct == 2 || !runs_statement(s + 1, n))
		return 0;
	s = skip_blanks(s + 1 + n, e);
	while (s < e && *s == '-') {	/* its options: "-n 3 -r 1", "-q" */
		const char *o = s;

		while (s < e && *s != ' ' && *s != '\t')
			s++;
		s = skip_blanks(s, e);
		if (s - o > 0 && o + 2 < e && (o[2] == ' ' || o[2] == '\t') && s < e &&
		    *s >= '0' && *s <= '9')
			while (s < e && *s != ' ' && *s != '\t')
				s++;	/* "-n 3": its value */
		s = skip_blanks(s, e);
	}
	*sp = s;
	return s < e;
}

char *
qe_nb_says(const struct qe_buf *src)
{
	const char *p = src->data ? src->data : "", *end = p + src->len;
	struct qe_buf magics = { 0 };
	char *line = NULL;

	while (p < end && line == NULL) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end, *s = p;

		while (s < e && (*s == ' ' || *s == '\t'))
			s++;
		while (e > s && strchr(" \t\f\v", e[-1]) != NULL)
			e--;
		if (e > s && says_line(&s, &e, &magics))
			line = cut_line(s, e);
		p = nl ? nl + 1 : end;
	}
	if (line == NULL) {	/* comments and magics only: the first of them */
		qe_buf_free(&magics);
		return qe_nb_first_line(src);
	}
	if (magics.len) {
		struct qe_buf out = { 0 };

		qe_buf_adds(&out, line);
		qe_buf_add(&out, magics.data, magics.len);
		qe_buf_addc(&out, ')');
		free(line);
		line = out.data;
	}
	qe_buf_free(&magics);
	return line;
}

static int
is_code(const cJSON *cell)
{
	const char *ct = qe_json_str(cell, "cell_type");

	return ct != NULL && strcmp(ct, "code") == 0;
}

/* The first error output of an outputs list (output_type "error"). */
static const cJSON *
first_error(const cJSON *outputs)
{
	const cJSON *o, *t;

	cJSON_ArrayForEach(o, (cJSON_IsArray(outputs) ? outputs : NULL))
		if (cJSON_IsString(t = cJSON_GetObjectItemCaseSensitive(o, "output_type")) &&
		    strcmp(t->valuestring, "error") == 0)
			return o;
	return NULL;
}

/* qe_sha256_hex() of src with SHA-256 already fetched (not once per cell). */
static void
source_digest(EVP_MD *sha, const struct qe_buf *src, char out[QE_SHA256_HEX])
{
	unsigned char d[32];
	unsigned int dl = 0;

	if (src->len == 0) {
		memcpy(out, QE_SHA256_EMPTY, QE_SHA256_HEX);
		return;
	}
	if (!EVP_Digest(src->data, src->len, d, &dl, sha, NULL))
		qe_mem_oom();
	qe_sha_hex(d, sizeof d, out);
}

/* Join, normalise and digest one code cell's source, with `src` as scratch. */
static void
read_code(const cJSON *cell, const char *odig, struct qe_nb_code *code, struct qe_buf *src,
    EVP_MD *sha)
{
	const cJSON *outputs = cJSON_GetObjectItemCaseSensitive(cell, "outputs");

	const cJSON *md = cJSON_GetObjectItemCaseSensitive(cell, "metadata");

	code->cell = cell;
	if (qe_nb_join_text(cJSON_GetObjectItemCaseSensitive(cell, "source"), src) < 0) {
		code->bad_source = 1;
		qe_buf_reset(src);
	}
	qe_nb_normalise(src);
	source_digest(sha, src, code->source_sha256);
	code->blank = src->len == 0;
	code->first_line = qe_nb_first_line(src);
	code->says = qe_nb_says(src);
	code->skip = qe_nb_has_tag(cJSON_GetObjectItemCaseSensitive(md, "tags"), "skip-execution");
	memcpy(code->output_sha256, odig, QE_SHA256_HEX);
	code->errout = first_error(outputs);
}

void
qe_nb_codes_read(const cJSON *cells, const char (*odig)[QE_SHA256_HEX], struct qe_nb_codes *c)
{
	const cJSON *cell;
	struct qe_buf src = { 0 };
	size_t n = 0, i = 0;

	EVP_MD *sha = EVP_MD_fetch(NULL, "SHA256", NULL);

	if (sha == NULL)
		qe_mem_oom();
	cJSON_ArrayForEach(cell, cells)
		n += is_code(cell);
	c->v = qe_xcalloc(n, sizeof *c->v);
	c->n = 0;
	cJSON_ArrayForEach(cell, cells) {
		if (is_code(cell))
			read_code(cell, odig[i], &c->v[c->n++], &src, sha);
		i++;
	}
	EVP_MD_free(sha);
	qe_buf_free(&src);
}

int
qe_nb_code_is_sent(const struct qe_nb_code *code)
{
	return !code->blank && !code->skip;
}

void
qe_nb_codes_free(struct qe_nb_codes *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].first_line);
		free(c->v[i].says);
	}
	free(c->v);
	c->v = NULL;
	c->n = 0;
}
