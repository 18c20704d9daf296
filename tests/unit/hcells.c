/*
 * Unit driver for lib/history/qe_hcells.c: "IDX STATUS DUR LABEL FIRST" (status a
 * word or -, DUR a number or nan, LABEL and FIRST a word or -) is packed,
 * then read back; "cut N ..." reads the packing cut to N bytes; "hex ..."
 * prints the packing's bytes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "qe_record.h"
#include "history/qe_hcells.h"

static int
pack(const char *in, struct qe_buf *b, char *label, char *first)
{
	struct qe_hcellrec c = { 0 };
	char st[32], dur[32];

	if (sscanf(in, "%ld %31s %31s %63s %63s", &c.idx, st, dur, label, first) != 5)
		return -1;
	c.status = qe_vocab_lookup(&qe_vocab_cell_statuses, st);
	c.dur = strcmp(dur, "nan") == 0 ? NAN : strtod(dur, NULL);
	memset(c.sha, 0xab, 32);
	c.label = strcmp(label, "-") ? label : NULL;
	c.first_line = strcmp(first, "-") ? first : NULL;
	qe_hcells_put(b, &c);
	return 0;
}

static void
show(const unsigned char *p, size_t n, struct qe_buf *out)
{
	struct qe_hcellrec c;
	size_t off = 0;
	int r;

	while ((r = qe_hcells_get(p, n, &off, &c)) > 0)
		qe_buf_addf(out, "%ld %s %g %s %s %02x;", c.idx, c.status >= 0 ?
		    qe_vocab_name(&qe_vocab_cell_statuses, c.status) : "-", c.dur, c.label ? c.label : "-",
		    c.first_line ? c.first_line : "-", c.sha[31]);
	qe_buf_addf(out, "%s", r < 0 ? "corrupt" : "end");
}

static void
roundtrip(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_buf b = { 0 };
	char label[64], first[64];
	long cut = -1;

	(void)n;
	if (strncmp(in, "cut ", 4) == 0 && sscanf(in + 4, "%ld", &cut) == 1)
		in = strchr(in + 4, ' ') + 1;
	if (pack(in, &b, label, first) < 0) {
		qe_buf_adds(out, "bad case");
		return;
	}
	show((const unsigned char *)b.data, cut >= 0 && (size_t)cut < b.len ? (size_t)cut : b.len, out);
	qe_buf_free(&b);
}

static const struct unit_fn fns[] = {
	{ "roundtrip", roundtrip },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
