/*
 * qe_record.h - the record model every reader shares: the fields of a
 * notebook and a cell record that some reader reads, with their JSON type
 * (schema/notebook.json, schema/cell.json; tests/00-unit.bats checks each
 * against its schema), one check of a record's fields with one wording, a
 * cell's display name, and a machine's description.
 *
 * Invariants:
 *  - qe_record_fields is the one table: key, JSON type, the kinds it is a
 *    field of, the readers that read it (QE_RREAD_*) and its member id in
 *    the scanner (QE_RK_*, qe_recscan.h) or -1. null is always accepted.
 *  - a record is checked once, either on the scanner's struct (a line read
 *    by qe_recscan) or on a tree, by the same rule: the first member in the
 *    record's order of a wrong type (every occurrence of a repeated member
 *    counted) is reported as "FILE:LINE: KIND record with an invalid 'KEY'
 *    (not a string)".
 *  - the display name: "name" (qe-cache-extract decided it), else "label",
 *    else "first_line" (records written before names), else the caller's
 *    default.
 */
#ifndef QE_RECORD_H
#define QE_RECORD_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "qe_mem.h"
#include "qe_recscan.h"

enum { QE_RT_STR, QE_RT_NUM, QE_RT_BOOL, QE_RT_OBJ, QE_RT_ARR };
enum { QE_RKIND_NOTEBOOK = 1, QE_RKIND_CELL = 2 };
/* The readers: qe-cell-diff and qe-history add (the scanner's), qe-exec-status (a tree). */
enum { QE_RREAD_DIFF = 1, QE_RREAD_STATUS = 2 };

struct qe_record_field {
	const char *key;
	unsigned char type, kinds, readers;
	signed char id;			/* its QE_RK_*, or -1 when the scanner does not read it */
};

extern const struct qe_record_field qe_record_fields[];
extern const size_t qe_record_nfields;

/* "a string", "a number", "true or false", "an object", "an array". */
const char *qe_record_type_name(int type);

/* 1 when a member of type t (QE_JS_*) may be a field of type (QE_RT_*): null always may. */
int qe_record_type_ok(int t, int type);

/* The QE_JS_* type of a cJSON value. */
int qe_record_js_type(const cJSON *v);

/*
 * 1 (after the message above) when a field of `kind` (QE_RKIND_*) that
 * `reader` reads has the wrong type in the scanned line l; else 0.
 */
int qe_record_bad_line(const struct qe_recline *l, int kind, int reader, const char *what,
    const char *file, long line);

/* The same for a record tree. */
int qe_record_bad_tree(const cJSON *rec, int kind, int reader, const char *what,
    const char *file, long line);

/* The display name of a cell: name, else label, else first_line, else dflt (NULL or "" count as absent). */
const char *qe_record_name(const char *name, const char *label, const char *first_line, const char *dflt);

/* The same, from a record tree's members. */
const char *qe_record_name_of(const cJSON *rec, const char *dflt);

/*
 * A machine as a reader tells machines apart, the one description:
 * "RUNNER (CPU, N CPUs, M GB, GPU G)", each part when known (runner NULL:
 * the parts without parentheses); cpus and mem NaN when unknown, mem in
 * bytes. The strings go through text() (an escaper: the caller's format),
 * as they are when it is NULL.
 */
void qe_record_machine(struct qe_buf *b, const char *runner, const char *cpu, double cpus, double mem,
    const char *gpu, void (*text)(struct qe_buf *, const char *));

/* The same, plain, from a qe-stamp provenance (runner.class, else runner.distro; hardware). */
void qe_record_machine_of(struct qe_buf *b, const cJSON *prov);

