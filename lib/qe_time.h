/*
 * qe_time.h - timestamps as every notebook writer spells them.
 *
 * Invariants: times are kept exactly (seconds + nanoseconds, the offset as
 * written); differences are exact to the microsecond for any two times that
 * parse; nothing here allocates or prints.
 */
#ifndef QE_TIME_H
#define QE_TIME_H

#include <stdint.h>

/*
 * A point in time: seconds since the Unix epoch (UTC) and nanoseconds.
 * `zone` is 1 when the text carried 'Z' or an offset, 0 when it was naive
 * (taken as UTC); sec + offset is the wall-clock time as written. `frac_digits` is how many fraction digits it had.
 */
struct qe_time {
	int64_t sec;
	int32_t nsec;
	int zone;
	int offset;		/* the offset written, in seconds (0 for Z or naive) */
	int frac_digits;
};

/*
 * Parse YYYY-MM-DD('T'|' ')HH:MM:SS[.1-9 digits][Z|(+|-)HH:MM|(+|-)HHMM],
 * optionally surrounded by blanks. Returns 0, or -1 if `s` is not such a
 * timestamp or names an impossible date or time. Never reads past the NUL.
 */
int qe_time_parse(const char *s, struct qe_time *t);

/* Format as RFC 3339 UTC with microseconds: 2026-11-29T14:31:59.859127Z. */
#define QE_TIME_BUFSZ 40
char *qe_time_format(const struct qe_time *t, char buf[QE_TIME_BUFSZ]);

/*
 * b - a in microseconds (nanoseconds truncated toward zero); no overflow for
 * any two times qe_time_parse accepts.
 */
int64_t qe_time_diff_us(const struct qe_time *a, const struct qe_time *b);

/* Current time (CLOCK_REALTIME) as a qe_time. */
void qe_time_now(struct qe_time *t);

#endif /* QE_TIME_H */
