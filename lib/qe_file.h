/*
 * qe_file.h - whole files into memory.
 *
 * Invariants: the bytes are read as they are (no decoding); the buffer is
 * NUL-terminated so text can be used as a C string, and `len` counts the
 * bytes without that NUL. A file that grows past `limit` while being read
 * is refused (EFBIG) rather than cut, and a regular file already larger
 * is not read at all. Files whose size stat() does not know (/proc, pipes)
 * are read to end of file.
 *
 * One copy: a regular file is read with read(2) straight into a buffer of
 * its fstat() size (one allocation when the buffer is new, a one-byte probe
 * for its end), never through an intermediate chunk. (mmap was not used:
 * the reader wants a NUL-terminated buffer it owns and may free, and for
 * notebooks that are read once the page-cache copy costs about what the
 * faults of a fresh mapping do.) A buffer of several MiB is marked for
 * transparent huge pages before the read (madvise, a hint): fewer faults
 * and TLB misses for the copy and the parse.
 *
 * mmap measured again (issue 16, qe-cache-extract -j 1 on the bench cache,
 * alternating with this read, medians of 7-9): MAP_PRIVATE|MAP_POPULATE
 * with a SIGBUS guard for a file cut while mapped saves 0.005-0.015 s of
 * system time and costs 0.01-0.03 s of user time (the parse then reads
 * 4 KiB page-cache pages, not this huge-page buffer; 2 MiB-aligned,
 * read-only or not populated: the same). No gain, so still read(2).
 */
#ifndef QE_FILE_H
#define QE_FILE_H

#include <errno.h>
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

/*
 * errno after qe_file_regular() refused a FIFO, socket or device (whose
 * open or read could block forever): qe_file_warn() says "not a regular file".
 */
#define QE_ENOTREG ENOTBLK

/*
 * 0 when path is a regular file that can be opened for reading; -1 with
 * errno set otherwise (EISDIR for a folder, QE_ENOTREG for a FIFO, socket
 * or device). The open never blocks (O_NONBLOCK) and nothing is read. For
 * readers that need a whole file (notebooks, global.db, archives); NDJSON
 * streams may be pipes and do not ask.
 */
int qe_file_regular(const char *path);

/* "prog: path: not a regular file", or "prog: path: <errno text>". */
void qe_file_warn(const char *path);

#endif /* QE_FILE_H */