/*
 * The vocabulary (qe_vocab_*): the one vocabulary of the records: verdicts, flags, statuses,
 * timing sources and the other enumerations of schema/. Every tool names
 * these words through the tables here, never by its own copy, and
 * tests/unit checks each table against the "enum" of schema/ it mirrors.
 *
 * Invariants:
 *  - a word's number is its position in its table and means nothing else:
 *    no code orders or compares words by number (ask a predicate here,
 *    such as qe_vocab_verdict_is_timed, instead).
 *  - qe_vocab_lookup() of a word that is not in the table is -1, never a
 *    neighbouring word: a reader decides what an unknown word means.
 *  - the tables are constant; nothing here allocates.
 *
 * Adding a word: add it to its enum and table here (in the same place in
 * both), to the schema's enum, and to the man page that explains it.
 */
struct qe_vocab {
	const char *what;		/* for messages: "verdict", "status", ... */
	const char *const *names;	/* n words */
	int n;
};

/* The number of `s` in `v`, or -1 when s is NULL or not one of its words. */
int qe_vocab_lookup(const struct qe_vocab *v, const char *s);

/* The word numbered i, or NULL when i is out of range. */
const char *qe_vocab_name(const struct qe_vocab *v, int i);

/* Verdicts of cell-diff and notebook-diff records (schema/diff.json). */
enum qe_verdict {
	QE_V_REGRESSION, QE_V_IMPROVEMENT, QE_V_UNCHANGED, QE_V_INCONCLUSIVE,
	QE_V_NEW, QE_V_REMOVED, QE_V_NOTIMING, QE_V_NOTCOMPARABLE, QE_V_CACHED,
	QE_V_FAILED, QE_V_NEWLYFAILED, QE_NVERDICTS
};
extern const struct qe_vocab qe_vocab_verdicts;
/* How a reader says each verdict: "slower", "faster", "not re-executed". */
extern const struct qe_vocab qe_vocab_verdict_words;
/* 1 for the verdicts a timing comparison produced, 0 for the others. */
int qe_vocab_verdict_is_timed(int v);

/* Flags of diff records: bit (1 << QE_F_x) in a flag set. */
enum qe_flag {
	QE_F_SOURCE, QE_F_UPSTREAM, QE_F_OUTPUT, QE_F_STATUS, QE_F_NOTCOMP, QE_F_MAIN,
	QE_F_IGNORED, QE_F_COMPILE, QE_F_MEMORY, QE_F_PRECISION, QE_F_RECOMPILE, QE_F_SPEED, QE_NFLAGS
};
#define QE_FLAG(f) (1u << (f))
extern const struct qe_vocab qe_vocab_flags;

/* A variable's fidelity verdict, and a lecture's answer (schema/diff.json, qe_fidelity.h). */
enum qe_fid_verdict { QE_FV_SAME, QE_FV_DIFFER, QE_FV_SHAPE, QE_FV_MISSING, QE_FV_NOTCOMPARED };
extern const struct qe_vocab qe_vocab_fidelity;
enum qe_fid_answer { QE_FA_SAME, QE_FA_DIFFER, QE_FA_PRECISION, QE_FA_NOTCOMPARED };
extern const struct qe_vocab qe_vocab_fidelity_answers;

/*
 * A scaling sweep's crossover state, and which side a swept size is
 * clearly on (schema/sweep.json: crossover.state, points[].clear; the rule
 * is qe_scalefit_crossover's).
 */
enum qe_crossover {
	QE_CX_WINS_ABOVE, QE_CX_LOSES_ABOVE, QE_CX_WINS_THROUGHOUT, QE_CX_LOSES_THROUGHOUT,
	QE_CX_REPEATEDLY, QE_CX_TOO_FEW, QE_NCROSSOVERS
};
extern const struct qe_vocab qe_vocab_crossovers;
enum qe_sweep_clear { QE_SC_HEAD_FASTER, QE_SC_HEAD_SLOWER, QE_SC_OVERLAP, QE_NSWEEP_CLEAR };
extern const struct qe_vocab qe_vocab_sweep_clear;

/*
 * Triage (qe-sweep --triage, schema/sweep.json: triage): the kinds of
 * as-used time, the decision and the rule that bound it.
 */
