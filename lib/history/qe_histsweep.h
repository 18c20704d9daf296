/*
 * qe_histsweep.h - the report page's "Scaling" section: per stored scaling
 * curve (history-sweep records, qe-history sweeps), a log-log SVG of the
 * median time against the swept size, one line per version (base, head),
 * each size's fastest-slowest run as a bar, the crossover marked with the
 * sizes either side of it where every run was on one side, and the
 * lecture's own size marked; then one table row per curve with its
 * exponents, crossover and qe-sweep's recommendation.
 *
 * Invariants:
 *  - strings from the records reach the page only through qe_html_text();
 *    numbers only through printf formats.
 *  - a chart is one machine's curve: curves of different machine
 *    fingerprints are separate charts, never one line, and the section says
 *    when the curves come from more than one machine.
 *  - of the curves of one (document, cell, parameter, machine), only the
 *    newest build's is drawn (the records come in the query's order: build
 *    order last); negligible curves (qe-sweep's noise) are counted, not
 *    drawn.
 *  - the output depends only on the records.
 */
#ifndef QE_HISTSWEEP_H
#define QE_HISTSWEEP_H

#include <cjson/cJSON.h>

struct qe_buf;

/* Charts at most; the table lists every curve drawn. */
#define QE_HISTSWEEP_CHARTS 12

/* Append the section for the history-sweep records `sweeps` (an array). */
void qe_histsweep_section(struct qe_buf *b, const cJSON *sweeps);

#endif /* QE_HISTSWEEP_H */
