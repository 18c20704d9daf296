/*
 * qe_fences.h - per-cell thresholds for qe-cell-diff from a fences file
 * (qe-history fences -o FILE: history-fence records, schema/history.json).
 *
 * Invariants:
 *  - a cell's fence is found by its document and label, else by its
 *    document and source digest (the first 16 bytes of source_sha256, the
 *    digest the cell had in the newest main build); lecture fences and
 *    records of other kinds are ignored.
 *  - a cell without a fence keeps the rule it was given (the defaults or
 *    -r/-a): qe_fences_rule never invents a threshold.
 *  - struct qe_fences owns its entries (qe_fences_free).
 */
#ifndef QE_FENCES_H
#define QE_FENCES_H

#include <stddef.h>
#include <stdint.h>

#include "qe_verdict.h"

struct qe_fence {
	char *doc, *key;	/* key: "L" + label, or "S" + 32 hex digits */
	double ratio, abs;
};

struct qe_fences {
	struct qe_fence *f;
	size_t n;
	long bad;		/* records refused (said why) */
};

/*
 * Read the fences file (NDJSON, plain or gzip). A history-fence record
 * whose ratio is not a number >= 1 or abs_s not >= 0 is refused
 * ("prog: file:line: reason") and counted. Returns QE_EXIT_OK or
 * QE_EXIT_TROUBLE.
 */
int qe_fences_load(struct qe_fences *fs, const char *file);
void qe_fences_free(struct qe_fences *fs);

/*
 * The rule for a cell of document doc with label (NULL: none) and the
 * first 16 bytes of its source digest: def's alpha with the fence's ratio
 * and floor, or *def itself when there is no fence (fs NULL: none).
 */
struct qe_rule qe_fences_rule(const struct qe_fences *fs, const struct qe_rule *def,
    const char *doc, const char *label, const uint8_t src[16]);

#endif /* QE_FENCES_H */
