/*
 * qe_hotspot.h - a profile record of qe-replicate (cProfile in a run of its
 * own) into a hotspot record: the cell's functions by self time with their
 * share of the cell, and Amdahl's bound of making the top Python function
 * 10x faster.
 *
 * Invariants:
 *  - the share is of the time cProfile saw in the cell (profile_s), so the
 *    profiler's own cost cancels; the seconds are of the cell as used (the
 *    median of the timed runs of that version and cell, when the stream has
 *    them; else the profiled run's own time, and the record says so).
 *  - coverage is profile_s over the profiled run's own time of the cell:
 *    what cProfile saw (little when the time is in C outside any Python
 *    call it sees, or in the import machinery).
 *  - the builtin exec that runs the cell and the profiler are never a
 *    hotspot; the cell's <module> is, by its own time (its top-level code);
 *    the function to optimise is the lecture's own (file "cell", not
 *    <module>: what a rewrite can change, triage's python kind) with the
 *    most cumulative time. A function holding QE_HOTSPOT_WHOLE of that time
 *    or more is the cell itself (its one top-level call), never the one to
 *    optimise by its cumulative time. Without another, it is the hottest
 *    row by own time (the whole-cell function's own loop, the cell's
 *    top-level code, a library call, the JIT compiler's row), its share its
 *    own time: where the time goes.
 *  - Amdahl's speedup and limit are over the time cProfile saw, both; the
 *    limit is null when what is left outside the function is under
 *    QE_HOTSPOT_REST of it: the profile cannot tell a ceiling beyond that
 *    from its own cost.
 */
#ifndef QE_HOTSPOT_H
#define QE_HOTSPOT_H

#include <cjson/cJSON.h>

/*
 * A hotspot lists functions by their own (self) time, as many as cover
 * QE_HOTSPOT_COVER of the time cProfile saw, at most QE_HOTSPOT_MAX (the
 * functions a profile record carries); the JIT compiler's frames (numba's
 * dispatcher and passes, JAX's compile: qe_triage_kind's "compile") are one
 * row, QE_HOTSPOT_COMPILE, timed by its outermost frame.
 */
#define QE_HOTSPOT_COVER 0.9
#define QE_HOTSPOT_MAX 25
#define QE_HOTSPOT_COMPILE "(JIT compilation)"
#define QE_HOTSPOT_WHOLE 0.95
#define QE_HOTSPOT_REST 0.01

/*
 * The hotspot record of profile record `prof` (the caller owns it); timed
 * maps "document version index" to the seconds of the timed runs. NULL
 * for a profile record without functions or a positive profile_s (the
 * caller says so).
 */
cJSON *qe_hotspot_record(const cJSON *prof, const cJSON *timed);

#endif /* QE_HOTSPOT_H */
