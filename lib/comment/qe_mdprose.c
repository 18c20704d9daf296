/* The sentences of the diff comment (qe_mdprose.h). */
#include <math.h>
#include <string.h>

#include "qe_mem.h"
#include "qe_json.h"
#include "qe_fidprose.h"
#include "qe_gfm.h"
#include "qe_mdprose.h"
#include "qe_mdtable.h"

/* Display caps, in code points, for strings from the build. */
#define CAP_FACT	60
#define CAP_FILE	120
#define CAP_ERROR	120

/* pre, then n and the word for it: "; **3 lectures failed**". */
static void
counted(struct qe_buf *b, const char *pre, long n, const char *one, const char *many)
{
	qe_buf_adds(b, pre);
	qe_gfm_count(b, n);
	qe_buf_adds(b, qe_gfm_plural(n, one, many));
}

/* " and N more" when a list of `total` showed only `shown`. */
static void
and_more(struct qe_buf *b, long total, long shown)
{
	if (total > shown) {
		qe_buf_adds(b, " and ");
		qe_gfm_count(b, total - shown);
		qe_buf_adds(b, " more");
	}
}

/* A count from the diff summary, '?' when it has none. */
static void
sum_count(struct qe_buf *b, const struct qe_diffset *d, const char *key)
{
	long n = qe_diffsum_count(d, key);

	if (n < 0)
		qe_buf_addc(b, '?');
	else
		qe_gfm_count(b, n);
}

/* The summary's count `key` and its word ("?" and the plural when it is not a count). */
static void
sum_counted(struct qe_buf *b, const struct qe_diffset *d, const char *key, const char *one, const char *many)
{
	long n = qe_diffsum_count(d, key);

	if (n < 0)
		qe_buf_adds(b, "?"), qe_buf_adds(b, many);
	else
		counted(b, "", n, one, many);
}

/* "12 compute cells in 2 lectures" */
static void
factor_where(struct qe_buf *w, const struct qe_diffset *d)
{
	sum_counted(w, d, "runner_factor_cells", " compute cell", " compute cells");
	qe_buf_adds(w, " in ");
	sum_counted(w, d, "runner_factor_lectures", " lecture", " lectures");
}

/* "10 of 12 compute cells, in 2 of 2 lectures," */
static void
broad_where(struct qe_buf *w, const struct qe_diffset *d)
{
	sum_count(w, d, "runner_factor_moved_cells");
	qe_buf_adds(w, " of ");
	sum_counted(w, d, "runner_factor_cells", " compute cell", " compute cells");
	qe_buf_adds(w, ", in ");
	sum_count(w, d, "runner_factor_moved_lectures");
	qe_buf_adds(w, " of ");
	sum_counted(w, d, "runner_factor_lectures", " lecture,", " lectures,");
}

/* "12 compute cells in 2 lectures whose code did not change ran ×3.00 as long in head" */
static void
factor_cells(struct qe_buf *w, const struct qe_diffset *d, double rf)
{
	factor_where(w, d);
	qe_buf_adds(w, " whose code did not change ran ");
	qe_gfm_ratio(w, rf);
	qe_buf_adds(w, " as long in head");
}

/* "**N <slower>**, F faster, [U unclear, ]S unchanged" ("0 <slower>" plain). */
static void
tally(struct qe_buf *b, long slower, const char *one, const char *many, const char *none,
    const long *count)
{
	if (slower > 0)
		counted(b, "**", slower, one, many);
	else
		qe_buf_adds(b, none);
	counted(b, ", ", count[QE_V_IMPROVEMENT], " faster, ", " faster, ");
	if (count[QE_V_INCONCLUSIVE] > 0)
		counted(b, "", count[QE_V_INCONCLUSIVE], " unclear, ", " unclear, ");
	counted(b, "", count[QE_V_UNCHANGED], " unchanged", " unchanged");
}

static void
in_executed(struct qe_buf *b, const struct qe_review *r)
{
	counted(b, " in ", r->n_executed, " re-executed lecture", " re-executed lectures");
}

/* The headline's sentence after its colour mark. */
static void
headline_counts(struct qe_buf *b, const struct qe_review *r, int yellow)
{
	const long *cc = r->ccount, *nc = r->nbcount;
	long compared = cc[QE_V_REGRESSION] + cc[QE_V_IMPROVEMENT] + cc[QE_V_UNCHANGED] +
	    cc[QE_V_INCONCLUSIVE];

	if (compared > 0 && !yellow && cc[QE_V_IMPROVEMENT] == 0 &&
	    r->nb_only_improvements == 0 && nc[QE_V_IMPROVEMENT] == 0) {
		counted(b, "No cell moved beyond the thresholds: ", cc[QE_V_UNCHANGED],
		    " unchanged", " unchanged");
		in_executed(b, r);
	} else if (compared > 0) {
		tally(b, cc[QE_V_REGRESSION], " cell slower**", " cells slower**", "0 cells slower",
		    cc);
		in_executed(b, r);
		if (r->nb_only_regressions > 0)
			counted(b, "; **", r->nb_only_regressions, " lecture slower** in total",
			    " lectures slower** in total");
	} else if (r->n_executed > 0) {
		qe_buf_adds(b, "No per-cell timings; whole lectures: ");
		tally(b, nc[QE_V_REGRESSION], " slower**", " slower**", "0 slower", nc);
		counted(b, " of ", r->n_executed, " re-executed", " re-executed");
	} else
		qe_buf_adds(b, "No lecture was re-executed in this build: nothing to compare");
}

/*
 * Correctness before speed: "⚠️ **Results differ** in `simulate`, `report`
 * (lecture): the timings below compare different computations.", first.
 * A cell whose own code changed says so: a new parameter changes results by
 * design, and the reader is to tell that from a bug.
 */
