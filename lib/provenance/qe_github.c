/* The commit and the GitHub Actions run (qe_github.h). */
#include <stdlib.h>
#include <string.h>

#include "qe_mem.h"
#include "qe_json.h"
#include "qe_file.h"
#include "qe_facts.h"
#include "qe_github.h"
#include "qe_spawn.h"

#define EVENT_LIMIT	(256u << 20)

static int
is_hexsha(const char *s)
{
	size_t n = s ? strspn(s, "0123456789abcdef") : 0;

	return s != NULL && s[n] == '\0' && (n == 40 || n == 64);
}

static char *
git_head(const char *workspace)
{
	const char *dir = workspace ? workspace : qe_fact_env("GITHUB_WORKSPACE");
	char *argv[] = { "git", "-C", (char *)(dir ? dir : "."), "rev-parse",
	    "--verify", "-q", "HEAD", NULL };
	struct qe_buf b = { 0 };
	char *sha = NULL;

	if (qe_spawn_capture(argv, &b) == 0 && is_hexsha(qe_fact_trim(b.data)))
		sha = qe_xstrdup(qe_fact_trim(b.data));
	qe_buf_free(&b);
	return sha;
}

/* The pull request's number, refs and SHAs from the event payload. */
static void
pull_request(cJSON *src, const cJSON *pr)
{
	const char *head = qe_json_str(cJSON_GetObjectItemCaseSensitive(pr, "head"), "sha");
	const char *base = qe_json_str(cJSON_GetObjectItemCaseSensitive(pr, "base"), "sha");
	const cJSON *num = cJSON_GetObjectItemCaseSensitive(pr, "number");

	if (cJSON_IsNumber(num) && num->valuedouble >= 1 &&
	    num->valuedouble <= 9007199254740992.0 &&
	    num->valuedouble == (double)(long long)num->valuedouble)
		qe_fact_num(src, "pr", num->valuedouble);
	qe_fact_str(src, "head_ref", qe_fact_env("GITHUB_HEAD_REF"));
	if (is_hexsha(head))
		qe_fact_str(src, "head_sha", head);
	qe_fact_str(src, "base_ref", qe_fact_env("GITHUB_BASE_REF"));
	if (is_hexsha(base))
		qe_fact_str(src, "base_sha", base);
}

static void
event_payload(cJSON *src)
{
	const char *path = qe_fact_env("GITHUB_EVENT_PATH");
	struct qe_buf b = { 0 };
	const cJSON *pr;
	cJSON *ev;

	if (path == NULL || qe_file_read(path, EVENT_LIMIT, &b) < 0) {
		qe_buf_free(&b);
		return;
	}
	ev = cJSON_ParseWithLength(b.data, b.len);
	qe_buf_free(&b);
	pr = cJSON_GetObjectItemCaseSensitive(ev, "pull_request");
	if (cJSON_IsObject(pr))
		pull_request(src, pr);
	cJSON_Delete(ev);
}

cJSON *
qe_github_source(const char *workspace)
{
	cJSON *src = qe_json_check(cJSON_CreateObject());
	const char *gsha = qe_fact_env("GITHUB_SHA");
	char *head = git_head(workspace);

	qe_fact_str(src, "repository", qe_fact_env("GITHUB_REPOSITORY"));
	qe_fact_str(src, "commit", head);
	if (is_hexsha(gsha) && (head == NULL || strcmp(head, gsha) != 0))
		qe_fact_str(src, "github_sha", gsha);
	qe_fact_str(src, "event", qe_fact_env("GITHUB_EVENT_NAME"));
	qe_fact_str(src, "ref", qe_fact_env("GITHUB_REF"));
	event_payload(src);
	free(head);
	return src;
}

cJSON *
qe_github_run(void)
{
	cJSON *run = qe_json_check(cJSON_CreateObject());
	const char *id = qe_fact_env("GITHUB_RUN_ID");
	long long v;

	qe_fact_str(run, "workflow", qe_fact_env("GITHUB_WORKFLOW"));
	qe_fact_str(run, "workflow_ref", qe_fact_env("GITHUB_WORKFLOW_REF"));
	if (qe_fact_posint(id) > 0)
		qe_fact_str(run, "run_id", id);
	if ((v = qe_fact_posint(qe_fact_env("GITHUB_RUN_NUMBER"))) > 0)
		qe_fact_num(run, "run_number", (double)v);
	if ((v = qe_fact_posint(qe_fact_env("GITHUB_RUN_ATTEMPT"))) > 0)
		qe_fact_num(run, "run_attempt", (double)v);
	qe_fact_str(run, "job", qe_fact_env("GITHUB_JOB"));
	return run;
}
