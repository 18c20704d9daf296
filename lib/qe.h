/*
 * qe.h - the umbrella header of qe-telemetry: what every tool in cmd/ and
 * every module in lib/ shares (the foundation modules' headers). A domain
 * module's header (qe_extract.h, qe_diff.h, ...) is included by the files
 * that use it, so a tool names only what it links. lib/README maps the
 * modules to the tools that use them.
 *
 * Invariants every tool keeps:
 *  - stdout carries data only: one compact JSON object per line, UTF-8, '\n'.
 *  - diagnostics go to stderr through warnx(3) as "prog: where: what".
 *  - exit status: 0 success, 1 only for an answer the user asked for (-e),
 *    2 trouble (usage, unreadable input, rejected lines, write error).
 *  - library functions report and return -1 (or NULL); only the tools decide
 *    the exit status. Out of memory is the one exception: the qe_x*
 *    allocators and qe_json_check() exit with status 2.
 *  - no mutable globals in lib/ beyond documented limits (qe_max_line).
 */
#ifndef QE_H
#define QE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define QE_VERSION "0.1.0"

enum {
	QE_EXIT_OK = 0,
	QE_EXIT_ANSWER = 1,	/* only when asked for, e.g. -e */
	QE_EXIT_TROUBLE = 2
};

#include "qe_mem.h"
#include "qe_utf8.h"
#include "qe_json.h"
#include "qe_ndjson.h"
#include "qe_opt.h"
#include "qe_file.h"
#include "qe_time.h"
#include "qe_sha.h"
#include "qe_vocab.h"

#endif /* QE_H */
