/* Writing notebook-diff, cell-diff and diff-summary records: qe_diff_all()'s emitter (qe_diffrec.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qe_stats.h"

#include "qe_json.h"
#include "qe_diffrec.h"
#include "qe_kenv.h"
#include "qe_jw.h"


static double
share(double v, double tot)
{
	return isnan(v) || !(tot > 0) ? NAN : v / tot;
}

static void
jw_flags(struct qe_buf *b, unsigned flags)
{
	int first = 1;

	QE_JW_KEY(b, "flags");
	QE_JW_LIT(b, "[");
	for (int f = 0; f < QE_NFLAGS; f++)
		if (flags & QE_FLAG(f)) {
			if (!first)
				QE_JW_LIT(b, ",");
			qe_jw_str(b, qe_vocab_name(&qe_vocab_flags, f));
			first = 0;
		}
	QE_JW_LIT(b, "]");
}

/* "test": the Mann-Whitney test of a cell or notebook, or null. */
static void
jw_test(struct qe_buf *b, const struct qe_judgement *j)
{
	QE_JW_KEY(b, "test");
	if (j->answer < 0) {
		QE_JW_LIT(b, "null");
		return;
	}
	QE_JW_LIT(b, "{\"method\":\"mann-whitney\",\"answer\":");
	qe_jw_str(b, qe_vocab_name(&qe_vocab_answers, j->answer));
	QE_JW_KEY(b, "p"), qe_jw_num(b, j->p, 6);
	QE_JW_KEY(b, "n_base"), qe_jw_num(b, j->nb, 0);
	QE_JW_KEY(b, "n_head"), qe_jw_num(b, j->nh, 0);
	QE_JW_KEY(b, "spread");
	if (isnan(j->lo))
		QE_JW_LIT(b, "null");
	else {
		QE_JW_LIT(b, "["), qe_jw_num(b, j->lo, 4);
		QE_JW_LIT(b, ","), qe_jw_num(b, j->hi, 4);
		QE_JW_LIT(b, "]");
	}
	QE_JW_LIT(b, "}");
}

/* "warm": the warm judgement, only when a side had warm samples. */
static void
jw_warm(struct qe_buf *b, const struct qe_judgement *w, int both, const char *err)
{
	if (w->verdict < 0)
		return;
	QE_JW_KEY(b, "warm");
	QE_JW_LIT(b, "{\"base_s\":");
	qe_jw_num(b, w->b, 6);
	QE_JW_KEY(b, "head_s"), qe_jw_num(b, w->h, 6);
	QE_JW_KEY(b, "ratio"), qe_jw_num(b, both && w->b > 0 ? w->h / w->b : NAN, 4);
	QE_JW_KEY(b, "verdict"), qe_jw_str(b, qe_vocab_name(&qe_vocab_verdicts, w->verdict));
	jw_test(b, w);
	QE_JW_KEY(b, "error"), qe_jw_str(b, err);
	QE_JW_LIT(b, "}");
}

/* A side's recompile audit: {"compiles","compile_s" (medians over runs),"top","top_compiles"}, or null. */
static void
jw_jit_side(struct qe_buf *b, const struct qe_cell *c, const struct qe_reader *r)
{
	double *v;
	int n;

	if (c == NULL || c->jitn == NULL) {
		QE_JW_LIT(b, "null");
		return;
	}
	v = qe_xmalloc(sizeof *v * (size_t)c->jitn->n);
	memcpy(v, c->jitn->v, sizeof *v * (size_t)(n = c->jitn->n));
	QE_JW_LIT(b, "{\"compiles\":"), qe_jw_num(b, qe_stats_median(v, n), 1);
	memcpy(v, c->jits->v, sizeof *v * (size_t)n);
	QE_JW_KEY(b, "compile_s"), qe_jw_num(b, qe_stats_median(v, n), 6);
	QE_JW_KEY(b, "top"), qe_jw_str(b, qe_reader_text(r, c->jit_top));
	QE_JW_KEY(b, "top_compiles"), qe_jw_num(b, c->jit_top ? c->jit_top_n : NAN, 0);
	QE_JW_LIT(b, "}");
	free(v);
}