static void
results_differ(struct qe_buf *b, const struct qe_review *r)
{
	const struct qe_diffset *d = r->set;
	const char *doc = NULL;
	long k = 0, changed = 0;

	qe_buf_adds(b, "\xe2\x9a\xa0\xef\xb8\x8f **Results differ** in ");
	for (size_t i = 0; i < d->ncells && k < 6; i++) {
		const struct qe_dcell *c = &d->cells[i];

		if (!qe_review_results_differ(c))
			continue;
		if (doc && strcmp(doc, c->doc) != 0) {
			qe_buf_adds(b, " (");
			qe_mdtable_doc(b, doc);
			qe_buf_adds(b, ");");
		}
		qe_buf_adds(b, k++ == 0 ? "" : doc && strcmp(doc, c->doc) == 0 ? ", " : " ");
		qe_mdtable_cell_name(b, c);
		doc = c->doc;
	}
	for (size_t i = 0; i < d->ncells; i++)
		changed += qe_review_results_differ(&d->cells[i]) && (d->cells[i].flags & QE_FLAG(QE_F_SOURCE));
	and_more(b, r->n_differ, k);
	qe_buf_adds(b, " (");
	qe_mdtable_doc(b, doc);
	qe_buf_adds(b, "): the timings below compare different computations.");
	if (changed > 0)
		qe_buf_adds(b, changed == r->n_differ && changed == 1 ? " The change is in this cell's own code: if it meant to change what "
		    "the cell computes (a parameter, a model), its results are to differ; else it is a bug." :
		    changed == r->n_differ ? " The change is in these cells' own code: if it meant to change what they "
		    "compute (a parameter, a model), their results are to differ; else it is a bug." :
		    changed == 1 ? " One of these cells changed its own code: there different results may be what the change "
		    "meant; in the others they are not." :
		    " Some of these cells changed their own code: there different results may be what the change "
		    "meant; in the others they are not.");
	qe_buf_adds(b, "\n\n");
}

void
qe_mdprose_headline(struct qe_buf *b, const struct qe_review *r)
{
	const struct qe_diffset *d = r->set;
	int differ = qe_diffsum_machines_differ(d);
	/* everything slower on one runner class and CPU fails the check by itself */
	int broad = qe_diffsum_speed(d) == QE_SP_BROAD_SLOWER;
	int slower = r->ccount[QE_V_REGRESSION] > 0 || r->nb_only_regressions > 0 || broad;
	int red = slower && !differ;
	/* the results-differ line comes first, before any colour */
	int yellow = slower || r->ccount[QE_V_INCONCLUSIVE] > 0 || r->n_failed > 0 ||
	    r->n_now_failing > 0 || differ || r->nbcount[QE_V_INCONCLUSIVE] > 0 || r->n_differ > 0 ||
	    r->n_memory > 0;

	if (d->ncells + d->nnbs == 0) {
		qe_buf_adds(b, "\xe2\x9a\xa0\xef\xb8\x8f **No timing comparison available**: "
		    "the input held no qe-cell-diff records.\n");
		return;
	}
	if (r->n_differ > 0)
		results_differ(b, r);
	/* the values compared, then recompiles: the evaluation's facts before the timings */
	yellow = (qe_fidprose_fidelity(b, d) + qe_fidprose_recompiles(b, d) > 0) || yellow;
	qe_buf_adds(b, red ? "\xf0\x9f\x94\xb4 " : yellow ? "\xf0\x9f\x9f\xa1 " : "\xf0\x9f\x9f\xa2 ");
	if (broad) {
		qe_buf_adds(b, "**Broad slowdown** ");
		qe_gfm_ratio(b, qe_diffsum_num(d, "runner_factor"));
		qe_buf_adds(b, ": ");
		broad_where(b, d);
		qe_buf_adds(b, " on the same machine; ");
	}
	headline_counts(b, r, yellow);
	if (r->n_compile > 0)
		counted(b, "; **", r->n_compile, " compile-time regression** (slower as used, faster warm)",
		    " compile-time regressions** (slower as used, faster warm)");
	if (r->n_memory > 0)
		counted(b, "; **", r->n_memory, " cell needs more memory**", " cells need more memory**");
	if (r->n_failed_new > 0)
		counted(b, "; **", r->n_failed_new, " lecture newly failing**", " lectures newly failing**");
	if (r->n_failed > r->n_failed_new)
		counted(b, r->n_failed_new ? ", " : "; ", r->n_failed - r->n_failed_new,
		    " lecture still failing", " lectures still failing");
	if (r->n_now_failing > 0)
		counted(b, "; **", r->n_now_failing, " cell now fails**", " cells now fail**");
	if (differ)
		qe_buf_adds(b, " (machines differ: not comparable)");
	if (r->rep_b > 1 && r->rep_h > 1)
		qe_gfm_addf(b, " (replicate runs: %ld + %ld)", r->rep_b, r->rep_h);
	qe_buf_adds(b, "\n");
}

/* Names of lectures matching pred, escaped, comma-separated, at most max. */
static void
doc_list(struct qe_buf *b, const struct qe_diffset *d, int (*pred)(const struct qe_dnb *),
    long max)
{
	long shown = 0, total = 0;

	for (size_t i = 0; i < d->nnbs; i++) {
		int p = pred(&d->nbs[i]);

		if (!p)
			continue;
		total++;
		if (shown < max) {
			if (shown > 0)
				qe_buf_adds(b, ", ");
			qe_mdtable_doc(b, d->nbs[i].doc);
			if (p == 2)
				qe_buf_adds(b, " (failed in base too)");
			shown++;
		}
	}
	and_more(b, total, shown);
}

static int
pred_whole(const struct qe_dnb *n)
{
	return qe_review_nb_kind(n) == QE_K_EXECUTED && n->whole && n->nc > 0;
}

static int
pred_nocode(const struct qe_dnb *n)
{
	return qe_review_nb_kind(n) == QE_K_EXECUTED && n->nc == 0;
}

static int
pred_main(const struct qe_dnb *n)
{
	return qe_review_nb_kind(n) == QE_K_MAIN;
}

static int
pred_ignored(const struct qe_dnb *n)
{
	return qe_review_nb_kind(n) == QE_K_IGNORED;
}

/* "name — `exception line` (cell N sent never finished)", failed lectures of one kind. */
static void
fail_list(struct qe_buf *b, const struct qe_diffset *d, int which, long max)
{
	long shown = 0, total = 0;

	for (size_t i = 0; i < d->nnbs; i++) {
		const struct qe_dnb *n = &d->nbs[i];

		if (qe_review_nb_kind(n) != QE_K_FAILED || qe_review_nb_failed(n) != which)
			continue;
		if (total++ >= max)
			continue;
		qe_buf_adds(b, shown++ ? "; " : "");
		qe_mdtable_doc(b, n->doc);
		if (n->error) {
			qe_buf_adds(b, " \xe2\x80\x94 ");
			qe_gfm_code(b, n->error, CAP_ERROR, 0);
		}
		if (n->timeout_seq > 0) {
			qe_buf_adds(b, " (cell ");
			qe_gfm_count(b, n->timeout_seq);
			qe_buf_adds(b, " sent to the kernel never finished)");
		}
		if (n->flags & QE_FLAG(QE_F_MAIN))
			qe_buf_adds(b, " (also changed on main)");
	}
	and_more(b, total, shown);
}

