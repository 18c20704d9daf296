/*
 * qe_file.h - whole files into memory.
 *
 * Invariants: the bytes are read as they are (no decoding); the buffer is
 * NUL-terminated so text can be used as a C string, and `len` counts the
 * bytes without that NUL. A file that grows past `limit` while being read
 * is refused (EFBIG) rather than cut. Files whose size stat() does not
 * know (/proc, pipes) are read to end of file.
 */
#ifndef QE_FILE_H
#define QE_FILE_H

#include <stddef.h>

struct qe_buf;

/*
 * Append the whole file to b (one exact allocation when b is empty and the
 * file is regular). Returns 0, or -1 with errno set (nothing printed; b is
 * left as it was).
 */
int qe_file_read(const char *path, size_t limit, struct qe_buf *b);

/*
 * The whole file in a new buffer (free() it) and its length in *len, or
 * NULL with errno set.
 */
char *qe_file_slurp(const char *path, size_t limit, size_t *len);

#endif /* QE_FILE_H */
