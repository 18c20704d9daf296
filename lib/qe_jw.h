/*
 * qe_jw.h - the one JSON writer: every line a tool prints is written here,
 * a cJSON tree (qe_jw_value, behind qe_json_print and qe_json_emit) or a record
 * written member by member (qe-cell-diff's cell-diff and notebook-diff
 * lines, printed by the million).
 *
 * Invariants:
 *  - everything is appended to a struct qe_buf the caller owns (qe_mem.h);
 *    nothing here allocates otherwise, prints or fails (out of memory exits,
 *    as every qe_buf add does).
 *  - strings are written byte for byte as cJSON_PrintUnformatted wrote
 *    them: '"' and '\\' escaped, \b \f \n \r \t by name, the other bytes
 *    below 0x20 as \u00xx (lowercase), every other byte (UTF-8, 0x7f) as is.
 *    The input is not checked for UTF-8: the reader already did.
 *  - one number form: the shortest of %.15g, %.16g and %.17g that reads
 *    back to the same double (qe_jw_numtext()), -0 as 0, a number that is
 *    not finite as null. qe_jw_numfmt writes a double so; qe_jw_num writes
 *    x rounded half away from zero to `decimals` (0 to 6) decimals so (the
 *    same text as qe_jw_numfmt(qe_jw_round(x, decimals))), its digits
 *    written by hand where that form has no exponent and at most 15 digits.
 *    (Before issue 27 the cell-diff lines wrote 0.000012 where every other
 *    record wrote 1.2e-05: schema/diff.json says so.)
 *  - a tree is written compact, members in their order, as
 *    cJSON_PrintUnformatted wrote it but for the numbers, which are
 *    qe_jw_numfmt's (cJSON's %1.15g could print a number that reads back
 *    as another: DBL_MAX as 1.79769313486232e+308, infinity).
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

/* x rounded to `decimals` (0..6) decimals, in the one number form; null when not finite. */
void qe_jw_num(struct qe_buf *b, double x, int decimals);

/* The number x in the one number form (qe_jw_numtext(); null when not finite). */
void qe_jw_numfmt(struct qe_buf *b, double x);

/*
 * The one number form: the shortest of %.15g, %.16g and %.17g that reads
 * back (strtod) to exactly d, into buf (at least 32 bytes); "0" for either
 * zero and "null" for a value that is not finite, as cJSON writes them.
 * Returns its length. cJSON's own %1.15g is accepted when it is merely
 * close, so DBL_MAX came out as 1.79769313486232e+308, which reads back as
 * infinity.
 */
int qe_jw_numtext(char *buf, double d);

/* The value v (and all below it), compact; v must not be NULL. */
void qe_jw_value(struct qe_buf *b, const cJSON *v);

/* true or false */
void qe_jw_bool(struct qe_buf *b, int v);

/* ',' "key" ':' - the separator and key before a member's value. */
void qe_jw_key(struct qe_buf *b, const char *k);

/* {"kind":KIND,"schema_version":1 - the open record; close it with '}'. */
void qe_jw_begin(struct qe_buf *b, const char *kind);

/* x rounded half away from zero to `decimals` (0..6) decimals. */
double qe_jw_round(double x, int decimals);

#endif /* QE_JW_H */
