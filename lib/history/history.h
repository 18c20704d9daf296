/*
 * history/history.h - the public header of qe-history's folder: stamped
 * reports kept as builds in SQLite, the queries over main's builds, and the
 * report page.
 *
 * Invariants:
 *  - cmd/qe-history.c includes this header and lib/'s foundation only; the
 *    folder's other headers are its modules' own, for this folder's files
 *    and their unit tests.
 *  - nothing here includes another tool folder's header.
 *  - exported names carry the folder's prefix qe_h (qe_hadd_, qe_hq_, ...),
 *    or their file's.
 *  - the store (qe_hstore.h) is opened once per run; add (qe_hadd.h) writes
 *    one build in one transaction; the queries (qe_hquery.h) and the
 *    report (qe_hreport.h) only read.
 */
#ifndef QE_HISTORY_HISTORY_H
#define QE_HISTORY_HISTORY_H

#include "qe_hadd.h"
#include "qe_hbuild.h"
#include "qe_hquery.h"
#include "qe_hreport.h"
#include "qe_hstore.h"

#endif /* QE_HISTORY_HISTORY_H */
