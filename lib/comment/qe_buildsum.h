/*
 * qe_buildsum.h - the job summary of one build, without a comparison: the
 * totals, the slowest lectures and cells and the failed lectures, read from
 * qe-cache-extract / qe-stamp records (kind "notebook" and "cell").
 *
 * Invariants and ownership:
 *  - a struct qe_buildsum is owned by the caller: zero-initialise it, fill
 *    it with qe_buildsum_record() (an NDJSON callback: pass it as ctx),
 *    release it with qe_buildsum_free(). It keeps the totals, the
 *    QE_BUILDSUM_TOP slowest of each kind and the failed lectures, never
 *    every record, so memory does not grow with the number of cells.
 *  - records marked "current": false (superseded in the cache) and records
 *    of other kinds are skipped; a value that is not of its type (a
 *    duration that is not a finite number, a status that is not a string)
 *    reads as absent. Nothing is rejected.
 *  - ties among the slowest keep reading order.
 *  - every string from the build goes through qe_gfm_text(); the document
 *    never exceeds the limit it is given (at least QE_COMMENT_MIN_LIMIT):
 *    failed lectures beyond it are counted, not listed.
 */
#ifndef QE_BUILDSUM_H
#define QE_BUILDSUM_H

#include <stddef.h>

#include <cjson/cJSON.h>

#define QE_BUILDSUM_TOP	10

struct qe_buf;

struct qe_buildsum_nb {
	char *doc, *status, *error;	/* NULL when absent */
	double exec_s, cells_s;		/* NaN when absent */
	double key;			/* exec_s, 0 when absent: the sort key */
};

struct qe_buildsum_cell {
	char *doc, *name;		/* the record's name, else label, else first line, else "" */
	long index;			/* -1 when absent or not a whole number */
	double dur_s;
};

struct qe_buildsum {
	long nnbs, nfailed, ncells, ntimed;
	long n_origin, n_executed, n_inherited;	/* lectures with an origin, and of which */
	double timed_s, exec_s;		/* sums of cell durations, of execution_seconds */
	struct qe_buildsum_nb top_nbs[QE_BUILDSUM_TOP];
	int ntop_nbs;
	struct qe_buildsum_cell top_cells[QE_BUILDSUM_TOP];
	int ntop_cells;
	struct qe_buildsum_nb *failed;	/* in reading order */
	size_t capfailed;
};

/* The qe_record_fn of qe_ndjson_each(): count `rec` into the summary `sum`. */
int qe_buildsum_record(cJSON *rec, const char *file, long line, void *sum);

/* Free what the summary holds and zero it. */
void qe_buildsum_free(struct qe_buildsum *s);

/*
 * Append the summary as GitHub-flavoured Markdown: "## Lecture execution
 * times (this build)", the totals line, then "### Slowest notebooks",
 * "### Slowest cells" and "### Failed notebooks" when they have rows.
 * Seconds are rounded to 0.01 (lectures, totals) or 0.001 (cells) and
 * written in their shortest form ("2", "0.59"); an absent value is an em
 * dash. `limit` bounds the whole of out (start from an empty buffer).
 */
void qe_buildsum_render(struct qe_buf *out, const struct qe_buildsum *s, size_t limit);

#endif /* QE_BUILDSUM_H */
