/*
 * qe_triage.h - is a lecture worth converting at all (qe-sweep --triage)?
 * One version's as-used runs (qe-replicate --triage: K fresh runs, the
 * hook's compile audit) and its profile run (cProfile per cell) into where
 * the as-used time goes, by kind, per cell and for the lecture; the share a
 * rewrite could address, its Amdahl ceiling, a decision with the rule that
 * bound it in one line, and the single input that would flip it.
 *
 * The kinds (qe_vocab_time_kinds), from the hook and cProfile's own times:
 *   compile   the hook's JIT compile events (jit_compile_s: numba, JAX);
 *             compile machinery in the profile (numba's dispatcher and
 *             passes, a function named *compile* in numba, llvmlite, JAX or
 *             jaxlib: not importlib's _compile_bytecode, not re.compile) is
 *             that time, not more
 *   library   time inside compiled extension functions called from Python
 *             (cProfile's built-in entries: NumPy, SciPy's QUADPACK, ...)
 *   python    the lecture's own functions and top-level code (file "cell"):
 *             the loops a rewrite targets
 *   jitted    functions the hook saw compiled (jit_functions), when cProfile
 *             sees them, and qe-replicate's profile run's "<numba jitted>"
 *             frames (a call from Python into numba's compiled code, made
 *             visible; its caller "<qe-replicate>" is the runner's, no kind);
 *             elsewhere a jitted call is invisible to cProfile and its time
 *             is its caller's
 *   other     the rest: imports, plotting, I/O, library Python code, waits,
 *             what the profile record does not list, cells not profiled
 * A cell's as-used time (the median of its runs) less its compile time is
 * shared among the other kinds in proportion to their own time in the
 * profile.
 *
 * The rules, stated once here and in qe-sweep(1), each overridable:
 *   1. an as-used total under the floor (1 s): no-conversion;
 *   2. the Amdahl ceiling of the addressable share (infinitely fast, the
 *      rest unchanged) under the ceiling rule (x1.3): no-conversion;
 *   3. addressable seconds under the floor: no-conversion;
 *   4. else worth a candidate, naming the function with most addressable
 *      time.
 * Invariants: the struct owns what it holds; nothing is printed but a
 * refused record's "prog: file:line: reason".
 */
#ifndef QE_TRIAGE_H
#define QE_TRIAGE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "qe_record.h"

#define QE_TRIAGE_FLOOR_S 1.0   /* QuantEcon's NO_CONVERSION_BASELINE_S */
#define QE_TRIAGE_CEILING 1.3   /* their efficiency band of "net positive" */
#define QE_TRIAGE_ADDRESSABLE (1u << QE_TK_PYTHON)

struct qe_triage_rules {
	double floor_s;        /* rules 1 and 3 */
	double ceiling;        /* rule 2 */
	unsigned addressable;  /* a bit per qe_time_kind */
};

/* One lecture's decomposition, the rules' input. */
struct qe_triage_split {
	double s[QE_NTIME_KINDS];  /* seconds per kind, the cells summed */
	double total_s;            /* the as-used total: the median of the runs */
	double run_min, run_max;   /* its runs' spread */
	int runs;
	const char *function;      /* most addressable time, or NULL */
};

struct qe_triage_verdict {
	int decision;      /* qe_triage_decision */
	int binding;       /* qe_triage_binding */
	double share;      /* addressable / all kinds */
	double seconds;    /* the share of the as-used total */
	double ceiling;    /* 1 / (1 - share); INFINITY at 1 */
};

struct qe_triage {
	struct qe_triage_rules rules;
	cJSON *docs;  /* "document\tversion" -> what was read of it */
};

void qe_triage_init(struct qe_triage *t, const struct qe_triage_rules *r);

/* A qe_record_fn: take a cell, notebook or profile record; others pass. */
int qe_triage_take(cJSON *rec, const char *file, long line, void *ctx);

/* How many lectures; the triage record of the i-th (the caller owns it). */
size_t qe_triage_count(const struct qe_triage *t);
cJSON *qe_triage_record(const struct qe_triage *t, size_t i);

void qe_triage_free(struct qe_triage *t);

/* The kind of a profiled function (file NULL: a builtin); -1 for the profiler's own. */
int qe_triage_kind(const char *function, const char *file, const cJSON *jitnames);

/* The rules over a split. */
void qe_triage_decide(const struct qe_triage_rules *r, const struct qe_triage_split *sp,
    struct qe_triage_verdict *v);

/* The decision line ("no-conversion: ...") and the sensitivity line, appended to b. */
struct qe_buf;
void qe_triage_line(struct qe_buf *b, const struct qe_triage_rules *r, const struct qe_triage_split *sp,
    const struct qe_triage_verdict *v);
void qe_triage_sensitivity(struct qe_buf *b, const struct qe_triage_rules *r,
    const struct qe_triage_split *sp, const struct qe_triage_verdict *v);

/* "python,jitted" into a mask of kinds: 0, or -1 for an unknown word. */
int qe_triage_kinds(const char *list, unsigned *mask);

#endif /* QE_TRIAGE_H */
