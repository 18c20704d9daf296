/* Forked workers, results in submission order (qe_par.h). */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "qe.h"
#include "qe_par.h"

struct qe_par_item {
	const struct qe_par_fn *fn;
	void **task;			/* a batch: tasks done one after another by one worker */
	size_t ntask, taskcap;
	int inparent;
	struct qe_buf pre;		/* the parent's messages before the first task */
	pid_t pid;			/* the worker; 0 while the batch is open or never forked */
	double size;			/* the tasks' sizes added up (qe_par_submit_sized) */
	int errfd, resfd;		/* its stderr and its results (memfds) */
	int started, finished, wstatus;
};

/* What a worker writes to its result file per task, before its records and note. */
struct result_head {
	int problems;
	size_t outlen, notelen;
	off_t errend;			/* its messages end here in the worker's stderr */
};

/* Write all of b to fd; errors are ignored (the bytes are stderr's). */
static void
write_all(int fd, const char *b, size_t n)
{
	ssize_t w;

	while (n > 0 && ((w = write(fd, b, n)) > 0 || (w < 0 && errno == EINTR)))
		if (w > 0)
			b += w, n -= (size_t)w;
}

/* Append the first n bytes of the file fd (from offset 0) to b. */
static void
read_into(int fd, off_t off, size_t n, struct qe_buf *b)
{
	ssize_t r = 0;

	qe_buf_grow(b, n);
	for (size_t got = 0; got < n; got += (size_t)r)
		if ((r = pread(fd, b->data + b->len + got, n - got, off + (off_t)got)) <= 0) {
			n = got;
			break;
		}
	b->len += n;
	b->data[b->len] = '\0';
}

/* What the parent wrote to its captured stderr since the last cut, into b. */
static void
cut_capture(struct qe_par *p, struct qe_buf *b)
{
	off_t n = lseek(p->capture, 0, SEEK_CUR);

	if (n <= 0)
		return;
	read_into(p->capture, 0, (size_t)n, b);
	if (ftruncate(p->capture, 0) != 0 || lseek(p->capture, 0, SEEK_SET) != 0)
		qe_oom();	/* a memfd that cannot shrink: memory is gone */
}

/*
 * A new descriptor above 2: with stdout closed, the lowest free one would
 * be 1, and records would go into a memory file instead of failing.
 */
static int
above_stdio(int fd)
{
	int hi;

	if (fd < 0 || fd > 2)
		return fd;
	hi = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return hi;
}

static int
memfd(void)
{
	return above_stdio(memfd_create("qe-par", MFD_CLOEXEC));
}

void
qe_par_open(struct qe_par *p, int jobs)
{
	memset(p, 0, sizeof *p);
	p->jobs = 1;
	p->realerr = p->capture = p->devnull = -1;
	if (jobs <= 1)
		return;
	p->realerr = fcntl(2, F_DUPFD_CLOEXEC, 3);
	p->capture = memfd();
	p->devnull = above_stdio(open("/dev/null", O_WRONLY | O_CLOEXEC));
	if (p->realerr < 0 || p->capture < 0 || p->devnull < 0 || dup2(p->capture, 2) < 0) {
		qe_par_close(p);	/* jobs 1 it is */
		p->realerr = p->capture = p->devnull = -1;
		return;
	}
	p->jobs = jobs;
	p->size = 4 * (size_t)jobs;
	p->q = qe_xcalloc(p->size, sizeof *p->q);
}

/*
 * In the worker: do the tasks one after another (the heap a notebook
 * used is reused by the next: no fresh pages), write each one's results,
 * never return.
 */
static void
worker(struct qe_par *p, struct qe_par_item *it)
{
	struct qe_buf out = { 0 }, note = { 0 };
	struct result_head h;

	memset(&h, 0, sizeof h);	/* its padding is written too */
	if (dup2(it->errfd, 2) < 0 || dup2(p->devnull, 1) < 0)
		_exit(QE_EXIT_TROUBLE);
	for (size_t k = 0; k < it->ntask; k++) {
		qe_buf_reset(&out);
		qe_buf_reset(&note);
		h.problems = it->fn->work(it->fn->ctx, it->task[k], &out, &note);
		h.outlen = out.len;
		h.notelen = note.len;
		h.errend = lseek(2, 0, SEEK_CUR);
		write_all(it->resfd, (const char *)&h, sizeof h);
		write_all(it->resfd, out.data, out.len);
		write_all(it->resfd, note.data, note.len);
	}
	_exit(0);
}

