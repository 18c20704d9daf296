/* The words of the records, once (qe_vocab.h). */
#include <string.h>

#include "qe_vocab.h"

#define TABLE(name, what, ...) \
	static const char *const name##_words[] = { __VA_ARGS__ }; \
	const struct qe_vocab name = { what, name##_words, \
		(int)(sizeof name##_words / sizeof name##_words[0]) }

TABLE(qe_vocab_verdicts, "verdict", "regression", "improvement", "unchanged", "inconclusive",
    "new", "removed", "no-timing", "not-comparable", "cached", "failed", "newly-failed");
TABLE(qe_vocab_verdict_words, "verdict word", "slower", "faster", "unchanged", "unclear",
    "new", "removed", "no timing", "not comparable", "not re-executed", "still failing",
    "newly failing");
TABLE(qe_vocab_flags, "flag", "source-changed", "upstream-changed", "output-changed",
    "status-changed", "not-comparable", "changed-on-main", "ignored", "compile-time-regression",
    "memory-growth", "precision-loss", "recompiles");
TABLE(qe_vocab_cell_statuses, "cell status", "ok", "error", "skipped", "not-run");
TABLE(qe_vocab_nb_statuses, "notebook status", "ok", "failed");
TABLE(qe_vocab_timing_sources, "timing source", "hook", "nbclient", "jupyterlab", "papermill",
    "executetime", "other");
TABLE(qe_vocab_timing_methods, "timing method", "in-kernel", "input-reply", "started-reply",
    "busy-idle", "duration", "start-end");
TABLE(qe_vocab_timing_notes, "timing note", "skipped", "not-executed", "stale", "no-timing",
    "invalid", "approximate", "ambiguous");
TABLE(qe_vocab_origins, "origin", "executed", "inherited");
TABLE(qe_vocab_executions, "execution", "executed", "cached");
TABLE(qe_vocab_times_from, "times from", "this-build", "stored-report", "cache");
TABLE(qe_vocab_answers, "answer", "regressed", "improved", "same", "inconclusive");
TABLE(qe_vocab_verdict_rules, "verdict rule", "cells", "sum");
TABLE(qe_vocab_series_words, "series", "main", "pull-request", "branch");
TABLE(qe_vocab_levels, "level", "build", "lecture", "cell");
TABLE(qe_vocab_add_results, "add result", "added", "present", "replaced");
TABLE(qe_vocab_prov_whats, "provenance change", "package", "runner-class", "env-file", "fingerprint");
TABLE(qe_vocab_compare_bys, "compare by", "package", "fingerprint", "env-file", "environment");
TABLE(qe_vocab_moves, "moved", "slower", "faster", "same", "unknown", "machine", "moved", "nothing");
TABLE(qe_vocab_causes, "cause", "edit", "environment", "runner", "kernel", "unexplained");
TABLE(qe_vocab_versions, "version", "base", "head");
TABLE(qe_vocab_machines, "machines", "same", "different", "unknown");
TABLE(qe_vocab_crossovers, "crossover", "head-wins-above", "head-loses-above", "head-wins-throughout",
    "head-loses-throughout", "crosses-repeatedly", "too-few-sizes");
TABLE(qe_vocab_sweep_clear, "sweep clear", "head-faster", "head-slower", "overlap");
TABLE(qe_vocab_fidelity, "fidelity verdict", "same", "differ", "shape-changed", "missing", "not-compared");
TABLE(qe_vocab_fidelity_answers, "fidelity answer", "same", "differ", "precision-loss", "not-compared");
TABLE(qe_vocab_time_kinds, "time kind", "compile", "library", "python", "jitted", "other");
TABLE(qe_vocab_triage, "triage", "no-conversion", "worth-a-candidate");
TABLE(qe_vocab_triage_binding, "triage binding", "floor", "ceiling", "addressable-floor", "addressable");

const struct qe_vocab *const qe_vocabularies[] = {
	&qe_vocab_verdicts, &qe_vocab_verdict_words, &qe_vocab_flags, &qe_vocab_cell_statuses, &qe_vocab_nb_statuses,
	&qe_vocab_timing_sources, &qe_vocab_timing_methods, &qe_vocab_timing_notes, &qe_vocab_origins, &qe_vocab_executions,
	&qe_vocab_times_from, &qe_vocab_answers,
	&qe_vocab_verdict_rules, &qe_vocab_series_words, &qe_vocab_levels, &qe_vocab_add_results, &qe_vocab_prov_whats,
	&qe_vocab_compare_bys, &qe_vocab_moves, &qe_vocab_causes, &qe_vocab_versions, &qe_vocab_machines,
	&qe_vocab_fidelity, &qe_vocab_fidelity_answers, &qe_vocab_crossovers, &qe_vocab_sweep_clear,
	&qe_vocab_time_kinds, &qe_vocab_triage, &qe_vocab_triage_binding, NULL
};

int
qe_vocab_lookup(const struct qe_vocab *v, const char *s)
{
	if (s == NULL)
		return -1;
	for (int i = 0; i < v->n; i++)
		if (strcmp(s, v->names[i]) == 0)
			return i;
	return -1;
}

const char *
qe_vocab_name(const struct qe_vocab *v, int i)
{
	return i >= 0 && i < v->n ? v->names[i] : NULL;
}

int
qe_vocab_verdict_is_timed(int v)
{
	switch (v) {
	case QE_V_REGRESSION:
	case QE_V_IMPROVEMENT:
	case QE_V_UNCHANGED:
	case QE_V_INCONCLUSIVE:
		return 1;
	default:
		return 0;
	}
}

int
qe_vocab_verdict_is_cell(int v)
{
	return v >= 0 && v < QE_NVERDICTS && v != QE_V_CACHED && !qe_vocab_verdict_is_failure(v);
}

int
qe_vocab_verdict_is_failure(int v)
{
	return v == QE_V_FAILED || v == QE_V_NEWLYFAILED;
}

static int
nbclient_keys(int ts)
{
	return ts == QE_TS_NBCLIENT || ts == QE_TS_JUPYTERLAB;
}

int
qe_vocab_timing_sources_comparable(int a, int b)
{
	return a == b || (nbclient_keys(a) && nbclient_keys(b));
}
