/*
 * NDJSON in and out. Input may be plain or gzip (zlib reads both); a newline
 * is the resync point, so one bad line costs one record, never the stream.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "qe.h"

extern char *program_invocation_short_name;

#define QE_STR2(x) #x
#define QE_STR(x) QE_STR2(x)

size_t qe_max_line = 64u << 20;

int
qe_set_max_line(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (*s < '0' || *s > '9' || (v = strtoull(s, &end, 10), errno) || *end || v < 1 ||
	    v > SIZE_MAX / 2) {
		warnx("--max-line: invalid value '%s'", s);
		return -1;
	}
	qe_max_line = (size_t)v;
	return 0;
}

const char *
qe_progname(void)
{
	return program_invocation_short_name;
}

size_t
qe_utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < n) {
		unsigned c;
		size_t len;
		unsigned min, cp;
		uint64_t w;

		/* ASCII fast path: eight bytes at a time while no high bit is set */
		while (n - i >= 8 && (memcpy(&w, p + i, 8), (w & 0x8080808080808080ULL) == 0))
			i += 8;
		if (i >= n)
			break;
		c = p[i];
		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			len = 2, min = 0x80, cp = c & 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			len = 3, min = 0x800, cp = c & 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			len = 4, min = 0x10000, cp = c & 0x07;
		else
			return i;
		if (n - i < len)
			return i;
		for (size_t k = 1; k < len; k++) {
			if ((p[i + k] & 0xc0) != 0x80)
				return i;
			cp = cp << 6 | (p[i + k] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return i;
		i += len;
	}
	return n;
}

static void write_failed(void) __attribute__((noreturn));

struct reader {
	const char *name;
	long line;
	long rejected;
	qe_record_fn fn;
	void *ctx;
};

static void
reject(struct reader *r, const char *fmt, long col)
{
	if (col > 0)
		warnx("%s:%ld: %s at column %ld", r->name, r->line, fmt, col);
	else
		warnx("%s:%ld: %s", r->name, r->line, fmt);
	r->rejected++;
}

/*
 * Offset of the bracket that makes s[0..n) nest deeper than cJSON's limit
 * (CJSON_NESTING_LIMIT, 1000), or -1. cJSON reports only "invalid JSON" at
 * that point, which reads like a syntax error.
 */
long
qe_json_too_deep(const char *s, size_t n)
{
	long depth = 0;
	int instr = 0;

	for (size_t i = 0; i < n; i++) {
		if (instr) {
			if (s[i] == '\\')
				i++;
			else if (s[i] == '"')
				instr = 0;
		} else if (s[i] == '"')
			instr = 1;
		else if (s[i] == '[' || s[i] == '{') {
			if (++depth > CJSON_NESTING_LIMIT)
				return (long)i;
		} else if (s[i] == ']' || s[i] == '}')
			depth--;
	}
	return -1;
}

int
qe_json_nonfinite(const cJSON *v)
{
	for (; v != NULL; v = v->next) {
		if (cJSON_IsNumber(v) && !isfinite(v->valuedouble))
			return 1;
		if (v->child && qe_json_nonfinite(v->child))
			return 1;
	}
	return 0;
}

