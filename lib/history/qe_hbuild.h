/*
 * qe_hbuild.h - a stamped report's place in the history: the build's
 * identity, its series (main, pull-request, branch) and the facts queries
 * order and group builds by, all read from the provenance object qe-stamp
 * appends (schema/provenance.json).
 *
 * Invariants:
 *  - pure: reads a cJSON provenance object, prints nothing; a refusal is a
 *    reason string (static text) the caller reports.
 *  - identity: run.build_id when present; else source.repository + "/" +
 *    run.run_id + "/" + run.run_attempt, the form qe-stamp gives build_id
 *    (old and new reports of one run are one build); else "commit:" +
 *    source.commit + "@" + the start time (a commit built twice is two
 *    builds); then "#" + fingerprint when there is one, so the legs of a
 *    matrix (one build_id, different fingerprints) are builds of their own.
 *  - a report is refused, never guessed into a series, when it has no
 *    provenance, or neither run.build_id nor source.commit, or no time.
 *  - struct qe_hbuild owns its strings; qe_hbuild_free releases them.
 */
#ifndef QE_HBUILD_H
#define QE_HBUILD_H

#include <cjson/cJSON.h>

/* The ref main's series is built from, unless --main-ref says otherwise. */
#define QE_HBUILD_MAIN_REF "refs/heads/main"

struct qe_hbuild {
	char *build;		/* identity (above) */
	int series;		/* QE_SER_* */
	char *commit;		/* source.commit, else NULL */
	char *started_at;	/* run.started_at, else run.stamped_at */
	long run_number;	/* run.run_number, else 0 */
	char *runner_class;	/* runner.class, else NULL */
	char *fingerprint;	/* else NULL */
	char *descriptor;	/* descriptor_sha256, else NULL */
};

/*
 * Fill *b from a record's "provenance" member (prov may be NULL: no
 * provenance). Returns 0, or -1 with *why set to the reason it is refused
 * (and *b left empty).
 */
int qe_hbuild_from(struct qe_hbuild *b, const cJSON *prov, const char *main_ref,
    const char **why);

/* The series of a provenance's source: QE_SER_PR, QE_SER_BRANCH or QE_SER_MAIN. */
int qe_hbuild_series(const cJSON *source, const char *main_ref);

void qe_hbuild_free(struct qe_hbuild *b);

#endif /* QE_HBUILD_H */
