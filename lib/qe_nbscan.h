/*
 * qe_nbscan.h - a notebook read with the pull reader (qe_jscan): one
 * validating pass over the bytes that builds a cJSON tree of the rest only
 * (sources, metadata, small fields), so a notebook of images is never
 * copied into a tree. Each output is walked once: where its text,
 * traceback and MIME bundle values are, and each text value (a string or
 * a list of strings: a base64 image, lines of text) as its pieces, runs
 * of the text and decoded escapes; then, its "output_type" known (nbformat
 * writes it after "data"), its digest is taken from those pieces (a base64
 * image straight from the text in one update), a bundle whose keys came in
 * byte order without a sort. An output of more than 65,536 pieces has its
 * further values walked again instead (trusted, one scan): the pieces kept
 * stay bounded.
 * SHA-256 is fetched once per notebook, one digest context reused.
 * qe_nb_read() (qe_notebook.h) calls it first.
 *
 * Invariants:
 *  - it takes only the notebooks qe_nb_parse() takes without a word (valid,
 *    strict JSON: qe_jscan.h; an object with "cells" a list and "nbformat"
 *    the number 4), and gives then the digests qe_nb_output_digest() gives
 *    over cJSON's tree. Anything else (invalid JSON, \u0000, a BOM, a
 *    leading zero, nbformat 3...) returns -1 and nothing is said: the
 *    caller goes cJSON's way, which says what is wrong or reads it.
 *  - the bytes are borrowed and never written; on success the tree and the
 *    digests are the caller's (qe_nb_doc_free), on failure nothing is left.
 */
#ifndef QE_NBSCAN_H
#define QE_NBSCAN_H

#include <stddef.h>

struct qe_nb_doc;

/* Read bytes[0..len) into d: 0, or -1 (d left empty). */
int qe_nbscan(const char *bytes, size_t len, struct qe_nb_doc *d);

#endif /* QE_NBSCAN_H */