/* "jit_base", "jit_head": the hook's recompile audit, when a side's kernel had a JIT listener. */
static void
jw_jit(struct qe_buf *b, const struct qe_cell *bc, const struct qe_cell *hc, const struct qe_reader *r)
{
	if ((bc == NULL || bc->jitn == NULL) && (hc == NULL || hc->jitn == NULL))
		return;
	QE_JW_KEY(b, "jit_base"), jw_jit_side(b, bc, r);
	QE_JW_KEY(b, "jit_head"), jw_jit_side(b, hc, r);
}

/*
 * "concurrent_head", when HEAD's notebook records carry "concurrent"
 * (mystmd): the documents that ran beside this one in HEAD, null when
 * HEAD did not run it (cached).
 */
static void
jw_concurrent(struct qe_buf *b, const struct qe_side *hs)
{
	const cJSON *d;
	int first = 1;

	if (!hs->has_concurrent)
		return;
	QE_JW_KEY(b, "concurrent_head");
	if (hs->concurrent == NULL) {
		QE_JW_LIT(b, "null");
		return;
	}
	QE_JW_LIT(b, "[");
	cJSON_ArrayForEach(d, hs->concurrent)
		if (cJSON_IsString(d)) {
			if (!first)
				QE_JW_LIT(b, ",");
			qe_jw_str(b, d->valuestring);
			first = 0;
		}
	QE_JW_LIT(b, "]");
}

/* A cell-diff line into the writer's buffer (a qe_cell_diff_fn). */
static void
write_cell(void *arg, const struct qe_nb_diff *nb, const struct qe_cell_diff *c)
{
	struct qe_diffrec *w = arg;
	struct qe_buf *b = &w->cells;
	/* the adjusted ratio of a verdict the factor weighed: timed, or made unclear by it */
	int timed = qe_vocab_verdict_is_timed(c->adj_verdict);
	const struct qe_cell *bc = c->b, *hc = c->h, *any = hc ? hc : bc;
	const struct qe_judgement *j = &c->j;
	uint32_t label = hc && hc->label ? hc->label : bc && bc->label ? bc->label : 0;
	uint32_t name = hc && hc->name ? hc->name : bc && bc->name ? bc->name : 0;

	qe_jw_begin(b, "cell-diff");
	QE_JW_KEY(b, "document"), qe_jw_str(b, nb->doc->name);
	/* (double): int ? int : NAN is a float, exact only to 2^24 */
	QE_JW_KEY(b, "base_index"), qe_jw_num(b, bc ? (double)bc->index : NAN, 0);
	QE_JW_KEY(b, "head_index"), qe_jw_num(b, hc ? (double)hc->index : NAN, 0);
	QE_JW_KEY(b, "label"), qe_jw_str(b, qe_reader_text(w->r, label));
	QE_JW_KEY(b, "first_line"), qe_jw_str(b, qe_reader_text(w->r, any->first_line));
	QE_JW_KEY(b, "name"), qe_jw_str(b, qe_reader_text(w->r, name));
	QE_JW_KEY(b, "verdict"), qe_jw_str(b, qe_vocab_name(&qe_vocab_verdicts, j->verdict));
	jw_flags(b, c->flags);
	QE_JW_KEY(b, "reason"), qe_jw_str(b, c->reason);
	QE_JW_KEY(b, "base_s"), qe_jw_num(b, j->b, 6);
	QE_JW_KEY(b, "head_s"), qe_jw_num(b, j->h, 6);
	QE_JW_KEY(b, "ratio"), qe_jw_num(b, bc && hc && j->b > 0 ? j->h / j->b : NAN, 4);
	QE_JW_KEY(b, "delta_s"), qe_jw_num(b, bc && hc ? j->h - j->b : NAN, 6);
	if (w->o->adjust > 0 || w->scale != 1)
		QE_JW_KEY(b, "adjusted_ratio"),
		qe_jw_num(b, timed && j->b > 0 ? j->ratio : NAN, 4);
	QE_JW_KEY(b, "share_base"), qe_jw_num(b, share(j->b, nb->sum[QE_BASE]), 4);
	QE_JW_KEY(b, "share_head"), qe_jw_num(b, share(j->h, nb->sum[QE_HEAD]), 4);
	QE_JW_KEY(b, "status_base"), qe_jw_str(b, bc ? qe_vocab_name(&qe_vocab_cell_statuses, bc->status) : NULL);
	QE_JW_KEY(b, "status_head"), qe_jw_str(b, hc ? qe_vocab_name(&qe_vocab_cell_statuses, hc->status) : NULL);
	QE_JW_KEY(b, "error_base"), qe_jw_str(b, bc ? qe_reader_text(w->r, bc->error) : NULL);
	QE_JW_KEY(b, "error_head"), qe_jw_str(b, hc ? qe_reader_text(w->r, hc->error) : NULL);
	QE_JW_KEY(b, "timing_note_base"), qe_jw_str(b, bc ? qe_vocab_name(&qe_vocab_timing_notes, bc->note) : NULL);
	QE_JW_KEY(b, "timing_note_head"), qe_jw_str(b, hc ? qe_vocab_name(&qe_vocab_timing_notes, hc->note) : NULL);
	QE_JW_KEY(b, "timing_source_base"), qe_jw_str(b, bc ? qe_vocab_name(&qe_vocab_timing_sources, bc->tsrc) : NULL);
	QE_JW_KEY(b, "timing_source_head"), qe_jw_str(b, hc ? qe_vocab_name(&qe_vocab_timing_sources, hc->tsrc) : NULL);
	QE_JW_KEY(b, "n_base"), qe_jw_num(b, j->nb, 0);
	QE_JW_KEY(b, "n_head"), qe_jw_num(b, j->nh, 0);
	jw_test(b, j);
	w->reps |= j->answer >= 0;
	w->mem |= c->has_mem || c->has_rss;
	if (c->has_mem) {
		QE_JW_KEY(b, "peak_growth_base_bytes"), qe_jw_num(b, c->mem_b, 0);
		QE_JW_KEY(b, "peak_growth_head_bytes"), qe_jw_num(b, c->mem_h, 0);
	}
	if (c->has_rss) {
		QE_JW_KEY(b, "rss_base_bytes"), qe_jw_num(b, c->rss_b, 0);
		QE_JW_KEY(b, "rss_head_bytes"), qe_jw_num(b, c->rss_h, 0);
		QE_JW_KEY(b, "rss_growth_delta_bytes"), qe_jw_num(b, c->rss_step, 0);
	}
	jw_warm(b, &c->warm, bc && hc, c->warm_error);
	jw_jit(b, bc, hc, w->r);
	jw_concurrent(b, &nb->doc->s[QE_HEAD]);
	QE_JW_LIT(b, "}\n");
}

