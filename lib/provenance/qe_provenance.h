/*
 * qe_provenance.h - the provenance descriptor: which commit was built, by
 * which run, on what runner and hardware, in what environment (files,
 * packages, the image marker, named variables), and a short fingerprint of
 * the facts that make two timings comparable.
 *
 * Invariants:
 *  - the descriptor is collected once per process and is the same for
 *    every record; its members come in a fixed order (tool, source, run,
 *    runner, hardware, environment, fingerprint, fingerprint_facts,
 *    descriptor_sha256), and a group with nothing known is left out.
 *  - fingerprint = the first 16 hex digits of SHA-256 of the compact
 *    fingerprint_facts {runner_class, cpu_model, gpus (names), packages
 *    (key package -> release series)}; descriptor_sha256 = SHA-256 of the
 *    compact descriptor before run.stamped_at and descriptor_sha256 were
 *    added, so identical builds have identical digests.
 *  - run.build_id = "<repository>/<run_id>/<run_attempt>" when the run
 *    has all three (one per attempt of a workflow run; the jobs of a run,
 *    matrix legs included, share it); run.started_at is the build's start
 *    as the caller gave it. Both are in descriptor_sha256.
 *  - nothing is copied from the environment but the facts documented and
 *    the variables named (p->vars): no secret can leak by accident.
 *  - a source the caller named (env file, package list, marker) that
 *    cannot be read is reported ("prog: path: why"), counted in
 *    p->unreadable and left out; the caller decides the exit status.
 *  - struct qe_provenance belongs to the caller: zero-initialise it, fill
 *    the option fields (their strings are borrowed and must outlive the
 *    collection), release it with qe_provenance_free().
 */
#ifndef QE_PROVENANCE_H
#define QE_PROVENANCE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "qe_packages.h"
#include "qe_sha.h"
#include "qe_time.h"

#define QE_MARKER_DEFAULT	"/etc/quantecon-container"

/* A list of borrowed strings (option arguments). */
struct qe_names {
	const char **v;
	size_t n;
};

/* Append s (not copied) to l. */
void qe_provenance_names_add(struct qe_names *l, const char *s);

struct qe_provenance {
	const char *tool;	/* "qe-stamp 0.1.0": who made the descriptor */
	const char *conda_path;	/* `conda list --json` output, or NULL */
	const char *pip_path;	/* `pip list --format=json` output, or NULL */
	const char *python_version;	/* the build's Python, or NULL (package "python") */
	const struct qe_time *started;	/* the build's start (run.started_at), or NULL */
	const char *marker_path;	/* NULL: QE_MARKER_DEFAULT, quietly optional */
	const char *runner_label;	/* runner class as given, or NULL: derived */
	const char *workspace;	/* the checkout, or NULL: $GITHUB_WORKSPACE or "." */
	struct qe_names files;	/* environment files to digest, in order */
	struct qe_names vars;	/* variables to copy */
	struct qe_pkgs pkgs;	/* set its keys and `all`; filled by the collection */
	int unreadable;		/* out: named sources that could not be read */
};

/*
 * Collect the descriptor; run.stamped_at is now. The caller owns the
 * object (cJSON_Delete). Never NULL.
 */
cJSON *qe_provenance_collect(struct qe_provenance *p);

/*
 * The descriptor as a record of its own, {"kind":"provenance",
 * "schema_version":1, ...its members}. Takes the members of desc, which is
 * freed; the caller owns the record.
 */
cJSON *qe_provenance_record(cJSON *desc);

/*
 * GitHub's hashFiles() of the files listed in `files`, an array of objects
 * whose "sha256" is each file's digest (64 hex digits): SHA-256 over the
 * raw 32-byte digests, in order. Returns 0, or -1 (out untouched) when the
 * list is empty or an entry has no such digest.
 */
int qe_provenance_hash_files(const cJSON *files, char out[QE_SHA256_HEX]);

/*
 * The image marker's KEY=VALUE lines (text edited in place) as an object:
 * blanks around key and value dropped, '#' lines, lines without '=' and
 * empty keys skipped, a later key replacing an earlier one (a later value
 * that is not UTF-8 removes it), values that are not UTF-8 left out. Never
 * NULL; may be empty.
 */
cJSON *qe_provenance_marker_parse(char *text);

/* Free what p holds (not the borrowed strings); p can be reused zeroed. */
void qe_provenance_free(struct qe_provenance *p);

#endif /* QE_PROVENANCE_H */
