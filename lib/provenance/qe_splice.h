/*
 * qe_splice.h - appending one member, serialised once, to many records:
 * each record is printed and ",\"KEY\":VALUE}" spliced in for its closing
 * brace, so a million records cost a million prints of the records and
 * none of the member.
 *
 * Invariants:
 *  - the member comes last, after the record's own members in their order;
 *    the record's bytes are those read (qe_splice_raw) or, when it had to
 *    change, its compact print by the one writer (qe_jw_value); the
 *    member's are the text given, unchanged.
 *  - a record holds the key at most once in the output: one that already
 *    has it is refused, or with `replace` loses every copy first.
 *  - struct qe_splice belongs to the caller: qe_splice_init() it,
 *    qe_splice_free() it. The line returned points into its buffer and is
 *    good until the next qe_splice_record() or qe_splice_free().
 *  - nothing is printed here; out of memory exits.
 */
#ifndef QE_SPLICE_H
#define QE_SPLICE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "qe_mem.h"

struct qe_splice {
	char *tail;		/* ,"KEY":VALUE} */
	size_t tail_len;
	char *key;
	int replace;
	struct qe_buf line;	/* the line being built */
};

/*
 * Prepare to append key: value. `key` must need no JSON escaping (it is
 * written as is); `value` is compact JSON text (one line).
 */
void qe_splice_init(struct qe_splice *sp, const char *key, const char *value, int replace);

/*
 * The compact text of rec with the member appended, its length in *len (no
 * newline). NULL when rec already holds the key and replace is off; with
 * replace, rec loses its copies of the key (rec is changed).
 */
const char *qe_splice_record(struct qe_splice *sp, cJSON *rec, size_t *len);

/*
 * The same for a record read as the bytes raw[0..rawlen) (a JSON object,
 * valid): those bytes are kept as they are, numbers and spacing included
 * (-0.0 stays -0.0, 18446744073709551616 keeps its form), and the member
 * goes in for the closing brace. A record that holds the key is printed
 * and spliced as qe_splice_record() does.
 */
const char *qe_splice_raw(struct qe_splice *sp, cJSON *rec, const char *raw, size_t rawlen,
    size_t *len);

/* Free what sp holds (the line returned last goes with it). */
void qe_splice_free(struct qe_splice *sp);

#endif /* QE_SPLICE_H */
