/*
 * qe_ndjson.h - the NDJSON record reader every tool reads its input with.
 *
 * Invariants:
 *  - a newline is the resync point: one bad line costs one record, never the
 *    stream. A bad line is reported as "prog: file:line: reason" and counted;
 *    the good records before and after it are still delivered.
 *  - the record passed to the callback is owned by the reader and freed
 *    when the callback returns (cJSON_DetachItem* what you keep).
 *  - lines are read with one copy: large reads straight into the line
 *    buffer, lines handled where they lie, only an unfinished line's start
 *    moved to the front before the next read.
 *  - qe_ndjson_max_line is the one mutable global: a documented limit, set once
 *    from the command line before reading starts.
 */
#ifndef QE_NDJSON_H
#define QE_NDJSON_H

#include <stddef.h>

#include <cjson/cJSON.h>

/*
 * Largest input line accepted, in bytes (default 64 MiB). Longer lines are
 * rejected with a diagnostic and skipped; reading resumes at the next '\n'.
 */
extern size_t qe_ndjson_max_line;

/*
 * Set qe_ndjson_max_line from an option's text (--max-line): a whole number of
 * bytes, at least 1. For anything else it says so ("prog: --max-line:
 * invalid value 'x'"), sets nothing and returns -1: a usage error.
 */
int qe_ndjson_set_max_line(const char *s);

/*
 * Called once per good record. `file` is the display name ("<stdin>" for
 * standard input) and `line` counts from 1. Return 0 to go on, -1 to count
 * the record as rejected (the callback has already said why).
 */
typedef int (*qe_record_fn)(cJSON *rec, const char *file, long line, void *ctx);

/*
 * Read every operand as one NDJSON stream ("-" or no operand: stdin), in
 * order. gzip-compressed input is decompressed transparently (zlib). Blank
 * lines are ignored, "\r\n" tolerated, a last line without '\n' is still a
 * record. A UTF-8 byte order mark at the start of an operand is skipped
 * (columns still count it); one at the start of a later line is refused. A line that is not RFC 8259 JSON (as qe_jscan reads it: no
 * leading zero, no blank but SP, TAB, LF and CR) or not UTF-8, not an
 * object, holds a NUL byte, a raw control character (TAB, CR, ESC...) or
 * the escape \u0000 inside a string, nests deeper than 1000 levels, holds
 * a number beyond a double's range (1e999) or is longer than qe_ndjson_max_line
 * is reported as "prog: file:line: reason" (qe_js_check()'s words) and
 * skipped. An unreadable operand is reported
 * and skipped. Standard output is flushed before every read that may block.
 * Returns QE_EXIT_OK, or QE_EXIT_TROUBLE if anything was rejected; a
 * "prog: N lines rejected" summary is printed when N > 0.
 */
int qe_ndjson_each(int argc, char **argv, qe_record_fn fn, void *ctx);

/*
 * The same, for a callback that also gets the record's bytes as read:
 * raw[0..n) is the line without its '\n', a '\r' before it, trailing
 * blanks or a byte order mark opening the stream (qe-stamp passes those
 * bytes through untouched).
 */
typedef int (*qe_raw_record_fn)(cJSON *rec, const char *raw, size_t n, const char *file,
    long line, void *ctx);
int qe_ndjson_each_raw(int argc, char **argv, qe_raw_record_fn fn, void *ctx);

/*
 * The same, for a caller that reads every line itself (qe-cell-diff's and
 * qe-history add's pull reader, qe_recscan): linefn gets every line that
 * is not blank, its bytes s[0..n) without the '\n' or a '\r' before it
 * (nor a byte order mark), and returns 0 (taken), -1 (rejected: it said
 * why) or QE_LINE_REFUSED for a line that is no JSON record, whose words
 * are then said as above. It must refuse only what those checks refuse
 * (qe_js_check(): one validator). linefn NULL: qe_ndjson_each() with fn.
 */
#define QE_LINE_REFUSED 2
typedef int (*qe_line_fn)(const char *s, size_t n, const char *file, long line, void *ctx);
int qe_ndjson_each_lines(int argc, char **argv, qe_line_fn linefn, qe_record_fn fn, void *ctx);

#endif /* QE_NDJSON_H */
