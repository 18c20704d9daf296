/*
 * qe-stamp - copy NDJSON records and append to each one provenance object:
 * the commit built, the workflow run, the runner, its hardware, the
 * environment, and a short fingerprint of the facts that make two timings
 * comparable.
 *
 * The descriptor is collected once at start-up and serialised once; every
 * record is printed and the serialised descriptor spliced in before its
 * closing brace, so a million records cost a million prints, nothing more.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "qe.h"

extern char **environ;

enum { OPT_VERSION = 256, OPT_MAX_LINE };

#define MARKER_DEFAULT	"/etc/quantecon-container"
#define CMD_TIMEOUT_MS	30000		/* a wedged nvidia-smi must not hang CI */
#define CMD_MAX_OUTPUT	(1u << 20)
#define NELEM(a)	(sizeof (a) / sizeof (a)[0])

struct list {
	const char **v;
	size_t n;
};

struct pkg {
	char *name;		/* normalised: lower case, runs of -_. as '-' */
	char *version;
	size_t seq;		/* reading order: a later list wins */
};

static int aflag, dflag, Rflag;
static const char *conda_path, *pip_path, *marker_path, *runner_arg, *workspace;
static struct list env_files, key_names, var_names;
static int trouble;		/* a source the user named could not be read */

static struct pkg *pkgs;
static size_t npkgs;

/* Key packages when no -k is given: recorded and fingerprinted. */
static const char *const default_keys[] = {
	"python", "numpy", "scipy", "numba", "jax", "jaxlib", "torch",
	"quantecon", "numpyro"
};
/* Recorded but kept out of the fingerprint: they measure, they don't run. */
static const char *const build_tools[] = {
	"jupyter-book", "myst-nb", "jupyter-cache", "nbclient", "ipykernel"
};

static char *stamp_tail;		/* ,"provenance":{...}} */
static size_t stamp_len;
static char *outbuf;
static size_t outcap;

static const struct option longopts[] = {
	{ "all-packages", no_argument,       NULL, 'a' },
	{ "conda-list",   required_argument, NULL, 'c' },
	{ "describe",     no_argument,       NULL, 'd' },
	{ "env-file",     required_argument, NULL, 'f' },
	{ "help",         no_argument,       NULL, 'h' },
	{ "key-package",  required_argument, NULL, 'k' },
	{ "marker",       required_argument, NULL, 'm' },
	{ "pip-list",     required_argument, NULL, 'p' },
	{ "replace",      no_argument,       NULL, 'R' },
	{ "runner-class", required_argument, NULL, 'r' },
	{ "var",          required_argument, NULL, 'v' },
	{ "workspace",    required_argument, NULL, 'w' },
	{ "version",      no_argument,       NULL, OPT_VERSION },
	{ "max-line",     required_argument, NULL, OPT_MAX_LINE },
	{ NULL, 0, NULL, 0 }
};

static void usage(FILE *, int) __attribute__((noreturn));

static void
usage(FILE *fp, int status)
{
	fprintf(fp, "usage: %s [-adhR] [-c conda-list] [-f env-file] [-k package] [-m marker]\n"
	    "                [-p pip-list] [-r class] [-v name] [-w workspace] [--version]\n"
	    "                [--max-line bytes] [file ...]\n", qe_progname());
	exit(status);
}

static void
list_add(struct list *l, const char *s)
{
	l->v = qe_xrealloc(l->v, (l->n + 1) * sizeof *l->v);
	l->v[l->n++] = s;
}

/* ---- small helpers -------------------------------------------------- */

static const char *
env(const char *name)
{
	const char *v = getenv(name);

	return v != NULL && *v != '\0' ? v : NULL;
}

static int
is_utf8(const char *s)
{
	return qe_utf8_valid(s, strlen(s)) == strlen(s);
}

/* Add a string fact; one that is not UTF-8 is left out, like a missing one. */
static void
add_str(cJSON *o, const char *k, const char *v)
{
	if (v != NULL && is_utf8(k) && is_utf8(v))
		qe_json_check(cJSON_AddStringToObject(o, k, v));
}

