/*
 * qe_extract.h - qe-cache-extract's work on its operands: a jupyter-cache
 * (folder, database file, or inside an artifact archive) or notebook files
 * in, the records of each notebook out, in a stable order (by document,
 * newest first; files in the order named or walked).
 *
 * Invariants:
 *  - a struct qe_extract holds the options and what is loaded for them
 *    (the baseline's keys, the hook log); its owner sets it up with
 *    qe_extract_init(), changes the options before the first operand and
 *    releases it with qe_extract_free(). Nothing here keeps other state.
 *  - the records of one notebook reach x->emit together, never split; emit
 *    writes the buffer and resets it (the tool's choice of output). At most
 *    one notebook's text and tree are held at a time for a folder (one per
 *    worker with -j N); an archive keeps each notebook's records until its
 *    turn, and its members are read one at a time.
 *  - with x->jobs > 1, qe_extract_operands() reads notebooks in worker
 *    processes (qe_par.h), and stdout, stderr and x->problems come out as
 *    with 1: a worker gets a notebook whose every cross-notebook decision
 *    (selection, order, origin from --since/--baseline, the archive's
 *    member matching, the document's name) is already taken, and the hook
 *    log's marks come back to be applied in operand order; a failed
 *    record, which looks for runs no notebook matched, is written in the
 *    parent at its turn. Batches are cut by the notebooks' bytes (stat,
 *    or an archive member's declared size); in a zip or plain tar a worker
 *    reads its members itself, by their index, and the parent only walks
 *    the headers.
 *  - everything that goes wrong is reported ("prog: where: what") and
 *    counted in x->problems, and the work goes on with the next notebook
 *    or operand; the tool turns a count above 0 into exit status 2.
 *  - every line handed to emit is UTF-8: a file name or stored text that is
 *    not gets U+FFFD for each bad byte, and a message (a problem).
 *  - a cache's notebooks come from inside it: executed/<key> resolving to a
 *    path outside the cache folder is reported and not read.
 *  - notebook files are named from their paths as given (qe_operand_abspath;
 *    the resolved path only when that alone is below --root); a file that
 *    cannot be read takes no part in the common folder of the others.
 */
#ifndef QE_EXTRACT_H
#define QE_EXTRACT_H

#include <stddef.h>
#include <stdint.h>

#include "qe_archive.h"
#include "qe_hooklog.h"
#include "qe_jcache.h"
#include "qe_operand.h"
#include "qe_par.h"
#include "qe_time.h"

struct qe_buf;

struct qe_extract {
	int all;			/* -a: every cache record, not only the current */
	const char *root;		/* -r: documents relative to it (no trailing '/') */
	struct qe_time since;		/* -s: records created after it were executed */
	int have_since;
	struct qe_keyset baseline;	/* -b: hashkeys of the baseline's cache */
	int have_baseline;
	int64_t stale_margin_us;	/* --stale-margin */
	struct qe_archive_limits lim;	/* --max-notebook, --max-archive-* */
	struct qe_hooklog hooks;	/* -t: the capture hook's log */
	int jobs;			/* -j: notebooks read at once (qe_par.h); 1 */
	struct qe_par *par;		/* the workers, while qe_extract_operands runs */
	const char *failed;		/* --failed: notebook files ran and failed so */
	double execution_seconds;	/* --execution-seconds: their run's wall time; NAN */
	const char *build_dir;		/* --jupyter-execute: the build's notebooks, or NULL */
	const char *pages;		/* --pages: a mystmd project's pages, or NULL (qe_mystmd.h) */
	int names_said;			/* the note that cells are named from code alone was given */
	void (*emit)(struct qe_buf *records);
	int problems;			/* out: things reported */
};

/* The defaults: 5 s margin, 256 MiB notebooks, 200,000 members, 16 GiB. */
void qe_extract_init(struct qe_extract *x, void (*emit)(struct qe_buf *));

/*
 * -b: load the hashkeys of the cache at `path` (any cache operand) as the
 * baseline. Returns -1 after a message when it is not a readable cache.
 */
int qe_extract_baseline(struct qe_extract *x, const char *path);

/*
 * The records of every operand in order. Notebook files named on their
 * own share one common directory and are read together, where the first
 * of them is named.
 */
void qe_extract_operands(struct qe_extract *x, const struct qe_paths *ops);

/*
 * A .jupyter_cache folder `dir` with its database `db`. Its cells are
 * named with the markdown of the build's notebooks: x->build_dir, else
 * DIR/../jupyter_execute where it is a folder (MyST-NB's _build); a
 * document's is the .ipynb named by the longest tail of its URI, without
 * the extension, found there. Without that folder, one note for the run.
 */
void qe_extract_cache_dir(struct qe_extract *x, const char *dir, const char *db);

/* An artifact archive. */
void qe_extract_archive(struct qe_extract *x, const char *path);

/*
 * Read the cache of an archive into c (zero-initialised; qe_jcache_free()
 * it): the database, and unless keys_only each selected notebook's records
 * into its entry's `out`. Returns -1 after a message when the archive holds
 * no readable cache. When the reading stopped at a member too large to pass
 * (qe_archive.h), the notebooks before it are read and c->partial is set.
 */
int qe_extract_archive_cache(struct qe_extract *x, const char *path, struct qe_jcache *c,
    int keys_only);

/* Notebook files, named relative to their common directory (or the root). */
void qe_extract_ipynb(struct qe_extract *x, const struct qe_paths *files);

/*
 * --stored: where the newest cache record of `document` (named as the
 * records name it, with x->root) keeps its executed notebook, onto out:
 * the notebook's path, then the source path it was executed from (the
 * record's URI), each ended by a NUL byte. `path` is a cache folder (an
 * archive holds no file to name). Returns -1 after a message.
 */
int qe_extract_stored(struct qe_extract *x, const char *path, const char *document,
    struct qe_buf *out);

/* Free the baseline's keys and the hook log (not x->root, the caller's). */
void qe_extract_free(struct qe_extract *x);

#endif /* QE_EXTRACT_H */
