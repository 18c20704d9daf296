/*
 * qe.h - the one internal header of qe-telemetry: the contract shared by the
 * tools in cmd/.
 *
 * Invariants every tool keeps:
 *  - stdout carries data only: one compact JSON object per line, UTF-8, '\n'.
 *  - diagnostics go to stderr through warnx(3) as "prog: where: what".
 *  - exit status: 0 success, 1 only for an answer the user asked for (-e),
 *    2 trouble (usage, unreadable input, rejected lines, write error).
 *  - library functions report and return -1 (or NULL); only the tools decide
 *    the exit status. The qe_x* allocators are the one exception: they exit
 *    with status 2 when memory runs out.
 *  - never call setlocale(): cJSON formats numbers with the C locale's '.'.
 */
#ifndef QE_H
#define QE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#define QE_VERSION "0.1.0"
#define QE_SCHEMA_VERSION 1

enum {
	QE_EXIT_OK = 0,
	QE_EXIT_ANSWER = 1,	/* only when asked for, e.g. -e */
	QE_EXIT_TROUBLE = 2
};

/* ---- memory (exit 2 on exhaustion) ---------------------------------- */

void *qe_xmalloc(size_t n);
void *qe_xcalloc(size_t n, size_t size);
void *qe_xrealloc(void *p, size_t n);
char *qe_xstrdup(const char *s);
char *qe_xstrndup(const char *s, size_t n);

/*
 * A growable byte buffer. Always NUL-terminated after any qe_buf_* call, so
 * b->data can be used as a C string when the content has no NUL.
 */
struct qe_buf {
	char *data;
	size_t len;
	size_t cap;
};
void qe_buf_add(struct qe_buf *b, const void *p, size_t n);
void qe_buf_adds(struct qe_buf *b, const char *s);
void qe_buf_addc(struct qe_buf *b, char c);
void qe_buf_reset(struct qe_buf *b);
void qe_buf_free(struct qe_buf *b);

/* ---- NDJSON input ------------------------------------------------------ */

/*
 * Largest input line accepted, in bytes (default 64 MiB). Longer lines are
 * rejected with a diagnostic and skipped; reading resumes at the next '\n'.
 */
extern size_t qe_max_line;

/*
 * Set qe_max_line from an option's text (--max-line): a whole number of
 * bytes, at least 1. For anything else it says so ("prog: --max-line:
 * invalid value 'x'"), sets nothing and returns -1: a usage error.
 */
int qe_set_max_line(const char *s);

/*
 * Called once per good record. `rec` is owned by the reader and freed after
 * the call returns (detach what you keep). `file` is the display name
 * ("<stdin>" for standard input) and `line` counts from 1. Return 0 to go on,
 * -1 to count the record as rejected (the callback has already said why).
 */
typedef int (*qe_record_fn)(cJSON *rec, const char *file, long line, void *ctx);

/*
 * Read every operand as one NDJSON stream ("-" or no operand: stdin), in
 * order. gzip-compressed input is decompressed transparently (zlib). Blank
 * lines are ignored, "\r\n" tolerated, a last line without '\n' is still a
 * record. A line that is not valid JSON or not UTF-8, not an object, holds
 * a NUL byte, nests deeper than 1000 levels, holds a number beyond a
 * double's range (1e999) or is longer than qe_max_line is reported as
 * "prog: file:line: reason" and skipped. An
 * unreadable operand is reported and skipped.
 * Returns QE_EXIT_OK, or QE_EXIT_TROUBLE if anything was rejected; a
 * "prog: N lines rejected" summary is printed when N > 0.
 */
int qe_each_record(int argc, char **argv, qe_record_fn fn, void *ctx);

/* ---- output ------------------------------------------------------------ */

/*
 * Print `rec` as one compact line on stdout. Exits with status 2 if the write
 * fails (full disk); dies by SIGPIPE if the reader went away.
 */
void qe_emit(const cJSON *rec);

/* Write a raw, already serialised line (without its '\n'). */
void qe_emit_line(const char *s, size_t n);

/*
 * Flush and close stdout; report a write error. Returns the worse of
 * `status` and QE_EXIT_TROUBLE on a write error. Call it last in main().
 */
int qe_finish(int status);

/*
 * Offset of the first byte of s[0..n) that is not well-formed UTF-8
 * (overlongs, surrogates and code points above U+10FFFF included), or n.
 */
size_t qe_utf8_valid(const char *s, size_t n);

/*
 * Offset of the '[' or '{' that makes the JSON text s[0..n) nest deeper than
 * cJSON's limit (CJSON_NESTING_LIMIT, 1000), or -1: call it when
 * cJSON_Parse fails, to say why (cJSON says only "invalid JSON" there).
 */
long qe_json_too_deep(const char *s, size_t n);

/*
 * 1 if the list of items starting at v (and their children) holds a number
 * that is not finite: 1e999 parses as inf, and cJSON prints inf as null.
 */
int qe_json_nonfinite(const cJSON *v);

/* Name of the running program, for messages printed without warnx(). */
const char *qe_progname(void);

/* ---- timestamps ---------------------------------------------------------- */

/*
 * A point in time: seconds since the Unix epoch (UTC) and nanoseconds.
 * `zone` is 1 when the text carried 'Z' or an offset, 0 when it was naive
 * (taken as UTC); sec + offset is the wall-clock time as written. `frac_digits` is how many fraction digits it had.
 */
struct qe_time {
	int64_t sec;
	int32_t nsec;
	int zone;
	int offset;		/* the offset written, in seconds (0 for Z or naive) */
	int frac_digits;
};

/*
 * Parse YYYY-MM-DD('T'|' ')HH:MM:SS[.1-9 digits][Z|(+|-)HH:MM|(+|-)HHMM],
 * optionally surrounded by blanks. Returns 0, or -1 if `s` is not such a
 * timestamp or names an impossible date or time. Never reads past the NUL.
 */
int qe_time_parse(const char *s, struct qe_time *t);

/* Format as RFC 3339 UTC with microseconds: 2026-11-29T14:31:59.859127Z. */
#define QE_TIME_BUFSZ 40
char *qe_time_format(const struct qe_time *t, char buf[QE_TIME_BUFSZ]);

/*
 * b - a in microseconds (nanoseconds truncated toward zero); no overflow for
 * any two times qe_time_parse accepts.
 */
int64_t qe_time_diff_us(const struct qe_time *a, const struct qe_time *b);

/* Current time (CLOCK_REALTIME) as a qe_time. */
void qe_time_now(struct qe_time *t);

/* ---- digests ------------------------------------------------------------- */

#define QE_SHA256_HEX 65	/* 64 hex digits and a NUL */

/* SHA-256 of a byte string as lowercase hex. */
void qe_sha256_hex(const void *p, size_t n, char out[QE_SHA256_HEX]);

/*
 * SHA-256 of a file's bytes as lowercase hex, and optionally the raw 32-byte
 * digest. Returns 0, or -1 with errno set (nothing printed).
 */
int qe_sha256_file(const char *path, char out[QE_SHA256_HEX], unsigned char raw[32]);

/* ---- JSON helpers -------------------------------------------------------- */

/* The string value of obj[key], or NULL when absent or not a string. */
const char *qe_json_str(const cJSON *obj, const char *key);

/* Add a string, or JSON null when s is NULL. */
void qe_json_add_str_or_null(cJSON *obj, const char *key, const char *s);

/*
 * cJSON returns NULL from its constructors when malloc fails; treat that as
 * out of memory and exit 2, like qe_xmalloc.
 */
cJSON *qe_json_check(cJSON *item);

#endif /* QE_H */
