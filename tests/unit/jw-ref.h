/*
 * jw-ref.h - the number writer of lib/qe_jw.c as it was before its digits
 * were written by hand (snprintf's %lld): the slow path the fast one must
 * equal byte for byte. Shared by tests/unit/jw.c (random values) and
 * fuzz/fuzz-lib.c (TARGET_JWNUM).
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
	static const long long pow10[] = { 1, 10, 100, 1000, 10000, 100000, 1000000 };
	char tmp[48];
	long long v, ip, fp;
	int n = 0;

	if (isnan(x) || isinf(x) || fabs(x) > 1e12) {
		if (isnan(x) || isinf(x))
			qe_buf_adds(b, "null");
		else {
			qe_json_numfmt(tmp, x);
			qe_buf_adds(b, tmp);
		}
		return;
	}
	v = llround(x * (double)pow10[decimals]);
	if (v < 0) {
		qe_buf_addc(b, '-');
		v = -v;
	}
	ip = v / pow10[decimals];
	fp = v % pow10[decimals];
	n = snprintf(tmp, sizeof tmp, "%lld", ip);
	if (fp) {
		int d = decimals;

		while (fp % 10 == 0)
			fp /= 10, d--;
		n += snprintf(tmp + n, sizeof tmp - (size_t)n, ".%0*lld", d, fp);
	}
	qe_buf_add(b, tmp, (size_t)n);
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
