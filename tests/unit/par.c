/* Unit driver for lib/qe_par.c: the CPU count a cgroup's cpu.max allows. */
#include "harness.h"
#include "qe_par.h"

/* cpu.max's text: the CPUs it allows (0: no limit, or not cpu.max). */
static void
cpu_max(const char *in, size_t n, struct qe_buf *out)
{
	(void)n;
	unit_add_double(out, qe_par_cpu_max(in));
}

static const struct unit_fn fns[] = {
	{ "cpu_max", cpu_max },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
