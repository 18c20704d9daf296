/*
 * qe_fidprose.h - the evaluation facts of qe-replicate runs in the comment:
 * numerical fidelity per lecture (qe-cell-diff's "fidelity": the values
 * compared with a stated tolerance, max abs and rel difference, dtype and
 * shape changes, float64 -> float32 as precision loss) and the recompile
 * audit per cell ("jit_base"/"jit_head": a function compiled again within
 * one cell), each a line of Markdown, correctness first.
 *
 * Invariants:
 *  - reads the set only; names of variables, functions, dtypes and shapes
 *    are untrusted and reach the Markdown as code spans (qe_gfm_code).
 *  - writes nothing when the records carry no such facts (older records,
 *    runs without --compare, kernels without numba or JAX).
 */
#ifndef QE_FIDPROSE_H
#define QE_FIDPROSE_H

#include "qe_diffread.h"
#include "qe_mem.h"

/* One line per lecture whose values were compared; how many differ or lost precision. */
long qe_fidprose_fidelity(struct qe_buf *b, const struct qe_diffset *d);

/* One line naming the cells whose function compiled more than once in a run; how many cells. */
long qe_fidprose_recompiles(struct qe_buf *b, const struct qe_diffset *d);

#endif /* QE_FIDPROSE_H */
