/*
 * qe_runs.h - qe-cache-extract --runs: the records of qe-replicate's run
 * folders. The runner only runs: each run leaves a folder, and every
 * record of it is made here, through the one writer.
 *
 * A run folder holds (qe-replicate(1), RUN FOLDERS):
 *   run            the run line: one "key<TAB>value" line per fact (the
 *                  document, the lecture's notebook file, version, arm and
 *                  its env settings, replicate, order, wall and capture
 *                  seconds, the error of a failed run, the warm pass, the
 *                  sweep point, the cells to profile)
 *   notebook.ipynb the executed notebook (absent for a failed run)
 *   hook.log       the capture hook's log; a "mark" line where the warm
 *                  pass starts (qe_hooklog_load_until)
 *   warm.ipynb     with --warm: the notebook with the copies run again
 *   values.json    --compare: the kernel's summaries of the variables
 *   cells.ndjson   --compare-labelled: a summary per labelled cell
 *   profile/N.tsv  a profile run: cProfile's rows of code cell N
 *
 * Invariants:
 *  - a folder gives all its records or none; a bad run line or a missing
 *    file is reported ("prog: DIR/run:LINE: reason"), counted in
 *    x->problems, and the next folder goes on.
 *  - a folder named as an operand is a run folder when it holds `run`;
 *    --runs DIR reads DIR's run folders in name order.
 */
#ifndef QE_RUNS_H
#define QE_RUNS_H

#include <stddef.h>
#include <stdint.h>

struct qe_buf;

/* What the reading of run folders is given, and what it counts. */
struct qe_runs {
	int64_t stale_margin_us;	/* qe-cache-extract --stale-margin */
	size_t max_notebook;		/* --max-notebook */
	void (*emit)(struct qe_buf *records);	/* a folder's records, all at once */
	int problems;			/* out: things reported */
};

/* The settings of the extraction x (a struct qe_extract, qe_extract.h). */
#define QE_RUNS_OF(x) { (x)->stale_margin_us, (x)->lim.member_bytes, (x)->emit, 0 }

/* 1 when dir is a run folder (it holds a file named "run"). */
int qe_runs_is_run(const char *dir);

/* The records of the run folder `dir`, handed to x->emit. */
void qe_runs_extract_run(struct qe_runs *x, const char *dir);

/* --runs DIR: every run folder below DIR (or DIR itself), in name order. */
void qe_runs_extract(struct qe_runs *x, const char *dir);

/*
 * --labels: the code cells of notebook file nbfile that carry a label
 * (the name its author gave, qe-cache-extract's "label"): each as its
 * ordinal then its display name, each ended by a NUL byte, onto out.
 * Returns -1 after a message when nbfile is not a readable notebook.
 */
int qe_runs_labels(struct qe_runs *x, const char *nbfile, struct qe_buf *out);

#endif /* QE_RUNS_H */