/* Names of lectures matching pred with their verdict: "a (unchanged), b (failed)". */
static void
doc_verdicts(struct qe_buf *b, const struct qe_diffset *d, int (*pred)(const struct qe_dnb *), long max)
{
	long shown = 0, total = 0;

	for (size_t i = 0; i < d->nnbs; i++) {
		if (!pred(&d->nbs[i]) || total++ >= max)
			continue;
		qe_buf_adds(b, shown++ ? ", " : "");
		qe_mdtable_doc(b, d->nbs[i].doc);
		qe_buf_adds(b, " (");
		qe_buf_adds(b, qe_vocab_name(&qe_vocab_verdict_words, d->nbs[i].verdict));
		qe_buf_adds(b, ")");
	}
	and_more(b, total, shown);
}

static int
pred_cached(const struct qe_dnb *n)
{
	return n->verdict == QE_V_CACHED;
}

static void
warn_machines(struct qe_buf *w, const struct qe_diffset *d)
{
	const cJSON *facts = cJSON_GetObjectItemCaseSensitive(d->summary, "differing_facts"), *f;
	int k = 0, total = cJSON_GetArraySize(facts);

	qe_buf_adds(w, "> - **Machines differ**: base and head ran on different machines, "
	    "so no verdict here can fail the check");
	cJSON_ArrayForEach(f, facts) {
		const char *fact = qe_json_str(f, "fact"), *fb = qe_json_str(f, "base"),
		    *fh = qe_json_str(f, "head");

		if (k == 8)
			break;
		qe_buf_adds(w, k == 0 ? ". Differing: " : "; ");
		qe_gfm_code(w, fact ? fact : "?", CAP_FACT, 0);
		qe_buf_adds(w, " ");
		qe_gfm_code(w, fb ? fb : "?", CAP_FACT, 0);
		qe_buf_adds(w, " \xe2\x86\x92 ");
		qe_gfm_code(w, fh ? fh : "?", CAP_FACT, 0);
		k++;
	}
	and_more(w, total, k);
	qe_buf_adds(w, ".\n");
}

/* "`mystmd` `1.8.3`": a side's engine and its version (when its provenance lists one). */
static void
engine_words(struct qe_buf *w, const cJSON *side)
{
	const char *e = qe_json_str(side, "engine"), *v = qe_json_str(side, "version");

	qe_gfm_code(w, e ? e : "unknown", CAP_FACT, 0);
	if (v != NULL) {
		qe_buf_adds(w, " ");
		qe_gfm_code(w, v, CAP_FACT, 0);
	}
}

/*
 * "Engines differ": the sides were executed by different engines (a
 * MyST-NB book moved to mystmd); lectures are still compared by name.
 */
static void
warn_engines(struct qe_buf *w, const struct qe_diffset *d)
{
	const cJSON *es = cJSON_GetObjectItemCaseSensitive(d->summary, "engines");
	const cJSON *eb = cJSON_GetObjectItemCaseSensitive(es, "base"), *eh = cJSON_GetObjectItemCaseSensitive(es, "head");
	const char *nb = qe_json_str(eb, "engine"), *nh = qe_json_str(eh, "engine");

	if (!cJSON_IsObject(eb) || !cJSON_IsObject(eh) || (nb && nh && strcmp(nb, nh) == 0) || (!nb && !nh))
		return;
	qe_buf_adds(w, "> - **Engines differ**: base executed by ");
	engine_words(w, eb);
	qe_buf_adds(w, ", head by ");
	engine_words(w, eh);
	qe_buf_adds(w, ". Lectures are compared by name and cells by their code; a change may be the engine's.\n");
}

/* One package change: "`jax` 0.4.30 → 0.4.31 (imported by a, b)". */
static void
env_change(struct qe_buf *w, const cJSON *e)
{
	const char *p = qe_json_str(e, "package"), *eb = qe_json_str(e, "base"), *eh = qe_json_str(e, "head");
	const cJSON *docs = cJSON_GetObjectItemCaseSensitive(e, "lectures"), *x;
	int k = 0, total = cJSON_GetArraySize(docs);

	qe_gfm_code(w, p ? p : "?", CAP_FACT, 0);
	qe_buf_adds(w, " ");
	qe_gfm_code(w, eb ? eb : "?", CAP_FACT, 0);
	qe_buf_adds(w, " \xe2\x86\x92 ");
	qe_gfm_code(w, eh ? eh : "?", CAP_FACT, 0);
	cJSON_ArrayForEach(x, docs) {
		if (!cJSON_IsString(x) || k == 5)
			continue;
		qe_buf_adds(w, k++ ? ", " : " (imported by ");
		qe_mdtable_doc(w, x->valuestring);
	}
	and_more(w, total, k);
	if (k > 0)
		qe_buf_adds(w, ")");
}

/* "Environment changed": package versions differ; the verdicts are kept. */
static void
warn_environment(struct qe_buf *w, const struct qe_diffset *d)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(d->summary, "environment_changes"), *e;
	int k = 0, total = cJSON_GetArraySize(a);

	if (total <= 0)
		return;
	qe_buf_adds(w, "> - **Environment changed**: ");
	cJSON_ArrayForEach(e, a) {
		if (k == 8)
			break;
		qe_buf_adds(w, k++ ? "; " : "");
		env_change(w, e);
	}
	and_more(w, total, k);
	qe_buf_adds(w, ". Verdicts are kept: a package change is a likely cause of a change.\n");
}

static void
warn_now_failing(struct qe_buf *w, const struct qe_review *r)
{
	const struct qe_diffset *d = r->set;
	long k = 0;

	counted(w, "> - **", r->n_now_failing, " cell now raises an error**: ",
	    " cells now raise an error**: ");
	for (size_t i = 0; i < d->ncells && k < 5; i++)
		if (qe_review_now_failing(&d->cells[i])) {
			if (k++ > 0)
				qe_buf_adds(w, "; ");
			qe_mdtable_doc(w, d->cells[i].doc);
			qe_buf_adds(w, ", ");
			qe_mdtable_cell_name(w, &d->cells[i]);
		}
	and_more(w, r->n_now_failing, k);
	qe_buf_adds(w, ".\n");
}