static void
add_str(cJSON *o, const char *key, const char *s)
{
	qe_json_check(cJSON_AddStringToObject(o, key, s));
}

static void
add_number(cJSON *o, const char *key, double v)
{
	qe_json_check(cJSON_AddNumberToObject(o, key, v));
}

/* {verdict: count} over every verdict, or over the cell verdicts only. */
static void
add_counts(cJSON *o, const char *key, const long *c, int cells_only)
{
	cJSON *x = qe_json_check(cJSON_AddObjectToObject(o, key));

	for (int v = 0; v < QE_NVERDICTS; v++)
		if (!cells_only || qe_vocab_verdict_is_cell(v))
			add_number(x, qe_vocab_name(&qe_vocab_verdicts, v), (double)c[v]);
}

/* "cells": {verdict: count} over the cell verdicts. */
static void
jw_cell_counts(struct qe_buf *b, const long *c)
{
	int first = 1;

	QE_JW_KEY(b, "cells");
	QE_JW_LIT(b, "{");
	for (int v = 0; v < QE_NVERDICTS; v++)
		if (qe_vocab_verdict_is_cell(v)) {
			if (!first)
				QE_JW_LIT(b, ",");
			qe_jw_str(b, qe_vocab_name(&qe_vocab_verdicts, v));
			QE_JW_LIT(b, ":");
			qe_jw_numfmt(b, (double)c[v]);
			first = 0;
		}
	QE_JW_LIT(b, "}");
}

/* HEAD's "timeout_cell": the cell its failed run never finished, or null. */
static void
jw_timeout(struct qe_buf *b, const struct qe_side *hs)
{
	QE_JW_KEY(b, "timeout_cell");
	if (hs->timeout_seq <= 0) {
		QE_JW_LIT(b, "null");
		return;
	}
	QE_JW_LIT(b, "{\"seq\":");
	qe_jw_numfmt(b, (double)hs->timeout_seq);
	QE_JW_KEY(b, "source_sha256"), qe_jw_str(b, hs->timeout_digest);
	QE_JW_LIT(b, "}");
}

