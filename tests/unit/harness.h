/*
 * harness.h - table-driven unit tests of lib/ modules, in the style of jq's
 * tests/jq.test: the cases are data, a driver per module maps a case's name
 * to a function of lib/.
 *
 * A case file (tests/unit/MODULE.test) holds cases separated by blank
 * lines; '#' starts a comment line. A case is three or more lines:
 *
 *     function-name
 *     input
 *     expected output (more lines: the output has that many lines)
 *
 * Input and output lines are taken as written, except for the escapes
 * \n \r \t \0 \\ and \xHH, so any byte string can be a case; \e stands for
 * nothing, for an empty input or output.
 *
 * The driver (tests/unit/MODULE.c) is
 *
 *     static const struct unit_fn fns[] = { { "name", fn }, ..., { NULL, NULL } };
 *     int main(int argc, char **argv) { return unit_main(argc, argv, fns); }
 *
 * where fn(in, n, out) appends the function's result to `out` as text.
 * unit_main() runs every case of the files named, prints each mismatch as
 * "FILE:LINE: NAME: ..." and "N passed, M failed" last; status 1 when a case
 * failed or a name is unknown.
 */
#ifndef UNIT_HARNESS_H
#define UNIT_HARNESS_H

#include <stddef.h>

#include "qe_json.h"
#include "qe_mem.h"

struct unit_fn {
	const char *name;
	void (*fn)(const char *in, size_t n, struct qe_buf *out);
};

int unit_main(int argc, char **argv, const struct unit_fn *fns);

/*
 * Helpers for drivers: a double as %.17g, a JSON value compact (not freed),
 * a number list "1 2.5 3" parsed.
 */
void unit_add_double(struct qe_buf *out, double v);
void unit_add_json(struct qe_buf *out, const cJSON *v);
int unit_numbers(const char *s, double *v, int max);
/* A random case's "N SEED": 0, or -1 after writing "bad case". */
int unit_count_seed(const char *in, long *count, unsigned long long *seed, struct qe_buf *out);

#endif /* UNIT_HARNESS_H */
