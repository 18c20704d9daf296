/*
 * qe_par.h - work on a bounded window of forked worker processes, whose
 * results come back in the order the work was submitted: qe-cache-extract
 * -j N.
 *
 * Why processes and not threads: the modules that read a notebook report
 * with warnx() on stderr as they go and count problems in the caller's
 * struct, and the hook log's join marks the runs it matched. A forked
 * worker keeps all of that as it is: its stderr is a memory file of its
 * own (memfd), its struct qe_extract is its own copy, and what it changed
 * that the program needs (records, problem count, marks) comes back as
 * bytes. No module had to learn a message sink, and no state is shared
 * between two workers, so there is nothing to lock and no data race.
 *
 * Invariants:
 *  - output is the same as with jobs 1, byte for byte and in the same
 *    order, on stdout and on stderr: while a struct qe_par with jobs > 1 is
 *    open (qe_par_open .. qe_par_close), the program's own stderr (fd 2)
 *    is a memory file too; what the parent writes there between two
 *    submissions is put in the queue before the next task, and a task's
 *    messages, then done(), reach the real stderr when its turn comes.
 *    done() runs in the parent, in submission order, with the real stderr.
 *  - at most `jobs` workers run at once, each reading one notebook at a
 *    time, and at most 4 x jobs batches of tasks wait for their turn
 *    (their results are records, not notebooks): memory is bounded by the
 *    workers' notebooks, not by the number of notebooks. A batch (tasks of
 *    one kind, nothing said by the parent in between) is done by one
 *    worker, its tasks' messages and results handed on task by task. It is
 *    fn->batch tasks, or with sizes (qe_par_submit_sized) what
 *    qe_par_batch_full() says: batches shrink as the work left does, so
 *    the workers end together however the sizes vary.
 *  - a batch's stderr and results are two memory files of its own, read
 *    by the parent when the batch's turn comes. With fn->keep, the
 *    workers are kept: forked at fn's first batch, up to `jobs`, each
 *    takes batch after batch over a socket (the batch's tasks, its two
 *    files passed along, SCM_RIGHTS) and answers a byte when one is done,
 *    on one warm heap; they end when the queue is drained, or before a
 *    batch of another fn (the two kinds never run at once). Without it, a
 *    worker is forked for each batch and ends with it.
 *  - when a batch ends, the next one is started at once, whichever worker
 *    did it: kept workers are polled (their sockets), forked ones waited
 *    for (waitid of any child, WNOWAIT; the program forks no other
 *    children).
 *  - a task's state is decided before it is submitted (what the parent
 *    decides stays in the parent); a worker only reads what it was given
 *    and returns bytes. With jobs 1, or a task submitted `inparent`, the
 *    work is done in this process: with jobs 1 at once (today's path), and
 *    for `inparent` at its turn, after every earlier task's done().
 *  - a worker that dies of a signal is reported ("prog: where: worker
 *    killed by signal N") and counted by done() as a problem; one that
 *    exits with a status (qe_mem_oom) ends the program with that status after
 *    the results before it, as jobs 1 would have. A kept worker that dies
 *    loses the rest of its batch only; later batches go to a new one.
 *  - struct qe_par is owned by its caller; tasks are the caller's and must
 *    live until their done().
 */
#ifndef QE_PAR_H
#define QE_PAR_H

#include <stddef.h>
#include <sys/types.h>

#include "qe_mem.h"

