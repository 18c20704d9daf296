/*
 * jw-ref.h - the number writer of lib/qe_jw.c said the slow way: the
 * value rounded (qe_jw_round) and printed by snprintf's %.15g/%.16g/%.17g
 * (qe_jw_numtext), which qe_jw_num's hand-written digits must equal byte
 * for byte. Shared by tests/unit/jw.c (random values) and fuzz/fuzz-lib.c
 * (TARGET_JWNUM).
 */
#ifndef JW_REF_H
#define JW_REF_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qe.h"
#include "qe_jw.h"

static void
ref_jw_num(struct qe_buf *b, double x, int decimals)
{
	char tmp[48];

	if (isnan(x) || isinf(x))
		qe_buf_adds(b, "null");
	else {
		qe_jw_numtext(tmp, qe_jw_round(x, decimals));
		qe_buf_adds(b, tmp);
	}
}

/* 1 when qe_jw_num and the reference write the same bytes for x. */
static int
jw_num_agrees(double x, int decimals, struct qe_buf *a, struct qe_buf *r)
{
	qe_buf_reset(a);
	qe_buf_reset(r);
	qe_jw_num(a, x, decimals);
	ref_jw_num(r, x, decimals);
	return a->len == r->len && memcmp(a->data, r->data, a->len) == 0;
}

#endif /* JW_REF_H */
