/*
 * Unit driver for lib/qe_mem.c: qe_mem_grow's capacities. A reader that takes
 * rows one at a time (qe_jcache's 200,000-row global.db) stays linear only
 * when the array is reallocated a logarithmic number of times.
 */
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

/* "N FIRST": append N zeroed ints one at a time; "REALLOCATIONS CAPACITY ZEROED". */
static void
grow(const char *in, size_t n, struct qe_buf *out)
{
	size_t count, first, cap = 0, reallocs = 0, zeroed = 0;
	int *a = NULL;

	(void)n;
	if (sscanf(in, "%zu %zu", &count, &first) != 2) {
		qe_buf_adds(out, "bad case");
		return;
	}
	for (size_t i = 0; i < count; i++) {
		size_t before = cap;

		a = qe_mem_grow(a, i, &cap, sizeof *a, first);
		reallocs += cap != before;
		zeroed += a[i] == 0;
		a[i] = -1;	/* the next element must come zeroed all the same */
	}
	free(a);
	qe_buf_addf(out, "%zu %zu %zu", reallocs, cap, zeroed);
}

static const struct unit_fn fns[] = {
	{ "grow", grow },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
