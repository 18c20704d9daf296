/*
 * qe_mem.h - allocation and growable byte buffers.
 *
 * Invariants:
 *  - the qe_x* allocators never return NULL: out of memory is the one error
 *    a library function ends the program for (status 2, "out of memory").
 *  - a struct qe_buf is owned by whoever declared it; zero-initialise it
 *    ({ 0 }), release it with qe_buf_free(). After any qe_buf_* call its data
 *    is NUL-terminated, so b->data is a C string when the content holds no
 *    NUL (b->data may still be NULL before the first add).
 */
#ifndef QE_MEM_H
#define QE_MEM_H

#include <stddef.h>

void *qe_xmalloc(size_t n);
void *qe_xcalloc(size_t n, size_t size);
void *qe_xrealloc(void *p, size_t n);
char *qe_xstrdup(const char *s);
char *qe_xstrndup(const char *s, size_t n);

/* 1 when a and b are equal strings or both NULL: optional record fields compared. */
int qe_mem_streq(const char *a, const char *b);

/*
 * Room for one more element of `size` bytes in arr, of which n are used and
 * *cap allocated: arr itself or its reallocation, *cap doubled (`first` at
 * the start), element n zeroed.
 */
void *qe_mem_grow(void *arr, size_t n, size_t *cap, size_t size, size_t first);

/*
 * Keep blocks of up to 32 MiB (a notebook and its buffers) on the heap, and
 * the heap untrimmed: glibc's default maps a large block afresh and unmaps
 * it on free (its threshold only learns the sizes as the process frees
 * them), so a program reading notebook after notebook took twice the page
 * faults (each fresh page zeroed by the kernel) and about 12 % more CPU.
 * For processes that read one large input after another and then end;
 * their peak RSS is unchanged.
 */
void qe_mem_hold_large(void);

/* Exit with status 2 after "prog: out of memory". */
void qe_mem_oom(void) __attribute__((noreturn));

struct qe_buf {
	char *data;
	size_t len;
	size_t cap;
};
void qe_buf_add(struct qe_buf *b, const void *p, size_t n);
void qe_buf_adds(struct qe_buf *b, const char *s);
void qe_buf_addc(struct qe_buf *b, char c);
/* printf into the buffer (exits on out of memory, like every add). */
void qe_buf_addf(struct qe_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Make room for `extra` more bytes (and the NUL) without adding any. */
void qe_buf_grow(struct qe_buf *b, size_t extra);
void qe_buf_reset(struct qe_buf *b);
void qe_buf_free(struct qe_buf *b);

#endif /* QE_MEM_H */
