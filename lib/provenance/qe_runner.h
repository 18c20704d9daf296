/*
 * qe_runner.h - the machine a build ran on: the runner (OS, distribution,
 * kernel, CI runner name and image, its class) and its hardware (CPU
 * model, logical and usable CPUs, memory, NVIDIA GPUs).
 *
 * Invariants:
 *  - facts are read from the machine (uname, /etc/os-release, /proc, the
 *    CPU affinity mask, nvidia-smi) and the runner's environment variables;
 *    what cannot be read is left out (qe_facts.h), nothing is printed and
 *    nothing here fails but for out of memory.
 *  - the parsers (qe_runner_os_release_distro, qe_runner_cpuinfo_model, qe_runner_meminfo_total,
 *    qe_runner_gpus_parse) and the class rules are pure: text in, fact out, so
 *    they are tested on captured files.
 *  - a runner class names a kind of machine, never one run: RunsOn's
 *    "runs-on=<run id>" part is dropped from a label.
 *  - returned strings and cJSON items are new; the caller frees them
 *    (free(), cJSON_Delete()), except as said for struct qe_machine.
 */
#ifndef QE_RUNNER_H
#define QE_RUNNER_H

#include <cjson/cJSON.h>

/* What the fingerprint needs of the machine, filled by the collectors. */
struct qe_machine {
	long ncpu;		/* online logical CPUs; <= 0 if unknown (set by caller) */
	char *class;		/* runner class or NULL; owned, qe_runner_machine_free() */
	char *cpu_model;	/* or NULL; owned, qe_runner_machine_free() */
	const cJSON *gpus;	/* the hardware object's "gpus" array, or NULL */
};

/*
 * The runner object {os, distro, kernel, arch, name, hosted, image,
 * image_version, class, label}. `label` is the class given with -r (NULL:
 * derive one); sets m->class.
 */
cJSON *qe_runner_collect(const char *label, struct qe_machine *m);

/*
 * The hardware object {cpu_model, logical_cpus, usable_cpus (only when the
 * affinity mask differs), memory_bytes, gpus}. Sets m->cpu_model and
 * m->gpus (which points into the returned object).
 */
cJSON *qe_runner_hardware_collect(struct qe_machine *m);

/* Free what the collectors put in m (not m itself). */
void qe_runner_machine_free(struct qe_machine *m);

/*
 * The class of a runner given by label: the label less its "runs-on=..."
 * parts ('/'-separated), or the whole label when nothing else is left.
 */
char *qe_runner_class_given(const char *label);

/*
 * A class derived from the facts, "HOSTED/OS/NcpU" with the unknown parts
 * left out: HOSTED is `hosted` ("github-hosted" or "self-hosted", or NULL),
 * else "local" when not in_actions; OS is the distro ("ubuntu-24.04"), else
 * the system name in lower case. NULL when nothing is known.
 */
char *qe_runner_class_derived(const char *hosted, const char *distro, const char *sysname,
    long ncpu, int in_actions);

/* "ID-VERSION_ID" of an os-release file's text (edited in place), or NULL. */
char *qe_runner_os_release_distro(char *text);

/* The first "model name" of /proc/cpuinfo's text (edited in place), blanks collapsed; or NULL. */
char *qe_runner_cpuinfo_model(char *text);

/* MemTotal of /proc/meminfo's text in bytes, or -1. */
double qe_runner_meminfo_total(const char *text);

/*
 * The GPUs of `nvidia-smi --query-gpu=name,memory.total,driver_version
 * --format=csv,noheader,nounits` output (edited in place): an array of
 * {name, memory_bytes, driver_version}, "[N/A]" values left out, lines that
 * are not three fields with a name skipped. Never NULL.
 */
cJSON *qe_runner_gpus_parse(char *csv);

#endif /* QE_RUNNER_H */