/* "kernel_imports": the modules only one version's kernel imported, when there are any. */
static void
jw_kernel_imports(struct qe_buf *b, const struct qe_side *bs, const struct qe_side *hs)
{
	cJSON *o = qe_json_check(cJSON_CreateObject());
	cJSON *ob = qe_json_check(cJSON_AddArrayToObject(o, "base"));
	cJSON *oh = qe_json_check(cJSON_AddArrayToObject(o, "head"));
	char *s;

	qe_kenv_imports(bs->kenv, hs->kenv, ob, oh);
	if (cJSON_GetArraySize(ob) + cJSON_GetArraySize(oh) > 0) {
		s = qe_json_print(o);
		QE_JW_KEY(b, "kernel_imports");
		qe_buf_adds(b, s);
		cJSON_free(s);
	}
	cJSON_Delete(o);
}

/* "kernel_changes", only when a hook measured what a kernel ran with: cJSON's array, printed. */
static void
jw_kernel_changes(struct qe_buf *b, const struct qe_side *bs, const struct qe_side *hs)
{
	cJSON *a;
	char *s;

	if (!bs->kenv && !hs->kenv)
		return;
	a = qe_json_check(cJSON_CreateArray());
	qe_kenv_changes(bs->kenv, hs->kenv, a);
	s = qe_json_print(a);
	QE_JW_KEY(b, "kernel_changes");
	qe_buf_adds(b, s);
	cJSON_free(s);
	cJSON_Delete(a);
	jw_kernel_imports(b, bs, hs);
}

/*
 * The notebook-diff line into b, byte for byte what cJSON printed when it
 * was a cJSON object (numbers in the one form, qe_jw.h).
 */
static void
write_notebook(struct qe_buf *b, const struct qe_nb_diff *nb, double scale)
{
	const struct qe_side *bs = &nb->doc->s[QE_BASE], *hs = &nb->doc->s[QE_HEAD];
	const struct qe_judgement *j = &nb->j;

	qe_jw_begin(b, "notebook-diff");
	QE_JW_KEY(b, "document"), qe_jw_str(b, nb->doc->name);
	QE_JW_KEY(b, "verdict"), qe_jw_str(b, qe_vocab_name(&qe_vocab_verdicts, nb->verdict));
	jw_flags(b, nb->flags);
	QE_JW_KEY(b, "reason"), qe_jw_str(b, nb->reason);
	QE_JW_KEY(b, "verdict_rule"), qe_jw_str(b, qe_vocab_name(&qe_vocab_verdict_rules, nb->rule));
	QE_JW_KEY(b, "error_base"), qe_jw_str(b, bs->error);
	QE_JW_KEY(b, "error_head"), qe_jw_str(b, hs->error);
	jw_timeout(b, hs);
	QE_JW_KEY(b, "pr_touched");
	if (nb->touched < 0)
		QE_JW_LIT(b, "null");
	else
		qe_jw_bool(b, nb->touched);
	QE_JW_KEY(b, "measure"), qe_jw_str(b, nb->measure);
	QE_JW_KEY(b, "base_s"), qe_jw_num(b, j->b, 6);
	QE_JW_KEY(b, "head_s"), qe_jw_num(b, j->h, 6);
	QE_JW_KEY(b, "ratio"), qe_jw_num(b, nb->measure && j->b > 0 ? j->h / j->b : NAN, 4);
	QE_JW_KEY(b, "delta_s"), qe_jw_num(b, nb->measure ? j->h - j->b : NAN, 6);
	if (scale != 1)	/* the measure after removing the runner factor (its cells' sum only) */
		QE_JW_KEY(b, "adjusted_ratio"), qe_jw_num(b, nb->measure && j->b > 0 ? j->ratio : NAN, 4);
	QE_JW_KEY(b, "base_execution_seconds"), qe_jw_num(b, nb->exec_med[QE_BASE], 6);
	QE_JW_KEY(b, "head_execution_seconds"), qe_jw_num(b, nb->exec_med[QE_HEAD], 6);
	QE_JW_KEY(b, "base_cells_seconds"), qe_jw_num(b, nb->cells_med[QE_BASE], 6);
	QE_JW_KEY(b, "head_cells_seconds"), qe_jw_num(b, nb->cells_med[QE_HEAD], 6);
	QE_JW_KEY(b, "status_base"), qe_jw_str(b, bs->status);
	QE_JW_KEY(b, "status_head"), qe_jw_str(b, hs->status);
	QE_JW_KEY(b, "cache_key_base"), qe_jw_str(b, bs->cache_key);
	QE_JW_KEY(b, "cache_key_head"), qe_jw_str(b, hs->cache_key);
	QE_JW_KEY(b, "head_origin"), qe_jw_str(b, !hs->present ? NULL :
	    qe_vocab_name(&qe_vocab_origins, nb->executed ? QE_ORIGIN_EXECUTED : QE_ORIGIN_INHERITED));
	QE_JW_KEY(b, "origin_from"), qe_jw_str(b, nb->how);
	QE_JW_KEY(b, "fingerprint_base"), qe_jw_str(b, bs->fp);
	QE_JW_KEY(b, "fingerprint_head"), qe_jw_str(b, hs->fp);
	jw_cell_counts(b, nb->cells);
	jw_test(b, j);
	jw_warm(b, &nb->warm, bs->present && hs->present, nb->warm_error);
	jw_kernel_changes(b, bs, hs);
	if (nb->fid.present)
		qe_fidelity_write(b, &nb->fid);
	jw_concurrent(b, hs);
	QE_JW_LIT(b, "}\n");
}

