/* The provenance descriptor and its fingerprint (qe_provenance.h). */
#include <err.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qe_mem.h"
#include "qe_json.h"
#include "qe_file.h"
#include "qe_facts.h"
#include "qe_github.h"
#include "qe_provenance.h"
#include "qe_runner.h"

#define MARKER_LIMIT	(1u << 20)

void
qe_provenance_names_add(struct qe_names *l, const char *s)
{
	l->v = qe_xrealloc(l->v, (l->n + 1) * sizeof *l->v);
	l->v[l->n++] = s;
}

int
qe_provenance_hash_files(const cJSON *files, char out[QE_SHA256_HEX])
{
	struct qe_buf raw = { 0 };
	const cJSON *f;

	cJSON_ArrayForEach(f, files) {
		const char *hex = qe_json_str(f, "sha256");
		unsigned char d[32];

		if (hex == NULL || strlen(hex) != 64 || qe_sha_unhex(hex, 32, d) < 0) {
			qe_buf_free(&raw);
			return -1;
		}
		qe_buf_add(&raw, d, sizeof d);
	}
	if (raw.len == 0)
		return -1;
	qe_sha256_hex(raw.data, raw.len, out);
	qe_buf_free(&raw);
	return 0;
}

/* The digest of each file named once; "files" and "hash_files" when any. */
static void
env_files(struct qe_provenance *p, cJSON *env)
{
	cJSON *files = qe_json_check(cJSON_CreateArray()), *f;
	char hex[QE_SHA256_HEX];
	size_t i, j;

	for (i = 0; i < p->files.n; i++) {
		const char *path = p->files.v[i];

		for (j = 0; j < i; j++)		/* hashFiles() matches a file once */
			if (strcmp(path, p->files.v[j]) == 0)
				break;
		if (j < i)
			continue;
		if (!qe_fact_utf8(path)) {
			warnx("%s: file name is not UTF-8", path);
			p->unreadable++;
			continue;
		}
		if (qe_sha256_file(path, hex, NULL) < 0) {
			warn("%s", path);
			p->unreadable++;
			continue;
		}
		f = qe_json_check(cJSON_CreateObject());
		qe_fact_str(f, "path", path);
		qe_fact_str(f, "sha256", hex);
		cJSON_AddItemToArray(files, f);
	}
	if (qe_provenance_hash_files(files, hex) == 0) {
		qe_fact_item(env, "files", files);
		qe_fact_str(env, "hash_files", hex);
	} else
		cJSON_Delete(files);
}

/* Read a package list the user named: 1 if read, 0 if not named or not readable. */
static int
env_list(struct qe_provenance *p, const char *path)
{
	if (path == NULL)
		return 0;
	if (qe_pkgs_read(&p->pkgs, path) == 0)
		return 1;
	p->unreadable++;
	return 0;
}

static void
env_packages(struct qe_provenance *p, cJSON *env, cJSON *facts)
{
	int lists = p->python_version != NULL;

	/* first: conda's list names the same python and wins (read later) */
	if (p->python_version != NULL)
		qe_pkgs_add(&p->pkgs, "python", p->python_version);
	lists += env_list(p, p->conda_path);
	lists += env_list(p, p->pip_path);	/* after conda's: pip's versions win */
	if (lists > 0)
		qe_pkgs_describe(&p->pkgs, env, facts);
}

/* run.build_id from the run's repository, id and attempt; run.started_at. */
static void
build_identity(const struct qe_provenance *p, cJSON *src, cJSON *run)
{
	const char *repo = qe_json_str(src, "repository"), *id = qe_json_str(run, "run_id");
	const cJSON *attempt = cJSON_GetObjectItemCaseSensitive(run, "run_attempt");
	char tbuf[QE_TIME_BUFSZ];
	struct qe_buf b = { 0 };

	if (repo != NULL && id != NULL && cJSON_IsNumber(attempt)) {
		qe_buf_addf(&b, "%s/%s/%.0f", repo, id, attempt->valuedouble);
		qe_fact_str(run, "build_id", b.data);
		qe_buf_free(&b);
	}
	if (p->started != NULL)
		qe_fact_str(run, "started_at", qe_time_format(p->started, tbuf));
}

cJSON *
qe_provenance_marker_parse(char *text)
{
	cJSON *m = qe_json_check(cJSON_CreateObject());
	char *line, *save = NULL;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '='), *k;

		if (eq == NULL || *(k = qe_fact_trim(line)) == '#')
			continue;
		*eq = '\0';
		k = qe_fact_trim(line);
		if (*k == '\0')
			continue;
		cJSON_DeleteItemFromObjectCaseSensitive(m, k);
		qe_fact_str(m, k, qe_fact_trim(eq + 1));
	}
	return m;
}

