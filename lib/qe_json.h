/*
 * qe_json.h - small cJSON helpers and the record writer.
 *
 * Invariants:
 *  - stdout carries data only: one compact JSON object per line, '\n'.
 *    Every record starts with "kind" and "schema_version" (qe_json_record_new),
 *    so readers can dispatch on the first bytes.
 *  - cJSON constructors return NULL when malloc fails: every call that
 *    allocates goes through qe_json_check(), which exits with status 2 like
 *    qe_xmalloc. Nothing here returns NULL for want of memory.
 *  - a write error ends the program (status 2, "prog: stdout: ..."); a
 *    reader that went away ends it by SIGPIPE. qe_json_finish() is the last call
 *    of every main().
 *  - never call setlocale(): cJSON formats numbers with the C locale's '.'.
 */
#ifndef QE_JSON_H
#define QE_JSON_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* Treat a NULL from a cJSON constructor as out of memory (exit 2). */
cJSON *qe_json_check(cJSON *item);

/* A new object {"kind": kind, "schema_version": 1}; the caller owns it. */
cJSON *qe_json_record_new(const char *kind);

/* The string value of obj[key], or NULL when absent or not a string. */
const char *qe_json_str(const cJSON *obj, const char *key);

/* A copy of the string obj[key] (free() it), or NULL when it is not a string. */
char *qe_json_strdup(const cJSON *obj, const char *key);

/* The number obj[key], or NAN when it is absent, not a number or not finite. */
double qe_json_num(const cJSON *obj, const char *key);

/* 1 when obj[key] is a string that qe_time_parse() accepts (into *t), else 0. */
struct qe_time;
int qe_json_time(const cJSON *obj, const char *key, struct qe_time *t);

/* Add a string, or JSON null when s is NULL. */
void qe_json_add_str_or_null(cJSON *obj, const char *key, const char *s);

/* obj[key] = qe_jw_round(v, decimals), or null when v is not finite. */
void qe_json_add_rounded(cJSON *obj, const char *key, double v, int decimals);

/* Add a number, or JSON null when `have` is 0. */
void qe_json_add_num_or_null(cJSON *obj, const char *key, int have, double v);

/* Compact text of v (not NULL) as qe_jw_value() writes it, numbers in
 * qe_jw_numtext()'s form; release with free() (or cJSON_free()). Exits on
 * out of memory. */
char *qe_json_print(const cJSON *v);

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

/*
 * Where a JSON text s[0..n) (already known to be valid UTF-8) holds, inside
 * a string, a raw control character (below U+0020: TAB, CR, ESC..., which
 * JSON forbids and cJSON accepts) or the escape \u0000 (which cJSON's
 * NUL-terminated strings would cut). Returns the offset of the character or
 * of the backslash, or -1; *nul is set to 1 for \u0000, else 0.
 */
long qe_json_bad_char(const char *s, size_t n, int *nul);

/*
 * Rewrite each escape \\u0000 inside a string of the JSON text s[0..n) as
 * \\ufffd (the same six bytes), so that no string is cut at a NUL; returns
 * how many were rewritten (the caller says so).
 */
size_t qe_json_nul_to_fffd(char *s, size_t n);

/* "control character U+00XX in a string" or "NUL (\u0000) in a string" */
const char *qe_json_bad_char_reason(const char *s, long at, int nul, char *buf, size_t size);

/*
 * Print `rec` as one compact line on stdout. Exits with status 2 if the write
 * fails (full disk); dies by SIGPIPE if the reader went away.
 */
void qe_json_emit(const cJSON *rec);

/* Write already serialised lines as they are ('\n's included). */
void qe_json_emit_bytes(const char *s, size_t n);

/* Write a raw, already serialised line (without its '\n'). */
void qe_json_emit_line(const char *s, size_t n);

/* Flush stdout, ending the program as qe_json_emit does if that fails. */
void qe_json_emit_flush(void);

/*
 * Flush and close stdout; report a write error. Returns the worse of
 * `status` and QE_EXIT_TROUBLE on a write error. Call it last in main().
 */
int qe_json_finish(int status);

#endif /* QE_JSON_H */
