/*
 * qe_evalmd.h - the evaluation harness's records (qe-sweep's sweep and
 * hotspot records) read back and written as the report's Markdown: the
 * recommendation first, then a findings table (fidelity and recompile rows
 * first, then the hotspot, the scaling), then the scaling table of each
 * lecture against its own size and the hotspots' top functions.
 *
 * Invariants:
 *  - rules are qe-sweep's (the recommendation sentence, the crossover, the
 *    shares, Amdahl): this module shows the records' numbers and words, it
 *    decides nothing but the layout.
 *  - curves of different machines are never set side by side without the
 *    warning that the machines differ, naming them.
 *  - every string from a record reaches the Markdown through qe_gfm.
 *  - the set owns the records it keeps (copies); qe_evalmd_free releases them.
 */
#ifndef QE_EVALMD_H
#define QE_EVALMD_H

#include <cjson/cJSON.h>

struct qe_buf;

struct qe_evalset {
	cJSON *sweeps;    /* sweep records, in input order (NULL: none yet) */
	cJSON *hotspots;  /* hotspot records */
};

/*
 * A qe_record_fn (qe_ndjson.h): keep rec when it is a sweep or hotspot
 * record (0), pass over any other kind (0); -1 after
 * "prog: file:line: reason" for one without a document.
 */
int qe_evalmd_record(cJSON *rec, const char *file, long line, void *set);

/* 1 when the set holds a record to show. */
int qe_evalmd_any(const struct qe_evalset *e);

/*
 * What to do, per lecture with a sweep (its total's recommendation), and
 * the warning when the curves come from more than one machine. Appends
 * nothing for an empty set.
 */
void qe_evalmd_recommend(struct qe_buf *b, const struct qe_evalset *e);

/*
 * The one machine of the sweeps, described into b (1), when they all ran
 * on one stamped machine; else 0 and nothing. The footer names it, once.
 */
int qe_evalmd_machine(struct qe_buf *b, const struct qe_evalset *e);

/* The findings table, the scaling tables, the hotspot tables. */
void qe_evalmd_sections(struct qe_buf *b, const struct qe_evalset *e);

void qe_evalmd_free(struct qe_evalset *e);

#endif /* QE_EVALMD_H */