static void
env_marker(struct qe_provenance *p, cJSON *env)
{
	const char *path = p->marker_path ? p->marker_path : QE_MARKER_DEFAULT;
	struct qe_buf b = { 0 };

	if (qe_file_read(path, MARKER_LIMIT, &b) < 0) {
		if (p->marker_path != NULL) {
			warn("%s", path);
			p->unreadable++;
		}
	} else
		qe_fact_group(env, "marker", qe_provenance_marker_parse(b.data));
	qe_buf_free(&b);
}

static void
env_variables(struct qe_provenance *p, cJSON *env)
{
	cJSON *vars = qe_json_check(cJSON_CreateObject());

	for (size_t i = 0; i < p->vars.n; i++) {
		const char *v = getenv(p->vars.v[i]);

		if (v != NULL && cJSON_GetObjectItemCaseSensitive(vars, p->vars.v[i]) == NULL)
			qe_fact_str(vars, p->vars.v[i], v);
	}
	qe_fact_group(env, "variables", vars);
}

/* fingerprint_facts, and the fingerprint made of them, into d. */
static void
fingerprint(cJSON *d, const struct qe_machine *m, cJSON *fpkgs)
{
	cJSON *facts = qe_json_check(cJSON_CreateObject()), *names;
	const cJSON *g;
	char hex[QE_SHA256_HEX], *s;

	qe_fact_str(facts, "runner_class", m->class);
	qe_fact_str(facts, "cpu_model", m->cpu_model);
	if (m->gpus != NULL) {
		names = qe_json_check(cJSON_CreateArray());
		cJSON_ArrayForEach(g, m->gpus)
			cJSON_AddItemToArray(names, qe_json_check(cJSON_CreateString(qe_json_str(g, "name"))));
		qe_fact_item(facts, "gpus", names);
	}
	qe_fact_group(facts, "packages", fpkgs);
	s = qe_json_print(facts);
	qe_sha256_hex(s, strlen(s), hex);
	cJSON_free(s);
	hex[16] = '\0';
	qe_fact_str(d, "fingerprint", hex);
	qe_fact_item(d, "fingerprint_facts", facts);
}

/* descriptor_sha256 of d as it is, then stamped_at into run. */
static void
digest(cJSON *d, cJSON *run, const struct qe_time *now)
{
	char hex[QE_SHA256_HEX], tbuf[QE_TIME_BUFSZ], *s;

	/* the digest leaves out the one fact that differs between identical builds */
	s = qe_json_print(d);
	qe_sha256_hex(s, strlen(s), hex);
	cJSON_free(s);
	qe_fact_str(run, "stamped_at", qe_time_format(now, tbuf));
	qe_fact_str(d, "descriptor_sha256", hex);
}

cJSON *
qe_provenance_collect(struct qe_provenance *p)
{
	cJSON *d = qe_json_check(cJSON_CreateObject()), *run, *env, *src;
	cJSON *fpkgs = qe_json_check(cJSON_CreateObject());
	struct qe_machine m = { .ncpu = sysconf(_SC_NPROCESSORS_ONLN) };
	struct qe_time now;

	qe_time_now(&now);
	qe_fact_str(d, "tool", p->tool);
	src = qe_github_source(p->workspace);
	run = qe_github_run();
	build_identity(p, src, run);
	qe_fact_group(d, "source", src);
	qe_fact_item(d, "run", run);
	qe_fact_item(d, "runner", qe_runner_collect(p->runner_label, &m));
	qe_fact_item(d, "hardware", qe_runner_hardware_collect(&m));
	env = qe_json_check(cJSON_CreateObject());
	env_files(p, env);
	env_packages(p, env, fpkgs);
	env_marker(p, env);
	env_variables(p, env);
	qe_fact_group(d, "environment", env);
	fingerprint(d, &m, fpkgs);
	digest(d, run, &now);
	qe_runner_machine_free(&m);
	return d;
}

cJSON *
qe_provenance_record(cJSON *desc)
{
	cJSON *rec = qe_json_record_new("provenance"), *item;

	while ((item = desc->child) != NULL)
		qe_fact_item(rec, item->string, cJSON_DetachItemViaPointer(desc, item));
	cJSON_Delete(desc);
	return rec;
}

void
qe_provenance_free(struct qe_provenance *p)
{
	free(p->files.v);
	free(p->vars.v);
	qe_pkgs_free(&p->pkgs);
	memset(p, 0, sizeof *p);
}