static void
add_flag_counts(cJSON *o, const char *key, const long *c)
{
	cJSON *x = qe_json_check(cJSON_AddObjectToObject(o, key));

	for (int f = 0; f < QE_NFLAGS; f++)
		/* the flags of replicate runs, hook memory and the evaluation's
		 * (fidelity, recompiles) only when set, so that a build's summary
		 * keeps its fields */
		if (c[f] > 0 || (f != QE_F_COMPILE && f != QE_F_MEMORY && f != QE_F_PRECISION && f != QE_F_RECOMPILE &&
		    f != QE_F_SPEED))
			add_number(x, qe_vocab_name(&qe_vocab_flags, f), (double)c[f]);
}

/* fingerprints_base, fingerprints_head, differing_facts and machines. */
static void
add_machines(cJSON *o, struct qe_diff_totals *t)
{
	cJSON *a;

	qe_fp_factdiffs_sort(&t->facts);
	qe_fp_seen_sort(&t->seen[QE_BASE]);
	qe_fp_seen_sort(&t->seen[QE_HEAD]);
	add_str(o, "machines", t->facts.n > 0 ? "different" :
	    t->seen[QE_BASE].n > 0 && t->seen[QE_HEAD].n > 0 ? "same" : "unknown");
	for (int w = 0; w < 2; w++) {
		a = qe_json_check(cJSON_AddArrayToObject(o, w ? "fingerprints_head" : "fingerprints_base"));
		for (int i = 0; i < t->seen[w].n; i++)
			cJSON_AddItemToArray(a, qe_json_check(cJSON_CreateString(t->seen[w].v[i])));
	}
	a = qe_json_check(cJSON_AddArrayToObject(o, "differing_facts"));
	for (int i = 0; i < t->facts.n; i++) {
		cJSON *f = qe_json_check(cJSON_CreateObject());

		add_str(f, "fact", t->facts.v[i].fact);
		add_str(f, "base", t->facts.v[i].base);
		add_str(f, "head", t->facts.v[i].head);
		cJSON_AddItemToArray(a, f);
	}
}

