/*
 * qe_hload.h - reading qe-history's database back for the queries: main's
 * builds in order, and each document's history, one document at a time,
 * with every cell's identity across builds (its key).
 *
 * Invariants:
 *  - builds are main's only, ordered by started_at, then run_number, then
 *    the order they were added; a build's position is its place in that
 *    order (0 = oldest).
 *  - one document is in memory at a time: memory is bounded by the largest
 *    document's history, not by the database.
 *  - cell keys: a cell's key is its predecessor's (the same document's
 *    previous main build that has the document), where the digest
 *    alignment of qe_align pairs them: labels first, then source digests,
 *    then position between matches (two different labels never pair); an
 *    unpaired cell gets "label:NAME", else "sha256:HEX" of its digest, and
 *    "/N" (N = 2, 3...) when that key is already taken in the same build.
 *  - the structs below own their strings; qe_hdoc_free, qe_hbuilds_free.
 */
#ifndef QE_HLOAD_H
#define QE_HLOAD_H

#include <sqlite3.h>

struct qe_hbuild_row {
	sqlite3_int64 id;
	char *build, *commit, *started_at, *runner_class, *fingerprint;
	char *provenance;	/* the JSON text as stored */
	long run_number;	/* run.run_number, else 0 */
};

struct qe_hbuilds {
	struct qe_hbuild_row *b;
	int n;
	int *pos;		/* pos[id] = position, or -1 (not main); id < npos */
	sqlite3_int64 npos;
};

struct qe_hcell {
	int idx;
	const char *label, *first_line;	/* into the build's blob, or NULL */
	const char *name;		/* the display name (into the blob), else label, else first line */
	char *key;
	char sha[65];		/* hex source digest */
	int status;		/* QE_ST_* */
	double dur;		/* NAN: no duration */
};

/* A document in one build. */
struct qe_hdocb {
	int pos;		/* the build's position */
	int ok;			/* the notebook's status is ok */
	double lecture_s;	/* cells_seconds, else execution_seconds; NAN */
	double exec_s;		/* execution_seconds, else cells_seconds; NAN */
	struct qe_hcell *cells;
	int ncells;
	unsigned char *blob;	/* the packed cells (qe_hcells.h), owned */
	char *kenv;		/* the notebook's kernel_env (JSON text), else NULL */
};

struct qe_hdoc {
	sqlite3_int64 id;
	char *name;
	struct qe_hdocb *in;	/* ordered by position */
	int n;
};

/* Main's builds, in order. Returns 0, or -1 after saying why. */
int qe_hbuilds_load(sqlite3 *db, const char *path, struct qe_hbuilds *bs);
void qe_hbuilds_free(struct qe_hbuilds *bs);

/*
 * Call fn once per document (ordered by name) that has a main build, with
 * its history and keys; fn returns 0 to go on. `only` limits it to one
 * document name (NULL: every one). Returns 0, or -1 after saying why (a
 * database error) or when fn returned -1.
 */
typedef int (*qe_hdoc_fn)(const struct qe_hdoc *d, void *ctx);
int qe_hdocs_each(sqlite3 *db, const char *path, const struct qe_hbuilds *bs, const char *only,
    qe_hdoc_fn fn, void *ctx);

/*
 * A cell's history in a document: the builds (indices into d->in, in
 * order) that have it and the cell in each.
 */
struct qe_hkeyed {
	const char *key;	/* the document's string */
	int n;
	int *in;		/* d->in[in[k]] ... */
	const struct qe_hcell **cell;	/* ... has cell[k] */
};

/*
 * Every cell key of d, in order of first appearance, with its history:
 * *out (free with qe_hkeyed_free). Linear in the document's cell rows.
 */
int qe_hdoc_keys(const struct qe_hdoc *d, struct qe_hkeyed **out);
void qe_hkeyed_free(struct qe_hkeyed *k, int n);

/* Do two builds of a document differ in their cells' source digests (an edit, a cell added or removed)? */
int qe_hdocb_cells_differ(const struct qe_hdocb *x, const struct qe_hdocb *y);

/* The cell of d->in[i] with key `key`, or NULL. */
const struct qe_hcell *qe_hdoc_cell(const struct qe_hdocb *in, const char *key);

#endif /* QE_HLOAD_H */