/* What to do with one task (fn->ctx is handed to each). */
struct qe_par_fn {
	/*
	 * The work, in a worker (or inline): records into `out`, anything else
	 * the parent must learn into `note`. Returns the number of problems
	 * it reported.
	 */
	int (*work)(void *ctx, void *task, struct qe_buf *out, struct qe_buf *note);
	/* In the parent, after a worker took the task over (free its inputs); may be NULL. */
	void (*forked)(void *ctx, void *task);
	/* In the parent, in order: the results; problems -1 when the worker died. */
	void (*done)(void *ctx, void *task, struct qe_buf *out, struct qe_buf *note, int problems);
	void *ctx;
	/*
	 * Tasks one worker does one after another (0 or 1: one each). A
	 * worker's heap is reused from one notebook to the next, where a new
	 * process would fault in fresh pages for each. Only for tasks whose
	 * inputs the worker reads itself (a path): a batch's tasks wait in the
	 * parent until it is full.
	 */
	size_t batch;
	/*
	 * With qe_par_submit_sized: the sizes of all of fn's tasks added up
	 * (bytes, say); batches are cut by size instead of fn->batch.
	 */
	double total;
	/*
	 * Set: fn's batches go to workers kept from one batch to the next
	 * (forked at its first batch, ended by qe_par_drain() or a batch of
	 * another fn), each on one warm heap. A kept worker sees the parent's
	 * memory as it was when it was forked: a task reaches it as a copy of
	 * its first keep(task) bytes, or, when that is 0, as the pointer
	 * itself, for a task allocated before fn's first submission and
	 * unchanged until its done(). Pointers in a copied task, and what
	 * work() reads through ctx, must be of that kind too. NULL: a worker
	 * is forked for each batch and sees its tasks as they were then.
	 */
	size_t (*keep)(void *task);
};

struct qe_par_item;
struct qe_par_worker;

struct qe_par {
	int jobs;			/* workers at once; 1: none, work inline */
	int realerr;			/* the real stderr while open, else -1 */
	int capture;			/* the parent's stderr meanwhile (memfd) */
	int devnull;			/* a worker's stdout */
	struct qe_par_item *q;		/* the ring of batches waiting for their turn */
	struct qe_par_item *open;	/* the batch being filled (the ring's last), or NULL */
	size_t size, head, n, running;
	struct qe_par_worker *w;	/* kept workers (jobs of them at most), or NULL */
	const struct qe_par_fn *wfn;	/* the fn they work for */
};

/*
 * Start: with jobs > 1 the parent's stderr is captured from here (above).
 * Falls back to jobs 1 when the descriptors cannot be made.
 */
void qe_par_open(struct qe_par *p, int jobs);

/* Queue a task; may wait for earlier ones and run their done(). */
void qe_par_submit(struct qe_par *p, const struct qe_par_fn *fn, void *task, int inparent);

/*
 * The same, for a task of `size` (> 0; a notebook's bytes, say) when
 * fn->total > 0, with `left` the sizes of fn's tasks still to be
 * submitted after it: the batch being filled is started when
 * qe_par_batch_full() says it is full.
 */
void qe_par_submit_sized(struct qe_par *p, const struct qe_par_fn *fn, void *task, int inparent,
    double size, double left);

/* The smallest batch worth a fork (bytes) when the work is large: 4 MiB. */
#define QE_PAR_MIN_BATCH (4.0 * 1024 * 1024)

/*
 * Whether a batch of size `have` is full, with `left` still to come of
 * `total`, for `jobs` workers: at 1/(2 jobs) of the work left, counting
 * the batch (guided scheduling: batches shrink toward the end, so the
 * last ones are small and no worker waits long for another), and not
 * below QE_PAR_MIN_BATCH, or total/(4 jobs) when that is smaller (small
 * work is still cut in several batches).
 */
int qe_par_batch_full(double have, double left, double total, int jobs);

/* Run every queued task's done(), in order. */
void qe_par_drain(struct qe_par *p);

/* Drain, give the real stderr back, free; p is left for qe_par_open(). */
void qe_par_close(struct qe_par *p);

/*
 * The number of CPUs this process may use: its affinity mask, lowered by a
 * cgroup v2 cpu.max quota of its cgroup or an ancestor's (rounded to the
 * nearest whole CPU); at least 1.
 */
int qe_par_cpus(void);

/*
 * The CPUs a cgroup v2 cpu.max text allows ("QUOTA PERIOD" or "max
 * PERIOD"): QUOTA/PERIOD, or 0 for no limit or text that is not cpu.max.
 */
double qe_par_cpu_max(const char *text);

#endif /* QE_PAR_H */
