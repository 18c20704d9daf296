/*
 * Unit driver for lib/provenance/qe_runner.c: the runner class rules and the parsers
 * of os-release, /proc/cpuinfo, /proc/meminfo and nvidia-smi's CSV.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "provenance/qe_runner.h"

static void
add_or_null(struct qe_buf *out, char *s)
{
	qe_buf_adds(out, s ? s : "(null)");
	free(s);
}

/* The value, printed, then deleted. */
static void
add_json(struct qe_buf *out, cJSON *o)
{
	unit_add_json(out, o);
	cJSON_Delete(o);
}

static void
class_given(const char *in, size_t n, struct qe_buf *out)
{
	(void)n;
	add_or_null(out, qe_runner_class_given(in));
}

/* "HOSTED DISTRO SYSNAME NCPU IN_ACTIONS", '-' for NULL. */
static void
class_derived(const char *in, size_t n, struct qe_buf *out)
{
	char h[64], d[64], s[64];
	long ncpu;
	int act;

	(void)n;
	if (sscanf(in, "%63s %63s %63s %ld %d", h, d, s, &ncpu, &act) != 5) {
		qe_buf_adds(out, "bad case");
		return;
	}
	add_or_null(out, qe_runner_class_derived(strcmp(h, "-") ? h : NULL,
	    strcmp(d, "-") ? d : NULL, strcmp(s, "-") ? s : NULL, ncpu, act));
}

static void
os_release(const char *in, size_t n, struct qe_buf *out)
{
	char *t = qe_xstrndup(in, n);

	add_or_null(out, qe_runner_os_release_distro(t));
	free(t);
}

static void
cpuinfo(const char *in, size_t n, struct qe_buf *out)
{
	char *t = qe_xstrndup(in, n);

	add_or_null(out, qe_runner_cpuinfo_model(t));
	free(t);
}

static void
meminfo(const char *in, size_t n, struct qe_buf *out)
{
	(void)n;
	unit_add_double(out, qe_runner_meminfo_total(in));
}

static void
gpus(const char *in, size_t n, struct qe_buf *out)
{
	char *t = qe_xstrndup(in, n);

	add_json(out, qe_runner_gpus_parse(t));
	free(t);
}

static const struct unit_fn fns[] = {
	{ "class-given", class_given },
	{ "class-derived", class_derived },
	{ "os-release", os_release },
	{ "cpuinfo", cpuinfo },
	{ "meminfo", meminfo },
	{ "gpus", gpus },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
