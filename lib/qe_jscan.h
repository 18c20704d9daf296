/*
 * qe_jscan.h - a pull reader over a JSON text in memory: it walks objects,
 * arrays and values without building a tree. A string the caller only
 * digests is fed to it run by run (the bytes between escapes straight from
 * the text, each escape decoded), a value the caller does not read is
 * skipped, validated, at the speed of a word-at-a-time scan.
 *
 * Invariants:
 *  - strict, and never looser than cJSON plus the checks of qe_json.c: a
 *    text it accepts, cJSON parses to the same values and those checks pass.
 *    It accepts RFC 8259 JSON only, and less: whitespace is SP, TAB, LF, CR
 *    only; strings hold no raw control character, only well-formed UTF-8
 *    (qe_utf8.c), no escape \u0000 and no lone surrogate; a number is at
 *    most 63 bytes (cJSON reads no more) and finite as a double; nesting
 *    is at most QE_JS_MAXDEPTH (cJSON's limit). Everything else fails, and
 *    the caller goes the way of cJSON (which gives the diagnostic, or
 *    reads what this reader refuses, such as a BOM or a leading zero).
 *  - strings decode exactly as cJSON decodes them (\uXXXX and surrogate
 *    pairs to UTF-8), so a digest of the runs fed equals a digest of
 *    cJSON's valuestring.
 *  - a failure is sticky: s->fail is set, every later call returns
 *    QE_JS_ERR, and nothing is said (no message: the caller decides).
 *  - `trusted` (set after qe_js_init) is for a second walk over a value
 *    the reader already took: strings are then not checked again, only
 *    decoded (a text not read before must never be walked trusted).
 *  - the reader borrows the text (it must outlive the reader) and never
 *    writes to it; it owns its two scratch buffers (qe_js_free()).
 */
#ifndef QE_JSCAN_H
#define QE_JSCAN_H

#include <stddef.h>

#include "qe_mem.h"

/* cJSON's CJSON_NESTING_LIMIT */
#define QE_JS_MAXDEPTH 1000

enum { QE_JS_ERR = -1, QE_JS_OBJ = 1, QE_JS_ARR, QE_JS_STR, QE_JS_NUM, QE_JS_TRUE, QE_JS_FALSE,
	QE_JS_NULL };

struct qe_jscan {
	const char *p;		/* the cursor: the next byte to read */
	const char *end;	/* one past the text */
	int depth;		/* containers entered and not left */
	int first;		/* no member or element of the current container read yet */
	int fail;		/* sticky failure */
	int trusted;		/* the caller's promise: this text was read whole before
				 * without a failure; a string then ends at the first
				 * '"' or '\\' of one SIMD scan, unchecked */
	struct qe_buf key;	/* an escaped key, decoded */
	struct qe_buf esc;	/* one decoded escape */
};

/* Where a string's decoded runs go, in order. */
typedef void (*qe_js_sink)(void *arg, const char *p, size_t n);

/* Read text[0..n) from its start; depth 0. */
void qe_js_init(struct qe_jscan *s, const char *text, size_t n);

/* Release the scratch buffers; s can be initialised again. */
void qe_js_free(struct qe_jscan *s);

/* Whitespace passed, the type of the value at the cursor (by its first byte), or QE_JS_ERR. */
int qe_js_type(struct qe_jscan *s);

/* Pass one whole value, validating all of it; its type, or QE_JS_ERR. */
int qe_js_skip(struct qe_jscan *s);

/* Pass the '{' or '[' of a value of type `type`; 0, or QE_JS_ERR. */
int qe_js_enter(struct qe_jscan *s, int type);

/*
 * In an object: 1 with the next member's key (*k, *n: the text's own
 * bytes, or the decoded key when it holds escapes; valid until the next
 * call) and the cursor at its value; 0 when the '}' was passed (the object
 * is left); QE_JS_ERR.
 */
int qe_js_key(struct qe_jscan *s, const char **k, size_t *n);

/* In an array: 1 with the cursor at the next element, 0 when the ']' was passed, QE_JS_ERR. */
int qe_js_elem(struct qe_jscan *s);

/* Decode the string at the cursor, feeding its runs to fn (or to nothing: fn NULL). */
int qe_js_str(struct qe_jscan *s, qe_js_sink fn, void *arg);

/* The same, appending the decoded text to out (NUL-terminated, as qe_buf is). */
int qe_js_str_buf(struct qe_jscan *s, struct qe_buf *out);

/* The number at the cursor as strtod (thus cJSON) reads it. */
int qe_js_num(struct qe_jscan *s, double *d);

/* 0 when only whitespace is left, else QE_JS_ERR. */
int qe_js_done(struct qe_jscan *s);

/* A sink that appends to the struct qe_buf *arg. */
void qe_js_sink_buf(void *arg, const char *p, size_t n);

#endif /* QE_JSCAN_H */