/*
 * The likely shared cause of a broad change, from provenance: the packages
 * whose version changed, the lectures whose kernel ran with something else.
 */
static void
broad_cause(struct qe_buf *w, const struct qe_diffset *d)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(d->summary, "environment_changes"), *e;
	int k = 0, total = cJSON_GetArraySize(a);
	long kernels = 0;

	for (size_t i = 0; i < d->nnbs; i++)
		kernels += d->nbs[i].kernel_changes != NULL;
	if (total <= 0 && kernels == 0) {
		qe_buf_adds(w, "Provenance shows no package or kernel change: look for a module, data or setting "
		    "the lectures share.\n");
		return;
	}
	qe_buf_adds(w, "Likely shared cause, from provenance: ");
	cJSON_ArrayForEach(e, a) {
		if (k == 4)
			break;
		qe_buf_adds(w, k++ ? "; " : "");
		env_change(w, e);
	}
	and_more(w, total, k);
	if (kernels > 0)
		counted(w, k ? "; what the kernel ran with changed in " : "what the kernel ran with changed in ",
		    kernels, " lecture", " lectures");
	qe_buf_adds(w, ".\n");
}

/*
 * What the runner factor says (qe-cell-diff's summary speed): a broad
 * change on one runner class and CPU, machine speed that differs, or a
 * factor that cannot speak for the machine.
 */
static void
warn_runner(struct qe_buf *w, const struct qe_diffset *d, double rf)
{
	int sp = qe_diffsum_speed(d);

	if (sp == QE_SP_BROAD_SLOWER || sp == QE_SP_BROAD_FASTER) {
		qe_buf_adds(w, sp == QE_SP_BROAD_SLOWER ? "> - **Broad slowdown**: " : "> - **Broad speedup**: ");
		broad_where(w, d);
		qe_buf_adds(w, " whose code did not change ran ");
		qe_gfm_ratio(w, sp == QE_SP_BROAD_SLOWER ? qe_diffsum_threshold(d, "factor_band") :
		    1 / qe_diffsum_threshold(d, "factor_band"));
		qe_buf_adds(w, sp == QE_SP_BROAD_SLOWER ? " as long or longer in head (median " :
		    " as long or shorter in head (median ");
		qe_gfm_ratio(w, rf);
		qe_buf_adds(w, "), on the same runner class and CPU: not the machine but a cause they share");
		qe_buf_adds(w, sp == QE_SP_BROAD_SLOWER ? " (this fails the check). " : ". ");
		broad_cause(w, d);
	} else if (sp == QE_SP_DIFFERS) {
		qe_buf_adds(w, "> - **Machine speed differs**: ");
		factor_cells(w, d, rf);
		qe_buf_adds(w, ", all within ");
		qe_gfm_ratio(w, qe_diffsum_num(d, "runner_factor_spread"));
		qe_buf_adds(w, " of that: the two builds ran at different machine speed (load, or another machine). "
		    "Ratios are as measured; a cell or lecture whose verdict removing it would change is unclear "
		    "(machine speed differs) and cannot fail the check. Stamp both builds (qe-stamp) to tell the "
		    "machine from a broad change.\n");
	} else if (sp == QE_SP_FEW || sp == QE_SP_MIXED) {
		qe_buf_adds(w, "> - **Runner speed**: ");
		factor_cells(w, d, rf);
		if (sp == QE_SP_FEW)
			qe_buf_adds(w, ", too few to speak for the machine");
		else {
			qe_buf_adds(w, ", but they disagree (half stray beyond ");
			qe_gfm_ratio(w, qe_diffsum_num(d, "runner_factor_spread"));
			qe_buf_adds(w, " of it)");
		}
		qe_buf_adds(w, qe_diffsum_bool(d, "adjusted") ? ": removed as asked (qe-cell-diff -A); a verdict it would "
		    "change is unclear (machine speed differs).\n" : ": verdicts are as measured.\n");
	} else if (sp < 0) {	/* a summary from before the speed states */
		qe_buf_adds(w, "> - **Runner speed**: cells whose code did not change ran ");
		qe_gfm_ratio(w, rf);
		qe_buf_adds(w, " as long in head (median of ");
		sum_count(w, d, "runner_factor_cells");
		qe_buf_adds(w, qe_diffsum_bool(d, "adjusted") ? " cells); verdicts are adjusted for it.\n" :
		    " cells); verdicts are not adjusted for it (`qe-cell-diff -A`).\n");
	}
}

/*
 * "What the kernel ran with changed": the hook's kernel_env differs
 * (qe-cell-diff kernel_changes), the likely cause of a timing change, so
 * it comes first: "`jax backend gpu -> cpu`" per lecture.
 */
static void
warn_kernel(struct qe_buf *w, const struct qe_diffset *d)
{
	long k = 0, total = 0;

	for (size_t i = 0; i < d->nnbs; i++)
		total += d->nbs[i].kernel_changes != NULL;
	for (size_t i = 0; i < d->nnbs && k < 5; i++) {
		const cJSON *e;
		int m = 0;

		if (d->nbs[i].kernel_changes == NULL)
			continue;
		qe_buf_adds(w, k++ ? "; " : "> - **What the kernel ran with changed** (a likely cause): ");
		qe_mdtable_doc(w, d->nbs[i].doc);
		cJSON_ArrayForEach(e, d->nbs[i].kernel_changes) {
			if (!cJSON_IsString(e) || m == 8)
				continue;
			qe_buf_adds(w, m++ ? ", " : ": ");
			qe_gfm_code(w, e->valuestring, CAP_FACT, 0);
		}
		and_more(w, cJSON_GetArraySize(d->nbs[i].kernel_changes), m);
	}
	if (k == 0)
		return;
	and_more(w, total, k);
	qe_buf_adds(w, ".\n");
}

/* The cell with the longest head time, or NULL when none has one. */
static const struct qe_dcell *
slowest_cell(const struct qe_diffset *d)
{
	const struct qe_dcell *m = NULL;

	for (size_t i = 0; i < d->ncells; i++)
		if (!isnan(d->cells[i].head_s) && (m == NULL || d->cells[i].head_s > m->head_s))
			m = &d->cells[i];
	return m;
}

