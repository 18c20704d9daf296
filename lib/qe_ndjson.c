/*
 * The NDJSON record reader (qe_ndjson.h). Input may be plain or gzip (zlib
 * reads both); a newline is the resync point, so one bad line costs one
 * record, never the stream.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "qe.h"
#include "qe_json.h"
#include "qe_ndjson.h"
#include "qe_jscan.h"

size_t qe_ndjson_max_line = 64u << 20;

int
qe_ndjson_set_max_line(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (*s < '0' || *s > '9' || (v = strtoull(s, &end, 10), errno) || *end || v < 1 ||
	    v > SIZE_MAX / 2) {
		warnx("--max-line: invalid value '%s'", s);
		return -1;
	}
	qe_ndjson_max_line = (size_t)v;
	return 0;
}

struct reader {
	const char *name;
	long line;
	long rejected;
	qe_record_fn fn;
	qe_raw_record_fn rawfn;
	qe_line_fn linefn;
	void *ctx;
};

/*
 * Why the line s[0..n) is no record, in qe_js_check()'s words; col: the
 * bytes of the line before s (a byte order mark skipped), so a column
 * counts the line's bytes as read.
 */
static void
refuse(struct reader *r, const char *s, size_t n, size_t col)
{
	struct qe_js_error e;

	/* a reader of lines refuses only what qe_js_check() refuses (else its defect, said as a syntax error) */
	if (qe_js_check(s, n, QE_JS_OBJECT | QE_JS_SPTAB, &e) == 0)
		warnx("%s:%ld: invalid JSON", r->name, r->line);
	else if (e.code == QE_JSE_NOTOBJ || e.code == QE_JSE_RANGE)
		warnx("%s:%ld: %s", r->name, r->line, e.reason);
	else
		warnx("%s:%ld: %s at column %zu", r->name, r->line, e.reason, col + e.offset + 1);
	r->rejected++;
}

static void
handle_line(struct reader *r, char *s, size_t n)
{
	struct qe_js_error e;
	size_t bom;
	int r2;
	cJSON *rec;

	if (n > 0 && s[n - 1] == '\r')
		s[--n] = '\0';
	/* a byte order mark opens a stream (an editor's, a Windows tool's): skipped there, never copied */
	bom = r->line == 1 ? qe_js_bom(s, n) : 0;
	s += bom, n -= bom;
	if (strspn(s, " \t") == n && memchr(s, '\0', n) == NULL)
		return;		/* blank line */
	if (qe_js_bom(s, n)) {
		warnx("%s:%ld: byte order mark (U+FEFF) after the first line at column 1", r->name, r->line);
		r->rejected++;
		return;
	}
	/* the caller's own reading of the line; the words of a refusal are said here */
	if (r->linefn) {
		if ((r2 = r->linefn(s, n, r->name, r->line, r->ctx)) == QE_LINE_REFUSED)
			refuse(r, s, n, bom);
		else
			r->rejected += r2 != 0;
		return;
	}
	/* the one validator (qe_jscan), then cJSON's tree of what it took */
	if (qe_js_check(s, n, QE_JS_OBJECT | QE_JS_SPTAB, &e) < 0) {
		refuse(r, s, n, bom);
		return;
	}
	/* what qe_jscan takes cJSON parses (qe_jscan.h): NULL is out of memory */
	rec = qe_json_check(cJSON_ParseWithLength(s, n));
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	r2 = r->rawfn ? r->rawfn(rec, s, n, r->name, r->line, r->ctx) :
	    r->fn(rec, r->name, r->line, r->ctx);
	if (r2 != 0)
		r->rejected++;
	cJSON_Delete(rec);
}

/* The line s[0..n) (s[n] is writable) ends at a '\n': handled, or said too long. */
static void
line_end(struct reader *r, char *s, size_t n, int toolong)
{
	r->line++;
	if (toolong) {
		warnx("%s:%ld: line longer than %zu bytes", r->name, r->line, qe_ndjson_max_line);
		r->rejected++;
		return;
	}
	s[n] = '\0';	/* the '\n' or the room after the data */
	handle_line(r, s, n);
}

