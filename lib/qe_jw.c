/* The hand-written record writer (qe_jw.h). */
#include <math.h>
#include <stdio.h>

#include "qe.h"
#include "qe_jw.h"

static const double pow10d[] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6 };

void
qe_jw_str(struct qe_buf *b, const char *s)
{
	if (s == NULL) {
		qe_buf_adds(b, "null");
		return;
	}
	qe_buf_addc(b, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		const unsigned char *q = p;

		while (*q >= 0x20 && *q != '"' && *q != '\\')
			q++;
		if (q > p) {
			qe_buf_add(b, p, (size_t)(q - p));
			p = q;
			if (*p == '\0')
				break;
		}
		switch (*p) {
		case '"': qe_buf_adds(b, "\\\""); break;
		case '\\': qe_buf_adds(b, "\\\\"); break;
		case '\b': qe_buf_adds(b, "\\b"); break;
		case '\f': qe_buf_adds(b, "\\f"); break;
		case '\n': qe_buf_adds(b, "\\n"); break;
		case '\r': qe_buf_adds(b, "\\r"); break;
		case '\t': qe_buf_adds(b, "\\t"); break;
		default: qe_buf_addf(b, "\\u%04x", *p); break;
		}
	}
	qe_buf_addc(b, '"');
}

void
qe_jw_num(struct qe_buf *b, double x, int decimals)
{
	static const long long pow10[] = { 1, 10, 100, 1000, 10000, 100000, 1000000 };
	char tmp[48];
	long long v, ip, fp;
	int n = 0;

	if (isnan(x) || isinf(x) || fabs(x) > 1e12) {
		if (isnan(x) || isinf(x))
			qe_buf_adds(b, "null");
		else {
			qe_json_numfmt(tmp, x);
			qe_buf_adds(b, tmp);
		}
		return;
	}
	v = llround(x * (double)pow10[decimals]);
	if (v < 0) {
		qe_buf_addc(b, '-');
		v = -v;
	}
	ip = v / pow10[decimals];
	fp = v % pow10[decimals];
	n = snprintf(tmp, sizeof tmp, "%lld", ip);
	if (fp) {
		int d = decimals;

		while (fp % 10 == 0)
			fp /= 10, d--;
		n += snprintf(tmp + n, sizeof tmp - (size_t)n, ".%0*lld", d, fp);
	}
	qe_buf_add(b, tmp, (size_t)n);
}

void
qe_jw_key(struct qe_buf *b, const char *k)
{
	qe_buf_addc(b, ',');
	qe_jw_str(b, k);
	qe_buf_addc(b, ':');
}

void
qe_jw_begin(struct qe_buf *b, const char *kind)
{
	qe_buf_adds(b, "{\"kind\":");
	qe_jw_str(b, kind);
	qe_buf_addf(b, ",\"schema_version\":%d", QE_SCHEMA_VERSION);
}

double
qe_jw_round(double x, int decimals)
{
	return round(x * pow10d[decimals]) / pow10d[decimals];
}

void
qe_jw_add_rounded(cJSON *obj, const char *key, double v, int decimals)
{
	if (isnan(v) || isinf(v))
		qe_json_check(cJSON_AddNullToObject(obj, key));
	else
		qe_json_check(cJSON_AddNumberToObject(obj, key, qe_jw_round(v, decimals)));
}
