/*
 * qe_jw.h - a hand-written JSON record writer, for records printed by the
 * million (qe-cell-diff's cell-diff lines), and rounded numbers for cJSON
 * records.
 *
 * Invariants:
 *  - everything is appended to a struct qe_buf the caller owns (qe_mem.h);
 *    nothing here allocates otherwise, prints or fails (out of memory exits,
 *    as every qe_buf add does).
 *  - strings are written byte for byte as cJSON_PrintUnformatted writes
 *    them: '"' and '\\' escaped, \b \f \n \r \t by name, the other bytes
 *    below 0x20 as \u00xx (lowercase), every other byte (UTF-8, 0x7f) as is.
 *    The input is not checked for UTF-8: the reader already did.
 *  - numbers are written with at most `decimals` (0 to 6) decimals, rounded
 *    half away from zero, trailing zeros dropped, never in exponent form:
 *    the same bytes as cJSON prints for qe_jw_round(x, decimals) whenever
 *    that value is 0 or at least 1e-4 in magnitude and has at most 15
 *    significant digits. Outside that range the text differs while the
 *    number is the same: cJSON writes 1.2e-05 and -0 where this writes
 *    0.000012 and 0 (tests/unit/jw.test lists the cases). Records already
 *    published have this writer's form, so it stays.
 *  - beyond 1e12 in magnitude, qe_json_numfmt()'s shortest form that reads
 *    back to the same double (DBL_MAX stays finite).
 *  - a number that is not finite is written as null, as cJSON does.
 *  - qe_jw_numfmt and qe_jw_rounded write the bytes qe_json_print() writes
 *    for a cJSON number (qe_json_numfmt()'s form), for records that were
 *    cJSON objects before and keep their bytes (the notebook-diff record).
 */
#ifndef QE_JW_H
#define QE_JW_H

#include <string.h>

#include <cjson/cJSON.h>

#include "qe_mem.h"

/* n bytes of JSON text as they are (the caller's literal: nothing escaped). */
static inline void
qe_jw_raw(struct qe_buf *b, const char *s, size_t n)
{
	if (b->cap - b->len <= n)	/* room for the bytes and the NUL */
		qe_buf_grow(b, n);
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

/* A string literal of JSON text as it is. */
#define QE_JW_LIT(b, lit) qe_jw_raw((b), lit, sizeof(lit) - 1)

/* ',"k":' for a string literal k that needs no escape: one copy of a constant. */
#define QE_JW_KEY(b, k) qe_jw_raw((b), ",\"" k "\":", sizeof(",\"" k "\":") - 1)

/* A JSON string for s, or null when s is NULL. */
void qe_jw_str(struct qe_buf *b, const char *s);

/* A number with at most `decimals` (0..6) decimals; null when not finite. */
void qe_jw_num(struct qe_buf *b, double x, int decimals);

/* As qe_json_print() writes the number x (qe_json_numfmt(); null when not finite). */
void qe_jw_numfmt(struct qe_buf *b, double x);

/* As qe_json_print() writes what qe_jw_add_rounded(obj, key, x, decimals) adds. */
void qe_jw_rounded(struct qe_buf *b, double x, int decimals);

/* true or false */
void qe_jw_bool(struct qe_buf *b, int v);

/* ',' "key" ':' - the separator and key before a member's value. */
void qe_jw_key(struct qe_buf *b, const char *k);

/* {"kind":KIND,"schema_version":1 - the open record; close it with '}'. */
void qe_jw_begin(struct qe_buf *b, const char *kind);

/* x rounded half away from zero to `decimals` (0..6) decimals. */
double qe_jw_round(double x, int decimals);

/* obj[key] = qe_jw_round(v, decimals), or null when v is not finite. */
void qe_jw_add_rounded(cJSON *obj, const char *key, double v, int decimals);

#endif /* QE_JW_H */
