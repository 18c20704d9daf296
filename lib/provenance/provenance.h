/*
 * provenance/provenance.h - the public header of qe-stamp's folder: the
 * provenance descriptor (commit, run, runner, hardware, packages,
 * comparability fingerprint) and its splice onto every record.
 *
 * Invariants:
 *  - cmd/qe-stamp.c includes this header and lib/'s foundation only; the
 *    folder's other headers (qe_runner.h, qe_packages.h, ...) are its
 *    modules' own, for this folder's files and their unit tests.
 *  - nothing here includes another tool folder's header.
 *  - the descriptor is built once per run (qe_provenance.h) and serialised
 *    once; qe_splice.h appends those bytes to each record a line at a time,
 *    copying the record's own bytes as they were read.
 */
#ifndef QE_PROVENANCE_PROVENANCE_H
#define QE_PROVENANCE_PROVENANCE_H

#include "qe_provenance.h"
#include "qe_splice.h"

#endif /* QE_PROVENANCE_PROVENANCE_H */
