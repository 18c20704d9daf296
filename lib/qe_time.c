/*
 * Timestamps as the notebook writers spell them (data-formats.md section 6),
 * kept as integer seconds + nanoseconds so differences are exact.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "qe_time.h"

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar. */
static int64_t
days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static void
civil_from_days(int64_t z, int *y, int *m, int *d)
{
	int64_t era, doe, yoe, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = (int)(yoe + era * 400 + (*m <= 2));
}

/* Read exactly n digits; -1 if any is missing. */
static int
digits(const char **sp, int n)
{
	int v = 0;

	while (n-- > 0) {
		if (!isdigit((unsigned char)**sp))
			return -1;
		v = v * 10 + (**sp - '0');
		(*sp)++;
	}
	return v;
}

int
qe_time_parse(const char *s, struct qe_time *t)
{
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int Y, M, D, h, mi, sec, nd = 0, oh, om, sign;
	int32_t ns = 0;
	int64_t off = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	if ((Y = digits(&s, 4)) < 0 || *s++ != '-' ||
	    (M = digits(&s, 2)) < 0 || *s++ != '-' ||
	    (D = digits(&s, 2)) < 0 || (*s != 'T' && *s != 't' && *s != ' '))
		return -1;
	s++;
	if ((h = digits(&s, 2)) < 0 || *s++ != ':' ||
	    (mi = digits(&s, 2)) < 0 || *s++ != ':' ||
	    (sec = digits(&s, 2)) < 0)
		return -1;
	if (M < 1 || M > 12 || D < 1 || D > mdays[M - 1] || h > 23 || mi > 59 || sec > 60)
		return -1;
	if (M == 2 && D == 29 && !((Y % 4 == 0 && Y % 100 != 0) || Y % 400 == 0))
		return -1;
	if (*s == '.') {
		s++;
		while (isdigit((unsigned char)*s)) {
			if (nd == 9)
				return -1;
			ns = ns * 10 + (*s++ - '0');
			nd++;
		}
		if (nd == 0)
			return -1;
		for (int i = nd; i < 9; i++)
			ns *= 10;
	}
	t->zone = 0;
	if (*s == 'Z' || *s == 'z') {
		t->zone = 1;
		s++;
	} else if (*s == '+' || *s == '-') {
		sign = *s++ == '-' ? -1 : 1;
		if ((oh = digits(&s, 2)) < 0)
			return -1;
		if (*s == ':')
			s++;
		if ((om = digits(&s, 2)) < 0 || oh > 23 || om > 59)
			return -1;
		off = sign * (int64_t)(oh * 3600 + om * 60);
		t->zone = 1;
	}
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s != '\0')
		return -1;
	if (sec == 60)		/* a leap second reads as the next second's start */
		sec = 59, ns = 999999999;
	t->sec = days_from_civil(Y, M, D) * 86400 + h * 3600 + mi * 60 + sec - off;
	t->offset = (int)off;
	t->nsec = ns;
	t->frac_digits = nd;
	return 0;
}

char *
qe_time_format(const struct qe_time *t, char buf[QE_TIME_BUFSZ])
{
	int64_t days = t->sec / 86400, rem = t->sec % 86400;
	int y, m, d;

	if (rem < 0) {
		rem += 86400;
		days--;
	}
	civil_from_days(days, &y, &m, &d);
	snprintf(buf, QE_TIME_BUFSZ, "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ",
	    y, m, d, (int)(rem / 3600), (int)(rem / 60 % 60), (int)(rem % 60),
	    (int)(t->nsec / 1000));
	return buf;
}

int64_t
qe_time_diff_us(const struct qe_time *a, const struct qe_time *b)
{
	/*
	 * Not (sec * 1e9 + nsec) / 1000: parseable years span 0000-9999, about
	 * 3.2e11 s, and 3.2e20 ns overflows int64_t (found by fuzz-notebook).
	 * Give seconds and nanoseconds the same sign, then truncate the
	 * nanoseconds alone: the same result, within range.
	 */
	int64_t s = b->sec - a->sec, ns = (int64_t)b->nsec - a->nsec;

	if (s > 0 && ns < 0) {
		s--;
		ns += 1000000000;
	} else if (s < 0 && ns > 0) {
		s++;
		ns -= 1000000000;
	}
	return s * 1000000 + ns / 1000;
}

void
qe_time_now(struct qe_time *t)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	t->sec = ts.tv_sec;
	t->nsec = (int32_t)ts.tv_nsec;
	t->zone = 1;
	t->offset = 0;
	t->frac_digits = 9;
}
