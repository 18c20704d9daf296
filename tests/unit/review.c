/*
 * Unit driver for lib/comment/qe_diffread.c and lib/comment/qe_review.c: qe-cell-diff
 * records (one per input line, "\n" between them) read into a set, and the
 * review built from it. What the reader says on stderr is part of the
 * output, after "! ".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "comment/qe_diffread.h"
#include "comment/qe_review.h"

/* Read every line of in into d, the reader's messages appended to out. */
static void
read_set(const char *in, size_t n, struct qe_diffset *d, struct qe_buf *out)
{
	FILE *tmp = tmpfile();
	int saved = dup(2);
	char line[512];
	long no = 0;

	fflush(stderr);
	if (tmp == NULL || saved < 0 || dup2(fileno(tmp), 2) < 0)
		abort();
	while (n > 0) {
		const char *nl = memchr(in, '\n', n);
		size_t len = nl ? (size_t)(nl - in) : n;
		cJSON *rec = cJSON_ParseWithLength(in, len);

		no++;
		if (rec == NULL)
			fprintf(stderr, "line %ld: not JSON\n", no);
		else
			qe_diffread_record(rec, "in", no, d);
		cJSON_Delete(rec);
		n -= nl ? len + 1 : len;
		in += nl ? len + 1 : len;
	}
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	while (fgets(line, sizeof line, tmp)) {
		line[strcspn(line, "\n")] = '\0';
		qe_buf_addf(out, "! %s\n", line);
	}
	fclose(tmp);
}

static void
add_num(struct qe_buf *out, const char *name, double v)
{
	qe_buf_addf(out, " %s=", name);
	unit_add_double(out, v);
}

/* Every cell and lecture as read, in reading order. */
static void
reading(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_diffset d = { 0 };

	read_set(in, n, &d, out);
	for (size_t i = 0; i < d.ncells; i++) {
		const struct qe_dcell *c = &d.cells[i];

		qe_buf_addf(out, "cell %s %ld/%ld %s st=%d/%d flags=%#x label=%s", c->doc, c->bidx,
		    c->hidx, qe_vocab_name(&qe_vocab_verdicts, c->verdict), c->st_b, c->st_h, c->flags,
		    c->label ? c->label : "null");
		add_num(out, "base", c->base_s);
		add_num(out, "head", c->head_s);
		if (c->has_test) {
			add_num(out, "p", c->p);
			qe_buf_addf(out, " n=%ld+%ld", c->n_b, c->n_h);
		}
		qe_buf_adds(out, "\n");
	}
	for (size_t i = 0; i < d.nnbs; i++) {
		const struct qe_dnb *nb = &d.nbs[i];

		qe_buf_addf(out, "nb %s %s st=%d/%d whole=%d executed=%d\n", nb->doc,
		    qe_vocab_name(&qe_vocab_verdicts, nb->verdict), nb->st_b, nb->st_h, nb->whole,
		    nb->executed);
	}
	qe_buf_addf(out, "summary=%s machines=%s count=%ld", d.summary ? "yes" : "no",
	    qe_diffsum_machines(&d), qe_diffsum_count(&d, "base_records"));
	qe_diffset_free(&d);
}

/* The review: counts, then the cells in order, then the top rows. */
static void
review(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_diffset d = { 0 };
	struct qe_review r;

	read_set(in, n, &d, out);
	qe_review_build(&r, &d);
	qe_buf_addf(out, "slower=%ld faster=%ld executed=%ld cached=%ld failed=%ld/%ld fixed=%ld "
	    "whole=%ld now-failing=%ld fixed-cells=%ld\n", r.ccount[QE_V_REGRESSION],
	    r.ccount[QE_V_IMPROVEMENT], r.n_executed, r.n_cached, r.n_failed, r.n_failed_new,
	    r.n_fixed_nb, r.n_whole, r.n_now_failing, r.n_fixed_cells);
	qe_buf_adds(out, "order:");
	for (size_t i = 0; i < d.ncells; i++)
		qe_buf_addf(out, " %s:%ld/%ld", d.cells[i].doc, d.cells[i].bidx, d.cells[i].hidx);
	for (size_t i = 0; i < d.nnbs; i++)
		qe_buf_addf(out, " [%s %ld+%ld]", d.nbs[i].doc, d.nbs[i].c0, d.nbs[i].nc);
	qe_buf_adds(out, "\ntops:");
	for (size_t i = 0; i < r.ntops; i++)
		qe_buf_addf(out, " %d:%s", r.tops[i].rank,
		    r.tops[i].c ? r.tops[i].c->label : r.tops[i].n->doc);
	qe_review_free(&r);
	qe_diffset_free(&d);
}

/* The kinds every lecture falls in exactly once, the failures and what is apart. */
static void
kinds(const char *in, size_t n, struct qe_buf *out)
{
	struct qe_diffset d = { 0 };
	struct qe_review r;

	read_set(in, n, &d, out);
	qe_review_build(&r, &d);
	qe_buf_addf(out, "total=%zu executed=%ld cached=%ld failed=%ld/%ld removed=%ld main=%ld "
	    "ignored=%ld nocode=%ld apart-cells=%ld/%ld/%ld slower=%ld tops=%zu", d.nnbs, r.n_executed,
	    r.n_cached, r.n_failed, r.n_failed_new, r.n_removed, r.n_main, r.n_ignored_nb, r.n_nocode,
	    r.n_apart_cells, r.n_ignored_cells, r.n_ignored_label, r.ccount[QE_V_REGRESSION], r.ntops);
	qe_review_free(&r);
	qe_diffset_free(&d);
}

static const struct unit_fn fns[] = {
	{ "read", reading },
	{ "review", review },
	{ "kinds", kinds },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
