/* Numerical fidelity and recompiles in the comment (qe_fidprose.h). */
#include <math.h>
#include <string.h>

#include "qe_fidprose.h"
#include "qe_gfm.h"
#include "qe_json.h"
#include "qe_mdtable.h"

#define NAME_MAX_CP 40

/* " max abs diff 1.2e-12, max rel 3e-12" of a value compared by value or summary. */
static void
diffs(struct qe_buf *b, const cJSON *v)
{
	double a = qe_json_num(v, "max_abs"), r = qe_json_num(v, "max_rel");

	if (isnan(a))
		return;
	if (a == 0) {
		qe_buf_adds(b, ", identical");
		return;
	}
	qe_gfm_addf(b, ", max abs diff %.2g", a);
	if (!isnan(r))
		qe_gfm_addf(b, ", max rel %.2g", r);
	else
		qe_buf_adds(b, " (base 0)");
}

/* One variable: "`x` float64 → float32, max abs diff ...". */
static void
one_value(struct qe_buf *b, const cJSON *v)
{
	const char *verdict = qe_json_str(v, "verdict"), *db = qe_json_str(v, "dtype_base");
	const char *dh = qe_json_str(v, "dtype_head"), *sb = qe_json_str(v, "shape_base");
	const char *sh = qe_json_str(v, "shape_head");

	qe_gfm_code(b, qe_json_str(v, "name") ? qe_json_str(v, "name") : "?", NAME_MAX_CP, 0);
	if (verdict && strcmp(verdict, "missing") == 0) {
		qe_buf_adds(b, db ? " missing in head" : " missing in base");
		return;
	}
	if (verdict && strcmp(verdict, "shape-changed") == 0 && sb && sh) {
		qe_buf_adds(b, " shape "), qe_gfm_code(b, sb, NAME_MAX_CP, 0);
		qe_buf_adds(b, " \xe2\x86\x92 "), qe_gfm_code(b, sh, NAME_MAX_CP, 0);
		return;
	}
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "dtype_changed")) && db && dh) {
		qe_buf_adds(b, " "), qe_gfm_code(b, db, NAME_MAX_CP, 0);
		qe_buf_adds(b, " \xe2\x86\x92 "), qe_gfm_code(b, dh, NAME_MAX_CP, 0);
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "precision_loss")))
			qe_buf_adds(b, " (**precision loss**)");
	}
	if (verdict && strcmp(verdict, "differ") == 0)
		qe_buf_adds(b, ", **differs**");
	diffs(b, v);
	if (qe_json_str(v, "compared") && strcmp(qe_json_str(v, "compared"), "summary") == 0)
		qe_buf_adds(b, " (by min, max, mean: too large to record)");
}

/* The values of one lecture's fidelity worth naming, at most 6. */
static void
value_list(struct qe_buf *b, const cJSON *f, const char *answer)
{
	const cJSON *v;
	int k = 0, all = strcmp(answer, "same") == 0;

	cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(f, "values")) {
		const char *vd = qe_json_str(v, "verdict");
		int worth = all || (vd && strcmp(vd, "same") != 0 && strcmp(vd, "not-compared") != 0) ||
		    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "dtype_changed"));

		if (!worth || (vd && strcmp(vd, "not-compared") == 0))
			continue;
		if (k++ == 6) {
			qe_buf_adds(b, "; \xe2\x80\xa6");
			break;
		}
		qe_buf_adds(b, k == 1 ? ": " : "; ");
		one_value(b, v);
	}
}

long
qe_fidprose_fidelity(struct qe_buf *b, const struct qe_diffset *d)
{
	long bad = 0;

	for (size_t i = 0; i < d->nnbs; i++) {
		const cJSON *f = d->nbs[i].fidelity;
		const char *answer = qe_json_str(f, "answer");

		if (f == NULL || answer == NULL || strcmp(answer, "not-compared") == 0)
			continue;
		if (strcmp(answer, "same") == 0)
			qe_buf_adds(b, "\xe2\x9c\x85 **Same results** in ");
		else
			qe_buf_adds(b, strcmp(answer, "differ") == 0 ? "\xe2\x9a\xa0\xef\xb8\x8f **Results differ** in " :
			    "\xe2\x9a\xa0\xef\xb8\x8f **Precision loss** in "), bad++;
		qe_mdtable_doc(b, d->nbs[i].doc);
		/* the tolerance says what was held to it, so no answer reads as agreement */
		qe_gfm_addf(b, strcmp(answer, "same") == 0 ? " (the values compared agree within rtol %g, atol %g)" :
		    strcmp(answer, "differ") == 0 ? " (the values compared differ beyond rtol %g, atol %g)" :
		    " (the values compared are within rtol %g, atol %g, but in a narrower dtype)",
		    qe_json_num(f, "rtol"), qe_json_num(f, "atol"));
		value_list(b, f, answer);
		qe_buf_adds(b, ".");
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "replicates_vary")))
			qe_buf_adds(b, " The values varied between runs of one version.");
		qe_buf_adds(b, "\n\n");
	}
	return bad;
}

/* A cell's side compiles its top function more than once: that count, else 0. */
static double
recompiled(const cJSON *j)
{
	double n = qe_json_num(j, "top_compiles");

	return j && !isnan(n) && n > 1 ? n : 0;
}

/* "`calls` (lecture) compiles `step` 3× in one run (3 compiles, 367 ms; base 1×)". */
static void
one_cell(struct qe_buf *b, const struct qe_dcell *c)
{
	const cJSON *j = recompiled(c->jit_h) > 0 ? c->jit_h : c->jit_b;

	qe_mdtable_cell_name(b, c);
	qe_buf_adds(b, " (");
	qe_mdtable_doc(b, c->doc);
	qe_buf_adds(b, j == c->jit_h ? ") compiles " : ") compiled, in base, ");
	qe_gfm_code(b, qe_json_str(j, "top") ? qe_json_str(j, "top") : "?", NAME_MAX_CP, 0);
	qe_gfm_addf(b, " %g\xc3\x97 in one run (%g compiles, ", recompiled(j), qe_json_num(j, "compiles"));
	qe_gfm_dur(b, qe_json_num(j, "compile_s"));
	qe_buf_adds(b, " compiling");
	if (j == c->jit_h && c->jit_b != NULL)
		qe_gfm_addf(b, "; base %g\xc3\x97", fmax(1, recompiled(c->jit_b)));
	qe_buf_adds(b, ")");
}

long
qe_fidprose_recompiles(struct qe_buf *b, const struct qe_diffset *d)
{
	long k = 0;

	for (size_t i = 0; i < d->ncells; i++) {
		const struct qe_dcell *c = &d->cells[i];

		if (recompiled(c->jit_h) == 0 && recompiled(c->jit_b) == 0)
			continue;
		if (k++ == 6) {
			qe_buf_adds(b, "; \xe2\x80\xa6");
			break;
		}
		qe_buf_adds(b, k == 1 ? "\xf0\x9f\x94\x81 **Recompiles**: " : "; ");
		one_cell(b, c);
	}
	if (k > 0)
		qe_buf_adds(b, ": each compilation again (a new dispatcher, new argument types or shapes) costs its compile time again.\n\n");
	return k;
}
