/*
 * sweep/sweep.h - the public header of qe-sweep's folder: qe-replicate's
 * records of a scaling sweep (--sweep) and of a profile (--profile) read
 * into curves and hotspots, written as sweep and hotspot records.
 *
 * Invariants:
 *  - cmd/qe-sweep.c includes this header and lib/'s foundation only.
 *  - every fit and rule of the evaluation harness lives here (exponents,
 *    the crossover, the speedup at the lecture's size, the recommendation,
 *    shares, Amdahl): qe-replicate measures, qe-comment renders.
 */
#ifndef QE_SWEEP_SWEEP_H
#define QE_SWEEP_SWEEP_H

#include "qe_evidence.h"
#include "qe_hotspot.h"
#include "qe_scalefit.h"
#include "qe_sweep.h"
#include "qe_triage.h"

#endif /* QE_SWEEP_SWEEP_H */
