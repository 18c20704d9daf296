/* Forked workers, results in submission order (qe_par.h). */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "qe.h"
#include "qe_file.h"
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
	int kept;			/* done by a kept worker (fn->keep) */
};

/* A kept worker: its socket (batches in, a byte out when one is done), its batch. */
struct qe_par_worker {
	pid_t pid;			/* 0: none in this place */
	int sock;
	struct qe_par_item *busy;	/* the batch it is doing, or NULL */
};

/* A batch for a kept worker, then ntask x (task, len, len bytes padded); its files ride along. */
struct batch_head {
	size_t ntask, len;
};

struct task_head {
	void *task;			/* the parent's pointer; with len > 0, a copy follows */
	size_t len;
};

/* Any type's alignment divides the size of this (C99 has no max_align_t). */
union task_align {
	long double d;
	long long l;
	void *p;
	void (*f)(void);
};

/* A task's copied bytes take this much room in a batch, so the next task is aligned. */
#define TASK_ROOM(n) (((n) + sizeof(union task_align) - 1) / sizeof(union task_align) * \
    sizeof(union task_align))

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
		qe_mem_oom();	/* a memfd that cannot shrink: memory is gone */
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
	p->w = qe_xcalloc((size_t)jobs, sizeof *p->w);
}

/*
 * In a worker: do the tasks one after another (the heap a notebook used
 * is reused by the next: no fresh pages), write each one's results. t[k]
 * is task k as the worker sees it.
 */
static void
do_batch(const struct qe_par_fn *fn, void **t, size_t ntask, int resfd)
{
	struct qe_buf out = { 0 }, note = { 0 };
	struct result_head h;

	memset(&h, 0, sizeof h);	/* its padding is written too */
	for (size_t k = 0; k < ntask; k++) {
		qe_buf_reset(&out);
		qe_buf_reset(&note);
		h.problems = fn->work(fn->ctx, t[k], &out, &note);
		h.outlen = out.len;
		h.notelen = note.len;
		h.errend = lseek(2, 0, SEEK_CUR);
		write_all(resfd, (const char *)&h, sizeof h);
		write_all(resfd, out.data, out.len);
		write_all(resfd, note.data, note.len);
	}
	qe_buf_free(&out);
	qe_buf_free(&note);
}

/* A worker forked for one batch: its tasks, then its end. */
static void
worker(struct qe_par *p, struct qe_par_item *it)
{
	if (dup2(it->errfd, 2) < 0 || dup2(p->devnull, 1) < 0)
		_exit(QE_EXIT_TROUBLE);
	do_batch(it->fn, it->task, it->ntask, it->resfd);
	_exit(0);
}

/* Read n bytes from a socket; 0 at its end (or on an error). */
static int
read_sock(int fd, void *b, size_t n)
{
	ssize_t r;

	for (char *c = b; n > 0; c += r, n -= (size_t)r)
		while ((r = recv(fd, c, n, 0)) <= 0)
			if (r == 0 || errno != EINTR)
				return 0;
	return 1;
}

