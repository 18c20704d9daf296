/*
 * Unit driver for lib/qe_record.c. `vocab --dump` prints every table as
 * "what: word word ...", which tests/00-unit.bats compares with the enums
 * of schema/.
 */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "qe_record.h"

/* "TABLE:WORD": the word's number, or -1. */
static void
lookup(const char *in, size_t n, struct qe_buf *out)
{
	const char *sp = memchr(in, ':', n);

	for (int i = 0; sp && qe_vocabularies[i]; i++)
		if (strlen(qe_vocabularies[i]->what) == (size_t)(sp - in) &&
		    memcmp(qe_vocabularies[i]->what, in, (size_t)(sp - in)) == 0) {
			qe_buf_addf(out, "%d", qe_vocab_lookup(qe_vocabularies[i], sp + 1));
			return;
		}
	qe_buf_adds(out, "no such table");
}

static void
timed(const char *in, size_t n, struct qe_buf *out)
{
	(void)n;
	qe_buf_addf(out, "%d", qe_vocab_verdict_is_timed(qe_vocab_lookup(&qe_vocab_verdicts, in)));
}

static const struct unit_fn fns[] = {
	{ "lookup", lookup },
	{ "timed", timed },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "--dump") == 0) {
		for (int i = 0; qe_vocabularies[i]; i++) {
			printf("%s:", qe_vocabularies[i]->what);
			for (int k = 0; k < qe_vocabularies[i]->n; k++)
				printf(" %s", qe_vocab_name(qe_vocabularies[i], k));
			printf("\n");
		}
		return 0;
	}
	return unit_main(argc, argv, fns);
}
