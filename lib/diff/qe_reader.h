/*
 * qe_reader.h - reading qe-cache-extract records (notebook and cell) into
 * per-document sides, BASE and HEAD, for qe-cell-diff. Both sides are held
 * as small per-cell structs keyed by document, never as whole records.
 *
 * Invariants:
 *  - a struct qe_reader is owned by the caller: zero-initialise it, set the
 *    optional expressions, read BASE and HEAD with qe_reader_read(), then
 *    compare; qe_reader_free() releases every document, cell, label and
 *    fingerprint it holds. Everything below it (docs, sides, cells, their
 *    texts and interned fingerprints) lives until then.
 *  - a record is taken whole or not at all: a record rejected before its
 *    document is known leaves nothing behind. Rejections are reported as
 *    "prog: file:line: why" and counted by the NDJSON reader (exit 2).
 *  - the fields read are type-checked (a present field of another type
 *    rejects the record; null is always accepted), and a cell's "status"
 *    must be one of qe_vocab_cell_statuses: an unknown word rejects the record
 *    rather than read as some other status. An unknown "timing_source"
 *    reads as "other" (QE_TS_OTHER), as schema/diff.json documents; any
 *    "origin" but "inherited" reads as executed.
 *  - records with "current": false and kinds other than cell and notebook
 *    are skipped silently.
 *  - cells are stored in arrival order and found through a hash of their
 *    index, so memory follows the records read, never the largest index.
 *  - a record is read into one struct qe_recline (qe_recscan.h), from its
 *    line (qe_reader_line) or from its tree (qe_reader_record, where a jq
 *    expression needs the tree), and checked once, on that struct: the
 *    same values, refusals and words either way. A repeated member reads
 *    as its first occurrence; every occurrence's type is checked.
 *  - labels and first lines share one text store addressed by 32-bit
 *    offsets: beyond 4 GiB of them the program ends ("too much label text
 *    to hold", status 2), the one exit here besides out of memory.
 */
#ifndef QE_READER_H
#define QE_READER_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "qe_fingerprint.h"
#include "qe_mem.h"
#include "qe_recscan.h"

enum { QE_BASE = 0, QE_HEAD = 1 };

/* A side's timing source beyond QE_TS_*: none seen yet, or several. */
enum { QE_SIDE_TS_NONE = -1, QE_SIDE_TS_MIXED = -2 };

struct qe_samples {		/* second and later replicate durations */
	int n, cap;
	double v[];
};

struct qe_cell {
	double dur;		/* first sample, NAN when null */
	struct qe_samples *more;
	struct qe_samples *warm;	/* warm_s of every replicate (qe-replicate --warm), or NULL */
	struct qe_samples *mem;		/* peak_growth_bytes of every replicate, or NULL */
	struct qe_samples *rss;		/* rss_bytes (resident after the cell) of every replicate, or NULL */
	uint32_t warm_error;	/* "warm_error" of the first record whose warm pass raised here, 0 for none */
	struct qe_samples *jitn, *jits;	/* jit_compiles, jit_compile_s of every replicate (the hook's
					 * recompile audit), or NULL when no kernel had a JIT listener */
	uint32_t jit_top;	/* the function compiled most often in the cell (jit_functions), 0 for none */
	int jit_top_n;		/* ... and how often, the most over the replicates */
	uint8_t key[16];	/* alignment key (default: source digest) */
	uint8_t src[16];	/* first 16 bytes of source_sha256 */
	uint64_t out;		/* first 8 bytes of result_sha256, else of output_sha256; 0 when none */
	int32_t index;
	uint32_t label, first_line, name;	/* texts: qe_reader_text(), 0 for none */
	uint32_t error;		/* the cell's "error" text, 0 for none */
	uint8_t present, haskey;
	int8_t status;		/* QE_ST_*, -1 when null */
	int8_t tsrc;		/* QE_TS_*, -1 when null */
	int8_t note;		/* QE_TN_* of "timing_note", -1 when null or unknown */
};

struct qe_side {
	int present;		/* any record seen */
	int nb_records;		/* notebook records (replicates when > 1) */
	int origin;		/* QE_ORIGIN_*, -1 unknown */
	int input_cache;	/* input "cache" */
	int failed;		/* a notebook record said "failed" */
	char *cache_key;	/* the first one */
	char *status;		/* the first notebook status, or "failed" */
	char *error;		/* the first failed notebook record's "error", or NULL */
	long timeout_seq;	/* its "timeout_cell" seq, 0 for none */
	char *timeout_digest;	/* ... and source_sha256, or NULL */
	const char *fp;		/* interned provenance fingerprint, or NULL */
	cJSON *kenv;		/* the first notebook record's kernel_env (owned), or NULL */
	cJSON *values;		/* the first notebook record's "values" (qe-replicate --compare; owned), or NULL */
	int values_vary;	/* a later replicate's values differ (by digest) from the first's */
	double *exec_s, *cells_s;	/* per notebook record, NAN when null */
	double *warm_s;		/* ... and its warm_seconds (qe-replicate --warm) */
	int nwarm;		/* notebook records with a warm_seconds member (null or not) */
	char *warm_error;	/* the first notebook record's "warm_error", or NULL */
	cJSON *concurrent;	/* the first "concurrent" (mystmd: the documents that ran beside it; owned), or NULL */
	int has_concurrent;	/* a notebook record had the member (null or not) */
	int nexec, capexec;
	struct qe_cell *cells;	/* in arrival order; absent ones not present */
	int ncells, capcells;
	int *slot;		/* hash of index -> position in cells + 1 */
	int capslot;
	int tsrc;		/* common QE_TS_* of timed cells, or QE_SIDE_TS_* */
};

