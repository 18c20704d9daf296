/*
 * qe_evidence.h - QuantEcon's evaluation files from our measurements
 * (qe-sweep --evidence DIR): per lecture DIR/LECTURE/evidence.json, whose
 * quantitative correctness and efficiency slots their unmodified score.py
 * reads, and DIR/LECTURE/results/env.json, a superset of their env_stamp.py.
 * The mapping, slot by slot (qe-sweep(1), EVIDENCE):
 *
 *   correctness.builds             every run of the new version finished (notebook status ok)
 *   correctness.max_delta_shipped  the largest max_abs of the values compared (qe-cell-diff's
 *                                  fidelity of base against head); null when none were compared
 *   correctness.matches_under_x64  the x64 arms' fidelity (--x64 FILE: qe-cell-diff --arms of
 *                                  the two x64 arms) is not "differ"; without one, the shipped
 *                                  fidelity's
 *   efficiency.as_used_runs        per-run speedups, base run i / head run i (cells_seconds,
 *                                  paired by replicate number)
 *   efficiency.as_used_speedup     median base / median head
 *   efficiency.baseline_as_used_seconds  the median of the base runs
 *   efficiency.correct_or_fixable  the fidelity is not "differ"
 *   readability, ergonomics, structural  the template's placeholders: an author's judgement,
 *                                  not measured here (their source says so)
 *   env.json python                the kernel's language_version; platform, machine: the
 *                                  stamp's runner (os-kernel-arch-with-distro, arch); numpy,
 *                                  jax, jaxlib, quantecon and every other module: kernel_env;
 *                                  threads, jax_x64, runner_class, cpu_model, logical_cpus,
 *                                  memory_bytes, fingerprint; steps_failed: the failed runs
 * Records of runs at a sweep's sizes and of arms past the first two are
 * not as-used runs and are passed over.
 *
 * Invariants: the struct owns what it holds; files are written whole or
 * the trouble is said ("prog: path: reason") and counted.
 */
#ifndef QE_EVIDENCE_H
#define QE_EVIDENCE_H

#include <cjson/cJSON.h>

struct qe_evidence {
	cJSON *docs;   /* document -> what was read of it */
	int x64;       /* reading --x64's stream */
};

void qe_evidence_init(struct qe_evidence *ev);

/* A qe_record_fn: notebook, notebook-diff and provenance-carrying records; others pass. */
int qe_evidence_take(cJSON *rec, const char *file, long line, void *ctx);

/* The evidence.json and env.json objects of the i-th lecture (the caller owns them). */
cJSON *qe_evidence_json(const struct qe_evidence *ev, int i);
cJSON *qe_evidence_env(const struct qe_evidence *ev, int i);

/* Write every lecture's files under dir; 0, or -1 after saying what failed. */
int qe_evidence_write(const struct qe_evidence *ev, const char *dir);

void qe_evidence_free(struct qe_evidence *ev);

#endif /* QE_EVIDENCE_H */
