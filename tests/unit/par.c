/*
 * Unit driver for lib/notebook/qe_par.c: the CPU count a cgroup's cpu.max allows,
 * and when a batch of sized tasks is full.
 */
#include <stdio.h>

#include "harness.h"
#include "notebook/qe_par.h"

/* cpu.max's text: the CPUs it allows (0: no limit, or not cpu.max). */
static void
cpu_max(const char *in, size_t n, struct qe_buf *out)
{
	(void)n;
	unit_add_double(out, qe_par_cpu_max(in));
}

/* "HAVE LEFT TOTAL JOBS": 1 when the batch is full, 0 when not, -1 for bad input. */
static void
batch_full(const char *in, size_t n, struct qe_buf *out)
{
	double have, left, total;
	int jobs, r = -1;

	(void)n;
	if (sscanf(in, "%lf %lf %lf %d", &have, &left, &total, &jobs) == 4)
		r = qe_par_batch_full(have, left, total, jobs);
	unit_add_double(out, r);
}

static const struct unit_fn fns[] = {
	{ "cpu_max", cpu_max },
	{ "batch_full", batch_full },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
