/* A stamped report's build identity and series (qe_hbuild.h). */
#include <stdlib.h>
#include <string.h>

#include "qe_mem.h"
#include "qe_json.h"
#include "qe_record.h"
#include "qe_hbuild.h"

int
qe_hbuild_series(const cJSON *source, const char *main_ref)
{
	const char *ev = qe_json_str(source, "event"), *ref = qe_json_str(source, "ref");

	if (cJSON_GetObjectItemCaseSensitive(source, "pr") != NULL ||
	    (ev && (strcmp(ev, "pull_request") == 0 || strcmp(ev, "pull_request_target") == 0)) ||
	    (ref && strncmp(ref, "refs/pull/", 10) == 0))
		return QE_SER_PR;
	if (ref && strcmp(ref, main_ref) != 0)
		return QE_SER_BRANCH;
	return QE_SER_MAIN;
}

/* A copy of s, or NULL. */
static char *
dup_or_null(const char *s)
{
	return s ? qe_xstrdup(s) : NULL;
}

/*
 * The build's name before its "#fingerprint": run.build_id; else the
 * repository, run id and attempt as qe-stamp writes build_id from them (a
 * report stamped before build_id existed names the same build as one
 * stamped after); else "commit:" + commit + "@" + the start time.
 */
static void
identity(struct qe_buf *name, const char *id, const cJSON *src, const cJSON *run,
    const char *commit, const char *t)
{
	const char *repo = qe_json_str(src, "repository"), *rid = qe_json_str(run, "run_id");
	const cJSON *attempt = cJSON_GetObjectItemCaseSensitive(run, "run_attempt");

	if (id)
		qe_buf_adds(name, id);
	else if (repo && rid && cJSON_IsNumber(attempt))
		qe_buf_addf(name, "%s/%s/%.0f", repo, rid, attempt->valuedouble);
	else
		qe_buf_addf(name, "commit:%s@%s", commit, t);
}

int
qe_hbuild_from(struct qe_hbuild *b, const cJSON *prov, const char *main_ref,
    const char **why)
{
	const cJSON *src, *run;
	const char *id, *commit, *t, *fp;
	struct qe_buf name = { 0 };

	memset(b, 0, sizeof *b);
	if (!cJSON_IsObject(prov)) {
		*why = "no provenance (pass the report through qe-stamp): without one a build has no place in a series";
		return -1;
	}
	src = cJSON_GetObjectItemCaseSensitive(prov, "source");
	run = cJSON_GetObjectItemCaseSensitive(prov, "run");
	id = qe_json_str(run, "build_id");
	commit = qe_json_str(src, "commit");
	if (id == NULL && commit == NULL) {
		*why = "the provenance names neither run.build_id nor source.commit: nothing identifies the build";
		return -1;
	}
	if ((t = qe_json_str(run, "started_at")) == NULL && (t = qe_json_str(run, "stamped_at")) == NULL) {
		*why = "the provenance has neither run.started_at nor run.stamped_at: nothing orders the build";
		return -1;
	}
	fp = qe_json_str(prov, "fingerprint");
	identity(&name, id, src, run, commit, t);
	if (fp)
		qe_buf_addf(&name, "#%s", fp);
	b->build = name.data;
	b->series = qe_hbuild_series(src, main_ref);
	b->commit = dup_or_null(commit);
	b->started_at = qe_xstrdup(t);
	b->run_number = cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(run, "run_number")) ?
	    (long)cJSON_GetObjectItemCaseSensitive(run, "run_number")->valuedouble : 0;
	b->runner_class = dup_or_null(qe_json_str(cJSON_GetObjectItemCaseSensitive(prov, "runner"), "class"));
	b->fingerprint = dup_or_null(fp);
	b->descriptor = dup_or_null(qe_json_str(prov, "descriptor_sha256"));
	return 0;
}

void
qe_hbuild_free(struct qe_hbuild *b)
{
	free(b->build);
	free(b->commit);
	free(b->started_at);
	free(b->runner_class);
	free(b->fingerprint);
	free(b->descriptor);
	memset(b, 0, sizeof *b);
}
