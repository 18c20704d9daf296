/*
 * qe_hcells.h - a document's cells in one build, packed into one blob (the
 * "cells" column of qe-history's notebooks table): one row per document
 * and build instead of one per cell, so reading a year back is a few
 * thousand rows, not a million.
 *
 * Invariants:
 *  - the format is fixed by the schema version (qe_hstore.h): per cell,
 *    index (u32), status + 1 (u8: 0 for none), flags (u8: 1 duration, 2
 *    label, 4 first line, 8 name), duration (f64), source digest (32
 *    bytes), then the label, the first line and the name when flagged,
 *    each as a u32 length, the bytes and a NUL. The name (flag 8) came
 *    later: a blob without it reads as before. Integers and doubles are little-endian whatever the
 *    machine.
 *  - decoding never reads past the blob: a short or inconsistent blob is
 *    -1, never a guess. Strings decoded point into the blob (NUL-ended).
 */
#ifndef QE_HCELLS_H
#define QE_HCELLS_H

#include <stddef.h>

#include "qe_mem.h"

struct qe_hcellrec {
	long idx;
	int status;		/* QE_ST_*, -1 for none */
	double dur;		/* NAN for none */
	unsigned char sha[32];
	const char *label, *first_line;	/* NULL for none */
	const char *name;		/* the record's display name; NULL for none */
};

/* Append c to b. */
void qe_hcells_put(struct qe_buf *b, const struct qe_hcellrec *c);

/* Decode the cell at *off of p[0..n) into *c, advancing *off: 1, 0 at the end, -1 corrupt. */
int qe_hcells_get(const unsigned char *p, size_t n, size_t *off, struct qe_hcellrec *c);

#endif /* QE_HCELLS_H */
