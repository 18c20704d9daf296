/* The runner and its hardware, as facts (qe_runner.h). */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "qe_mem.h"
#include "qe_json.h"
#include "qe_file.h"
#include "qe_facts.h"
#include "qe_runner.h"
#include "qe_spawn.h"

#define FILE_LIMIT	(16u << 20)	/* /proc/cpuinfo of a 512-CPU machine is ~1 MB */

/* The whole of a small system file, or NULL (b freed). */
static char *
read_text(const char *path, struct qe_buf *b)
{
	if (qe_file_read(path, FILE_LIMIT, b) < 0) {
		qe_buf_free(b);
		return NULL;
	}
	return b->data;
}

char *
qe_runner_os_release_distro(char *text)
{
	char *id = NULL, *ver = NULL, *line, *save = NULL;
	struct qe_buf r = { 0 };

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char **dst = strncmp(line, "ID=", 3) == 0 ? &id :
		    strncmp(line, "VERSION_ID=", 11) == 0 ? &ver : NULL;
		char *v;
		size_t n;

		if (dst == NULL)
			continue;
		v = qe_fact_trim(strchr(line, '=') + 1);
		n = strlen(v);
		if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
			v[n - 1] = '\0';
			v++;
		}
		*dst = v;
	}
	if (id == NULL || *id == '\0')
		return NULL;
	qe_buf_adds(&r, id);
	if (ver != NULL && *ver != '\0')
		qe_buf_addf(&r, "-%s", ver);
	return r.data;
}

char *
qe_runner_class_given(const char *label)
{
	struct qe_buf b = { 0 };
	const char *p = label;

	while (*p != '\0') {
		size_t n = strcspn(p, "/");

		if (strncmp(p, "runs-on=", 8) != 0) {
			if (b.len > 0)
				qe_buf_addc(&b, '/');
			qe_buf_add(&b, p, n);
		}
		p += n;
		if (*p == '/')
			p++;
	}
	if (b.len == 0)
		qe_buf_adds(&b, label);
	return b.data;
}

char *
qe_runner_class_derived(const char *hosted, const char *distro, const char *sysname,
    long ncpu, int in_actions)
{
	struct qe_buf b = { 0 };

	if (hosted != NULL)
		qe_buf_adds(&b, hosted);
	else if (!in_actions)
		qe_buf_adds(&b, "local");
	if (distro != NULL)
		qe_buf_addf(&b, "%s%s", b.len > 0 ? "/" : "", distro);
	else if (sysname != NULL) {
		size_t at = b.len + (b.len > 0);

		qe_buf_addf(&b, "%s%s", b.len > 0 ? "/" : "", sysname);
		for (char *c = b.data + at; *c; c++)
			if (*c >= 'A' && *c <= 'Z')
				*c = (char)(*c - 'A' + 'a');
	}
	if (ncpu > 0)
		qe_buf_addf(&b, "%s%ldcpu", b.len > 0 ? "/" : "", ncpu);
	return b.data;
}

/* Set r's class (and label, when the class is not the label as given). */
static void
runner_class(cJSON *r, const char *label, const char *hosted, const char *distro,
    const char *os, struct qe_machine *m)
{
	if (label != NULL) {
		m->class = qe_runner_class_given(label);
		qe_fact_str(r, "class", m->class);
		if (strcmp(m->class, label) != 0)
			qe_fact_str(r, "label", label);
	} else {
		m->class = qe_runner_class_derived(hosted, distro, os, m->ncpu,
		    getenv("GITHUB_ACTIONS") != NULL);
		qe_fact_str(r, "class", m->class);
	}
}

cJSON *
qe_runner_collect(const char *label, struct qe_machine *m)
{
	cJSON *r = qe_json_check(cJSON_CreateObject());
	const char *hosted = qe_fact_env("RUNNER_ENVIRONMENT"), *os = NULL;
	struct qe_buf b = { 0 };
	char *dist = NULL;
	struct utsname u;

	if (read_text("/etc/os-release", &b) != NULL || read_text("/usr/lib/os-release", &b) != NULL)
		dist = qe_runner_os_release_distro(b.data);
	qe_buf_free(&b);
	if (hosted != NULL && strcmp(hosted, "github-hosted") != 0 && strcmp(hosted, "self-hosted") != 0)
		hosted = NULL;
	if (uname(&u) == 0) {
		os = strcmp(u.sysname, "Darwin") == 0 ? "macOS" : u.sysname;
		qe_fact_str(r, "os", os);
		qe_fact_str(r, "distro", dist);
		qe_fact_str(r, "kernel", u.release);
		qe_fact_str(r, "arch", u.machine);
	} else
		qe_fact_str(r, "distro", dist);
	qe_fact_str(r, "name", qe_fact_env("RUNNER_NAME"));
	qe_fact_str(r, "hosted", hosted);
	qe_fact_str(r, "image", qe_fact_env("ImageOS"));
	qe_fact_str(r, "image_version", qe_fact_env("ImageVersion"));
	runner_class(r, label, hosted, dist, os, m);
	free(dist);
	return r;
}

