/*
 * qe_sweep.h - qe-replicate's records of a scaling sweep read into curves,
 * one per machine, lecture and cell (and one for the lecture's total), and
 * written back as sweep records: time and memory against size per version,
 * the speedup, the exponents, the crossover and the recommendation.
 *
 * Invariants:
 *  - a curve holds the runs of one machine only (provenance.fingerprint,
 *    "unstamped" without qe-stamp): two machines' runs are never pooled,
 *    and a machine's description travels with its curves.
 *  - the size axis is the first parameter of a record's `sweep`; it must be
 *    a positive number. A record that breaks that is reported as
 *    "prog: file:line: reason" and rejected; the other records flow.
 *  - only runs whose cell (or lecture) finished ("ok") are timings; the
 *    injected-parameters cell is the harness's own and never a curve.
 *  - the records read (profile records, timings outside a sweep) are kept
 *    for qe_hotspot; the struct owns everything it holds.
 */
#ifndef QE_SWEEP_H
#define QE_SWEEP_H

#include <stddef.h>

#include <cjson/cJSON.h>

struct qe_sweep_run {
	size_t curve;   /* index into curves */
	double x;       /* the size */
	int head;       /* 1 head, 0 base */
	double s;       /* seconds */
	double mem;     /* peak growth, bytes; NAN when not known */
};

struct qe_sweep_curve {
	char *machine, *document, *cell, *axis; /* cell NULL: the lecture's total */
	char *code[2];  /* each version's source digest; "" once two differ within a version */
};

struct qe_sweep {
	struct qe_sweep_run *runs;
	size_t nruns, capruns;
	struct qe_sweep_curve *curves;
	size_t ncurves, capcurves;
	cJSON *machines;  /* fingerprint -> its description */
	cJSON *own;       /* "fingerprint document" -> the lecture's own parameters */
	cJSON *profiles;  /* the profile records read */
	cJSON *timed;     /* "document version index" -> [seconds] outside a sweep */
	double ratio;     /* a change below this factor is no change (1.2) */
	double min_s;     /* a curve under this at every size is negligible (0.05 s) */
};

/*
 * The defaults of qe-sweep -r and -m (qe-sweep --defaults prints them): a
 * change below x1.2 is no change, as in qe-cell-diff's replicate rule, and a
 * curve under 50 ms at every size is noise.
 */
#define QE_SWEEP_RATIO 1.2
#define QE_SWEEP_MIN_S 0.05

/* An empty sweep with the recommendation's threshold `ratio` and the negligible time `min_s`. */
void qe_sweep_init(struct qe_sweep *sw, double ratio, double min_s);

/* A qe_record_fn (qe_ndjson.h): take one record of the stream. */
int qe_sweep_take(cJSON *rec, const char *file, long line, void *ctx);

/* The sweep record of curve c (the caller owns it). */
cJSON *qe_sweep_record(const struct qe_sweep *sw, size_t c);

/*
 * The recommendation, a plain sentence from stated rules: the speedup at
 * the lecture's own size (beyond `ratio` either way, else "within"), the
 * crossover, and what to do. Appended to b.
 */
struct qe_buf;
void qe_sweep_sentence(struct qe_buf *b, const cJSON *rec, double ratio);

void qe_sweep_free(struct qe_sweep *sw);

#endif /* QE_SWEEP_H */