/* The next batch's head and its two files (stderr, results); 0 at the end. */
static int
recv_batch(int sock, struct batch_head *bh, int fds[2])
{
	union {
		char b[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { bh, sizeof *bh };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.b,
	    .msg_controllen = sizeof ctl.b };
	struct cmsghdr *cm;
	ssize_t r;

	memset(&ctl, 0, sizeof ctl);
	while ((r = recvmsg(sock, &m, MSG_CMSG_CLOEXEC | MSG_WAITALL)) < 0 && errno == EINTR)
		;
	cm = CMSG_FIRSTHDR(&m);
	if (r != (ssize_t)sizeof *bh || cm == NULL || cm->cmsg_type != SCM_RIGHTS ||
	    cm->cmsg_len != CMSG_LEN(2 * sizeof(int)))
		return 0;
	memcpy(fds, CMSG_DATA(cm), 2 * sizeof(int));
	return 1;
}

/*
 * A kept worker: batch after batch from its socket, each task the
 * parent's pointer or the copy that came with it, a byte back when one is
 * done; ends when the parent closes the socket.
 */
static void
kept_worker(const struct qe_par_fn *fn, int sock, int devnull)
{
	struct batch_head bh;
	int fds[2];

	if (dup2(devnull, 1) < 0 || dup2(devnull, 2) < 0)
		_exit(QE_EXIT_TROUBLE);
	while (recv_batch(sock, &bh, fds)) {
		char *msg = qe_xmalloc(bh.len + 1), *at = msg;
		void **t = qe_xcalloc(bh.ntask + 1, sizeof *t);

		if (!read_sock(sock, msg, bh.len) || dup2(fds[0], 2) < 0)
			_exit(QE_EXIT_TROUBLE);
		for (size_t k = 0; k < bh.ntask; k++) {
			struct task_head th;

			memcpy(&th, at, sizeof th);
			at += TASK_ROOM(sizeof th);
			t[k] = th.len > 0 ? at : th.task;
			at += TASK_ROOM(th.len);
		}
		do_batch(fn, t, bh.ntask, fds[1]);
		free(t);
		free(msg);
		close(fds[0]);
		close(fds[1]);
		if (dup2(devnull, 2) < 0 || send(sock, "", 1, MSG_NOSIGNAL) != 1)
			_exit(QE_EXIT_TROUBLE);
	}
	_exit(0);
}

/* Fork a kept worker for fn in place k; 0, or -1 when none could be. */
static int
spawn(struct qe_par *p, const struct qe_par_fn *fn, size_t k)
{
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	sv[0] = above_stdio(sv[0]);
	sv[1] = above_stdio(sv[1]);
	if (sv[0] < 0 || sv[1] < 0 || (pid = fork()) < 0) {
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	if (pid == 0) {
		/* nothing of the parent's that would keep another worker's socket or files open */
		close(sv[0]);
		for (size_t i = 0; i < (size_t)p->jobs; i++)
			if (p->w[i].pid > 0)
				close(p->w[i].sock);
		for (size_t i = 0; i < p->n; i++) {
			struct qe_par_item *it = &p->q[(p->head + i) % p->size];

			if (it->errfd >= 0)
				close(it->errfd);
			if (it->resfd >= 0)
				close(it->resfd);
		}
		kept_worker(fn, sv[1], p->devnull);
	}
	close(sv[1]);
	p->w[k].pid = pid;
	p->w[k].sock = sv[0];
	p->w[k].busy = NULL;
	p->wfn = fn;
	return 0;
}

/* The batch it as a message for a kept worker: its head, then its tasks. */
static void
batch_msg(const struct qe_par_item *it, struct qe_buf *m)
{
	struct batch_head bh = { it->ntask, 0 };

	qe_buf_add(m, &bh, sizeof bh);
	for (size_t k = 0; k < it->ntask; k++) {
		struct task_head th;
		size_t at;

		memset(&th, 0, sizeof th);
		th.task = it->task[k];
		th.len = it->fn->keep(it->task[k]);
		at = m->len;
		qe_buf_grow(m, TASK_ROOM(sizeof th) + TASK_ROOM(th.len));
		memset(m->data + at, 0, TASK_ROOM(sizeof th) + TASK_ROOM(th.len));
		memcpy(m->data + at, &th, sizeof th);
		if (th.len > 0)
			memcpy(m->data + at + TASK_ROOM(sizeof th), it->task[k], th.len);
		m->len = at + TASK_ROOM(sizeof th) + TASK_ROOM(th.len);
	}
	bh.len = m->len - sizeof bh;
	memcpy(m->data, &bh, sizeof bh);
}

/* Send the batch message m with the files fds[2]; 0, or -1 (the worker is gone). */
static int
send_batch(int sock, const struct qe_buf *m, const int fds[2])
{
	union {
		char b[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { m->data, sizeof(struct batch_head) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.b,
	    .msg_controllen = sizeof ctl.b };
	struct cmsghdr *cm;
	ssize_t w;

	memset(&ctl, 0, sizeof ctl);
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(2 * sizeof(int));
	memcpy(CMSG_DATA(cm), fds, 2 * sizeof(int));
	while ((w = sendmsg(sock, &msg, MSG_NOSIGNAL)) < 0 && errno == EINTR)
		;
	if (w != (ssize_t)sizeof(struct batch_head))
		return -1;
	for (size_t at = (size_t)w; at < m->len; at += (size_t)w)
		while ((w = send(sock, m->data + at, m->len - at, MSG_NOSIGNAL)) <= 0)
			if (w == 0 || errno != EINTR)
				return -1;
	return 0;
}

/* Reap a kept worker that ended (its batch, if any, ends with it). */
static void
bury(struct qe_par *p, struct qe_par_worker *w)
{
	int st = 0;

	close(w->sock);
	while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR)
		;
	if (w->busy != NULL) {
		w->busy->wstatus = st;
		w->busy->finished = 1;
		p->running--;
	}
	memset(w, 0, sizeof *w);
}

/* Give the batch it to a kept worker, forked if none is free; 0, or -1 when it cannot be. */
static int
start_kept(struct qe_par *p, struct qe_par_item *it)
{
	struct qe_par_worker *w;
	struct qe_buf m = { 0 };
	int fds[2] = { it->errfd, it->resfd };

	batch_msg(it, &m);
	/* a worker that died between two batches is replaced (a few times at most) */
	for (int tries = 0; tries <= p->jobs; tries++) {
		w = NULL;
		for (size_t k = 0; w == NULL && k < (size_t)p->jobs; k++)
			if (p->w[k].pid > 0 && p->w[k].busy == NULL)
				w = &p->w[k];
		for (size_t k = 0; w == NULL && k < (size_t)p->jobs; k++)
			if (p->w[k].pid == 0 && spawn(p, it->fn, k) == 0)
				w = &p->w[k];
		if (w == NULL)
			break;
		if (send_batch(w->sock, &m, fds) == 0) {
			qe_buf_free(&m);
			it->kept = 1;
			it->pid = w->pid;
			w->busy = it;
			p->running++;
			return 0;
		}
		bury(p, w);
	}
	qe_buf_free(&m);
	return -1;
}

static void reap(struct qe_par *p, int block);

/*
 * End the kept workers, after their batches: before batches of another fn
 * (which they cannot see) or at the end of the work.
 */
static void
end_kept(struct qe_par *p)
{
	if (p->w == NULL)
		return;
	while (p->running > 0)
		reap(p, 1);
	for (size_t k = 0; k < (size_t)p->jobs; k++)
		if (p->w[k].pid > 0)
			bury(p, &p->w[k]);
	p->wfn = NULL;
}

/* Fork the worker of the batch it; on failure its tasks are done in the parent. */
static void
start(struct qe_par *p, struct qe_par_item *it)
{
	it->started = 1;
	/* kept workers serve one fn, and do not run beside workers forked per batch */
	if (p->wfn != NULL && p->wfn != it->fn)
		end_kept(p);
	else if (p->wfn == NULL && it->fn->keep != NULL)
		while (p->running > 0)
			reap(p, 1);
	it->errfd = memfd();
	it->resfd = memfd();
	if (it->errfd < 0 || it->resfd < 0 ||
	    (it->fn->keep != NULL ? start_kept(p, it) : (it->pid = fork())) < 0) {
		it->pid = 0;
		it->inparent = 1;
		return;
	}
	if (!it->kept) {
		if (it->pid == 0)
			worker(p, it);
		p->running++;
	}
	for (size_t k = 0; it->fn->forked && k < it->ntask; k++)
		it->fn->forked(it->fn->ctx, it->task[k]);
}

/* Note batches of kept workers that are done, or whose worker died; with `block`, wait for one. */
static void
reap_kept(struct qe_par *p, int block)
{
	struct pollfd pf[p->jobs];		/* jobs <= 1024 (the option's bound) */
	struct qe_par_worker *of[p->jobs];
	nfds_t n = 0;
	int r;

	for (size_t k = 0; k < (size_t)p->jobs; k++)
		if (p->w[k].pid > 0 && p->w[k].busy != NULL) {
			pf[n].fd = p->w[k].sock;
			pf[n].events = POLLIN;
			pf[n].revents = 0;
			of[n++] = &p->w[k];
		}
	if (n == 0)
		return;
	while ((r = poll(pf, n, block ? -1 : 0)) < 0 && errno == EINTR)
		;
	for (nfds_t i = 0; r > 0 && i < n; i++) {
		char c;
		ssize_t got;

		if (pf[i].revents == 0)
			continue;
		while ((got = recv(pf[i].fd, &c, 1, MSG_DONTWAIT)) < 0 && errno == EINTR)
			;
		if (got == 1) {
			of[i]->busy->finished = 1;
			of[i]->busy = NULL;
			p->running--;
		} else if (got == 0 || errno != EAGAIN)
			bury(p, of[i]);	/* it died: its batch is cut short */
	}
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
	if (p->wfn != NULL) {
		reap_kept(p, block);
		return;
	}
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

		if (it->pid > 0 && !it->finished && !it->kept) {
			kill(it->pid, SIGKILL);
			waitpid(it->pid, &it->wstatus, 0);
			it->finished = 1;
		}
	}
	for (size_t k = 0; p->w != NULL && k < (size_t)p->jobs; k++)
		if (p->w[k].pid > 0) {
			kill(p->w[k].pid, SIGKILL);
			bury(p, &p->w[k]);
		}
}

/* The end of a worker that did not finish its batch: qe_mem_oom ends the program, as with jobs 1. */
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
	it->task = qe_mem_grow(it->task, it->ntask, &it->taskcap, sizeof *it->task, 4);
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
		end_kept(p);
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
	free(p->w);
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