/* "lecture, cell: 3m 34s, 9% of the 40m 00s per-cell timeout" */
static void
timeout_share(struct qe_buf *b, const struct qe_dcell *c, double limit)
{
	qe_mdtable_doc(b, c->doc);
	qe_buf_adds(b, ", ");
	qe_mdtable_cell_name(b, c);
	qe_buf_adds(b, ": ");
	qe_gfm_dur(b, c->head_s);
	qe_buf_adds(b, ", ");
	qe_gfm_pct(b, c->head_s / limit);
	qe_buf_adds(b, " of the ");
	qe_gfm_dur(b, limit);
	qe_buf_adds(b, " per-cell timeout");
}

/* The share of the per-cell timeout (the book's execution_timeout) at which a cell is warned of. */
#define TIMEOUT_WARN 0.5

/* The [!WARNING] items. */
static void
warnings(struct qe_buf *w, const struct qe_review *r, int input_trouble)
{
	const struct qe_diffset *d = r->set;
	double rf = qe_diffsum_num(d, "runner_factor"), limit = qe_diffsum_num(d, "cell_timeout_s");
	const struct qe_dcell *slow;

	warn_kernel(w, d);
	if (qe_diffsum_machines_differ(d))
		warn_machines(w, d);
	warn_engines(w, d);
	warn_environment(w, d);
	if (r->n_failed_new > 0) {
		counted(w, "> - **", r->n_failed_new, " lecture newly failing**: ",
		    " lectures newly failing**: ");
		fail_list(w, d, 1, 10);
		qe_buf_adds(w, ".\n");
	}
	if (r->n_failed > r->n_failed_new) {
		counted(w, "> - ", r->n_failed - r->n_failed_new, " lecture still failing",
		    " lectures still failing");
		qe_buf_adds(w, " (failed in base too): ");
		fail_list(w, d, 2, 10);
		qe_buf_adds(w, ".\n");
	}
	if (r->n_now_failing > 0)
		warn_now_failing(w, r);
	if (!isnan(rf) && (qe_diffsum_speed(d) >= 0 || rf >= 1.25 || rf <= 0.8))
		warn_runner(w, d, rf);
	if (!isnan(limit) && limit > 0 && (slow = slowest_cell(d)) && slow->head_s >= limit * TIMEOUT_WARN) {
		qe_buf_adds(w, "> - **Close to the per-cell timeout**: ");
		timeout_share(w, slow, limit);
		qe_buf_adds(w, ".\n");
	}
	if (input_trouble)
		qe_buf_adds(w, "> - **Incomplete input**: some lines of the diff could not be read; "
		    "this report may miss cells.\n");
}

/* The [!NOTE] items about cells without a timing. */
static void
notes_notiming(struct qe_buf *note, const struct qe_review *r)
{
	const struct qe_diffset *d = r->set;
	long notrun = 0, empty = 0, missing;

	/* a cell with no code (no first line) is never run: neither not run nor missing */
	for (size_t i = 0; i < d->ncells; i++)
		if (d->cells[i].verdict != QE_V_NOTIMING)
			continue;
		else if (d->cells[i].first_line == NULL)
			empty++;
		else if (d->cells[i].st_h == QE_ST_NOTRUN || d->cells[i].st_h == QE_ST_SKIPPED)
			notrun++;
	missing = r->ccount[QE_V_NOTIMING] - notrun - empty;
	if (notrun > 0) {
		counted(note, "> - ", notrun, " cell was", " cells were");
		qe_buf_adds(note, " not run in head (skipped, or after an error).\n");
	}
	if (missing > 0) {
		counted(note, "> - ", missing, " cell has", " cells have");
		qe_buf_adds(note, " no usable timing on one side or both (missing or stale).\n");
	}
}

/* 1 when the lecture doc is ignored whole (the lectures are sorted by name). */
static int
ignored_doc(const struct qe_diffset *d, const char *doc)
{
	size_t lo = 0, hi = d->nnbs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(d->nbs[mid].doc, doc);

		if (c == 0)
			return pred_ignored(&d->nbs[mid]);
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* The (doc, cell: verdict) of ignored cells . */
static void
ignored_cells(struct qe_buf *b, const struct qe_diffset *d, long max)
{
	long shown = 0, total = 0;

	for (size_t i = 0; i < d->ncells; i++) {
		const struct qe_dcell *c = &d->cells[i];

		if (!(c->flags & QE_FLAG(QE_F_IGNORED)) || ignored_doc(d, c->doc) || total++ >= max)
			continue;
		qe_buf_adds(b, shown++ ? "; " : " (");
		qe_mdtable_doc(b, c->doc);
		qe_buf_adds(b, ", ");
		qe_mdtable_cell_name(b, c);
		qe_buf_adds(b, ": ");
		qe_buf_adds(b, qe_vocab_name(&qe_vocab_verdict_words, c->verdict));
	}
	and_more(b, total, shown);
	if (shown > 0)
		qe_buf_adds(b, ")");
}

/* The [!NOTE] items on what is reported apart: changed on main, ignored. */
static void
notes_apart(struct qe_buf *note, const struct qe_review *r)
{
	const struct qe_diffset *d = r->set;

	if (r->n_main > 0) {
		counted(note, "> - **", r->n_main, " lecture changed on main** since the baseline",
		    " lectures changed on main** since the baseline");
		qe_buf_adds(note, ", not in this pull request, left out of the counts above and of "
		    "the check: ");
		doc_verdicts(note, d, pred_main, 10);
		qe_buf_adds(note, ".\n");
	}
	if (r->n_ignored_nb > 0 || r->n_ignored_label > 0) {
		qe_buf_adds(note, "> - Ignored (`-i`), left out of the counts above and of the check: ");
		if (r->n_ignored_nb > 0) {
			counted(note, "", r->n_ignored_nb, " lecture (", " lectures (");
			doc_verdicts(note, d, pred_ignored, 10);
			qe_buf_adds(note, r->n_ignored_label > 0 ? "), " : ")");
		}
		if (r->n_ignored_label > 0) {
			counted(note, "", r->n_ignored_label, " cell", " cells");
			ignored_cells(note, d, 5);
		}
		qe_buf_adds(note, ".\n");
	}
}

/* One side's modules of kernel_imports: "`numba 0.56.4`, `llvmlite 0.39.1`"; 0 when none. */
static int
import_list(struct qe_buf *b, const cJSON *ki, const char *side)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(ki, side), *e;
	int k = 0;

	cJSON_ArrayForEach(e, a) {
		if (!cJSON_IsString(e) || k == 8)
			continue;
		qe_buf_adds(b, k++ ? ", " : "");
		qe_gfm_code(b, e->valuestring, CAP_FACT, 0);
	}
	and_more(b, cJSON_GetArraySize(a), k);
	return k;
}

