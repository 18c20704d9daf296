/*
 * qe_hooklog.h - the capture hook's log (hook/qe_telemetry_startup.py):
 * which kernel run executed which cells, with the in-kernel clock, and the
 * join of a notebook to the one run that executed it.
 *
 * Invariants:
 *  - a struct qe_hooklog is owned by its caller: zero-initialise it, fill
 *    it with qe_hooklog_load() (once or more), release it with
 *    qe_hooklog_free(). It owns its runs, their ids, cwds and cells.
 *  - a run's cells are sorted by `seq` after loading; a line that is not a
 *    well-formed hook record is reported ("prog: file:line: ...") and
 *    skipped, the good ones still join.
 *  - a run is matched on the digests of the cells a kernel is sent, in
 *    order: never on names or times alone. A run matched is marked `used`.
 *  - a run marked `old` (its kernel started before the build began,
 *    qe_hooklog_drop_before) is another build's: never matched, never
 *    reported.
 */
#ifndef QE_HOOKLOG_H
#define QE_HOOKLOG_H

#include <stddef.h>
#include <stdint.h>

#include "qe_sha.h"
#include "qe_time.h"
#include "qe_timing.h"

/* One cell a kernel ran: its start record, and its end record if any. */
struct qe_hook_cell {
	long seq;			/* 1, 2, ... in the order sent */
	char digest[QE_SHA256_HEX];	/* SHA-256 of the normalised source */
	struct qe_time start, end;
	int64_t us;			/* duration_s, in microseconds */
	int64_t rss, peak_growth;	/* rss_bytes, peak_growth_bytes; -1 when absent or null */
	int64_t jit_n;			/* jit_compiles (the recompile audit); -1 when absent */
	double jit_s;			/* jit_compile_s */
	struct cJSON *jit_fn;		/* jit_functions (owned), or NULL */
	int has_start, has_end, success;
};

struct qe_hook_run {
	char *id, *cwd;			/* cwd may be NULL */
	char *document;			/* JPY_SESSION_NAME as the hook wrote it (a Jupyter server's kernel), or NULL */
	struct cJSON *env;		/* the last "env" line's object (what the kernel ran with), or NULL */
	struct qe_hook_cell *c;
	size_t n;
	struct qe_time kernel_start;	/* the first line's kernel_start */
	int has_kernel_start;
	int used;			/* matched to a notebook */
	int old;			/* its kernel started before the build (qe_hooklog_drop_before) */
};

struct qe_hooklog {
	const char *path;		/* the log, for messages (borrowed) */
	struct qe_hook_run *runs;
	size_t n;
	int until_mark;			/* set before loading: stop at the first "mark" line */
	int marked;			/* out: a mark was read (the lines after it were not) */
};

/*
 * Read the log at `path` (NDJSON, maybe gzip'd) into `log`. A "mark" line
 * (qe-replicate's, where a warm pass starts) is no cell's: with
 * log->until_mark the lines after it are left out, else it is skipped. Returns
 * QE_EXIT_OK, or QE_EXIT_TROUBLE when lines were rejected (reported).
 */
int qe_hooklog_load(struct qe_hooklog *log, const char *path);

/*
 * The notebook a run is looked for: the digests of the cells sent, in
 * order (borrowed), its path or cache URI (for the kernel's working
 * directory, which breaks ties between identical notebooks), and for a
 * cached notebook its execution window.
 */
struct qe_hook_want {
	const char *const *digest;	/* n digests of QE_SHA256_HEX */
	size_t n;
	const char *uri;		/* cache: the notebook's URI, or NULL */
	const char *path;		/* a notebook file, or NULL */
	const struct qe_window *window;	/* have_created 0 for a file */
	/*
	 * A document a Jupyter server ran (mystmd): only runs whose `document`
	 * names it count, as given (relative to the project) or absolute below
	 * `root` (jupyter_server 2); of several, the newest kernel, since a
	 * document that fails re-executes in every build. NULL: not asked.
	 */
	const char *document;
	const char *root;
};

/*
 * The one run that executed the notebook: its digests equal the wanted
 * ones in order (a prefix ending in a failed cell, for a notebook file that
 * stopped at an error), inside the execution window. Returns NULL when none
 * or several match; *ambiguous is 1 for several.
 */
struct qe_hook_run *qe_hooklog_match(struct qe_hooklog *log, const struct qe_hook_want *w,
    int *ambiguous);

/*
 * The cell a failed notebook's kernel started and never finished (it ran
 * past the execution timeout and its kernel was killed): the last cell of
 * the one run not yet matched, whose working directory is the folder of
 * `uri`, that holds a start without an end. NULL when there is none, or
 * several (*ambiguous 1); the run found is marked used and given in *run.
 * A notebook stopped by an error has no such cell: the error ended it.
 */
const struct qe_hook_cell *qe_hooklog_unfinished(struct qe_hooklog *log, const char *uri,
    const struct qe_hook_run **run, int *ambiguous);

/*
 * Report each run that ran to its end without error and matched no
 * notebook ("prog: LOG: run 'ID' (N cells, cwd 'DIR') matches no notebook").
 * These are warnings, not trouble.
 */
void qe_hooklog_report_unused(const struct qe_hooklog *log);

/*
 * Mark `old` every run whose kernel started before `since` (the build's
 * start): a log kept across builds holds earlier builds' runs, which are
 * neither this build's measurements nor worth a report. A run without a
 * kernel_start is dated by its first cell's start. Returns how many.
 */
size_t qe_hooklog_drop_before(struct qe_hooklog *log, const struct qe_time *since);

/*
 * The documents whose runs were executing while `run` was (their first
 * cell's start to their last cell's end overlap its own), each named as
 * qe_hooklog_docpath() names it with the last extension dropped, sorted,
 * once each, appended to `names` (a cJSON array). Runs without a document
 * and runs marked old take no part.
 */
void qe_hooklog_beside(const struct qe_hooklog *log, const struct qe_hook_run *run, const char *root,
    struct cJSON *names);

/*
 * A run's document relative to the project folder `root`: as given when
 * relative, the part below root when absolute below it; NULL otherwise
 * (a pointer into doc).
 */
const char *qe_hooklog_docpath(const char *doc, const char *root);

/* Free the runs and their cells; log is left empty. */
void qe_hooklog_free(struct qe_hooklog *log);

#endif /* QE_HOOKLOG_H */
