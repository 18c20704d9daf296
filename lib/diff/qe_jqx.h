/*
 * qe_jqx.h - a user's jq expression over records (qe-cell-diff -k, -d, -f).
 * The one module that needs libjq: a tool that does not call it does not
 * link it.
 *
 * Invariants:
 *  - a struct qe_jqx is owned by the caller: zero-initialise it, compile
 *    it once, run it on any number of records, qe_jqx_free() it last.
 *  - an expression runs on a copy of the record (as jq would read its
 *    line) and only its first output counts; no output reads as null.
 *  - every error is reported here ("prog: OPT: cannot compile 'TEXT': why",
 *    "prog: file:line: 'TEXT': message") and returned as -1; the caller
 *    decides what it costs.
 */
#ifndef QE_JQX_H
#define QE_JQX_H

#include <cjson/cJSON.h>

#include "qe_mem.h"

struct jq_state;

struct qe_jqx {
	const char *text;	/* the expression (not owned) */
	struct jq_state *jq;	/* NULL until compiled */
	struct qe_buf err;	/* first line of jq's first message */
};

/*
 * Compile `text` for option `opt` (named in the message). Returns 0, or -1
 * after the message; out of memory exits.
 */
int qe_jqx_compile(struct qe_jqx *x, const char *text, const char *opt);

/*
 * Run x (a struct qe_jqx *) on rec as a filter: 1 when its first output is
 * neither null nor false, 0 when it is, -1 after reporting a jq error.
 * (The signature is the reader's qe_rec_test_fn.)
 */
int qe_jqx_test(void *x, const cJSON *rec, const char *file, long line);

/*
 * Run x (a struct qe_jqx *) on rec for a key: *out is its first output as
 * text (a string as is, anything else as sorted compact JSON; the caller
 * frees it) or NULL for null. Returns 0, or -1 after reporting a jq error.
 * (The signature is the reader's qe_rec_text_fn.)
 */
int qe_jqx_text(void *x, const cJSON *rec, const char *file, long line, char **out);

/* Release the compiled expression (a zeroed or freed struct: nothing). */
void qe_jqx_free(struct qe_jqx *x);

#endif /* QE_JQX_H */