/* The rules applied; the replicate rule's and memory's only where they applied. */
static void
add_thresholds(cJSON *o, const struct qe_diff_opts *opt, const struct qe_diffrec *w)
{
	cJSON *t = qe_json_check(cJSON_AddObjectToObject(o, "thresholds"));

	if (w->reps) {
		add_number(t, "replicate_ratio", opt->cell.rep_ratio > 0 ? opt->cell.rep_ratio : opt->cell.ratio);
		add_number(t, "replicate_abs_s", opt->cell.rep_ratio > 0 ? opt->cell.rep_abs : opt->cell.abs);
		add_number(t, "replicate_notebook_ratio", opt->nb.rep_ratio > 0 ? opt->nb.rep_ratio : opt->nb.ratio);
		add_number(t, "replicate_notebook_abs_s", opt->nb.rep_ratio > 0 ? opt->nb.rep_abs : opt->nb.abs);
	}
	if (w->mem) {
		add_number(t, "memory_abs_bytes", opt->mem_abs);
		add_number(t, "memory_ratio", opt->mem_ratio);
		add_number(t, "memory_share_pct", opt->mem_share);
		if (opt->runner_mem > 0)
			add_number(t, "runner_memory_bytes", opt->runner_mem);
		else
			qe_json_check(cJSON_AddNullToObject(t, "runner_memory_bytes"));
	}
	add_number(t, "cell_ratio", opt->cell.ratio);
	add_number(t, "cell_abs_s", opt->cell.abs);
	add_number(t, "notebook_ratio", opt->nb.ratio);
	add_number(t, "notebook_abs_s", opt->nb.abs);
	add_number(t, "execution_abs_s", opt->exec_abs);
	add_number(t, "alpha", opt->cell.alpha);
	add_number(t, "cell_time_abs_s", opt->cell.time_abs);
	add_number(t, "import_abs_s", opt->import_abs);
	add_number(t, "factor_min_s", opt->factor_min_s);
	add_number(t, "factor_band", QE_VERDICT_FACTOR_BAND);
	add_number(t, "factor_min_cells", QE_VERDICT_FACTOR_CELLS);
	add_number(t, "factor_min_lectures", QE_VERDICT_FACTOR_DOCS);
	add_number(t, "factor_spread", QE_VERDICT_FACTOR_SPREAD);
}

/*
 * qe-cell-diff --defaults: every default of the rules, from o (the options
 * before any was given), as one JSON object (not a record): the summary's
 * thresholds with the replicate and memory rules, the share of
 * --cell-timeout that is the long-cell bound, the runner factor's bounds and
 * the fidelity tolerances. The documentation that restates a default is
 * tested against this (tests/defaults.bats), so each is stated once, here.
 */
void
qe_diffrec_defaults(const struct qe_diff_opts *o)
{
	struct qe_diffrec w = { 0 };
	cJSON *root = qe_json_check(cJSON_CreateObject());
	cJSON *t;

	/* Every rule applied: the replicate and memory thresholds too. */
	w.o = o;
	w.reps = w.mem = 1;
	add_thresholds(root, o, &w);
	t = cJSON_DetachItemFromObject(root, "thresholds");
	cJSON_Delete(root);
	cJSON_DeleteItemFromObject(t, "runner_memory_bytes");
	add_number(t, "cell_time_share", QE_DIFF_TIME_SHARE);
	add_number(t, "runner_factor_min_cells", o->factor_min_cells);
	add_number(t, "rtol", o->rtol);
	add_number(t, "atol", o->atol);
	qe_json_emit(t);
	cJSON_Delete(t);
}

/*
 * "environment_changes": each package whose version differs between the
 * sides' provenance.environment.packages, with the re-executed lectures
 * (executed[0..n)) that import it. Package changes keep the verdicts.
 */
static void
add_environment(cJSON *o, const struct qe_reader *r, struct qe_doc *const *executed, size_t n)
{
	struct qe_factdiffs env = { 0 };
	cJSON *a = qe_json_check(cJSON_AddArrayToObject(o, "environment_changes"));

	if (r->packages[QE_BASE] && r->packages[QE_HEAD])
		qe_fp_packages(&env, r->packages[QE_BASE], r->packages[QE_HEAD]);
	qe_fp_factdiffs_sort(&env);
	for (int i = 0; i < env.n; i++) {
		cJSON *e = qe_json_check(cJSON_CreateObject()), *docs;

		add_str(e, "package", env.v[i].fact);
		add_str(e, "base", env.v[i].base);
		add_str(e, "head", env.v[i].head);
		docs = qe_json_check(cJSON_AddArrayToObject(e, "lectures"));
		for (size_t k = 0; k < n; k++)
			if (qe_diff_imports(r, executed[k], env.v[i].fact))
				cJSON_AddItemToArray(docs, qe_json_check(cJSON_CreateString(executed[k]->name)));
		cJSON_AddItemToArray(a, e);
	}
	qe_fp_factdiffs_free(&env);
}

/*
 * "engines", when a notebook record named its engine (mystmd): what
 * executed each side, and its version as the side's provenance lists the
 * package of that name (qe-stamp's packages), else null.
 */
