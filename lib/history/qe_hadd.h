/*
 * qe_hadd.h - adding one stamped report to qe-history's database as one
 * build (qe-history add).
 *
 * Invariants:
 *  - one transaction per report: a report that fails (a rejected line, a
 *    refusal, a conflict, a kill) leaves the database exactly as it was.
 *  - idempotent: a build already stored with the same content digest is
 *    "present" and changes nothing; with another digest it is refused,
 *    naming both reports and what differs, unless `replace` (--replace):
 *    then the stored build's rows are deleted and this report's written in
 *    the same transaction ("replaced").
 *  - the content digest is SHA-256 over the report's lines as read (after
 *    gzip decompression; blank lines, a '\r' before the '\n' and trailing
 *    SP and TAB left out), each followed by '\n'.
 *  - a line is read with qe_recscan, the one reader of record lines (no
 *    tree; a provenance byte-equal to the previous line's end is that
 *    line's tree); a line it refuses is said so in qe_js_check()'s words,
 *    as every NDJSON reader says it.
 *  - every record of a report must carry the same provenance (one qe-stamp
 *    run): a report mixing builds is refused. Records of other kinds are
 *    ignored; notebooks and cells that are not current or were inherited
 *    from a baseline cache (origin "inherited") are not this build's and
 *    are left out.
 *  - sweep records (qe-sweep's curves) are stored in the sweeps table under
 *    the build their provenance names, never as a row of builds: a report
 *    of sweeps only adds no build. A curve (document, cell, parameter,
 *    machine of that build) stored with the same record is present, with
 *    another a conflict unless `replace`; twice in one report, refused.
 */
#ifndef QE_HADD_H
#define QE_HADD_H

#include "qe_hstore.h"

/*
 * Add the report `file` ("-" for standard input; plain or gzip NDJSON);
 * main_ref names main's series; replace: see above. Prints its
 * history-add record; returns
 * QE_EXIT_OK, or QE_EXIT_TROUBLE after saying why the report was not added.
 */
int qe_hadd(struct qe_hstore *s, const char *file, const char *main_ref, int replace);

#endif /* QE_HADD_H */
