/*
 * notebook/notebook.h - the public header of qe-cache-extract's folder:
 * jupyter-cache databases, CI artifact archives and notebook files in, one
 * notebook record and one cell record per code cell out.
 *
 * Invariants:
 *  - cmd/qe-cache-extract.c includes this header and lib/'s foundation
 *    only; the folder's other headers (qe_jcache.h, qe_notebook.h, ...) are
 *    its modules' own, for this folder's files and their unit tests.
 *  - nothing here includes another tool folder's header: what two tools
 *    share lives in lib/ itself (the foundation).
 *  - struct qe_extract (qe_extract.h) is the whole interface: options in,
 *    records handed to its emit callback in a stable order, problems
 *    counted for the tool's exit status.
 */
#ifndef QE_NOTEBOOK_NOTEBOOK_H
#define QE_NOTEBOOK_NOTEBOOK_H

#include "qe_extract.h"
#include "qe_mystmd.h"
#include "qe_runs.h"

#endif /* QE_NOTEBOOK_NOTEBOOK_H */
