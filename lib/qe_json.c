/*
 * cJSON helpers and the record writer (qe_json.h): every line a tool prints
 * goes through qe_json_emit() or qe_json_emit_line(), its bytes written by qe_jw.
 */
#include <err.h>
#include <stdio.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qe.h"
#include "qe_json.h"
#include "qe_time.h"
#include "qe_jw.h"

cJSON *
qe_json_check(cJSON *item)
{
	if (item == NULL)
		qe_mem_oom();
	return item;
}

cJSON *
qe_json_record_new(const char *kind)
{
	cJSON *o = qe_json_check(cJSON_CreateObject());

	qe_json_check(cJSON_AddStringToObject(o, "kind", kind));
	qe_json_check(cJSON_AddNumberToObject(o, "schema_version", QE_SCHEMA_VERSION));
	return o;
}

const char *
qe_json_str(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

char *
qe_json_strdup(const cJSON *obj, const char *key)
{
	const char *s = qe_json_str(obj, key);

	return s ? qe_xstrdup(s) : NULL;
}

double
qe_json_num(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble : NAN;
}

int
qe_json_time(const cJSON *obj, const char *key, struct qe_time *t)
{
	const char *s = qe_json_str(obj, key);

	return s != NULL && qe_time_parse(s, t) == 0;
}

void
qe_json_add_str_or_null(cJSON *obj, const char *key, const char *s)
{
	qe_json_check(s ? cJSON_AddStringToObject(obj, key, s) :
	    cJSON_AddNullToObject(obj, key));
}

void
qe_json_add_num_or_null(cJSON *obj, const char *key, int have, double v)
{
	qe_json_check(have ? cJSON_AddNumberToObject(obj, key, v) :
	    cJSON_AddNullToObject(obj, key));
}

char *
qe_json_print(const cJSON *v)
{
	struct qe_buf b = { 0 };

	if (v == NULL)
		qe_mem_oom();	/* as cJSON's print of nothing did: its NULL */
	qe_buf_grow(&b, 256);
	qe_jw_value(&b, v);
	return b.data;
}

long
qe_json_bad_char(const char *s, size_t n, int *nul)
{
	int instr = 0;

	*nul = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!instr) {
			instr = c == '"';
			continue;
		}
		if (c < 0x20)
			return (long)i;
		if (c == '"')
			instr = 0;
		else if (c == '\\') {
			if (i + 5 < n && memcmp(s + i + 1, "u0000", 5) == 0) {
				*nul = 1;
				return (long)i;
			}
			i++;
		}
	}
	return -1;
}

size_t
qe_json_nul_to_fffd(char *s, size_t n)
{
	size_t count = 0;
	int instr = 0;

	for (size_t i = 0; i < n; i++) {
		if (!instr) {
			instr = s[i] == '"';
			continue;
		}
		if (s[i] == '"')
			instr = 0;
		else if (s[i] == '\\') {
			if (i + 5 < n && memcmp(s + i + 1, "u0000", 5) == 0) {
				memcpy(s + i + 1, "ufffd", 5);
				count++;
			}
			i++;
		}
	}
	return count;
}

const char *
qe_json_bad_char_reason(const char *s, long at, int nul, char *buf, size_t size)
{
	if (nul)
		snprintf(buf, size, "NUL (\\u0000) in a string");
	else
		snprintf(buf, size, "control character U+%04X in a string", (unsigned char)s[at]);
	return buf;
}

long
qe_json_too_deep(const char *s, size_t n)
{
	long depth = 0;
	int instr = 0;

	for (size_t i = 0; i < n; i++) {
		if (instr) {
			if (s[i] == '\\')
				i++;
			else if (s[i] == '"')
				instr = 0;
		} else if (s[i] == '"')
			instr = 1;
		else if (s[i] == '[' || s[i] == '{') {
			if (++depth > CJSON_NESTING_LIMIT)
				return (long)i;
		} else if (s[i] == ']' || s[i] == '}')
			depth--;
	}
	return -1;
}

int
qe_json_nonfinite(const cJSON *v)
{
	for (; v != NULL; v = v->next) {
		if (cJSON_IsNumber(v) && !isfinite(v->valuedouble))
			return 1;
		if (v->child && qe_json_nonfinite(v->child))
			return 1;
	}
	return 0;
}

static void write_failed(void) __attribute__((noreturn));

static void
write_failed(void)
{
	warn("stdout");
	exit(QE_EXIT_TROUBLE);
}

void
qe_json_emit_bytes(const char *s, size_t n)
{
	if (n > 0 && fwrite(s, 1, n, stdout) != n)
		write_failed();
}

void
qe_json_emit_line(const char *s, size_t n)
{
	if (fwrite(s, 1, n, stdout) != n || putchar('\n') == EOF)
		write_failed();
}

void
qe_json_emit(const cJSON *rec)
{
	char *s = qe_json_print(rec);

	qe_json_emit_line(s, strlen(s));
	cJSON_free(s);
}

void
qe_json_emit_flush(void)
{
	if (fflush(stdout) == EOF)
		write_failed();
}

int
qe_json_finish(int status)
{
	if (fflush(stdout) == EOF || ferror(stdout)) {
		warn("stdout");
		status = QE_EXIT_TROUBLE;
	}
	if (fclose(stdout) == EOF && status != QE_EXIT_TROUBLE) {
		warn("stdout");
		status = QE_EXIT_TROUBLE;
	}
	return status;
}

void
qe_json_add_rounded(cJSON *obj, const char *key, double v, int decimals)
{
	if (isnan(v) || isinf(v))
		qe_json_check(cJSON_AddNullToObject(obj, key));
	else
		qe_json_check(cJSON_AddNumberToObject(obj, key, qe_jw_round(v, decimals)));
}
