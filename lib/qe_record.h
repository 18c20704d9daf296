/*
 * qe_record.h - the record model every reader shares: the fields of a
 * notebook and a cell record that some reader reads, with their JSON type
 * (schema/notebook.json, schema/cell.json; tests/00-unit.bats checks each
 * against its schema), one check of a record's fields with one wording, a
 * cell's display name, and a machine's description.
 *
 * Invariants:
 *  - qe_record_fields is the one table: key, JSON type, the kinds it is a
 *    field of, the readers that read it (QE_RREAD_*) and its member id in
 *    the scanner (QE_RK_*, qe_recscan.h) or -1. null is always accepted.
 *  - a record is checked once, either on the scanner's struct (a line read
 *    by qe_recscan) or on a tree, by the same rule: the first member in the
 *    record's order of a wrong type (every occurrence of a repeated member
 *    counted) is reported as "FILE:LINE: KIND record with an invalid 'KEY'
 *    (not a string)".
 *  - the display name: "name" (qe-cache-extract decided it), else "label",
 *    else "first_line" (records written before names), else the caller's
 *    default.
 */
#ifndef QE_RECORD_H
#define QE_RECORD_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "qe_mem.h"
#include "qe_recscan.h"

enum { QE_RT_STR, QE_RT_NUM, QE_RT_BOOL, QE_RT_OBJ, QE_RT_ARR };
enum { QE_RKIND_NOTEBOOK = 1, QE_RKIND_CELL = 2 };
/* The readers: qe-cell-diff and qe-history add (the scanner's), qe-exec-status (a tree). */
enum { QE_RREAD_DIFF = 1, QE_RREAD_STATUS = 2 };

struct qe_record_field {
	const char *key;
	unsigned char type, kinds, readers;
	signed char id;			/* its QE_RK_*, or -1 when the scanner does not read it */
};

extern const struct qe_record_field qe_record_fields[];
extern const size_t qe_record_nfields;

/* "a string", "a number", "true or false", "an object", "an array". */
const char *qe_record_type_name(int type);

/* 1 when a member of type t (QE_JS_*) may be a field of type (QE_RT_*): null always may. */
int qe_record_type_ok(int t, int type);

/* The QE_JS_* type of a cJSON value. */
int qe_record_js_type(const cJSON *v);

/*
 * 1 (after the message above) when a field of `kind` (QE_RKIND_*) that
 * `reader` reads has the wrong type in the scanned line l; else 0.
 */
int qe_record_bad_line(const struct qe_recline *l, int kind, int reader, const char *what,
    const char *file, long line);

/* The same for a record tree. */
int qe_record_bad_tree(const cJSON *rec, int kind, int reader, const char *what,
    const char *file, long line);

/* The display name of a cell: name, else label, else first_line, else dflt (NULL or "" count as absent). */
const char *qe_record_name(const char *name, const char *label, const char *first_line, const char *dflt);

/* The same, from a record tree's members. */
const char *qe_record_name_of(const cJSON *rec, const char *dflt);

/*
 * A machine as a reader tells machines apart, the one description:
 * "RUNNER (CPU, N CPUs, M GB, GPU G)", each part when known (runner NULL:
 * the parts without parentheses); cpus and mem NaN when unknown, mem in
 * bytes. The strings go through text() (an escaper: the caller's format),
 * as they are when it is NULL.
 */
void qe_record_machine(struct qe_buf *b, const char *runner, const char *cpu, double cpus, double mem,
    const char *gpu, void (*text)(struct qe_buf *, const char *));

/* The same, plain, from a qe-stamp provenance (runner.class, else runner.distro; hardware). */
void qe_record_machine_of(struct qe_buf *b, const cJSON *prov);

#endif /* QE_RECORD_H */
