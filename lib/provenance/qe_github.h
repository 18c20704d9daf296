/*
 * qe_github.h - what was built and by which run: the commit checked out
 * (git), and what GitHub Actions says in its variables and the event
 * payload (repository, ref, pull request, workflow run ids).
 *
 * Invariants:
 *  - the commit is HEAD of the workspace as git reports it, not
 *    GITHUB_SHA: for a pull request GitHub builds a merge commit, which is
 *    kept apart as "github_sha" only when it differs.
 *  - only variables GitHub documents are read, and only the facts listed
 *    here are copied; a value that is missing, empty, malformed (not a
 *    40/64-digit lowercase SHA, not a positive integer) or not UTF-8 is left
 *    out. Nothing is printed; nothing fails but for out of memory.
 *  - the objects returned are new; the caller owns them (cJSON_Delete).
 */
#ifndef QE_GITHUB_H
#define QE_GITHUB_H

#include <cjson/cJSON.h>

/*
 * The source object {repository, commit, github_sha, event, ref, pr,
 * head_ref, head_sha, base_ref, base_sha}: commit is HEAD of `workspace`
 * (NULL: $GITHUB_WORKSPACE, else the current directory). May be empty.
 */
cJSON *qe_github_source(const char *workspace);

/* The run object {workflow, workflow_ref, run_id, run_number, run_attempt, job}. */
cJSON *qe_github_run(void);

#endif /* QE_GITHUB_H */