/*
 * Modules only one version imports: the change itself (a numba conversion
 * imports numba), not the environment, so a note and not the warning.
 */
static void
notes_imports(struct qe_buf *note, const struct qe_diffset *d)
{
	long k = 0;

	for (size_t i = 0; i < d->nnbs && k < 5; i++) {
		const cJSON *ki = d->nbs[i].kernel_imports;
		struct qe_buf t = { 0 };

		if (ki == NULL)
			continue;
		qe_buf_adds(note, k++ ? "; " : "> - What each version's kernel imported: ");
		qe_mdtable_doc(note, d->nbs[i].doc);
		qe_buf_adds(note, ": ");
		if (import_list(&t, ki, "head") > 0) {
			qe_buf_adds(note, "the new version imports ");
			qe_buf_add(note, t.data, t.len);
		}
		qe_buf_reset(&t);
		if (import_list(&t, ki, "base") > 0) {
			qe_buf_adds(note, cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(ki, "head")) ?
			    ", and no longer " : "the new version no longer imports ");
			qe_buf_add(note, t.data, t.len);
		}
		qe_buf_free(&t);
	}
	if (k > 0)
		qe_buf_adds(note, " (the change itself, not the environment).\n");
}

/* Lectures whose warm pass raised: their warm times are unavailable, the cold ones stand. */
static void
notes_warm(struct qe_buf *note, const struct qe_review *r)
{
	const struct qe_diffset *d = r->set;
	long k = 0;

	if (r->n_warm_raised == 0)
		return;
	qe_buf_adds(note, "> - Warm unavailable in ");
	for (size_t i = 0; i < d->nnbs && k < 5; i++) {
		if (d->nbs[i].warm.error == NULL)
			continue;
		qe_buf_adds(note, k++ ? "; " : "");
		qe_mdtable_doc(note, d->nbs[i].doc);
		qe_buf_adds(note, ": warm pass raised ");
		qe_gfm_code(note, d->nbs[i].warm.error, CAP_ERROR, 0);
	}
	and_more(note, r->n_warm_raised, k);
	qe_buf_adds(note, " (run again in the same kernel, a cell raised: a later cell redefines what it calls?). "
	    "The as-used timings of every run stand.\n");
}

/* The [!NOTE] items. */
static void
notes(struct qe_buf *note, const struct qe_review *r)
{
	const struct qe_diffset *d = r->set;
	long nc = r->ccount[QE_V_NOTCOMPARABLE];

	notes_imports(note, d);
	notes_warm(note, r);
	if (d->nnbs + d->ncells > 0 && d->summary == NULL)
		qe_buf_adds(note, "> - No diff summary in the input: it may have been cut short.\n");
	if (r->n_whole > 0) {
		counted(note, "> - No per-cell timings in ", r->n_whole, " re-executed lecture (",
		    " re-executed lectures (");
		doc_list(note, d, pred_whole, 5);
		qe_buf_adds(note, "): whole-notebook time compared instead.\n");
	}
	if (r->n_nocode > 0) {
		counted(note, "> - ", r->n_nocode, " re-executed lecture has", " re-executed lectures have");
		qe_buf_adds(note, " no code cells (");
		doc_list(note, d, pred_nocode, 5);
		qe_buf_adds(note, "): only the kernel's start-up was timed.\n");
	}
	notes_apart(note, r);
	if (r->ccount[QE_V_NOTIMING] > 0)
		notes_notiming(note, r);
	if (nc > 0) {
		counted(note, "> - ", nc, " cell was", " cells were");
		qe_buf_adds(note, " timed by different tools in base and head and not compared.\n");
	}
	if (r->n_output_quiet > 0) {
		counted(note, "> - ", r->n_output_quiet, " cell's output differs", " cells' output differs");
		qe_buf_adds(note, r->n_output_quiet == 1 ?
		    " though its code and the cells before it did not change (an unseeded " :
		    " though their code and the cells before them did not change (an unseeded ");
		qe_buf_adds(note, "random draw, a clock): not a timing matter.\n");
	}
}

void
qe_mdprose_warnings(struct qe_buf *b, const struct qe_review *r, int input_trouble)
{
	struct qe_buf w = { 0 }, note = { 0 };

	warnings(&w, r, input_trouble);
	notes(&note, r);
	if (w.len > 0) {
		qe_buf_adds(b, "> [!WARNING]\n");
		qe_buf_add(b, w.data, w.len);
	}
	if (note.len > 0) {
		if (w.len > 0)
			qe_buf_adds(b, "\n");
		qe_buf_adds(b, "> [!NOTE]\n");
		qe_buf_add(b, note.data, note.len);
	}
	qe_buf_free(&w);
	qe_buf_free(&note);
}

void
qe_mdprose_cached(struct qe_buf *b, const struct qe_review *r, long max)
{
	counted(b, "\n", r->n_cached, " lecture was", " lectures were");
	qe_buf_adds(b, " not re-executed (cache reused): ");
	doc_list(b, r->set, pred_cached, max);
	qe_buf_adds(b, ".\n");
}

/*
 * The share rule, where the summary states it: ", or a peak growth of 10%
 * of the runner's 7.0 GB (+700 MB) whatever the ratio", or that the
 * runner's memory is not known and the rule is off.
 */
static void
memory_share(struct qe_buf *b, const struct qe_diffset *d)
{
	double sh = qe_diffsum_threshold(d, "memory_share_pct"), rm = qe_diffsum_threshold(d, "runner_memory_bytes");

	if (isnan(sh) || sh <= 0)
		return;
	if (rm > 0) {
		qe_gfm_addf(b, ", or a peak growth of %g%%", sh);
		qe_buf_adds(b, " of the runner's ");
		qe_gfm_bytes(b, rm);
		qe_buf_adds(b, " (");
		qe_gfm_bytes_delta(b, rm * sh / 100);
		qe_buf_adds(b, ") whatever the ratio");
	} else {
		qe_gfm_addf(b, " (the runner's memory is not in the provenance: the rule of %g%% of it is off)", sh);
	}
}

