/*
 * qe_hprov.h - what differs between the provenance of two builds, and the
 * value compare groups builds by (a package's version, the fingerprint,
 * the environment files' digest).
 *
 * Invariants:
 *  - pure: reads provenance objects (schema/provenance.json), prints
 *    nothing; a fact missing on one side is a change from or to null.
 *  - changes are listed packages first (by name), then the runner class,
 *    then environment files (by path); "fingerprint" only when the
 *    fingerprints differ and nothing before explains it.
 */
#ifndef QE_HPROV_H
#define QE_HPROV_H

#include <cjson/cJSON.h>

/* Append to `out` (an array) one {what, name, before, after} per difference. */
void qe_hprov_diff(const cJSON *before, const cJSON *after, cJSON *out);

/*
 * The value of a build for compare --by (QE_BY_*): environment.packages[
 * package], the fingerprint, or the environment files' digest (hash_files,
 * else the one file's sha256). NULL when the provenance has none.
 */
const char *qe_hprov_value(const cJSON *prov, int by, const char *package);

#endif /* QE_HPROV_H */
