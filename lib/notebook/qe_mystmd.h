/*
 * qe_mystmd.h - qe-cache-extract on a mystmd project (`myst build
 * --execute`): its root (the folder of myst.yml) or its _build in, one
 * notebook record per executed document and one cell record per code cell
 * out, through the one record writer (qe_nbrecord.h).
 *
 * What is read (mystmd 1.8; the .ipynb form of its unreleased main too):
 *   myst.yml                 project.toc's `file:` entries: the documents
 *                            and their order
 *   _build/site/content/PAGE.json  each page: `location` (the document),
 *                            frontmatter.kernelspec, the executable nodes
 *                            in tree order (notebook-code blocks not tagged
 *                            skip-execution, inline expressions), each
 *                            block's code as the kernel got it (`#|` lines
 *                            lifted out), tags, label (the block's
 *                            identifier, else its figure's) and outputs
 *   _build/execute/KEY.ipynb, else KEY.json  the cache entry: one slot of
 *                            outputs per executable node; the .ipynb's
 *                            metadata.mystContext gives duration_ms and the
 *                            timestamp
 * KEY is recomputed as mystmd computes it: md5 of the kernelspec's name
 * and JSON.stringify of the nodes' [{kind, content, raisesException}].
 *
 * Invariants:
 *  - a page's record is made of the page as a notebook (its headings as
 *    markdown cells, its code blocks as code cells with the entry's
 *    outputs) read by the one reader, so digests, names and statuses are
 *    the notebook rules. Inline expressions have a slot and no cell, and
 *    no hook line (the kernel gets an empty cell): never timed.
 *  - a page with an entry is ok; without one it failed when a cell not
 *    tagged raises-exception shows an error (mystmd never caches a
 *    failure), else it was not executed: no record, said once for all.
 *  - cells are timed from the hook log's run of that very document (the
 *    hook's `document`, JPY_SESSION_NAME), never by digests alone.
 *  - an entry no page keys to is stale (an edited document's old outputs):
 *    counted and said once, never attributed to a document.
 *  - bad input is reported ("prog: file: reason"), counted in problems,
 *    and the other documents still give their records.
 */
#ifndef QE_MYSTMD_H
#define QE_MYSTMD_H

#include <stddef.h>
#include <stdint.h>

#include "qe_hooklog.h"
#include "qe_time.h"

struct qe_buf;

/* What the reading of a mystmd project is given, and what it counts. */
struct qe_mystmd {
	const struct qe_time *since;	/* -s, or NULL: origin from the entry's time */
	int64_t stale_margin_us;	/* --stale-margin */
	size_t max_bytes;		/* --max-notebook: a page or entry larger is refused */
	struct qe_hooklog *hooks;	/* -t (may hold no runs) */
	void (*emit)(struct qe_buf *records);	/* a document's records, all at once */
	const char *pages;		/* --pages: the pages' folder, or NULL: _build/site/content */
	int problems;			/* out: things reported */
	/* set by qe_mystmd_extract for the pages it reads */
	const char *root;		/* the project folder */
	int not_executed;		/* pages without an entry or an error */
};

/* The settings of the extraction x (a struct qe_extract, qe_extract.h). */
#define QE_MYSTMD_OF(x) { (x)->have_since ? &(x)->since : NULL, (x)->stale_margin_us, \
	(x)->lim.member_bytes, &(x)->hooks, (x)->emit, (x)->pages, 0, NULL, 0 }

/*
 * 1 when `path` is a mystmd project: a folder holding myst.yml, or a
 * _build holding execute/ or site/content/ (its parent is the project).
 * The project folder goes into root (reset first).
 */
int qe_mystmd_is_project(const char *path, struct qe_buf *root);

/*
 * Which builder made a lecture build, and where its records are
 * (qe-cache-extract --builder, for the action): which is "auto",
 * "jupyter-book" or "mystmd"; source the lecture folder, build the build
 * folder, cache the jupyter-cache folder given (NULL or "": build's
 * .jupyter_cache). auto is mystmd when source holds myst.yml and neither
 * _config.yml nor _toc.yml (Jupyter Book 1's), else jupyter-book. For
 * mystmd the project is source when it holds myst.yml, else build's
 * parent, and the build folder is the project's _build (myst writes
 * nowhere else); the records are read from the project. Three lines go
 * into out: builder=, build=, read= (the operand of the extraction).
 * -1 after a message for an unknown which or a path holding a newline.
 */
int qe_mystmd_builder(const char *which, const char *source, const char *build,
    const char *cache, struct qe_buf *out);

/*
 * The records of the project folder `root`, handed to m->emit: its pages
 * read from m->pages when set (pages of the same shape, written by a
 * plugin before mystmd writes its own: mystmd/exec-time.mjs), else from
 * root/_build/site/content. A page without frontmatter.kernelspec (a
 * plugin's page: mystmd hands transforms no frontmatter) takes the
 * kernelspec name of its source document, root/LOCATION: an .ipynb's
 * metadata.kernelspec, a MyST file's front matter `kernelspec: name:`
 * (or `jupyter: kernelspec: name:`).
 */
void qe_mystmd_extract(struct qe_mystmd *m, const char *root);

/*
 * One page: its site content JSON bytes[0..len) (where: for messages) and
 * its cache entry, looked for in execdir (NULL: none). The page's key (32
 * hex digits, or "" without an executable node) goes into key. Its records
 * are appended to out and 0 returned; 1 when it gives none (no executable
 * node; or no entry and no error: not executed, counted); -1 after a
 * message when it is not a page.
 */
int qe_mystmd_page(struct qe_mystmd *m, const char *where, const char *bytes, size_t len,
    const char *execdir, char key[33], struct qe_buf *out);

#endif /* QE_MYSTMD_H */