/* "Memory: more means +128 MB and ×1.50 peak growth, or +128 MB resident. " when it was judged. */
static void
memory_thresholds(struct qe_buf *b, const struct qe_diffset *d)
{
	double ma = qe_diffsum_threshold(d, "memory_abs_bytes"), mr = qe_diffsum_threshold(d, "memory_ratio");

	if (isnan(ma) || isnan(mr))
		return;
	qe_buf_adds(b, "Needs more memory means a peak growth ");
	qe_gfm_bytes_delta(b, ma);
	qe_buf_adds(b, " and ");
	qe_gfm_ratio(b, mr);
	qe_buf_adds(b, " above base's, or a resident set grown ");
	qe_gfm_bytes_delta(b, ma);
	qe_buf_adds(b, " more than base's across the cell");
	memory_share(b, d);
	qe_buf_adds(b, ". ");
}

/* 1 when a cell or lecture was judged by a replicate test. */
static int
replicated(const struct qe_diffset *d)
{
	for (size_t i = 0; i < d->ncells; i++)
		if (d->cells[i].has_test)
			return 1;
	for (size_t i = 0; i < d->nnbs; i++)
		if (d->nbs[i].test.has)
			return 1;
	return 0;
}

/*
 * The replicate rule, where it was applied (never the single-run numbers
 * then): 1 when written.
 */
static int
replicate_thresholds(struct qe_buf *b, const struct qe_diffset *d)
{
	double rr = qe_diffsum_threshold(d, "replicate_ratio"), ra = qe_diffsum_threshold(d, "replicate_abs_s");
	double nr = qe_diffsum_threshold(d, "replicate_notebook_ratio");
	double na = qe_diffsum_threshold(d, "replicate_notebook_abs_s");
	double al = qe_diffsum_threshold(d, "alpha");

	if (isnan(rr) || isnan(ra)) {
		if (!replicated(d))
			return 0;
		/* records of a qe-cell-diff that did not state its replicate rule */
		qe_buf_adds(b, "Judged by the replicate rule of the qe-cell-diff that wrote these records "
		    "(its thresholds are not in them). ");
		memory_thresholds(b, d);
		return 1;
	}
	qe_buf_adds(b, "Replicate rule: slower or faster means beyond ");
	qe_gfm_ratio(b, rr);
	qe_buf_adds(b, " and by more than ");
	qe_gfm_dur(b, ra);
	qe_buf_adds(b, " per cell");
	if (!isnan(nr) && !isnan(na)) {
		qe_buf_adds(b, " (");
		qe_gfm_ratio(b, nr);
		qe_buf_adds(b, " and ");
		qe_gfm_dur(b, na);
		qe_buf_adds(b, " per lecture total)");
	}
	qe_buf_adds(b, ", medians of the runs, with p < ");
	qe_gfm_decimal(b, isnan(al) ? 0.05 : al, 4);
	qe_buf_adds(b, " (Mann-Whitney over the runs), else unclear; spread: the least and greatest "
	    "ratio of the runs paired by replicate. ");
	memory_thresholds(b, d);
	return 1;
}

/* "Slower or faster means beyond ×1.50 and by more than 0.50 s per cell, ..." */
static void
thresholds(struct qe_buf *b, const struct qe_diffset *d)
{
	double cr = qe_diffsum_threshold(d, "cell_ratio"), ca = qe_diffsum_threshold(d, "cell_abs_s");
	double nr = qe_diffsum_threshold(d, "notebook_ratio");
	double na = qe_diffsum_threshold(d, "notebook_abs_s");
	double ea = qe_diffsum_threshold(d, "execution_abs_s");
	double ta = qe_diffsum_threshold(d, "cell_time_abs_s"), ia = qe_diffsum_threshold(d, "import_abs_s");

	if (isnan(cr) || isnan(ca) || replicate_thresholds(b, d))
		return;
	qe_buf_adds(b, "Slower or faster means beyond ");
	qe_gfm_ratio(b, cr);
	qe_buf_adds(b, " and by more than ");
	qe_gfm_dur(b, ca);
	qe_buf_adds(b, " per cell");
	if (!isnan(ta) && ta > 0) {
		qe_buf_adds(b, " (or by ");
		qe_gfm_dur(b, ta);
		qe_buf_adds(b, " whatever the ratio");
	}
	if (!isnan(ia) && ia > ca) {
		qe_buf_adds(b, !isnan(ta) && ta > 0 ? "; " : " (");
		qe_gfm_dur(b, ia);
		qe_buf_adds(b, " for an import or first cell whose code did not change");
	}
	if ((!isnan(ta) && ta > 0) || (!isnan(ia) && ia > ca))
		qe_buf_addc(b, ')');
	if (!isnan(nr) && !isnan(na)) {
		qe_buf_adds(b, ", ");
		qe_gfm_ratio(b, nr);
		qe_buf_adds(b, " and ");
		qe_gfm_dur(b, na);
		qe_buf_adds(b, " per lecture");
		if (!isnan(ea)) {
			qe_buf_adds(b, " (");
			qe_gfm_dur(b, ea);
			qe_buf_adds(b, " for whole-notebook time)");
		}
	}
	qe_buf_adds(b, ". ");
	memory_thresholds(b, d);
}

static void
run_link(struct qe_buf *b, const struct qe_ghrun *run)
{
	const char *sha = run->head_sha, *url = run->repo_url, *id = run->run_id;
	const char *num = run->run_number ? run->run_number : id;

	if (sha) {
		qe_buf_adds(b, " Head ");
		if (url)
			qe_buf_addf(b, "[`%.7s`](%s/commit/%s)", sha, url, sha);
		else
			qe_gfm_addf(b, "`%.7s`", sha);
	}
	if (num) {
		qe_buf_adds(b, sha ? ", run " : " Run ");
		if (url && id)
			qe_buf_addf(b, "[%s](%s/actions/runs/%s)", num, url, id);
		else
			qe_buf_adds(b, num);
	}
	if (sha || num)
		qe_buf_adds(b, ".");
}

/*
 * What the timings are: single build runs, or replicate runs (qe-replicate),
 * whose verdicts rest on a test and an effect size rather than on one run.
 */