static void
handle_line(struct reader *r, char *s, size_t n)
{
	const char *end = NULL;
	size_t bad;
	cJSON *rec;

	if (n > 0 && s[n - 1] == '\r')
		s[--n] = '\0';
	if (strspn(s, " \t") == n && memchr(s, '\0', n) == NULL)
		return;		/* blank line */
	if (memchr(s, '\0', n) != NULL) {
		reject(r, "NUL byte", (long)((char *)memchr(s, '\0', n) - s) + 1);
		return;
	}
	if ((bad = qe_utf8_valid(s, n)) != n) {
		reject(r, "invalid UTF-8", (long)bad + 1);
		return;
	}
	rec = cJSON_ParseWithLengthOpts(s, n, &end, 0);
	if (rec == NULL) {
		long deep = qe_json_too_deep(s, end ? (size_t)(end - s) + 1 : n);

		if (deep >= 0)
			reject(r, "nesting deeper than " QE_STR(CJSON_NESTING_LIMIT) " levels", deep + 1);
		else
			reject(r, "invalid JSON", end ? (long)(end - s) + 1 : 0);
		return;
	}
	end += strspn(end, " \t");
	if (end != s + n) {
		reject(r, "trailing data after JSON value", (long)(end - s) + 1);
		cJSON_Delete(rec);
		return;
	}
	if (!cJSON_IsObject(rec)) {
		reject(r, "not a JSON object", 0);
		cJSON_Delete(rec);
		return;
	}
	/* else cJSON keeps inf, which every writer prints as null: a silent change */
	if (qe_json_nonfinite(rec->child)) {
		reject(r, "number out of range (beyond a double's 1.8e308)", 0);
		cJSON_Delete(rec);
		return;
	}
	if (r->fn(rec, r->name, r->line, r->ctx) != 0)
		r->rejected++;
	cJSON_Delete(rec);
}

/* Read one stream line by line; returns -1 on a read error. */
static int
read_stream(struct reader *r, gzFile gz)
{
	struct qe_buf line = { 0 };
	char chunk[65536];
	int n, toolong = 0, ret = 0;

	r->line = 0;
	while ((n = gzread(gz, chunk, sizeof chunk)) > 0) {
		char *p = chunk, *end = chunk + n;

		while (p < end) {
			char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t take = nl ? (size_t)(nl - p) : (size_t)(end - p);

			if (!toolong) {
				if (line.len + take > qe_max_line) {
					toolong = 1;
					qe_buf_reset(&line);
				} else
					qe_buf_add(&line, p, take);
			}
			p += take;
			if (nl == NULL)
				break;
			p++;
			r->line++;
			if (toolong) {
				warnx("%s:%ld: line longer than %zu bytes", r->name, r->line, qe_max_line);
				r->rejected++;
				toolong = 0;
			} else
				handle_line(r, line.data ? line.data : "", line.len);
			qe_buf_reset(&line);
		}
		/* flush before a read that may block (s6-tai64n's rule) */
		if (fflush(stdout) == EOF)
			write_failed();
	}
	if (n < 0) {
		int e;
		const char *msg = gzerror(gz, &e);

		warnx("%s: %s", r->name, e == Z_ERRNO ? strerror(errno) : msg);
		ret = -1;
	}
	if (line.len > 0 || toolong) {
		r->line++;
		if (toolong) {
			warnx("%s:%ld: line longer than %zu bytes", r->name, r->line, qe_max_line);
			r->rejected++;
		} else
			handle_line(r, line.data, line.len);
	}
	qe_buf_free(&line);
	return ret;
}

int
qe_each_record(int argc, char **argv, qe_record_fn fn, void *ctx)
{
	static char *stdin_only[] = { "-" };
	struct reader r = { .fn = fn, .ctx = ctx };
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

static void
write_failed(void)
{
	warn("stdout");
	exit(QE_EXIT_TROUBLE);
}

void
qe_emit_line(const char *s, size_t n)
{
	if (fwrite(s, 1, n, stdout) != n || putchar('\n') == EOF)
		write_failed();
}

void
qe_emit(const cJSON *rec)
{
	char *s = cJSON_PrintUnformatted(rec);

	if (s == NULL)
		qe_json_check(NULL);
	qe_emit_line(s, strlen(s));
	cJSON_free(s);
}

int
qe_finish(int status)
{
	if (fflush(stdout) == EOF || ferror(stdout)) {
		warn("stdout");
		status = QE_EXIT_TROUBLE;
	}
	if (fclose(stdout) == EOF && status != QE_EXIT_TROUBLE) {
		warn("stdout");
		status = QE_EXIT_TROUBLE;
	}
	return status;
}
