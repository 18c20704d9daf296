/*
 * qe_recscan.h - one NDJSON record line read with the pull reader
 * (qe_jscan), for qe-cell-diff and qe-history add: the members qe_reader
 * and qe_hadd read, decoded, and nothing else built. A record's
 * provenance that is byte for byte the end of the previous line (qe-stamp
 * appends the same descriptor to every record of a build) is recognised by
 * one memcmp and its tree reused.
 *
 * Invariants:
 *  - it takes a line exactly when qe_js_check() takes it (qe_jscan.h:
 *    strict JSON, an object, then only SP and TAB); a line it refuses
 *    returns -1, and qe_js_check() says why (qe_ndjson, QE_LINE_REFUSED).
 *  - one struct qe_recline for every way a record is read: from its line
 *    here, or from a tree (qe_recscan_tree(), for the callers that need
 *    one: jq expressions), with the same values, so every consumer checks
 *    a record once, on the struct. A repeated member reads as its first
 *    occurrence (as cJSON's lookups read it); the later ones are listed
 *    (l->dup) for the checks that look at every occurrence's type.
 *  - a member's value is given as its JSON type and, for strings and
 *    numbers, its value as cJSON reads it; "provenance", "timeout_cell"
 *    and "kernel_env" as trees when they are objects, "values" (qe-replicate
 *    --compare) and "concurrent" (mystmd) when arrays, "jit_functions" when an
 *    object. Everything given
 *    borrows from the struct qe_recscan until its next line.
 *  - the common case is read here, the rest by qe_jscan at the same cursor:
 *    a key or string of plain ASCII (no escape, no control byte, nothing
 *    above 0x7f), a number without exponent and a literal; whatever else
 *    (blanks, escapes, UTF-8, containers) is left to qe_jscan, so a line
 *    is taken or refused exactly as qe_jscan alone would take or refuse it.
 *  - the keys of a line are predicted from the previous line's: the bytes
 *    '"key":' of the same member there, compared whole, give its id; any
 *    difference and the key is read as before (and predicted from then on).
 *  - struct qe_recscan is the caller's (zero-initialised); it owns the
 *    decoded strings, the trees and the previous line's provenance
 *    (qe_recscan_free).
 */
#ifndef QE_RECSCAN_H
#define QE_RECSCAN_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "qe_jscan.h"
#include "qe_mem.h"

/* The members read, by name. */
enum { QE_RK_KIND, QE_RK_DOCUMENT, QE_RK_INDEX, QE_RK_SOURCE, QE_RK_DURATION, QE_RK_CACHE_KEY,
	QE_RK_CELLS_S, QE_RK_CURRENT, QE_RK_ERROR, QE_RK_EXEC_S, QE_RK_FIRST_LINE, QE_RK_INPUT,
	QE_RK_LABEL, QE_RK_ORIGIN, QE_RK_OUTPUT, QE_RK_PROVENANCE, QE_RK_STATUS, QE_RK_TIMEOUT,
	QE_RK_TNOTE, QE_RK_TSRC, QE_RK_KENV, QE_RK_RESULT, QE_RK_WARM_S, QE_RK_PEAK_GROWTH,
	QE_RK_VERSION, QE_RK_CODE_CELLS, QE_RK_NAME, QE_RK_RSS, QE_RK_WARM_NOTE, QE_RK_WARM_ERROR,
	QE_RK_WARM_NB, QE_RK_ARM, QE_RK_VALUES, QE_RK_JIT_N, QE_RK_JIT_S, QE_RK_JIT_FN, QE_RK_ENGINE, QE_RK_CONCURRENT, QE_RK_N };

struct qe_recdup {
	unsigned pos;			/* its place in the record */
	signed char id, type;		/* QE_RK_*, QE_JS_* */
};

struct qe_recline {
	signed char type[QE_RK_N];	/* QE_JS_* of the member, 0 when absent */
	const char *str[QE_RK_N];	/* a string member, decoded, else NULL */
	double num[QE_RK_N];		/* a number member */
	const cJSON *prov, *tc, *kenv;	/* "provenance", "timeout_cell", "kernel_env" when objects,
					 * else NULL */
	const cJSON *values, *jitfn;	/* "values" when an array, "jit_functions" when an object */
	const cJSON *concurrent;	/* "concurrent" when an array */
	int reused;			/* prov is the previous line's tree, known by its bytes */
	unsigned pos[QE_RK_N];		/* a member's place in the record (0 first) */
	const struct qe_recdup *dup;	/* later occurrences of read members, in order: */
	size_t ndup;			/* the first of each member and type */
};


/* Keys predicted a line (qe-cache-extract and qe-stamp write them in one order). */
#define QE_RS_NPK 48

struct qe_recscan {
	struct qe_jscan s;
	struct qe_buf text;		/* this line's strings, decoded, NUL after each */
	size_t off[QE_RK_N];
	struct qe_buf psuffix;		/* the last provenance that ended its line, to that end */
	cJSON *ptree;			/* its tree */
	cJSON *own[6];			/* this line's own provenance, timeout_cell, kernel_env, values,
					 * jit_functions and concurrent trees */
	/* the keys of the previous line's first members, read plain: each as its bytes '"key":' */
	struct qe_buf pk;
	unsigned pkoff[QE_RS_NPK + 1];	/* key i is pk.data[pkoff[i] .. pkoff[i + 1]) */
	signed char pkid[QE_RS_NPK];	/* its member id, or -1 */
	int npk;
	struct qe_recdup *dups;		/* this record's repeated members (qe_recline's dup) */
	size_t ndups, capdups;
	unsigned char dupseen[QE_RK_N];	/* the types listed there, a bit each */
};

/* The member id of a key, or -1. */
int qe_recscan_key(const char *k, size_t n);

/* Read s[0..n) into *l: 0, or -1 when the line is no JSON object (then *l means nothing). */
int qe_recscan_line(struct qe_recscan *sc, const char *s, size_t n, struct qe_recline *l);

/*
 * The record tree t (an object) into *l, as qe_recscan_line() reads its
 * line; everything given borrows from t (and sc's list of repeated members).
 */
void qe_recscan_tree(struct qe_recscan *sc, const cJSON *t, struct qe_recline *l);

void qe_recscan_free(struct qe_recscan *sc);

#endif /* QE_RECSCAN_H */
