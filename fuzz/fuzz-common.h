/*
 * Helpers shared by the fuzz targets (which call lib/ modules directly):
 * input bytes as a file name (a memfd), and stdout captured in a memfd so a
 * target can check what the tool printed.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The bytes as a file; *fdp to close afterwards. `path` holds the name. */
static char *
fz_file(const uint8_t *data, size_t size, int *fdp, char path[64])
{
	int fd = memfd_create("fuzz", 0);

	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
		abort();
	snprintf(path, 64, "/proc/self/fd/%d", fd);
	*fdp = fd;
	return path;
}

static int fz_outfd = -1;

/* Point stdout at an empty memfd (made once). */
static void
fz_capture(void)
{
	fflush(stdout);
	if (fz_outfd < 0) {
		if ((fz_outfd = memfd_create("fuzz-out", 0)) < 0 || dup2(fz_outfd, STDOUT_FILENO) < 0)
			abort();
	}
	if (ftruncate(STDOUT_FILENO, 0) != 0 || lseek(STDOUT_FILENO, 0, SEEK_SET) != 0)
		abort();
	clearerr(stdout);
}

/* What was printed since fz_capture(), NUL-terminated; free() it. */
static char *
fz_captured(size_t *np)
{
	off_t n;
	char *s;

	if (fflush(stdout) == EOF || (n = lseek(STDOUT_FILENO, 0, SEEK_CUR)) < 0)
		abort();
	s = malloc((size_t)n + 1);
	if (s == NULL || pread(STDOUT_FILENO, s, (size_t)n, 0) != n)
		abort();
	s[n] = '\0';
	*np = (size_t)n;
	return s;
}

/*
 * Every line of s[0..n) is UTF-8 and a JSON object whose numbers are finite
 * (1.79769313486232e+308 reads back as infinity), with no raw control
 * character or \u0000 in a string; abort() otherwise.
 */
static void
fz_check_ndjson(const char *s, size_t n)
{
	int nul;

	if (qe_utf8_valid(s, n) != n || qe_json_bad_char(s, n, &nul) >= 0) {
		fprintf(stderr, "output not UTF-8, or a control character or \\u0000 in a string\n");
		abort();
	}
	while (n > 0) {
		const char *nl = memchr(s, '\n', n);
		size_t len;
		cJSON *o;

		if (nl == NULL)
			abort();	/* output lines always end in '\n' */
		len = (size_t)(nl - s);
		if ((o = cJSON_ParseWithLength(s, len)) == NULL || !cJSON_IsObject(o) ||
		    qe_json_nonfinite(o->child)) {
			fprintf(stderr, "bad output line: %.*s\n", (int)len, s);
			abort();
		}
		cJSON_Delete(o);
		n -= len + 1;
		s = nl + 1;
	}
}
