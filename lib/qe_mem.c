/* Allocation that cannot fail, and growable byte buffers (qe_mem.h). */
#include <err.h>
#include <limits.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qe.h"
#include "qe_mem.h"

void
qe_mem_oom(void)
{
	errx(QE_EXIT_TROUBLE, "out of memory");
}

void *
qe_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		qe_mem_oom();
	return p;
}

void *
qe_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (p == NULL)
		qe_mem_oom();
	return p;
}

void *
qe_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (p == NULL)
		qe_mem_oom();
	return p;
}

void *
qe_mem_grow(void *arr, size_t n, size_t *cap, size_t size, size_t first)
{
	char *a = arr;

	if (n == *cap) {
		if (*cap > SIZE_MAX / 2 / size)
			qe_mem_oom();
		*cap = *cap ? *cap * 2 : first;
		a = qe_xrealloc(a, *cap * size);
	}
	memset(a + n * size, 0, size);
	return a;
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

int
qe_mem_streq(const char *a, const char *b)
{
	return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

void
qe_buf_grow(struct qe_buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;

	if (need < b->len)
		qe_mem_oom();
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
	qe_buf_grow(b, n);
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

void
qe_buf_addf(struct qe_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	qe_buf_grow(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void
qe_mem_hold_large(void)
{
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, INT_MAX);
}