enum qe_time_kind { QE_TK_COMPILE, QE_TK_LIBRARY, QE_TK_PYTHON, QE_TK_JITTED, QE_TK_OTHER, QE_NTIME_KINDS };
extern const struct qe_vocab qe_vocab_time_kinds;
enum qe_triage_decision { QE_TR_NO_CONVERSION, QE_TR_WORTH, QE_NTRIAGE };
extern const struct qe_vocab qe_vocab_triage;
enum qe_triage_binding { QE_TB_FLOOR, QE_TB_CEILING, QE_TB_ADDR_FLOOR, QE_TB_ADDRESSABLE, QE_NTRIAGE_BINDING };
extern const struct qe_vocab qe_vocab_triage_binding;

/* A code cell's status (schema/cell.json). */
enum qe_cell_status { QE_ST_OK, QE_ST_ERROR, QE_ST_SKIPPED, QE_ST_NOTRUN, QE_NCELL_STATUSES };
extern const struct qe_vocab qe_vocab_cell_statuses;

/* A notebook's status (schema/notebook.json). */
enum qe_nb_status { QE_NB_OK, QE_NB_FAILED, QE_NNB_STATUSES };
extern const struct qe_vocab qe_vocab_nb_statuses;

/* Where a cell's duration came from (schema/common.json; "other" in diffs). */
enum qe_timing_source {
	QE_TS_HOOK, QE_TS_NBCLIENT, QE_TS_JUPYTERLAB, QE_TS_PAPERMILL,
	QE_TS_EXECUTETIME, QE_TS_OTHER, QE_NTIMING_SOURCES
};
extern const struct qe_vocab qe_vocab_timing_sources;

/* Which pair of stamps gave a duration (schema/cell.json timing_method). */
enum qe_timing_method {
	QE_TM_INKERNEL, QE_TM_INPUTREPLY, QE_TM_STARTEDREPLY, QE_TM_BUSYIDLE,
	QE_TM_DURATION, QE_TM_STARTEND, QE_NTIMING_METHODS
};
extern const struct qe_vocab qe_vocab_timing_methods;

/* Why a duration is null or approximate (schema/cell.json timing_note). */
enum qe_timing_note {
	QE_TN_SKIPPED, QE_TN_NOTEXECUTED, QE_TN_STALE, QE_TN_NOTIMING,
	QE_TN_INVALID, QE_TN_APPROXIMATE, QE_TN_AMBIGUOUS, QE_NTIMING_NOTES
};
extern const struct qe_vocab qe_vocab_timing_notes;

/* Whether the build being measured made a record (schema/common.json). */
enum qe_origin { QE_ORIGIN_EXECUTED, QE_ORIGIN_INHERITED, QE_NORIGINS };
extern const struct qe_vocab qe_vocab_origins;
/* What an execution status document says of an origin, in qe_vocab_origins' order (schema/execution-status.json). */
extern const struct qe_vocab qe_vocab_executions;
/* Where a status document's entry has its times from (schema/execution-status.json times.from). */
enum qe_times_from { QE_TF_THIS_BUILD, QE_TF_STORED_REPORT, QE_TF_CACHE, QE_NTIMES_FROM };
extern const struct qe_vocab qe_vocab_times_from;

/* The replicate test's answer (schema/diff.json test.answer). */
enum qe_answer { QE_A_REGRESSED, QE_A_IMPROVED, QE_A_SAME, QE_A_INCONCLUSIVE, QE_NANSWERS };
extern const struct qe_vocab qe_vocab_answers;

/* Which route decided a notebook's timed verdict (schema/diff.json verdict_rule). */
enum qe_verdict_rule { QE_R_CELLS, QE_R_SUM, QE_NVERDICT_RULES };
extern const struct qe_vocab qe_vocab_verdict_rules;

/* What the runner factor says of the two builds' machine speed (schema/diff.json diff-summary speed;
 * the rule is qe_verdict_speed_state, lib/diff/qe_verdict.c). */
