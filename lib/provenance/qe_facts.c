/* Facts from the machine as JSON, leaving out what is unknown (qe_facts.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "qe_mem.h"
#include "qe_utf8.h"
#include "qe_json.h"
#include "qe_facts.h"

int
qe_fact_utf8(const char *s)
{
	size_t n = strlen(s);

	return qe_utf8_valid(s, n) == n;
}

void
qe_fact_str(cJSON *o, const char *k, const char *v)
{
	if (v != NULL && qe_fact_utf8(k) && qe_fact_utf8(v))
		qe_json_check(cJSON_AddStringToObject(o, k, v));
}

void
qe_fact_num(cJSON *o, const char *k, double v)
{
	qe_json_check(cJSON_AddNumberToObject(o, k, v));
}

void
qe_fact_item(cJSON *o, const char *k, cJSON *item)
{
	if (!cJSON_AddItemToObject(o, k, item))
		qe_mem_oom();
}

void
qe_fact_group(cJSON *o, const char *k, cJSON *item)
{
	if (item->child == NULL)
		cJSON_Delete(item);
	else
		qe_fact_item(o, k, item);
}

const char *
qe_fact_env(const char *name)
{
	const char *v = getenv(name);

	return v != NULL && *v != '\0' ? v : NULL;
}

long long
qe_fact_posint(const char *s)
{
	char *end;
	long long v;

	if (s == NULL || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	return errno || *end != '\0' || v <= 0 || v > (1LL << 53) ? -1 : v;
}

char *
qe_fact_trim(char *s)
{
	char *e;

	s += strspn(s, " \t\r\n");
	e = s + strlen(s);
	while (e > s && strchr(" \t\r\n", e[-1]) != NULL)
		*--e = '\0';
	return s;
}
