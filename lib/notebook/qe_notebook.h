/*
 * qe_notebook.h - the rules of a Jupyter notebook (nbformat 4) the records
 * follow: what a code cell's source digest and first line are made of, the
 * text of an output as its digest sees it (the one normaliser, also fed as
 * it comes: struct qe_nb_ns), and each code cell read once. Reading the
 * bytes, and the output digest taken while reading, are qe_nbscan.h's
 * (which depends on this module; this one on nothing of it).
 *
 * Invariants:
 *  - a cell's source is its "source" joined (string or list of strings),
 *    CR LF and lone CR turned into LF, trailing ASCII blanks removed: the
 *    text its source_sha256 is the SHA-256 of. A blank source is "".
 *  - digests are 64 lowercase hex digits. Nothing here exits except on
 *    out-of-memory; nothing decides an exit status.
 *  - the cJSON trees are owned by the caller; struct qe_nb_codes borrows
 *    the cells of the tree it was made from (free it before the tree) and
 *    owns its first lines (qe_nb_codes_free).
 */
#ifndef QE_NOTEBOOK_H
#define QE_NOTEBOOK_H

#include <stddef.h>

#include <cjson/cJSON.h>
#include <openssl/evp.h>

#include "qe_mem.h"
#include "qe_sha.h"

struct qe_buf;

/* first_line is cut to this many characters, then "…" is added. */
#define QE_FIRST_LINE_MAX 80

/*
 * The normalised text of qe_nb_normalise_text() into a digest as it comes,
 * in pieces split anywhere: only a line that spans pieces is copied (or,
 * for qe_nb_ns_run()'s pieces, a line that spans more than a run). The
 * normalised lines wait in `out` and go to the digest some 64 KB at a time
 * (not line by line). Start with { md } and the buffers zero;
 * qe_nb_ns_end() digests the last line and what waits, and frees the buffers.
 */
struct qe_nb_ns {
	EVP_MD_CTX *md;
	struct qe_buf line;	/* the start of a line continued by the next piece */
	struct qe_buf out;	/* normalised lines not yet digested */
	const char *run;	/* or that start, not copied: a piece of qe_nb_ns_run() */
	size_t nrun;
};
void qe_nb_ns_feed(struct qe_nb_ns *ns, const char *s, size_t len);
void qe_nb_ns_end(struct qe_nb_ns *ns);

/*
 * qe_nb_ns_feed() of a piece that holds no '\n' and whose bytes stay as
 * they are until qe_nb_ns_end() (a run of a notebook's own text, between
 * its escapes): a line's start is then kept by reference, and the usual
 * line of a list of strings, a run then the escape "\n", is normalised
 * straight from the text (not copied first, not searched for '\n').
 */
void qe_nb_ns_run(struct qe_nb_ns *ns, const char *s, size_t len);

/* A string and its NUL into a digest (the NUL separates fields). */
void qe_nb_md_str(EVP_MD_CTX *md, const char *s);

/*
 * Join an nbformat multiline string (a string, or a list of strings) into
 * `out` (reset first). absent is "". Returns -1 for anything else (null too:
 * nbformat has no null source) (out is then partial).
 */
int qe_nb_join_text(const cJSON *v, struct qe_buf *out);

/* CR LF and lone CR to LF, then trailing ASCII whitespace off, in place. */
void qe_nb_normalise(struct qe_buf *b);

/*
 * The first non-blank line of src, blanks trimmed, cut to QE_FIRST_LINE_MAX
 * characters (on a UTF-8 boundary) with "…" after a cut; a new string, or
 * NULL when every line is blank.
 */
char *qe_nb_first_line(const struct qe_buf *src);

/*
 * What a cell's code says, for its name: the first line that is neither
 * blank nor a comment ('#'), leading magics skipped but shown after it
 * ("%%time" then "f(x)": "f(x) (%%time)"; "%time f(x)": "f(x) (%time)",
 * as for %timeit, %prun and %memit, whose argument is a statement; a cell
 * that %%file or %%writefile writes to a file says the file: "%%file
 * lake.py" then its text reads "lake.py (%%file)"), cut as
 * qe_nb_first_line() cuts. Comments and magics only: the first line
 * (qe_nb_first_line). A new string, or NULL when every line is blank.
 */
char *qe_nb_says(const struct qe_buf *src);

/* 1 if `tags` is an array holding the string `tag`. */
int qe_nb_has_tag(const cJSON *tags, const char *tag);

/*
 * The text of an output as the digest sees it (qe-cache-extract(1),
 * output_sha256), onto out. Stream text, tracebacks and text MIME
 * data are normalised (never images or other data); what cannot mean a
 * changed result is normalised, line by line: ANSI escapes are removed; execution counts
 * ("In [12]", "In[12]", "Out[12]", so "Cell In[12], line 3" of a
 * traceback) read "[#]"; memory addresses ("0x" and six or more hex
 * digits, not inside a word) read "0x#"; a line starting "CPU times:" or
 * "Wall time:" (%time) keeps only those words; a line holding
 * " per loop (mean " (%timeit) or ending a tqdm bar ("it/s]", "s/it]")
 * reads "(timing)"; %timeit's line "The slowest run took N times longer
 * than the fastest. This could mean that an intermediate result is being
 * cached." (a preempted run on a loaded machine) is left out, '\n' and all.
 */
void qe_nb_normalise_text(const char *s, size_t len, struct qe_buf *out);

/* An error output as "ename: evalue" ("Error" without a name); free() it. */
char *qe_nb_error_text(const cJSON *errout);

/* A cell's label: metadata.name, else metadata.mystnb.figure.name, or NULL. */
const char *qe_nb_label(const cJSON *md);

/* One code cell, read once: what the records and the hook join need. */
struct qe_nb_code {
	const cJSON *cell;		/* borrowed from the document */
	char source_sha256[QE_SHA256_HEX];
	char *first_line;		/* owned; NULL when blank */
	char *says;			/* owned: qe_nb_says(); NULL when blank */
	int bad_source;			/* "source" was neither string nor list: read as "" */
	int blank;			/* the normalised source is empty */
	int skip;			/* tagged skip-execution */
	char output_sha256[QE_SHA256_HEX];	/* its outputs' digest (struct qe_nb_doc's odig) */
	const cJSON *errout;		/* its first error output, borrowed, or NULL */
};

struct qe_nb_codes {
	struct qe_nb_code *v;		/* the code cells in order */
	size_t n;
};

/*
 * Read every code cell of `cells` (an array; other cell types are left
 * out) into c, which the caller zero-initialises. Nothing is printed: a
 * bad source is flagged, for the caller to report where it fits. odig[i]
 * is the output digest of element i of `cells` (struct qe_nb_doc's).
 */
void qe_nb_codes_read(const cJSON *cells, const char (*odig)[QE_SHA256_HEX], struct qe_nb_codes *c);

/* 1 for a code cell a kernel is sent: not blank, not skip-execution. */
int qe_nb_code_is_sent(const struct qe_nb_code *code);

/* Free the first lines and the array; c is left empty. */
void qe_nb_codes_free(struct qe_nb_codes *c);

#endif /* QE_NOTEBOOK_H */
