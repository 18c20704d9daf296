/*
 * qe_timing.h - the timing rules: which writer's stamps give a cell's
 * duration, and whether a duration can be believed for the record it is in
 * (man/qe-cache-extract.1, "Timing").
 *
 * Invariants:
 *  - one writer's pair of stamps, never a start from one key family and an
 *    end from another. The order of preference is nbclient/JupyterLab
 *    ("execution": input-reply, started-reply, busy-idle), papermill's
 *    duration, then ExecuteTime's start-end. The capture hook's in-kernel
 *    clock comes before all of them; the caller puts it in (qe_timing_hook).
 *  - sources, methods and notes are numbers of the qe_vocab.h tables
 *    (QE_TS_*, QE_TM_*, QE_TN_*); a time that is unknown has sec ==
 *    INT64_MIN.
 *  - nothing here allocates, prints or keeps state; the cJSON is borrowed.
 */
#ifndef QE_TIMING_H
#define QE_TIMING_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "qe_time.h"

/* One chosen timing of a cell. */
struct qe_timing {
	int have;			/* 0: no writer timed the cell */
	int source;			/* QE_TS_* */
	int method;			/* QE_TM_* */
	struct qe_time start, end;	/* sec == INT64_MIN: not known */
	int64_t us;			/* the duration (end - start, or as written) */
	int approximate;		/* a naive stamp compared with a zoned one */
	int64_t busy_us;		/* nbclient's busy-idle, beside another method */
	int have_busy;
};

/*
 * Choose the timing of a cell from its metadata `md` (any JSON; NULL or
 * not an object gives no timing). *t is filled in completely.
 */
void qe_timing_choose(const cJSON *md, struct qe_timing *t);

/* Replace *t by the capture hook's in-kernel timing of the cell. */
void qe_timing_hook(struct qe_timing *t, const struct qe_time *start,
    const struct qe_time *end, int64_t us);

/*
 * The execution window of a cache record: the notebook ran for `exec_us`
 * (-1: unknown) and was stored at `created` (have_created 0: unknown).
 * Stamps more than `margin_us` outside it belong to an older run.
 */
struct qe_window {
	struct qe_time created;
	int have_created;
	int64_t exec_us;
	int64_t margin_us;
};

/* exec_us for an execution_seconds that may be NAN (unknown). */
int64_t qe_timing_window_exec_us(double execution_seconds);

/*
 * 1 if a run from `start` to `end` (end NULL: not known) lies outside the
 * window: it started before created - exec - margin (only checked when the
 * execution time is known) or ended after created + margin. 0 when inside
 * or when the window has no `created`.
 */
int qe_timing_window_outside(const struct qe_window *w, const struct qe_time *start,
    const struct qe_time *end);

/*
 * The longest duration believed for a cell: 366 days. Longer (10,000 years
 * of papermill 'duration', stamps centuries apart) is QE_TN_INVALID.
 */
#define QE_TIMING_MAX_US (366LL * 86400 * 1000000)

/*
 * Judge a chosen timing (t->have set) against the window: QE_TN_STALE when
 * its stamps lie outside it, QE_TN_INVALID for a negative duration, one
 * longer than QE_TIMING_MAX_US or than the execution time and the margin,
 * QE_TN_APPROXIMATE for a believable approximate one, -1 for a believable
 * exact one.
 */
int qe_timing_judge(const struct qe_timing *t, const struct qe_window *w);

/* How much longer than a cell's duration its busy period may be. */
#define QE_BUSY_SLACK_US (60LL * 1000000)

/*
 * 1 when t's busy period (t->have_busy) is believable: busy -> idle holds
 * the cell's execution and the kernel's few milliseconds around it, so it
 * is at most the duration plus QE_BUSY_SLACK_US (43,200 s of busy for a
 * 0.26 s cell is not), at most QE_TIMING_MAX_US, and at most the execution
 * time plus the margin when that is known. 0 otherwise: busy_s is left out.
 */
int qe_timing_busy_believable(const struct qe_timing *t, const struct qe_window *w);

#endif /* QE_TIMING_H */
