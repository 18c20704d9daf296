/* Whole files into memory (qe_file.h). */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "qe_mem.h"
#include "qe_file.h"

/*
 * One read(2) straight into b's spare room (no chunk copied). When b is
 * full, a one-byte probe: a file of exactly its stat() size ends there
 * without growing b. Returns read's result.
 */
static ssize_t
read_some(int fd, struct qe_buf *b)
{
	ssize_t n;
	char probe;

	if (b->cap - b->len > 1) {
		if ((n = read(fd, b->data + b->len, b->cap - b->len - 1)) > 0) {
			b->len += (size_t)n;
			b->data[b->len] = '\0';
		}
		return n;
	}
	if ((n = read(fd, &probe, 1)) == 1)
		qe_buf_add(b, &probe, 1);	/* grows b */
	return n;
}

/*
 * Transparent huge pages asked for under a large buffer about to be
 * filled (the 2 MiB-aligned part inside it; a hint the kernel ignores
 * where THP is off): a notebook of MBs is then read into a few huge pages
 * rather than thousands of 4 KiB ones, with fewer faults and TLB misses
 * (qe-cache-extract -j 1 on the bench cache: about 14 % less CPU).
 */
static void
huge_pages(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
	const uintptr_t huge = (uintptr_t)2 << 20;
	uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1), e = ((uintptr_t)p + n) & ~(huge - 1);

	if (e > a)
		(void)madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
	(void)p, (void)n;
#endif
}

/* fd to its end into b; 0, or -1 with errno (EFBIG past limit bytes from start). */
static int
read_to_end(int fd, size_t limit, struct qe_buf *b, size_t start)
{
	ssize_t n;

	while ((n = read_some(fd, b)) != 0) {
		if (n < 0 && errno != EINTR)
			return -1;
		if (b->len - start > limit) {
			errno = EFBIG;
			return -1;
		}
	}
	return 0;
}

int
qe_file_read(const char *path, size_t limit, struct qe_buf *b)
{
	struct stat sb;
	size_t start = b->len;
	int fd = open(path, O_RDONLY | O_CLOEXEC), saved, r, reg;

	if (fd < 0)
		return -1;
	reg = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode);
	if (reg && (uintmax_t)sb.st_size > limit) {
		close(fd);	/* too big already: not read at all */
		errno = EFBIG;
		return -1;
	}
	/* room for the whole regular file (/proc's say size 0, and grow), one exact allocation when b is new */
	if (reg && b->cap == 0) {
		b->cap = (size_t)sb.st_size + 1;
		b->data = qe_xmalloc(b->cap);
		huge_pages(b->data, b->cap);
	} else
		qe_buf_grow(b, reg ? (size_t)sb.st_size : 65536);
	b->data[b->len] = '\0';
	r = read_to_end(fd, limit, b, start);
	saved = errno;
	close(fd);
	if (r < 0) {
		b->len = start;
		b->data[start] = '\0';
		errno = saved;
		return -1;
	}
	return 0;
}

char *
qe_file_slurp(const char *path, size_t limit, size_t *len)
{
	struct qe_buf b = { 0 };

	if (qe_file_read(path, limit, &b) < 0) {
		int saved = errno;

		qe_buf_free(&b);
		errno = saved;
		return NULL;
	}
	*len = b.len;
	return b.data;
}

int
qe_file_regular(const char *path)
{
	struct stat sb;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), r = 0;

	if (fd < 0)
		return -1;
	if (fstat(fd, &sb) != 0)
		r = -1;
	else if (!S_ISREG(sb.st_mode)) {
		errno = S_ISDIR(sb.st_mode) ? EISDIR : QE_ENOTREG;
		r = -1;
	}
	close(fd);
	return r;
}

void
qe_file_warn(const char *path)
{
	if (errno == QE_ENOTREG)
		warnx("%s: not a regular file", path);
	else
		warn("%s", path);
}
