/* Run a helper program and capture what it prints (qe_spawn.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "qe_mem.h"
#include "qe_spawn.h"

extern char **environ;

static long
ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long)(t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Start argv with its stdout on a pipe; the read end in *fdp. */
static int
start(char *const argv[], pid_t *pid, int *fdp)
{
	posix_spawn_file_actions_t fa;
	int p[2], rc;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	rc = posix_spawnp(pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	if (rc != 0) {
		close(p[0]);
		return -1;
	}
	*fdp = p[0];
	return 0;
}

/* Read fd to end of file within the time limit; 0, or -1 if it ran out. */
static int
drain(int fd, struct qe_buf *out)
{
	struct timespec t0;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char chunk[8192];

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		long left = QE_SPAWN_TIMEOUT_MS - ms_since(&t0);
		ssize_t n;
		int rc;

		if (left <= 0 || (rc = poll(&pfd, 1, (int)left)) == 0)
			return -1;
		if (rc < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if ((n = read(fd, chunk, sizeof chunk)) < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		if (out->len < QE_SPAWN_MAX_OUTPUT)
			qe_buf_add(out, chunk, (size_t)n);
	}
}

int
qe_spawn_capture(char *const argv[], struct qe_buf *out)
{
	pid_t pid;
	int fd, st, killed = 0;

	if (start(argv, &pid, &fd) < 0)
		return -1;
	qe_buf_add(out, "", 0);
	if (drain(fd, out) < 0) {
		kill(pid, SIGKILL);
		killed = 1;
	}
	close(fd);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return !killed && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}