/*
 * The whole lines of buf[0..*len) handled in place; the start of an
 * unfinished line is moved to the front (the only copy besides the read).
 * A line longer than qe_ndjson_max_line is dropped as it comes (*toolong).
 */
static void
lines_in_place(struct reader *r, struct qe_buf *b, size_t *scanned, int *toolong)
{
	char *p = b->data, *end = b->data + b->len, *nl;

	while ((nl = memchr(p + (p == b->data ? *scanned : 0), '\n', (size_t)(end - p -
	    (p == b->data ? *scanned : 0)))) != NULL) {
		if (!*toolong && (size_t)(nl - p) > qe_ndjson_max_line)
			*toolong = 1;
		line_end(r, p, (size_t)(nl - p), *toolong);
		*toolong = 0;
		p = nl + 1;
	}
	*scanned = 0;
	if (!*toolong && (size_t)(end - p) > qe_ndjson_max_line)
		*toolong = 1;
	if (*toolong)
		p = end;	/* the rest of a line too long: dropped */
	else if (p == b->data)
		*scanned = b->len;
	b->len = (size_t)(end - p);
	if (p != b->data)
		memmove(b->data, p, b->len);
}

/* Read one stream line by line, each read straight into the line buffer; -1 on a read error. */
static int
read_stream(struct reader *r, gzFile gz)
{
	struct qe_buf b = { 0 };
	size_t want = 1 << 20, scanned = 0;
	int n, toolong = 0, ret = 0;

	r->line = 0;
	for (;;) {
		/* room for a read of `want`, never more: a line too long is dropped
		 * as it comes, so memory stays about qe_ndjson_max_line + want */
		qe_buf_grow(&b, want);
		if ((n = gzread(gz, b.data + b.len, (unsigned)want)) <= 0)
			break;
		b.len += (size_t)n;
		lines_in_place(r, &b, &scanned, &toolong);
		/* flush before a read that may block (s6-tai64n's rule) */
		qe_json_emit_flush();
	}
	if (n < 0) {
		int e;
		const char *msg = gzerror(gz, &e);

		warnx("%s: %s", r->name, e == Z_ERRNO ? strerror(errno) : msg);
		ret = -1;
	}
	if (b.len > 0 || toolong)
		line_end(r, b.data ? b.data : "", b.len, toolong);
	qe_buf_free(&b);
	return ret;
}

static int each_record(int argc, char **argv, struct reader *rp);

int
qe_ndjson_each(int argc, char **argv, qe_record_fn fn, void *ctx)
{
	struct reader r = { .fn = fn, .ctx = ctx };

	return each_record(argc, argv, &r);
}

int
qe_ndjson_each_lines(int argc, char **argv, qe_line_fn linefn, qe_record_fn fn, void *ctx)
{
	struct reader r = { .fn = fn, .linefn = linefn, .ctx = ctx };

	return each_record(argc, argv, &r);
}

int
qe_ndjson_each_raw(int argc, char **argv, qe_raw_record_fn fn, void *ctx)
{
	struct reader r = { .rawfn = fn, .ctx = ctx };

	return each_record(argc, argv, &r);
}

static int
each_record(int argc, char **argv, struct reader *rp)
{
	static char *stdin_only[] = { "-" };
	struct reader r = *rp;
	int status = QE_EXIT_OK;

	if (argc == 0) {
		argc = 1;
		argv = stdin_only;
	}
	for (int i = 0; i < argc; i++) {
		int isstdin = strcmp(argv[i], "-") == 0;
		int fd = isstdin ? dup(STDIN_FILENO) : open(argv[i], O_RDONLY);
		gzFile gz;

		r.name = isstdin ? "<stdin>" : argv[i];
		if (fd < 0 || (gz = gzdopen(fd, "rb")) == NULL) {
			warn("%s", r.name);
			if (fd >= 0)
				close(fd);
			status = QE_EXIT_TROUBLE;
			continue;
		}
		gzbuffer(gz, 1 << 17);
		if (read_stream(&r, gz) < 0)
			status = QE_EXIT_TROUBLE;
		gzclose(gz);
	}
	if (r.rejected > 0) {
		warnx("%ld line%s rejected", r.rejected, r.rejected == 1 ? "" : "s");
		status = QE_EXIT_TROUBLE;
	}
	return status;
}

