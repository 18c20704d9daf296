/*
 * qe_mdtable.h - the tables of the diff comment, one row at a time: the top
 * changes, the per-lecture totals and every cell, and the names and words
 * their rows are made of.
 *
 * Invariants and ownership:
 *  - every function appends one piece of GitHub-flavoured Markdown to a
 *    caller-owned struct qe_buf; strings from the build pass through
 *    qe_gfm_text()/qe_gfm_code() with a cap, so a row is one table row of
 *    bounded length whatever the input (the renderer budgets by rows).
 *  - a row ends in "|\n" and has as many cells as its header.
 *  - nothing here allocates what the caller frees, or fails.
 */
#ifndef QE_MDTABLE_H
#define QE_MDTABLE_H

#include "qe_review.h"

struct qe_buf;

/* Header (and alignment row) of each table, and a row of it. */
extern const char qe_mdtable_top_header[];
extern const char qe_mdtable_nb_header[];
extern const char qe_mdtable_cell_header[];

/* A top row: the ratio as measured (a verdict the runner factor would change says so in its notes). */
void qe_mdtable_top_row(struct qe_buf *b, const struct qe_toprow *t);

/* A lecture's row; its sparkline reads the lecture's cells in `set`. */
void qe_mdtable_nb_row(struct qe_buf *b, const struct qe_diffset *set, const struct qe_dnb *n);

/* A cell's row. */
void qe_mdtable_cell_row(struct qe_buf *b, const struct qe_dcell *c);

/* A lecture's name, escaped and capped, or "(unnamed)". */
void qe_mdtable_doc(struct qe_buf *b, const char *doc);

/*
 * A cell's name: its label, else "code cell N" (counted from 1) and its
 * display name as code (the first line, in records without a name).
 */
void qe_mdtable_cell_name(struct qe_buf *b, const struct qe_dcell *c);

/*
 * Replicate numbers in words, as used then warm (w->has 0: none), in
 * seconds: "slower as used: 0.65 s → 1.65 s (×2.50, p = 0.008, 5 + 5 runs,
 * spread ×2.10–×2.90); faster warm: 0.68 s → 0.001 s (×<0.01); compile ~1.6 s".
 */
void qe_mdtable_replicate(struct qe_buf *b, int verdict, double base_s, double head_s, double ratio,
    const struct qe_dtest *t, const struct qe_dwarm *w);

/* A verdict as a reader says it, with a coloured mark for the top ones. */
void qe_mdtable_verdict(struct qe_buf *b, int verdict, int now_failing);

#endif /* QE_MDTABLE_H */