struct qe_doc {
	char *name;
	struct qe_side s[2];	/* [QE_BASE], [QE_HEAD] */
};

/* A test over a record: 1 keep, 0 skip, -1 error (reported). */
typedef int (*qe_rec_test_fn)(void *arg, const cJSON *rec, const char *file, long line);
/* A text from a record: 0 with *out (malloc'd) or NULL, -1 error (reported). */
typedef int (*qe_rec_text_fn)(void *arg, const cJSON *rec, const char *file, long line, char **out);

struct qe_reader {
	/* optional, set before reading: NULL means none */
	qe_rec_test_fn filter;		/* which records count */
	void *filter_arg;
	qe_rec_text_fn document;	/* the document name (default .document) */
	void *document_arg;
	qe_rec_text_fn key;		/* the cell alignment key (default its source) */
	void *key_arg;
	int tree;			/* read every line through its tree (tests compare the ways) */
	const char *arms[2];		/* --arms: the "arm" read as base and as head, or NULL (by "version") */

	/* what was read */
	long nrecords[2];	/* records taken per side */
	struct qe_doc **tab;	/* open hash of documents by name */
	struct qe_doc *last;	/* the document of the last record taken, or NULL */
	size_t tabcap, ndocs;
	struct qe_buf text;	/* labels and first lines; offset 0 is none */
	struct qe_fingerprints fps;
	cJSON *packages[2];	/* per side, the first provenance.environment.packages seen */
	double runner_mem[2];	/* per side, the first provenance.hardware.memory_bytes seen; 0 none */
	int engine[2];		/* per side, the first notebook record's engine (QE_EN_*) + 1; 0 none */
	int engine_named;	/* a notebook record named its engine ("engine": mystmd) */
	int side;		/* the side being read */
	struct qe_recscan scan;	/* the pull reader of lines, its last provenance */
};

/*
 * Read one operand ("-": stdin) as side `side` (QE_BASE or QE_HEAD).
 * Returns qe_ndjson_each()'s status: QE_EXIT_TROUBLE if the operand was
 * unreadable or any record was rejected.
 */
int qe_reader_read(struct qe_reader *r, int side, const char *path);

/*
 * The qe_record_fn behind qe_reader_read() when a jq expression is set (or
 * `tree`): ctx is the reader; the tree read into the record struct, then
 * into side r->side.
 */
int qe_reader_record(cJSON *rec, const char *file, long line, void *ctx);

/*
 * The qe_line_fn behind it otherwise: the line read with the pull reader
 * (qe_recscan) into the same struct and sides; a line that is no JSON
 * object is QE_LINE_REFUSED: qe_ndjson says why, in qe_js_check()'s words.
 */
int qe_reader_line(const char *s, size_t n, const char *file, long line, void *ctx);

/*
 * A build in a folder of another name: a document named by absolute path
 * (its records' paths were outside the book's root, e.g. inherited from a
 * cache built elsewhere) read on one side only is joined to the document
 * named relatively that it ends in (qe_align_relname's rule, the longest
 * such name) whose other side was read; when that document has the side
 * already, the absolute one is dropped, so a lecture is listed once.
 * Then, when both sides keep documents named by absolute path (two builds
 * in two folders), they are matched by their relative layout, one folder a
 * side (qe_align_folders: never when two pairings fit as well), and every
 * document below its side's folder is renamed relative to it.
 * Warns (prog: side: ...) what it joined, the two folders, an ambiguous
 * layout and what matched nothing. Returns how many were joined.
 */
long qe_reader_relayout(struct qe_reader *r);

/* Every document read (with a side left), sorted by name; the array is the caller's to free(). */
struct qe_doc **qe_reader_docs(const struct qe_reader *r, size_t *n);

/* A label or first line by its offset, or NULL for 0. */
const char *qe_reader_text(const struct qe_reader *r, uint32_t off);

/* The present cells of a side in index order; the array is the caller's. */
int qe_reader_side_cells(const struct qe_side *sd, const struct qe_cell ***out);

/* A cell's samples (none when c is NULL or has no duration) into a fresh array, or NULL; their count. */
int qe_reader_cell_samples(const struct qe_cell *c, double **out);

/* The median of a cell's samples, NAN when none. */
double qe_reader_cell_median(const struct qe_cell *c);

void qe_reader_free(struct qe_reader *r);

#endif /* QE_READER_H */
