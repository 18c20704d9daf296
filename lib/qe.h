/*
 * qe.h - the version and the exit statuses of qe-telemetry, and the rules
 * every tool in cmd/ and every module in lib/ keeps. It includes nothing:
 * every file includes the headers of what it uses (the foundation's in
 * lib/, its own folder's, a tool folder's public FOLDER/FOLDER.h), and
 * lib/README maps the modules to the tools that use them.
 *
 * Invariants every tool keeps:
 *  - stdout carries data only: one compact JSON object per line, UTF-8, '\n'.
 *  - diagnostics go to stderr through warnx(3) as "prog: where: what".
 *  - exit status: 0 success, 1 only for an answer the user asked for (-e),
 *    2 trouble (usage, unreadable input, rejected lines, write error).
 *  - library functions report and return -1 (or NULL); only the tools decide
 *    the exit status. Out of memory is the one exception: the qe_x*
 *    allocators and qe_json_check() exit with status 2.
 *  - no mutable globals in lib/ beyond documented limits (qe_ndjson_max_line).
 */
#ifndef QE_H
#define QE_H

#define QE_VERSION "0.1.0"

/* The records' schema_version (schema/record.json). */
#define QE_SCHEMA_VERSION 1

enum {
	QE_EXIT_OK = 0,
	QE_EXIT_ANSWER = 1,	/* only when asked for, e.g. -e */
	QE_EXIT_TROUBLE = 2
};

#endif /* QE_H */