/* Fork the worker of the batch it; on failure its tasks are done in the parent. */
static void
start(struct qe_par *p, struct qe_par_item *it)
{
	it->started = 1;
	it->errfd = memfd();
	it->resfd = memfd();
	if (it->errfd < 0 || it->resfd < 0 || (it->pid = fork()) < 0) {
		it->pid = 0;
		it->inparent = 1;
		return;
	}
	if (it->pid == 0)
		worker(p, it);
	p->running++;
	for (size_t k = 0; it->fn->forked && k < it->ntask; k++)
		it->fn->forked(it->fn->ctx, it->task[k]);
}

/*
 * Wait until one of the running workers has ended, whichever it is: the
 * others' batches may be later in the queue, and a worker that ended
 * early frees its place for the next batch at once. The child is left to
 * be reaped (WNOWAIT). 0, or -1 when the child that ended is none of ours
 * (the program has no others): the caller waits for the oldest.
 */
static int
wait_any(struct qe_par *p)
{
	siginfo_t si;

	memset(&si, 0, sizeof si);
	while (waitid(P_ALL, 0, &si, WEXITED | WNOWAIT) < 0)
		if (errno != EINTR)
			return -1;
	for (size_t k = 0; k < p->n; k++) {
		struct qe_par_item *it = &p->q[(p->head + k) % p->size];

		if (it->pid > 0 && !it->finished && it->pid == si.si_pid)
			return 0;
	}
	return -1;
}

/* Note workers that have ended; with `block`, wait until one has (qe_par.h). */
static void
reap(struct qe_par *p, int block)
{
	if (block && p->running > 0 && wait_any(p) == 0)
		block = 0;	/* one has ended: reaped below without waiting */
	for (size_t k = 0; k < p->n; k++) {
		struct qe_par_item *it = &p->q[(p->head + k) % p->size];
		pid_t r;

		if (it->pid <= 0 || it->finished)
			continue;
		while ((r = waitpid(it->pid, &it->wstatus, block ? 0 : WNOHANG)) < 0 && errno == EINTR)
			;
		if (r == 0)
			continue;
		it->finished = 1;
		p->running--;
		block = 0;
	}
}

/* Kill and reap every worker still running (the program is about to end). */
static void
kill_all(struct qe_par *p)
{
	for (size_t k = 0; k < p->n; k++) {
		struct qe_par_item *it = &p->q[(p->head + k) % p->size];

		if (it->pid > 0 && !it->finished) {
			kill(it->pid, SIGKILL);
			waitpid(it->pid, &it->wstatus, 0);
			it->finished = 1;
		}
	}
}

/* The end of a worker that did not finish its batch: qe_oom ends the program, as with jobs 1. */
static void
died(struct qe_par *p, struct qe_par_item *it)
{
	if (WIFEXITED(it->wstatus) && WEXITSTATUS(it->wstatus) != 0) {
		kill_all(p);
		exit(WEXITSTATUS(it->wstatus));
	}
	if (WIFSIGNALED(it->wstatus))
		warnx("worker %ld killed by signal %d", (long)it->pid, WTERMSIG(it->wstatus));
	else
		warnx("worker %ld: results cut short", (long)it->pid);
}

/*
 * A finished worker's batch, task by task in order: its messages to
 * stderr, its results to done(). Tasks a dead worker did not finish get
 * problems -1 and nothing else.
 */
