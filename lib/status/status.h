/*
 * status/status.h - the public header of qe-exec-status's folder: a build's
 * records in, one execution status document (schema/execution-status.json)
 * or the lookup of measured times the Sphinx extension reads
 * (schema/exec-times.json) out, its durations printed in the {exec-time}
 * roles' forms (qe_extime.h: the one formatter of them).
 *
 * Invariants:
 *  - cmd/qe-exec-status.c includes this header and lib/'s foundation only.
 *  - nothing here includes another tool folder's header: records are read
 *    with the foundation's NDJSON reader, as every tool reads them.
 *  - which record of a document is the newest is decided here once
 *    (qe_status_newer); Python reads the answer, never the records.
 */
#ifndef QE_STATUS_STATUS_H
#define QE_STATUS_STATUS_H

#include "qe_extime.h"
#include "qe_status.h"

#endif /* QE_STATUS_STATUS_H */
