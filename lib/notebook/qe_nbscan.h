/*
 * qe_nbscan.h - a notebook read: the one reader of a notebook's bytes, a
 * validating pass of the pull reader (qe_jscan) that builds a cJSON tree
 * of the rest only (sources, metadata, small fields), so a notebook of
 * images is never copied into a tree, and that takes each code cell's
 * output digest as it reads (the one implementation of that digest).
 * Each output is walked once: where its text, traceback and MIME bundle
 * values are, and each text value (a string or a list of strings: a
 * base64 image, lines of text) as its pieces, runs of the text and
 * decoded escapes; then, its "output_type" known (nbformat writes it after
 * "data"), its digest is taken from those pieces (a base64 image straight
 * from the text in one update), a bundle whose keys came in byte order
 * without a sort. An output of more than 65,536 pieces has its further
 * values walked again instead (trusted, one scan): the pieces kept stay
 * bounded. SHA-256 is fetched once per notebook, one digest context reused.
 *
 * The output digest is of what outputs show, never how they were
 * serialised: per output its type, then a stream's name and text, an
 * error's name, value and traceback, or else each MIME bundle value in
 * key order (a repeated key: its first value), each field ending in a NUL
 * byte and each output in 0x1E; consecutive streams of one name are one
 * output, their text joined (a kernel may send one print in two
 * messages). Text is the joined string or list of
 * strings, normalised (qe_nb_normalise_text()) when a person reads it
 * (streams, tracebacks, text/ types), never an image; any other value is
 * printed compact (qe_json_print()). execution_count and metadata are
 * left out, so re-running a cell with the same result gives the same
 * digest.
 *
 * Invariants:
 *  - a notebook is accepted whole or not at all, and a refusal says why in
 *    one "prog: where: ..." message: a NUL byte, an empty file, text that
 *    is not UTF-8, a control character in a string (all "not a notebook:
 *    ... at byte N"), invalid JSON, nesting deeper than 1000 levels or
 *    trailing data ("where:LINE: ... at column N", as qe_jscan's refusal
 *    places it), a number beyond a double, not an object, nbformat 3,
 *    another nbformat, "cells" or "nbformat" missing or of the wrong type.
 *    Whatever qe_jscan refuses is refused (strict JSON: no leading zero,
 *    no blank but SP, TAB, LF, CR); nothing reads it another way.
 *  - tolerated: a UTF-8 byte order mark before the text (passed, never
 *    read as text; columns still count its bytes), and the escape \u0000
 *    in a string, which a C string would cut: read as U+FFFD (the text
 *    rewritten in place, then read again), said and counted in *problems.
 *  - repeated keys read as cJSON reads them: the first "cells", "outputs",
 *    "output_type", bundle key... counts.
 *  - on success the tree and the digests are the caller's (qe_nbscan_doc_free);
 *    on failure nothing is left.
 */
#ifndef QE_NBSCAN_H
#define QE_NBSCAN_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "qe_sha.h"

/*
 * A notebook as qe_nbscan_read() gives it. odig[i] is the output digest of
 * element i of "cells" (taken while reading; the empty digest for an
 * element without outputs). Each output of the tree is reduced to its
 * "output_type", "name", "ename" and "evalue" (an output that is not an
 * object to null): what the records read beyond the digest.
 */
struct qe_nb_doc {
	cJSON *doc;			/* an object with "cells" a list, nbformat 4 */
	char (*odig)[QE_SHA256_HEX];	/* owned */
	size_t ncells;
};

/*
 * Read a notebook's bytes[0..len) (need not end in a NUL). `bytes` is
 * handed over: release(bytes) is called as soon as it is read (it may
 * have been written to: \u0000 rewritten), so the text and its tree are
 * never both held longer than needed. 0 with d filled (qe_nbscan_doc_free), or
 * -1 after the message naming `where`.
 */
int qe_nbscan_read(const char *where, char *bytes, size_t len, void (*release)(void *), int *problems,
    struct qe_nb_doc *d);
void qe_nbscan_doc_free(struct qe_nb_doc *d);

#endif /* QE_NBSCAN_H */