char *
qe_runner_cpuinfo_model(char *text)
{
	char *line, *save = NULL;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':'), *v, *w, *r;

		if (colon == NULL || strncmp(line, "model name", 10) != 0 ||
		    strspn(line + 10, " \t") != (size_t)(colon - line - 10))
			continue;
		/* collapse runs of blanks: some models are padded */
		v = qe_fact_trim(colon + 1);
		for (r = w = v; *r; r++) {
			char c = *r == '\t' ? ' ' : *r;

			if (c != ' ' || w[-1] != ' ')
				*w++ = c;
		}
		*w = '\0';
		return *v != '\0' ? qe_xstrdup(v) : NULL;
	}
	return NULL;
}

double
qe_runner_meminfo_total(const char *text)
{
	const char *p = strstr(text, "MemTotal:");
	char *end;
	long long kb;

	if (p == NULL)
		return -1;
	kb = strtoll(p + 9, &end, 10);
	return kb > 0 && strncmp(end, " kB", 3) == 0 ? (double)kb * 1024 : -1;
}

/*
 * One "name, MiB, driver" line as a GPU object, or NULL if it is not one. A
 * name that is not UTF-8 cannot be reported, and a GPU without its name
 * would be a different GPU: the whole line is left out.
 */
static cJSON *
gpu_line(char *line)
{
	char *f[3], *p = line, *end;
	double mib;
	cJSON *g;
	int i;

	for (i = 0; i < 3 && p != NULL; i++) {
		f[i] = p;
		if ((p = strchr(p, ',')) != NULL)
			*p++ = '\0';
	}
	if (i < 3 || p != NULL || *qe_fact_trim(f[0]) == '\0' || !qe_fact_utf8(f[0]))
		return NULL;
	g = qe_json_check(cJSON_CreateObject());
	qe_fact_str(g, "name", qe_fact_trim(f[0]));
	mib = strtod(f[1] = qe_fact_trim(f[1]), &end);
	if (end != f[1] && *end == '\0' && mib > 0)
		qe_fact_num(g, "memory_bytes", mib * 1048576);
	if (*(p = qe_fact_trim(f[2])) != '\0' && *p != '[')	/* [N/A] */
		qe_fact_str(g, "driver_version", p);
	return g;
}

cJSON *
qe_runner_gpus_parse(char *csv)
{
	cJSON *arr = qe_json_check(cJSON_CreateArray()), *g;
	char *line, *save = NULL;

	for (line = strtok_r(csv, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if ((g = gpu_line(line)) != NULL)
			cJSON_AddItemToArray(arr, g);
	return arr;
}

/* The GPUs nvidia-smi reports, or NULL when it does not answer. */
static cJSON *
gpus(void)
{
	char *argv[] = { "nvidia-smi", "--query-gpu=name,memory.total,driver_version",
	    "--format=csv,noheader,nounits", NULL };
	struct qe_buf b = { 0 };
	cJSON *arr = NULL;

	if (qe_spawn_capture(argv, &b) == 0)
		arr = qe_runner_gpus_parse(b.data);
	qe_buf_free(&b);
	return arr;
}

cJSON *
qe_runner_hardware_collect(struct qe_machine *m)
{
	cJSON *hw = qe_json_check(cJSON_CreateObject()), *g;
	struct qe_buf b = { 0 };
	double mem = -1;
	cpu_set_t set;

	if (read_text("/proc/cpuinfo", &b) != NULL)
		m->cpu_model = qe_runner_cpuinfo_model(b.data);
	qe_buf_free(&b);
	if (read_text("/proc/meminfo", &b) != NULL)
		mem = qe_runner_meminfo_total(b.data);
	qe_buf_free(&b);
	qe_fact_str(hw, "cpu_model", m->cpu_model);
	if (m->ncpu > 0)
		qe_fact_num(hw, "logical_cpus", (double)m->ncpu);
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) != m->ncpu)
		qe_fact_num(hw, "usable_cpus", CPU_COUNT(&set));
	if (mem > 0)
		qe_fact_num(hw, "memory_bytes", mem);
	if ((g = gpus()) != NULL)
		qe_fact_item(hw, "gpus", g);
	m->gpus = g;
	return hw;
}

void
qe_runner_machine_free(struct qe_machine *m)
{
	free(m->class);
	free(m->cpu_model);
	m->class = m->cpu_model = NULL;
	m->gpus = NULL;
}