static void
add_num(cJSON *o, const char *k, double v)
{
	qe_json_check(cJSON_AddNumberToObject(o, k, v));
}

static void
add_item(cJSON *o, const char *k, cJSON *item)
{
	if (!cJSON_AddItemToObject(o, k, item))
		qe_json_check(NULL);
}

/* Attach a group unless it came out empty: missing is left out. */
static void
add_group(cJSON *o, const char *k, cJSON *item)
{
	if (item->child == NULL)
		cJSON_Delete(item);
	else
		add_item(o, k, item);
}

static int
is_hexsha(const char *s)
{
	size_t n = s ? strspn(s, "0123456789abcdef") : 0;

	return s != NULL && s[n] == '\0' && (n == 40 || n == 64);
}

/* A positive decimal integer, the whole string; -1 otherwise. */
static long long
posint(const char *s)
{
	char *end;
	long long v;

	if (s == NULL || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	return errno || *end != '\0' || v <= 0 || v > (1LL << 53) ? -1 : v;
}

static char *
trim(char *s)
{
	char *e;

	s += strspn(s, " \t\r\n");
	e = s + strlen(s);
	while (e > s && strchr(" \t\r\n", e[-1]) != NULL)
		*--e = '\0';
	return s;
}

/* Read a whole (small) file; /proc files report size 0, so read to EOF. */
static int
slurp(const char *path, struct qe_buf *b)
{
	char chunk[16384];
	ssize_t n;
	int fd, saved;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	qe_buf_add(b, "", 0);
	while ((n = read(fd, chunk, sizeof chunk)) > 0)
		qe_buf_add(b, chunk, (size_t)n);
	saved = errno;
	close(fd);
	if (n < 0) {
		errno = saved;
		return -1;
	}
	return 0;
}

static long
ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long)(t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/*
 * Run argv[0], looked up on PATH, with stdin and stderr on /dev/null, and
 * capture its stdout. Returns 0 if it ran and exited 0 within the time
 * limit, -1 if it is not there, failed, or was killed.
 */
static int
capture(char *const argv[], struct qe_buf *out)
{
	posix_spawn_file_actions_t fa;
	struct timespec t0;
	struct pollfd pfd;
	char chunk[8192];
	int p[2], st, rc, killed = 0;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	if (rc != 0) {
		close(p[0]);
		return -1;
	}
	qe_buf_add(out, "", 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pfd.fd = p[0];
	pfd.events = POLLIN;
	for (;;) {
		long left = CMD_TIMEOUT_MS - ms_since(&t0);
		ssize_t n;

		if (left <= 0 || (rc = poll(&pfd, 1, (int)left)) == 0) {
			kill(pid, SIGKILL);
			killed = 1;
			break;
		}
		if (rc < 0) {
			if (errno == EINTR)
				continue;
			kill(pid, SIGKILL);
			killed = 1;
			break;
		}
		if ((n = read(p[0], chunk, sizeof chunk)) < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (out->len < CMD_MAX_OUTPUT)
			qe_buf_add(out, chunk, (size_t)n);
	}
	close(p[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return !killed && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* ---- source and run ---------------------------------------------------- */

static char *
git_head(void)
{
	const char *dir = workspace ? workspace : env("GITHUB_WORKSPACE");
	char *argv[] = { "git", "-C", (char *)(dir ? dir : "."), "rev-parse",
	    "--verify", "-q", "HEAD", NULL };
	struct qe_buf b = { 0 };
	char *sha = NULL;

	if (capture(argv, &b) == 0 && is_hexsha(trim(b.data)))
		sha = qe_xstrdup(trim(b.data));
	qe_buf_free(&b);
	return sha;
}

static void
event_payload(cJSON *src)
{
	const char *path = env("GITHUB_EVENT_PATH");
	struct qe_buf b = { 0 };
	const cJSON *pr, *num;
	cJSON *ev;

	if (path == NULL || slurp(path, &b) < 0) {
		qe_buf_free(&b);
		return;
	}
	ev = cJSON_ParseWithLength(b.data, b.len);
	qe_buf_free(&b);
	pr = cJSON_GetObjectItemCaseSensitive(ev, "pull_request");
	if (cJSON_IsObject(pr)) {
		const char *head = qe_json_str(cJSON_GetObjectItemCaseSensitive(pr, "head"), "sha");
		const char *base = qe_json_str(cJSON_GetObjectItemCaseSensitive(pr, "base"), "sha");

		num = cJSON_GetObjectItemCaseSensitive(pr, "number");
		if (cJSON_IsNumber(num) && num->valuedouble >= 1 &&
		    num->valuedouble <= 9007199254740992.0 &&
		    num->valuedouble == (double)(long long)num->valuedouble)
			add_num(src, "pr", num->valuedouble);
		add_str(src, "head_ref", env("GITHUB_HEAD_REF"));
		if (is_hexsha(head))
			add_str(src, "head_sha", head);
		add_str(src, "base_ref", env("GITHUB_BASE_REF"));
		if (is_hexsha(base))
			add_str(src, "base_sha", base);
	}
	cJSON_Delete(ev);
}

static cJSON *
collect_source(void)
{
	cJSON *src = qe_json_check(cJSON_CreateObject());
	const char *gsha = env("GITHUB_SHA");
	char *head = git_head();

	add_str(src, "repository", env("GITHUB_REPOSITORY"));
	add_str(src, "commit", head);
	if (is_hexsha(gsha) && (head == NULL || strcmp(head, gsha) != 0))
		add_str(src, "github_sha", gsha);
	add_str(src, "event", env("GITHUB_EVENT_NAME"));
	add_str(src, "ref", env("GITHUB_REF"));
	event_payload(src);
	free(head);
	return src;
}

static cJSON *
collect_run(void)
{
	cJSON *run = qe_json_check(cJSON_CreateObject());
	const char *id = env("GITHUB_RUN_ID");
	long long v;

	add_str(run, "workflow", env("GITHUB_WORKFLOW"));
	add_str(run, "workflow_ref", env("GITHUB_WORKFLOW_REF"));
	if (posint(id) > 0)
		add_str(run, "run_id", id);
	if ((v = posint(env("GITHUB_RUN_NUMBER"))) > 0)
		add_num(run, "run_number", (double)v);
	if ((v = posint(env("GITHUB_RUN_ATTEMPT"))) > 0)
		add_num(run, "run_attempt", (double)v);
	add_str(run, "job", env("GITHUB_JOB"));
	return run;
}

/* ---- runner and hardware -------------------------------------------------- */

/* "ID-VERSION_ID" from os-release, e.g. ubuntu-24.04; NULL if unknown. */
static char *
distro(void)
{
	struct qe_buf b = { 0 };
	char *id = NULL, *ver = NULL, *line, *save = NULL, *res = NULL;

	if (slurp("/etc/os-release", &b) < 0 && slurp("/usr/lib/os-release", &b) < 0) {
		qe_buf_free(&b);
		return NULL;
	}
	for (line = strtok_r(b.data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char **dst = strncmp(line, "ID=", 3) == 0 ? &id :
		    strncmp(line, "VERSION_ID=", 11) == 0 ? &ver : NULL;
		char *v;
		size_t n;

		if (dst == NULL)
			continue;
		v = trim(strchr(line, '=') + 1);
		n = strlen(v);
		if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
			v[n - 1] = '\0';
			v++;
		}
		*dst = v;
	}
	if (id != NULL && *id != '\0') {
		struct qe_buf r = { 0 };

		qe_buf_adds(&r, id);
		if (ver != NULL && *ver != '\0') {
			qe_buf_addc(&r, '-');
			qe_buf_adds(&r, ver);
		}
		res = r.data;
	}
	qe_buf_free(&b);
	return res;
}

/* The class as given, less a RunsOn "runs-on=<run id>" part (names a run). */
static char *
given_class(const char *label)
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

static char *
derived_class(const char *hosted, const char *os, long ncpu)
{
	struct qe_buf b = { 0 };
	char n[32];

	if (hosted != NULL)
		qe_buf_adds(&b, hosted);
	else if (getenv("GITHUB_ACTIONS") == NULL)
		qe_buf_adds(&b, "local");
	if (os != NULL) {
		if (b.len > 0)
			qe_buf_addc(&b, '/');
		qe_buf_adds(&b, os);
	}
	if (ncpu > 0) {
		snprintf(n, sizeof n, "%s%ldcpu", b.len > 0 ? "/" : "", ncpu);
		qe_buf_adds(&b, n);
	}
	return b.data;
}

static cJSON *
collect_runner(long ncpu, char **classp)
{
	cJSON *r = qe_json_check(cJSON_CreateObject());
	const char *hosted = env("RUNNER_ENVIRONMENT");
	struct utsname u;
	char *dist = distro(), *cls;
	const char *os = NULL;

	if (hosted != NULL && strcmp(hosted, "github-hosted") != 0 && strcmp(hosted, "self-hosted") != 0)
		hosted = NULL;
	if (uname(&u) == 0) {
		os = strcmp(u.sysname, "Darwin") == 0 ? "macOS" : u.sysname;
		add_str(r, "os", os);
		add_str(r, "distro", dist);
		add_str(r, "kernel", u.release);
		add_str(r, "arch", u.machine);
	} else
		add_str(r, "distro", dist);
	add_str(r, "name", env("RUNNER_NAME"));
	add_str(r, "hosted", hosted);
	add_str(r, "image", env("ImageOS"));
	add_str(r, "image_version", env("ImageVersion"));
	if (runner_arg != NULL) {
		cls = given_class(runner_arg);
		add_str(r, "class", cls);
		if (strcmp(cls, runner_arg) != 0)
			add_str(r, "label", runner_arg);
	} else {
		char *lower = NULL;

		if (dist == NULL && os != NULL) {
			lower = qe_xstrdup(os);
			for (char *c = lower; *c; c++)
				if (*c >= 'A' && *c <= 'Z')
					*c = (char)(*c - 'A' + 'a');
		}
		cls = derived_class(hosted, dist ? dist : lower, ncpu);
		free(lower);
		if (cls != NULL)
			add_str(r, "class", cls);
	}
	free(dist);
	*classp = cls;
	return r;
}

static char *
cpu_model(void)
{
	struct qe_buf b = { 0 };
	char *line, *save = NULL, *res = NULL;

	if (slurp("/proc/cpuinfo", &b) < 0) {
		qe_buf_free(&b);
		return NULL;
	}
	for (line = strtok_r(b.data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':'), *v, *w, *r;

		if (colon == NULL || strncmp(line, "model name", 10) != 0 ||
		    strspn(line + 10, " \t") != (size_t)(colon - line - 10))
			continue;
		/* collapse runs of blanks: some models are padded */
		v = trim(colon + 1);
		for (r = w = v; *r; r++) {
			char c = *r == '\t' ? ' ' : *r;

			if (c != ' ' || w[-1] != ' ')
				*w++ = c;
		}
		*w = '\0';
		if (*v != '\0')
			res = qe_xstrdup(v);
		break;
	}
	qe_buf_free(&b);
	return res;
}

static double
memory_bytes(void)
{
	struct qe_buf b = { 0 };
	char *p;
	double v = -1;

	if (slurp("/proc/meminfo", &b) == 0 && (p = strstr(b.data, "MemTotal:")) != NULL) {
		long long kb = strtoll(p + 9, &p, 10);

		if (kb > 0 && strncmp(p, " kB", 3) == 0)
			v = (double)kb * 1024;
	}
	qe_buf_free(&b);
	return v;
}

/* name, memory.total (MiB), driver_version per line; NULL if no answer. */
static cJSON *
gpus(void)
{
	char *argv[] = { "nvidia-smi", "--query-gpu=name,memory.total,driver_version",
	    "--format=csv,noheader,nounits", NULL };
	struct qe_buf b = { 0 };
	char *line, *save = NULL;
	cJSON *arr = NULL;

	if (capture(argv, &b) == 0) {
		arr = qe_json_check(cJSON_CreateArray());
		for (line = strtok_r(b.data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char *f[3], *p = line, *end;
			cJSON *g;
			double mib;
			int i;

			for (i = 0; i < 3 && p != NULL; i++) {
				f[i] = p;
				if ((p = strchr(p, ',')) != NULL)
					*p++ = '\0';
			}
			if (i < 3 || p != NULL || *trim(f[0]) == '\0')
				continue;	/* not a GPU line */
			g = qe_json_check(cJSON_CreateObject());
			add_str(g, "name", trim(f[0]));
			mib = strtod(trim(f[1]), &end);
			if (end != f[1] && *end == '\0' && mib > 0)
				add_num(g, "memory_bytes", mib * 1048576);
			if (*(p = trim(f[2])) != '\0' && *p != '[')	/* [N/A] */
				add_str(g, "driver_version", p);
			cJSON_AddItemToArray(arr, g);
		}
	}
	qe_buf_free(&b);
	return arr;
}

static cJSON *
collect_hardware(long ncpu, char **cpup, cJSON **gpup)
{
	cJSON *hw = qe_json_check(cJSON_CreateObject());
	char *cpu = cpu_model();
	double mem = memory_bytes();
	cpu_set_t set;

	add_str(hw, "cpu_model", cpu);
	if (ncpu > 0)
		add_num(hw, "logical_cpus", (double)ncpu);
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) != ncpu)
		add_num(hw, "usable_cpus", CPU_COUNT(&set));
	if (mem > 0)
		add_num(hw, "memory_bytes", mem);
	if ((*gpup = gpus()) != NULL)
		add_item(hw, "gpus", *gpup);
	*cpup = cpu;
	return hw;
}

/* ---- environment ----------------------------------------------------------- */

/* PEP 503 normal form: lower case, each run of '-', '_', '.' one '-'. */
static char *
pkg_norm(const char *s)
{
	char *r = qe_xmalloc(strlen(s) + 1), *w = r;

	for (; *s; s++) {
		if (*s == '-' || *s == '_' || *s == '.') {
			if (w == r || w[-1] != '-')
				*w++ = '-';
		} else
			*w++ = (char)(*s >= 'A' && *s <= 'Z' ? *s - 'A' + 'a' : *s);
	}
	*w = '\0';
	return r;
}

/*
 * Read a `conda list --json` or `pip list --format=json` array. Returns 0,
 * or -1 when it is unreadable or not such an array (said why).
 */
static int
read_pkg_list(const char *path)
{
	struct qe_buf b = { 0 };
	const cJSON *e;
	cJSON *arr;

	if (slurp(path, &b) < 0) {
		warn("%s", path);
		trouble = 1;
		qe_buf_free(&b);
		return -1;
	}
	arr = cJSON_ParseWithLength(b.data, b.len);
	qe_buf_free(&b);
	if (!cJSON_IsArray(arr)) {
		warnx("%s: %s", path, arr ? "not a JSON array of packages" : "invalid JSON");
		trouble = 1;
		cJSON_Delete(arr);
		return -1;
	}
	cJSON_ArrayForEach(e, arr) {
		const char *name = qe_json_str(e, "name"), *ver = qe_json_str(e, "version");

		if (name == NULL || ver == NULL || *name == '\0' || *ver == '\0' ||
		    !is_utf8(name) || !is_utf8(ver))
			continue;
		pkgs = qe_xrealloc(pkgs, (npkgs + 1) * sizeof *pkgs);
		pkgs[npkgs].name = pkg_norm(name);
		pkgs[npkgs].version = qe_xstrdup(ver);
		pkgs[npkgs].seq = npkgs;
		npkgs++;
	}
	cJSON_Delete(arr);
	return 0;
}

static int
pkg_cmp(const void *a, const void *b)
{
	const struct pkg *p = a, *q = b;
	int c = strcmp(p->name, q->name);

	return c != 0 ? c : (p->seq > q->seq) - (p->seq < q->seq);
}

/* Sort by name; of duplicates keep the one read last (pip over conda). */
static void
pkg_settle(void)
{
	size_t i, n = 0;

	qsort(pkgs, npkgs, sizeof *pkgs, pkg_cmp);
	for (i = 0; i < npkgs; i++) {
		if (i + 1 < npkgs && strcmp(pkgs[i].name, pkgs[i + 1].name) == 0) {
			free(pkgs[i].name);
			free(pkgs[i].version);
			continue;
		}
		pkgs[n++] = pkgs[i];
	}
	npkgs = n;
}

static int
in_list(const char *name, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(name, v[i]) == 0)
			return 1;
	return 0;
}

static int
is_key(const char *name)
{
	if (key_names.n == 0)
		return in_list(name, default_keys, NELEM(default_keys));
	return in_list(name, key_names.v, key_names.n);
}

/* Release series: the leading "N" or "N.N" of a version, else the whole. */
static char *
series(const char *v)
{
	size_t n = strspn(v, "0123456789");

	if (n == 0)
		return qe_xstrdup(v);
	if (v[n] == '.' && v[n + 1] >= '0' && v[n + 1] <= '9')
		n += 1 + strspn(v + n + 1, "0123456789");
	return qe_xstrndup(v, n);
}

static void
collect_packages(cJSON *envo, cJSON *facts_pkgs)
{
	struct qe_buf all = { 0 };
	char hex[QE_SHA256_HEX];
	cJSON *kept;
	size_t i;
	int lists = 0;

	if (conda_path != NULL && read_pkg_list(conda_path) == 0)
		lists++;
	if (pip_path != NULL && read_pkg_list(pip_path) == 0)
		lists++;
	if (lists == 0)
		return;
	pkg_settle();
	kept = qe_json_check(cJSON_CreateObject());
	for (i = 0; i < npkgs; i++) {
		int key = is_key(pkgs[i].name);

		qe_buf_adds(&all, pkgs[i].name);
		qe_buf_adds(&all, "==");
		qe_buf_adds(&all, pkgs[i].version);
		qe_buf_addc(&all, '\n');
		if (aflag || key || in_list(pkgs[i].name, build_tools, NELEM(build_tools)))
			add_str(kept, pkgs[i].name, pkgs[i].version);
		if (key) {
			char *s = series(pkgs[i].version);

			add_str(facts_pkgs, pkgs[i].name, s);
			free(s);
		}
	}
	add_item(envo, "packages", kept);
	add_num(envo, "package_count", (double)npkgs);
	qe_sha256_hex(all.data ? all.data : "", all.len, hex);
	add_str(envo, "packages_sha256", hex);
	qe_buf_free(&all);
}

static void
collect_files(cJSON *envo)
{
	cJSON *files = qe_json_check(cJSON_CreateArray());
	struct qe_buf raw = { 0 };
	size_t i, j;

	for (i = 0; i < env_files.n; i++) {
		char hex[QE_SHA256_HEX];
		unsigned char d[32];
		cJSON *f;

		for (j = 0; j < i; j++)		/* hashFiles() matches a file once */
			if (strcmp(env_files.v[i], env_files.v[j]) == 0)
				break;
		if (j < i)
			continue;
		if (!is_utf8(env_files.v[i])) {
			warnx("%s: file name is not UTF-8", env_files.v[i]);
			trouble = 1;
			continue;
		}
		if (qe_sha256_file(env_files.v[i], hex, d) < 0) {
			warn("%s", env_files.v[i]);
			trouble = 1;
			continue;
		}
		f = qe_json_check(cJSON_CreateObject());
		add_str(f, "path", env_files.v[i]);
		add_str(f, "sha256", hex);
		cJSON_AddItemToArray(files, f);
		qe_buf_add(&raw, d, sizeof d);
	}
	if (raw.len > 0) {
		char hex[QE_SHA256_HEX];

		add_item(envo, "files", files);
		qe_sha256_hex(raw.data, raw.len, hex);
		add_str(envo, "hash_files", hex);
	} else
		cJSON_Delete(files);
	qe_buf_free(&raw);
}

static void
collect_marker(cJSON *envo)
{
	const char *path = marker_path ? marker_path : MARKER_DEFAULT;
	struct qe_buf b = { 0 };
	char *line, *save = NULL;
	cJSON *m;

	if (slurp(path, &b) < 0) {
		if (marker_path != NULL) {
			warn("%s", path);
			trouble = 1;
		}
		qe_buf_free(&b);
		return;
	}
	m = qe_json_check(cJSON_CreateObject());
	for (line = strtok_r(b.data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '='), *k;

		if (eq == NULL || *(k = trim(line)) == '#')
			continue;
		*eq = '\0';
		k = trim(line);
		if (*k == '\0')
			continue;
		cJSON_DeleteItemFromObjectCaseSensitive(m, k);
		add_str(m, k, trim(eq + 1));
	}
	add_group(envo, "marker", m);
	qe_buf_free(&b);
}

static void
collect_variables(cJSON *envo)
{
	cJSON *vars = qe_json_check(cJSON_CreateObject());

	for (size_t i = 0; i < var_names.n; i++) {
		const char *v = getenv(var_names.v[i]);

		if (v != NULL && cJSON_GetObjectItemCaseSensitive(vars, var_names.v[i]) == NULL)
			add_str(vars, var_names.v[i], v);
	}
	add_group(envo, "variables", vars);
}

/* ---- the descriptor ---------------------------------------------------------- */

static char *
print(const cJSON *o)
{
	char *s = cJSON_PrintUnformatted(o);

	if (s == NULL)
		qe_json_check(NULL);
	return s;
}

static cJSON *
collect(void)
{
	cJSON *d = qe_json_check(cJSON_CreateObject());
	cJSON *facts = qe_json_check(cJSON_CreateObject());
	cJSON *fpkgs = qe_json_check(cJSON_CreateObject());
	cJSON *run, *envo, *gpu, *names, *g;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	char *cls = NULL, *cpu = NULL, *s, hex[QE_SHA256_HEX];
	struct qe_time now;
	char tbuf[QE_TIME_BUFSZ];

	qe_time_now(&now);
	add_str(d, "tool", "qe-stamp " QE_VERSION);
	add_group(d, "source", collect_source());
	add_item(d, "run", run = collect_run());
	add_item(d, "runner", collect_runner(ncpu, &cls));
	add_item(d, "hardware", collect_hardware(ncpu, &cpu, &gpu));
	envo = qe_json_check(cJSON_CreateObject());
	collect_files(envo);
	collect_packages(envo, fpkgs);
	collect_marker(envo);
	collect_variables(envo);
	add_group(d, "environment", envo);

	add_str(facts, "runner_class", cls);
	add_str(facts, "cpu_model", cpu);
	if (gpu != NULL) {
		names = qe_json_check(cJSON_CreateArray());
		cJSON_ArrayForEach(g, gpu)
			cJSON_AddItemToArray(names, qe_json_check(cJSON_CreateString(qe_json_str(g, "name"))));
		add_item(facts, "gpus", names);
	}
	add_group(facts, "packages", fpkgs);
	s = print(facts);
	qe_sha256_hex(s, strlen(s), hex);
	free(s);
	hex[16] = '\0';
	add_str(d, "fingerprint", hex);
	add_item(d, "fingerprint_facts", facts);

	/* the digest leaves out the one fact that differs between identical builds */
	s = print(d);
	qe_sha256_hex(s, strlen(s), hex);
	free(s);
	add_str(run, "stamped_at", qe_time_format(&now, tbuf));
	add_str(d, "descriptor_sha256", hex);
	free(cls);
	free(cpu);
	return d;
}

/* ---- the filter -------------------------------------------------------------- */

/*
 * Print rec into outbuf, leaving room for the provenance after it. cJSON may
 * need a few bytes more than it prints, hence the margin.
 */
static void
print_record(cJSON *rec)
{
	for (;;) {
		if (outcap > stamp_len + 16) {
			size_t room = outcap - stamp_len - 8;

			if (room > INT32_MAX)
				room = INT32_MAX;
			if (cJSON_PrintPreallocated(rec, outbuf, (int)room, 0))
				return;
			if (room == INT32_MAX)
				qe_json_check(NULL);
		}
		outcap = outcap > 0 ? outcap * 2 : stamp_len + 65536;
		outbuf = qe_xrealloc(outbuf, outcap);
	}
}

static int
stamp(cJSON *rec, const char *file, long line, void *ctx)
{
	cJSON *old;
	size_t n;

	(void)ctx;
	while ((old = cJSON_GetObjectItemCaseSensitive(rec, "provenance")) != NULL) {
		if (!Rflag) {
			warnx("%s:%ld: record already stamped", file, line);
			return -1;
		}
		cJSON_DeleteItemFromObjectCaseSensitive(rec, "provenance");
	}
	print_record(rec);
	n = strlen(outbuf);
	if (n == 2) {		/* {} */
		memcpy(outbuf + 1, stamp_tail + 1, stamp_len - 1);
		n = stamp_len;
	} else {
		memcpy(outbuf + n - 1, stamp_tail, stamp_len);
		n += stamp_len - 1;
	}
	qe_emit_line(outbuf, n);
	return 0;
}

int
main(int argc, char *argv[])
{
	cJSON *desc;
	char *s;
	int ch, status;

	/* getopt's messages name argv[0]: the same short name as warnx's */
	argv[0] = (char *)qe_progname();
	while ((ch = getopt_long(argc, argv, "ac:df:hk:m:p:Rr:v:w:", longopts, NULL)) != -1)
		switch (ch) {
		case 'a':
			aflag = 1;
			break;
		case 'c':
			conda_path = optarg;
			break;
		case 'd':
			dflag = 1;
			break;
		case 'f':
			list_add(&env_files, optarg);
			break;
		case 'h':
			usage(stdout, QE_EXIT_OK);
		case 'k':
			for (char *p = optarg, *tok, *save = NULL; (tok = strtok_r(p, ",", &save)); p = NULL)
				if (*(tok = trim(tok)) != '\0')
					list_add(&key_names, pkg_norm(tok));
			break;
		case 'm':
			marker_path = optarg;
			break;
		case 'p':
			pip_path = optarg;
			break;
		case 'R':
			Rflag = 1;
			break;
		case 'r':
			if (*optarg == '\0') {
				warnx("empty runner class");
				usage(stderr, QE_EXIT_TROUBLE);
			}
			runner_arg = optarg;
			break;
		case 'v':
			if (*optarg == '\0' || strchr(optarg, '=') != NULL) {
				warnx("'%s': not a variable name", optarg);
				usage(stderr, QE_EXIT_TROUBLE);
			}
			list_add(&var_names, optarg);
			break;
		case 'w':
			workspace = optarg;
			break;
		case OPT_MAX_LINE:
			if (qe_set_max_line(optarg) < 0)
				usage(stderr, QE_EXIT_TROUBLE);
			break;
		case OPT_VERSION:
			printf("qe-stamp %s\n", QE_VERSION);
			return qe_finish(QE_EXIT_OK);
		default:
			usage(stderr, QE_EXIT_TROUBLE);
		}
	argc -= optind;
	argv += optind;
	if (dflag && argc > 0) {
		warnx("--describe reads no input");
		usage(stderr, QE_EXIT_TROUBLE);
	}

	desc = collect();
	s = print(desc);
	if (dflag) {
		struct qe_buf b = { 0 };

		qe_buf_adds(&b, "{\"kind\":\"provenance\",\"schema_version\":1");
		if (s[1] != '}')
			qe_buf_addc(&b, ',');
		qe_buf_adds(&b, s + 1);
		qe_emit_line(b.data, b.len);
		qe_buf_free(&b);
		status = QE_EXIT_OK;
	} else {
		struct qe_buf b = { 0 };

		qe_buf_adds(&b, ",\"provenance\":");
		qe_buf_adds(&b, s);
		qe_buf_addc(&b, '}');
		stamp_tail = b.data;
		stamp_len = b.len;
		status = qe_each_record(argc, argv, stamp, NULL);
		qe_buf_free(&b);
	}
	free(s);
	cJSON_Delete(desc);
	free(outbuf);
	for (size_t i = 0; i < npkgs; i++) {
		free(pkgs[i].name);
		free(pkgs[i].version);
	}
	free(pkgs);
	for (size_t i = 0; i < key_names.n; i++)
		free((char *)key_names.v[i]);
	free(key_names.v);
	free(env_files.v);
	free(var_names.v);
	if (trouble)
		status = QE_EXIT_TROUBLE;
	return qe_finish(status);
}