static void
timings_note(struct qe_buf *b, const struct qe_diffset *d)
{
	long nb = 0, nh = 0;

	for (size_t i = 0; i < d->ncells; i++)
		if (d->cells[i].has_test) {
			nb = d->cells[i].n_b > nb ? d->cells[i].n_b : nb;
			nh = d->cells[i].n_h > nh ? d->cells[i].n_h : nh;
		}
	if (nb > 1 && nh > 1)
		qe_buf_addf(b, " Timings are up to %ld + %ld replicate runs, each in a fresh kernel on one runner, "
			    "the versions interleaved: cells and lectures are judged by the replicate rule (qe-cell-diff --rep-ratio, --rep-abs) and the test; as used is a run's first execution, warm the same cells run again in its kernel.</sub>\n", nb, nh);
	else
		qe_buf_adds(b, " Timings are single runs on shared runners: small changes are noise.</sub>\n");
}

/* The speed states' words in the footer (qe_vocab_speeds' order). */
static const char *const speed_words[QE_NSPEEDS] = {
	"", "steady", "too few cells to speak for the machine", "the cells disagree", "replicate runs",
	"machine speed differs: a verdict it would change is unclear",
	"a broad slowdown on one runner class and CPU", "a broad speedup on one runner class and CPU"
};

/* "Runner factor ×1.42 (8 compute cells in 2 lectures, within ×1.05): steady. " */
static void
footer_factor(struct qe_buf *b, const struct qe_diffset *d, double rf)
{
	int sp = qe_diffsum_speed(d);

	qe_buf_adds(b, "Runner factor ");
	qe_gfm_ratio(b, rf);
	qe_buf_adds(b, " (");
	if (sp < 0) {	/* a summary from before the speed states */
		sum_count(b, d, "runner_factor_cells");
		qe_buf_adds(b, qe_diffsum_bool(d, "adjusted") ? " cells), removed from the verdicts. " : " cells). ");
		return;
	}
	factor_where(b, d);
	qe_buf_adds(b, ", within ");
	qe_gfm_ratio(b, qe_diffsum_num(d, "runner_factor_spread"));
	qe_buf_adds(b, "): ");
	qe_buf_adds(b, speed_words[sp]);
	qe_buf_adds(b, qe_diffsum_bool(d, "adjusted") ? "; removed from the verdicts. " : ". ");
}

void
qe_mdprose_footer(struct qe_buf *b, const struct qe_review *r, const struct qe_ghrun *run, const char *machine)
{
	const struct qe_diffset *d = r->set;
	double rf = qe_diffsum_num(d, "runner_factor"), limit = qe_diffsum_num(d, "cell_timeout_s");
	const struct qe_dcell *slow;

	qe_buf_adds(b, "<sub>");
	thresholds(b, d);
	if (!isnan(rf))
		footer_factor(b, d, rf);
	if (!isnan(limit) && limit > 0 && (slow = slowest_cell(d)) != NULL) {
		qe_buf_adds(b, "Slowest cell: ");
		timeout_share(b, slow, limit);
		qe_buf_adds(b, ". ");
	}
	if (machine != NULL && !qe_diffsum_machines_differ(d)) {
		qe_buf_adds(b, "Machine: ");
		qe_buf_adds(b, machine);	/* escaped by its writer */
	} else {
		qe_buf_adds(b, "Machines: ");
		qe_buf_adds(b, qe_diffsum_machines(d));
	}
	qe_buf_adds(b, ".");
	run_link(b, run);
	timings_note(b, d);
}

/* The last part of a path: the file name, not the runner's temporary folder. */
static const char *
file_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash && slash[1] ? slash + 1 : path;
}

static void
sources_files(struct qe_buf *b, const struct qe_diffset *d)
{
	const char *bf = file_name(qe_json_str(d->summary, "base"));
	const char *hf = file_name(qe_json_str(d->summary, "head"));

	qe_buf_adds(b, "- Base: ");
	qe_gfm_code(b, bf ? bf : "?", CAP_FILE, 0);
	qe_buf_adds(b, " (");
	sum_count(b, d, "base_records");
	qe_buf_adds(b, " records); head: ");
	qe_gfm_code(b, hf ? hf : "?", CAP_FILE, 0);
	qe_buf_adds(b, " (");
	sum_count(b, d, "head_records");
	qe_buf_adds(b, " records).\n");
}

static void
sources_fingerprints(struct qe_buf *b, const struct qe_diffset *d, const char *key,
    const char *what)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(d->summary, key), *f;
	int k = 0;

	qe_buf_adds(b, what);
	cJSON_ArrayForEach(f, a) {
		if (!cJSON_IsString(f))
			continue;
		if (k == 10) {
			qe_buf_adds(b, ", \xe2\x80\xa6");
			break;
		}
		if (k++ > 0)
			qe_buf_adds(b, ", ");
		qe_gfm_code(b, f->valuestring, CAP_FACT, 0);
	}
	qe_buf_adds(b, k ? ".\n" : "none recorded.\n");
}

/* ", N <what>" when N > 0. */
static void
also(struct qe_buf *b, long n, const char *what)
{
	if (n > 0)
		counted(b, ", ", n, what, what);
}

void
qe_mdprose_sources(struct qe_buf *b, const struct qe_review *r)
{
	const struct qe_diffset *d = r->set;

	if (d->summary == NULL)
		return;
	qe_buf_adds(b, "\n#### Compared\n\n");
	sources_files(b, d);
	sources_fingerprints(b, d, "fingerprints_base", "- Base machine fingerprints: ");
	sources_fingerprints(b, d, "fingerprints_head", "- Head machine fingerprints: ");
	/* the kinds of qe_review_nb_kind: they add up to the total */
	counted(b, "- Lectures: ", (long)d->nnbs, " in total: ", " in total: ");
	counted(b, "", r->n_executed, " re-executed", " re-executed");
	also(b, r->n_fixed_nb, " of them no longer failing");
	counted(b, ", ", r->n_cached, " not re-executed", " not re-executed");
	if (r->n_failed > 0) {
		counted(b, ", ", r->n_failed, " failed (", " failed (");
		counted(b, "", r->n_failed_new, " newly failing, ", " newly failing, ");
		counted(b, "", r->n_failed - r->n_failed_new, " still failing)", " still failing)");
	}
	also(b, r->n_main, " changed on main");
	also(b, r->n_removed, " removed");
	also(b, r->n_ignored_nb, " ignored");
	counted(b, ". Cells: ", (long)d->ncells, " compared", " compared");
	if (r->n_apart_cells > 0)
		counted(b, " (", r->n_apart_cells, " of them reported apart)", " of them reported apart)");
	also(b, r->n_fixed_cells, " no longer failing");
	qe_buf_adds(b, ".\n");
}
