/*
 * qe_kenv.h - what changed between the environments two kernels ran with:
 * the "kernel_env" objects the capture hook measured inside each kernel
 * (schema/common.json), named the way a reviewer reads a likely cause:
 * "jax backend gpu -> cpu".
 *
 * Invariants:
 *  - pure: reads two objects (either may be NULL: nothing to compare, no
 *    change) and appends strings to the caller's array; nothing is kept.
 *  - the order is fixed, most likely cause of a timing change first: JAX's
 *    backend, devices and x64 flag, numba's threading layer and threads,
 *    the thread settings, then module versions by name. A fact one side
 *    lacks reads "none"; but a module that only one kernel imported (both
 *    list their modules) is no change of the environment: the version
 *    imports it, so it is left to qe_kenv_imports(). Module names and versions are untrusted text: the
 *    caller escapes them when it renders them.
 */
#ifndef QE_KENV_H
#define QE_KENV_H

#include <cjson/cJSON.h>

/* Append to `arr` one string per fact that differs between kernel_env b and h. */
void qe_kenv_changes(const cJSON *b, const cJSON *h, cJSON *arr);

/*
 * The modules only one kernel imported, when both kernel_env list their
 * modules: "numba 0.56.4" into only_b (BASE's kernel alone) or only_h, by name.
 */
void qe_kenv_imports(const cJSON *b, const cJSON *h, cJSON *only_b, cJSON *only_h);

#endif /* QE_KENV_H */