static void
collect(struct qe_par *p, struct qe_par_item *it)
{
	struct qe_buf msg = { 0 }, out = { 0 }, note = { 0 };
	struct result_head h;
	off_t at = 0, errat = 0, rlen = lseek(it->resfd, 0, SEEK_END);
	size_t k;

	read_into(it->errfd, 0, (size_t)lseek(it->errfd, 0, SEEK_END), &msg);
	for (k = 0; k < it->ntask; k++) {
		if (rlen - at < (off_t)sizeof h || pread(it->resfd, &h, sizeof h, at) != (ssize_t)sizeof h ||
		    rlen - at - (off_t)sizeof h < (off_t)(h.outlen + h.notelen) ||
		    h.errend < errat || h.errend > (off_t)msg.len)
			break;
		write_all(2, msg.data + errat, (size_t)(h.errend - errat));
		errat = h.errend;
		qe_buf_reset(&out);
		qe_buf_reset(&note);
		read_into(it->resfd, at + (off_t)sizeof h, h.outlen, &out);
		read_into(it->resfd, at + (off_t)(sizeof h + h.outlen), h.notelen, &note);
		at += (off_t)(sizeof h + h.outlen + h.notelen);
		it->fn->done(it->fn->ctx, it->task[k], &out, &note, h.problems);
	}
	write_all(2, msg.data + errat, msg.len - (size_t)errat);
	if (k < it->ntask)
		died(p, it);
	for (qe_buf_reset(&out), qe_buf_reset(&note); k < it->ntask; k++)
		it->fn->done(it->fn->ctx, it->task[k], &out, &note, -1);
	qe_buf_free(&msg);
	qe_buf_free(&out);
	qe_buf_free(&note);
}

/* The head's turn: its messages, its results to done(), with the real stderr. */
static void
finish_head(struct qe_par *p)
{
	struct qe_par_item *it = &p->q[p->head];

	dup2(p->realerr, 2);
	write_all(2, it->pre.data, it->pre.len);
	if (it->inparent)
		for (size_t k = 0; k < it->ntask; k++) {
			struct qe_buf out = { 0 }, note = { 0 };
			int problems = it->fn->work(it->fn->ctx, it->task[k], &out, &note);

			it->fn->done(it->fn->ctx, it->task[k], &out, &note, problems);
			qe_buf_free(&out);
			qe_buf_free(&note);
		}
	else
		collect(p, it);
	dup2(p->capture, 2);
	if (it->errfd >= 0)
		close(it->errfd);
	if (it->resfd >= 0)
		close(it->resfd);
	qe_buf_free(&it->pre);
	free(it->task);
	p->head = (p->head + 1) % p->size;
	p->n--;
}

/* Hand on every result at the head whose turn has come; with `wait`, until the queue is empty. */
static void
flush(struct qe_par *p, int wait)
{
	while (p->n > 0) {
		struct qe_par_item *it = &p->q[p->head];

		if (!it->started)
			return;		/* the open batch: started by submit or drain */
		/* with `wait`, until this one has ended: another may end first */
		do
			if (!it->inparent && !it->finished)
				reap(p, wait);
		while (wait && !it->inparent && !it->finished);
		if (!it->inparent && !it->finished)
			return;
		finish_head(p);
	}
}

/* Start the batch being filled, once a worker may run. */
static void
start_open(struct qe_par *p)
{
	struct qe_par_item *it = p->open;

	if (it == NULL)
		return;
	p->open = NULL;
	while (p->running == (size_t)p->jobs) {
		reap(p, 1);
		flush(p, 0);
	}
	start(p, it);
}

/* A new item at the end of the queue, after waiting for room. */
static struct qe_par_item *
push(struct qe_par *p, const struct qe_par_fn *fn, int inparent, struct qe_buf *pre)
{
	struct qe_par_item *it;

	while (p->n == p->size) {
		reap(p, 1);
		flush(p, 0);
	}
	it = &p->q[(p->head + p->n++) % p->size];
	memset(it, 0, sizeof *it);
	it->fn = fn;
	it->inparent = inparent;
	it->started = inparent;
	it->errfd = it->resfd = -1;
	it->pre = *pre;
	memset(pre, 0, sizeof *pre);
	return it;
}

int
qe_par_batch_full(double have, double left, double total, int jobs)
{
	double floor = total / (4.0 * jobs), target = (have + left) / (2.0 * jobs);

	if (floor > QE_PAR_MIN_BATCH)
		floor = QE_PAR_MIN_BATCH;
	return have >= (target > floor ? target : floor);
}

void
qe_par_submit(struct qe_par *p, const struct qe_par_fn *fn, void *task, int inparent)
{
	qe_par_submit_sized(p, fn, task, inparent, -1, 0);
}

