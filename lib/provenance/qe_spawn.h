/*
 * qe_spawn.h - asking a helper program (git, nvidia-smi) for a fact.
 *
 * Invariants:
 *  - the program is looked up on PATH and run with the caller's
 *    environment, stdin and stderr on /dev/null: it can neither read the
 *    tool's input nor write on its terminal. Nothing is printed here.
 *  - a helper that does not answer in time is killed: a wedged driver must
 *    not hang a CI job. A helper's output beyond the limit is read and
 *    dropped, so it cannot block on a full pipe.
 *  - the caller owns `out` (a struct qe_buf) and frees it, whatever the
 *    result; it is NUL-terminated after the call.
 */
#ifndef QE_SPAWN_H
#define QE_SPAWN_H

#include <stddef.h>

struct qe_buf;

#define QE_SPAWN_TIMEOUT_MS	30000
#define QE_SPAWN_MAX_OUTPUT	(1u << 20)

/*
 * Run argv (argv[0] on PATH) and append its standard output to out, up to
 * about QE_SPAWN_MAX_OUTPUT bytes. Returns 0 if it ran and exited 0 within
 * QE_SPAWN_TIMEOUT_MS; -1 if it is not there, failed, or was killed (out
 * may then hold part of what it printed).
 */
int qe_spawn_capture(char *const argv[], struct qe_buf *out);

#endif /* QE_SPAWN_H */
