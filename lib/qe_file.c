/* Whole files into memory (qe_file.h). */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "qe.h"

int
qe_file_read(const char *path, size_t limit, struct qe_buf *b)
{
	char chunk[65536];
	struct stat sb;
	size_t start = b->len;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC), saved;

	if (fd < 0)
		return -1;
	/* one exact allocation for a regular file: no doubling, no copies */
	if (b->cap == 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
	    (uintmax_t)sb.st_size <= limit) {
		b->cap = (size_t)sb.st_size + 1;
		b->data = qe_xmalloc(b->cap);
	}
	qe_buf_add(b, "", 0);
	while ((n = read(fd, chunk, sizeof chunk)) > 0) {
		if (b->len - start + (size_t)n > limit) {
			n = -1;
			errno = EFBIG;
			break;
		}
		qe_buf_add(b, chunk, (size_t)n);
	}
	saved = errno;
	close(fd);
	if (n < 0) {
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