void
qe_par_submit_sized(struct qe_par *p, const struct qe_par_fn *fn, void *task, int inparent,
    double size, double left)
{
	struct qe_buf pre = { 0 };
	struct qe_par_item *it;

	if (p->jobs == 1) {
		struct qe_buf out = { 0 }, note = { 0 };
		int problems = fn->work(fn->ctx, task, &out, &note);

		fn->done(fn->ctx, task, &out, &note, problems);
		qe_buf_free(&out);
		qe_buf_free(&note);
		return;
	}
	reap(p, 0);
	flush(p, 0);
	cut_capture(p, &pre);
	/* a batch holds tasks of one kind with nothing said in between */
	if (p->open && (inparent || fn != p->open->fn || pre.len > 0))
		start_open(p);
	if ((it = p->open) == NULL)
		it = push(p, fn, inparent, &pre);
	qe_buf_free(&pre);
	it->task = qe_grow(it->task, it->ntask, &it->taskcap, sizeof *it->task, 4);
	it->task[it->ntask++] = task;
	if (inparent)
		return;
	p->open = it;
	if (size >= 0 && fn->total > 0) {
		it->size += size;
		if (qe_par_batch_full(it->size, left, fn->total, p->jobs))
			start_open(p);
	} else if (it->ntask >= (fn->batch > 0 ? fn->batch : 1))
		start_open(p);
}

void
qe_par_drain(struct qe_par *p)
{
	if (p->jobs > 1) {
		start_open(p);
		flush(p, 1);
	}
}

void
qe_par_close(struct qe_par *p)
{
	struct qe_buf rest = { 0 };

	qe_par_drain(p);
	if (p->capture >= 0 && p->realerr >= 0) {
		cut_capture(p, &rest);
		dup2(p->realerr, 2);
		write_all(2, rest.data, rest.len);
		qe_buf_free(&rest);
	}
	if (p->realerr >= 0)
		close(p->realerr);
	if (p->capture >= 0)
		close(p->capture);
	if (p->devnull >= 0)
		close(p->devnull);
	free(p->q);
	memset(p, 0, sizeof *p);
	p->jobs = 1;
	p->realerr = p->capture = p->devnull = -1;
}

double
qe_par_cpu_max(const char *text)
{
	double quota, period;
	char *end;

	if (strncmp(text, "max", 3) == 0)
		return 0;
	quota = strtod(text, &end);
	if (end == text || *end != ' ')
		return 0;
	period = strtod(end + 1, &end);
	if (*end != '\0' && *end != '\n')
		return 0;
	return quota > 0 && period > 0 && isfinite(quota / period) ? quota / period : 0;
}

/* The lowest cpu.max limit of the cgroup at `dir` below /sys/fs/cgroup and its ancestors. */
static double
cgroup_limit(char *dir)
{
	double lim = 0, v;

	for (;;) {
		struct qe_buf path = { 0 }, text = { 0 };

		qe_buf_addf(&path, "/sys/fs/cgroup%s/cpu.max", dir);
		if (qe_file_read(path.data, 4096, &text) == 0 &&
		    (v = qe_par_cpu_max(text.data)) > 0 && (lim == 0 || v < lim))
			lim = v;
		qe_buf_free(&path);
		qe_buf_free(&text);
		if (strrchr(dir, '/') == NULL || dir[0] == '\0')
			return lim;
		*strrchr(dir, '/') = '\0';
	}
}

int
qe_par_cpus(void)
{
	cpu_set_t set;
	struct qe_buf cg = { 0 };
	int n = 1;
	double lim = 0;
	char *line;

	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
		n = CPU_COUNT(&set);
	/* cgroup v2: one line "0::/path" */
	if (qe_file_read("/proc/self/cgroup", 1 << 16, &cg) == 0 &&
	    (line = strstr(cg.data, "0::/")) != NULL && (line == cg.data || line[-1] == '\n')) {
		line[3 + strcspn(line + 3, "\n")] = '\0';
		lim = cgroup_limit(line + 3);
	}
	qe_buf_free(&cg);
	if (lim > 0 && lround(lim) < n)
		n = lround(lim) < 1 ? 1 : (int)lround(lim);
	return n;
}