static void
add_engines(cJSON *o, const struct qe_reader *r)
{
	cJSON *es;

	if (!r->engine_named)
		return;
	es = qe_json_check(cJSON_AddObjectToObject(o, "engines"));
	for (int w = 0; w < 2; w++) {
		cJSON *e = qe_json_check(cJSON_AddObjectToObject(es, w == QE_BASE ? "base" : "head"));
		const char *name = qe_vocab_name(&qe_vocab_engines, r->engine[w] - 1);
		const char *v = name ? qe_json_str(r->packages[w], name) : NULL;

		qe_json_check(name ? cJSON_AddStringToObject(e, "engine", name) : cJSON_AddNullToObject(e, "engine"));
		qe_json_check(v ? cJSON_AddStringToObject(e, "version", v) : cJSON_AddNullToObject(e, "version"));
	}
}

static void
write_summary(const struct qe_diff_opts *opt, const struct qe_reader *r, const struct qe_factor_facts *rf,
    struct qe_diff_totals *t, const char *basename, const char *headname, struct qe_doc *const *executed,
    size_t nexecuted, const struct qe_diffrec *w)
{
	cJSON *o = qe_json_record_new("diff-summary");

	add_str(o, "base", basename);
	add_str(o, "head", headname);
	add_number(o, "base_records", (double)r->nrecords[QE_BASE]);
	add_number(o, "head_records", (double)r->nrecords[QE_HEAD]);
	qe_json_check(cJSON_AddBoolToObject(o, "regression", t->regressions > 0));
	add_counts(o, "notebooks", t->notebooks, 0);
	add_counts(o, "cells", t->cells, 1);
	add_flag_counts(o, "notebook_flags", t->nb_flags);
	add_flag_counts(o, "cell_flags", t->cell_flags);
	qe_json_add_rounded(o, "runner_factor", rf->factor, 4);
	add_number(o, "runner_factor_cells", rf->cells);
	add_number(o, "runner_factor_lectures", rf->docs);
	qe_json_add_rounded(o, "runner_factor_spread", rf->spread, 4);
	add_number(o, "runner_factor_moved_cells", rf->moved);
	add_number(o, "runner_factor_moved_lectures", rf->moved_docs);
	add_str(o, "speed", qe_vocab_name(&qe_vocab_speeds, qe_verdict_speed_state(rf)));
	qe_json_check(cJSON_AddBoolToObject(o, "adjusted", qe_diff_scale(opt, rf) != 1));
	add_machines(o, t);
	add_engines(o, r);
	add_environment(o, r, executed, nexecuted);
	add_thresholds(o, opt, w);
	if (opt->cell_timeout > 0)
		add_number(o, "cell_timeout_s", opt->cell_timeout);
	else
		qe_json_check(cJSON_AddNullToObject(o, "cell_timeout_s"));
	qe_json_emit(o);
	cJSON_Delete(o);
}

static void
begin(void *arg, const struct qe_factor_facts *rf)
{
	struct qe_diffrec *w = arg;

	w->scale = qe_diff_scale(w->o, rf);
}

/* The notebook-diff line, then the cell-diff lines gathered before it. */
static void
notebook(void *arg, const struct qe_nb_diff *nb)
{
	struct qe_diffrec *w = arg;

	qe_buf_reset(&w->line);
	write_notebook(&w->line, nb, w->scale);
	w->reps |= nb->j.answer >= 0;
	qe_json_emit_bytes(w->line.data, w->line.len);
	qe_json_emit_bytes(w->cells.data, w->cells.len);
	qe_buf_reset(&w->cells);
}

static void
end(void *arg, const struct qe_factor_facts *rf, struct qe_diff_totals *t,
    struct qe_doc *const *executed, size_t nexecuted)
{
	struct qe_diffrec *w = arg;

	write_summary(w->o, w->r, rf, t, w->basename, w->headname, executed, nexecuted, w);
}

struct qe_diff_emit
qe_diffrec_emitter(struct qe_diffrec *w, const struct qe_diff_opts *o, const struct qe_reader *r,
    const char *basename, const char *headname)
{
	*w = (struct qe_diffrec){ .o = o, .r = r, .basename = basename, .headname = headname, .scale = 1 };
	return (struct qe_diff_emit){ .arg = w, .begin = begin, .cell = write_cell, .notebook = notebook,
		.end = end };
}

void
qe_diffrec_free(struct qe_diffrec *w)
{
	qe_buf_free(&w->cells);
	qe_buf_free(&w->line);
}