enum qe_speed { QE_SP_NONE, QE_SP_STEADY, QE_SP_FEW, QE_SP_MIXED, QE_SP_REPLICATES, QE_SP_DIFFERS,
	QE_SP_BROAD_SLOWER, QE_SP_BROAD_FASTER, QE_NSPEEDS };
extern const struct qe_vocab qe_vocab_speeds;

/* qe-history (schema/history.json): a build's series, a row's level, what
 * add did with a report, what differs in provenance at a change, compare's
 * --by and its answer. */
enum qe_series { QE_SER_MAIN, QE_SER_PR, QE_SER_BRANCH, QE_NSERIES };
extern const struct qe_vocab qe_vocab_series_words;
enum qe_level { QE_LV_BUILD, QE_LV_LECTURE, QE_LV_CELL, QE_NLEVELS };
extern const struct qe_vocab qe_vocab_levels;
enum qe_add_result { QE_ADD_ADDED, QE_ADD_PRESENT, QE_ADD_REPLACED, QE_NADD_RESULTS };
extern const struct qe_vocab qe_vocab_add_results;
enum qe_prov_what { QE_PW_PACKAGE, QE_PW_RUNNER, QE_PW_ENVFILE, QE_PW_FINGERPRINT, QE_NPROV_WHATS };
extern const struct qe_vocab qe_vocab_prov_whats;
enum qe_compare_by { QE_BY_PACKAGE, QE_BY_FINGERPRINT, QE_BY_ENVFILE, QE_BY_ENVIRONMENT, QE_NCOMPARE_BYS };
extern const struct qe_vocab qe_vocab_compare_bys;
enum qe_moved { QE_MV_SLOWER, QE_MV_FASTER, QE_MV_SAME, QE_MV_UNKNOWN, QE_MV_MACHINE, QE_MV_MOVED,
	QE_MV_NOTHING, QE_NMOVED };
extern const struct qe_vocab qe_vocab_moves;
/* qe-history changes: why a step happened (lib/history/qe_hchanges.c) */
enum qe_cause { QE_CAUSE_EDIT, QE_CAUSE_ENV, QE_CAUSE_RUNNER, QE_CAUSE_KERNEL, QE_CAUSE_UNEXPLAINED, QE_NCAUSES };
extern const struct qe_vocab qe_vocab_causes;

/* Whether base and head ran on the same machines (schema/diff.json
 * diff-summary machines): a reader writes only these words, never the
 * record's own string. */
enum qe_machines { QE_MA_SAME, QE_MA_DIFFERENT, QE_MA_UNKNOWN, QE_NMACHINES };
extern const struct qe_vocab qe_vocab_machines;

/*
 * What executed a side's documents (diff summary's engines): a notebook
 * record's "engine" (mystmd), else jupyter-cache for input cache.
 */
enum qe_engine { QE_EN_JCACHE, QE_EN_MYSTMD, QE_NENGINES };
extern const struct qe_vocab qe_vocab_engines;

/* Which version a qe-replicate record ran (schema/common.json version). */
enum qe_version { QE_VER_BASE, QE_VER_HEAD, QE_NVERSIONS };
extern const struct qe_vocab qe_vocab_versions;

/* Every table above, NULL-terminated, for the check against schema/. */
extern const struct qe_vocab *const qe_vocabularies[];

/*
 * 1 for the verdicts a cell-diff record can have: every verdict but
 * "cached", "failed" and "newly-failed", which only a notebook gets.
 */
int qe_vocab_verdict_is_cell(int v);

/* 1 for "failed" (in base and head) and "newly-failed" (in head only). */
int qe_vocab_verdict_is_failure(int v);

/*
 * 1 when durations from timing sources a and b measure the same thing:
 * the same source, or nbclient and JupyterLab (which write the same
 * keys). -1 (no source) is comparable with itself only.
 */
int qe_vocab_timing_sources_comparable(int a, int b);

#endif /* QE_RECORD_H */
