/* Memory, buffers and small cJSON helpers shared by every tool. */
#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "qe.h"

static void
oom(void)
{
	errx(QE_EXIT_TROUBLE, "out of memory");
}

void *
qe_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		oom();
	return p;
}

void *
qe_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (p == NULL)
		oom();
	return p;
}

void *
qe_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (p == NULL)
		oom();
	return p;
}

char *
qe_xstrdup(const char *s)
{
	return qe_xstrndup(s, strlen(s));
}

char *
qe_xstrndup(const char *s, size_t n)
{
	char *p = qe_xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

static void
reserve(struct qe_buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;

	if (need < b->len)
		oom();
	if (need <= b->cap)
		return;
	if (b->cap == 0)
		b->cap = 256;
	while (b->cap < need)
		b->cap = b->cap > SIZE_MAX / 2 ? need : b->cap * 2;
	b->data = qe_xrealloc(b->data, b->cap);
}

void
qe_buf_add(struct qe_buf *b, const void *p, size_t n)
{
	reserve(b, n);
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void
qe_buf_adds(struct qe_buf *b, const char *s)
{
	qe_buf_add(b, s, strlen(s));
}

void
qe_buf_addc(struct qe_buf *b, char c)
{
	qe_buf_add(b, &c, 1);
}

void
qe_buf_reset(struct qe_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

void
qe_buf_free(struct qe_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

const char *
qe_json_str(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

cJSON *
qe_json_check(cJSON *item)
{
	if (item == NULL)
		oom();
	return item;
}

void
qe_json_add_str_or_null(cJSON *obj, const char *key, const char *s)
{
	qe_json_check(s ? cJSON_AddStringToObject(obj, key, s) :
	    cJSON_AddNullToObject(obj, key));
}
