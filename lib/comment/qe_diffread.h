/*
 * qe_diffread.h - reading qe-cell-diff's output back: its cell-diff and
 * notebook-diff records into arrays of plain structs, and the facts of its
 * diff-summary record.
 *
 * Invariants and ownership:
 *  - a struct qe_diffset is owned by the caller: zero-initialise it, fill it
 *    with qe_diffread_record() (an NDJSON callback: pass the set as ctx),
 *    release it with qe_diffset_free(). Every string in it is its own copy.
 *  - a record is taken whole or not at all: one without a document or a
 *    known verdict is reported ("file:line: ...") and rejected (-1); records
 *    of other kinds are skipped (0), so extraction records may be mixed in.
 *  - numbers that are absent, not numbers or not finite are NaN; indices and
 *    counts that are absent or not whole numbers in [0, 1e12] are -1.
 *  - statuses are indices of qe_vocab_cell_statuses (cells) or qe_vocab_nb_statuses
 *    (notebooks), or QE_DIFF_ST_NONE / QE_DIFF_ST_OTHER; verdicts are
 *    indices of qe_vocab_verdicts; flags are QE_FLAG() bits of qe_vocab_flags (unknown
 *    flags are ignored).
 *  - the last diff-summary record read wins; none leaves `summary` NULL, and
 *    every qe_diffsum_* answers "unknown" then.
 */
#ifndef QE_DIFFREAD_H
#define QE_DIFFREAD_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "qe_record.h"

#define QE_DIFF_ST_NONE		(-1)	/* no status on that side */
#define QE_DIFF_ST_OTHER	(-2)	/* a status word outside the vocabulary */

/* A replicate test object: has 0 when the record's test is null or absent. */
struct qe_dtest {
	int has;
	double p, lo, hi;	/* p, and the spread (least, greatest paired ratio); NaN when absent */
	long n_b, n_h;
};

/* A "warm" object (qe-replicate --warm): has 0 when absent. */
struct qe_dwarm {
	int has, verdict;	/* verdict: QE_V_*, -1 when unknown */
	double b, h, ratio;
	struct qe_dtest test;
	char *error;		/* the warm pass raised: its exception line, or NULL */
};

/* A cell-diff record. */
struct qe_dcell {
	char *doc, *label, *first_line, *reason;	/* doc non-NULL; others may be NULL */
	char *name;		/* the display name (qe-cache-extract's), or NULL in older records */
	long bidx, hidx;	/* cell index in base / head, -1 for null */
	int verdict;
	unsigned flags;
	int st_b, st_h;
	double base_s, head_s, ratio, delta, adj_ratio, share_b, share_h;
	int has_test;		/* a replicate test object was present */
	double p;
	long n_b, n_h;		/* replicate runs */
	double mem_b, mem_h;	/* peak_growth_{base,head}_bytes, NAN when absent or null */
	double warm_ratio;	/* the "warm" object's head/base ratio, NAN when absent */
	double lo, hi;		/* the test's spread, NAN when none */
	struct qe_dwarm warm;
	double rss_b, rss_h, rss_step;	/* rss_{base,head}_bytes, rss_growth_delta_bytes, or NAN */
	double runner_mem;	/* the summary's thresholds.runner_memory_bytes (whenever it is read), or NAN */
	cJSON *jit_b, *jit_h;	/* "jit_base", "jit_head" when objects (owned), or NULL */
	cJSON *beside;		/* "concurrent_head" when not empty (mystmd: the documents that ran
				 * beside its document in head; owned), or NULL */
	long seq;		/* order of reading, among cells and notebooks */
};

/* A notebook-diff record, and what the model adds from its cells. */
struct qe_dnb {
	char *doc, *reason;
	char *error;		/* head's exception line, else base's, or NULL */
	long timeout_seq;	/* head's timeout_cell seq, -1 for none */
	int verdict;
	unsigned flags;
	int st_b, st_h;
	int whole;		/* measure is execution_seconds */
	int executed;		/* re-executed in head: not cached, inherited or removed */
	double base_s, head_s, ratio, delta;
	double adj_ratio;	/* the measure's ratio after removing the runner factor, or NaN */
	double base_exec, head_exec;	/* {base,head}_execution_seconds */
	cJSON *kernel_changes;	/* its "kernel_changes" array when not empty (owned), or NULL */
	cJSON *kernel_imports;	/* its "kernel_imports" object (owned), or NULL */
	cJSON *fidelity;	/* its "fidelity" object (owned), or NULL */
	cJSON *beside;		/* "concurrent_head" when not empty (owned), or NULL */
	struct qe_dtest test;	/* the lecture total's replicate test */
	struct qe_dwarm warm;	/* the lecture's warm verdict */
	long seq;
	/* filled by qe_review_build() from the sorted cells */
	long c0, nc;		/* first cell in the cell array, and how many */
	long counts[QE_NVERDICTS];	/* its cells' verdicts, but those ignored by label */
	long ignored;			/* its cells ignored by label */
};

struct qe_diffset {
	struct qe_dcell *cells;
	size_t ncells, capcells;
	struct qe_dnb *nbs;
	size_t nnbs, capnbs;
	cJSON *summary;		/* the diff-summary record, or NULL */
	long seq;
};

/*
 * The qe_record_fn of qe_ndjson_each(): add `rec` (read from file:line) to
 * the qe_diffset `set`. Returns 0, or -1 after saying why it was rejected.
 */
int qe_diffread_record(cJSON *rec, const char *file, long line, void *set);

/* Free everything the set holds and zero it (ready to be filled again). */
void qe_diffset_free(struct qe_diffset *d);

/* A whole number member of o in [0, 1e12], or -1. */
long qe_diffread_count(const cJSON *o, const char *key);

/* The summary's number `key` (NaN), count (-1), boolean (0 unless true). */
double qe_diffsum_num(const struct qe_diffset *d, const char *key);
long qe_diffsum_count(const struct qe_diffset *d, const char *key);
int qe_diffsum_bool(const struct qe_diffset *d, const char *key);
/* A number of the summary's "thresholds" object, or NaN. */
double qe_diffsum_threshold(const struct qe_diffset *d, const char *key);
/* The summary's "machines": "same", "different"... or "unknown". */
const char *qe_diffsum_machines(const struct qe_diffset *d);
/* The summary's "speed" (QE_SP_*, qe_vocab_speeds), or -1 when absent or not one. */
int qe_diffsum_speed(const struct qe_diffset *d);
/* 1 when the summary says base and head ran on different machines. */
int qe_diffsum_machines_differ(const struct qe_diffset *d);

#endif /* QE_DIFFREAD_H */
