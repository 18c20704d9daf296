/*
 * qe_fingerprint.h - provenance fingerprints of the two builds: interning
 * them with their facts, noting which were seen, and naming the facts that
 * differ when two fingerprints differ.
 *
 * Invariants:
 *  - a struct qe_fingerprints interns: one copy of each fingerprint text
 *    (and a deep copy of its first facts object), so two interned pointers
 *    are equal exactly when the texts are. It owns them until
 *    qe_fingerprints_free(); zero-initialise it ({ 0 }).
 *  - a struct qe_fp_seen holds interned pointers it does not own, each once.
 *  - a struct qe_factdiffs owns its strings; each (fact, base, head) triple
 *    is held once. Facts are named "key", or "key.sub" one level down into
 *    objects (the package series); an absent fact reads "(absent)", a
 *    string fact its text, any other its compact JSON.
 *  - nothing here prints; out of memory exits.
 */
#ifndef QE_FINGERPRINT_H
#define QE_FINGERPRINT_H

#include <cjson/cJSON.h>

struct qe_fp {
	char *fp;
	cJSON *facts;	/* NULL when the record had none */
};

struct qe_fingerprints {
	struct qe_fp *v;
	int n;
};

/* The interned copy of fingerprint s; `facts` are kept with its first sight. */
const char *qe_fp_intern(struct qe_fingerprints *f, const char *s, const cJSON *facts);

/* The facts kept with an interned fingerprint, or NULL. */
const cJSON *qe_fp_facts(const struct qe_fingerprints *f, const char *interned);

void qe_fingerprints_free(struct qe_fingerprints *f);

struct qe_fp_seen {
	const char **v;
	int n;
};

/* Note an interned fingerprint as seen (once). */
void qe_fp_note(struct qe_fp_seen *s, const char *interned);

/* Sort the fingerprints seen by their text. */
void qe_fp_seen_sort(struct qe_fp_seen *s);

struct qe_factdiff {
	char *fact, *base, *head;
};

struct qe_factdiffs {
	struct qe_factdiff *v;
	int n;
};

/*
 * Add the facts that differ between base facts b and head facts h (either
 * may be NULL); when none do, the fingerprints bf and hf themselves as the
 * fact "fingerprint".
 */
void qe_fp_compare(struct qe_factdiffs *d, const cJSON *b, const cJSON *h, const char *bf,
    const char *hf);

/*
 * 1 when facts b and h (either may be NULL: then 1) differ in a fact that
 * makes timings incomparable: any but "packages" (runner class, CPU model,
 * GPUs). Package versions are a likely cause of a change, not a reason to
 * distrust the timing: qe_fp_packages() names them.
 */
int qe_fp_machine_differ(const cJSON *b, const cJSON *h);

/*
 * Add to d each package of the objects b and h ({"name": "version"}, either
 * may be NULL) whose version differs, as (name, base, head); "(absent)" on
 * the side without it.
 */
void qe_fp_packages(struct qe_factdiffs *d, const cJSON *b, const cJSON *h);

/* Sort by fact, then base, then head. */
void qe_fp_factdiffs_sort(struct qe_factdiffs *d);

void qe_fp_factdiffs_free(struct qe_factdiffs *d);

#endif /* QE_FINGERPRINT_H */
