/* Reading qe-cell-diff records back into structs (qe_diffread.h). */
#include <err.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qe_mem.h"
#include "qe_json.h"
#include "qe_diffread.h"

/* (long) of a NaN or of 1e300 is undefined behaviour (found by fuzz-comment). */
long
qe_diffread_count(const cJSON *o, const char *key)
{
	double v = qe_json_num(o, key);

	return isnan(v) || v < 0 || v > 1e12 || v != floor(v) ? -1 : (long)v;
}

static int
status_of(const cJSON *o, const char *key, const struct qe_vocab *words)
{
	const char *s = qe_json_str(o, key);
	int i;

	if (s == NULL)
		return QE_DIFF_ST_NONE;
	i = qe_vocab_lookup(words, s);
	return i < 0 ? QE_DIFF_ST_OTHER : i;
}

static unsigned
flags_of(const cJSON *o)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "flags"), *f;
	unsigned fl = 0;
	int i;

	cJSON_ArrayForEach(f, a)
		if (cJSON_IsString(f) && (i = qe_vocab_lookup(&qe_vocab_flags, f->valuestring)) >= 0)
			fl |= QE_FLAG(i);
	return fl;
}

static void
test_of(const cJSON *rec, struct qe_dtest *t)
{
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(rec, "test");
	const cJSON *sp = cJSON_GetObjectItemCaseSensitive(o, "spread");

	*t = (struct qe_dtest){ cJSON_IsObject(o), NAN, NAN, NAN, -1, -1 };
	if (!t->has)
		return;
	t->p = qe_json_num(o, "p");
	t->n_b = qe_diffread_count(o, "n_base");
	t->n_h = qe_diffread_count(o, "n_head");
	if (cJSON_GetArraySize(sp) == 2 && cJSON_IsNumber(sp->child) && cJSON_IsNumber(sp->child->next)) {
		t->lo = sp->child->valuedouble;
		t->hi = sp->child->next->valuedouble;
	}
}

static void
warm_of(const cJSON *rec, struct qe_dwarm *w)
{
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(rec, "warm");

	memset(w, 0, sizeof *w);
	w->verdict = -1;
	w->b = w->h = w->ratio = NAN;
	test_of(o, &w->test);
	if (!cJSON_IsObject(o))
		return;
	w->has = 1;
	w->verdict = qe_vocab_lookup(&qe_vocab_verdicts, qe_json_str(o, "verdict"));
	w->b = qe_json_num(o, "base_s");
	w->h = qe_json_num(o, "head_s");
	w->ratio = qe_json_num(o, "ratio");
	w->error = qe_json_strdup(o, "error");
}

/* A copy of member key of rec when it is an object, or NULL. */
static cJSON *
object_of(const cJSON *rec, const char *key)
{
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(rec, key);

	return cJSON_IsObject(o) ? qe_json_check(cJSON_Duplicate(o, 1)) : NULL;
}

/* A copy of member key of rec when it is an array that is not empty, or NULL. */
static cJSON *
list_of(const cJSON *rec, const char *key)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(rec, key);

	return cJSON_IsArray(a) && cJSON_GetArraySize(a) > 0 ? qe_json_check(cJSON_Duplicate(a, 1)) : NULL;
}

static void
add_cell(struct qe_diffset *d, const cJSON *rec, const char *doc, int verdict)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(rec, "test");
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(rec, "warm");
	struct qe_dtest ct;
	struct qe_dcell *c;

	d->cells = qe_mem_grow(d->cells, d->ncells, &d->capcells, sizeof *d->cells, 64);
	c = &d->cells[d->ncells++];
	c->doc = qe_xstrdup(doc);
	c->label = qe_json_strdup(rec, "label");
	c->first_line = qe_json_strdup(rec, "first_line");
	c->name = qe_json_strdup(rec, "name");
	c->reason = qe_json_strdup(rec, "reason");
	c->bidx = qe_diffread_count(rec, "base_index");
	c->hidx = qe_diffread_count(rec, "head_index");
	c->verdict = verdict;
	c->flags = flags_of(rec);
	c->st_b = status_of(rec, "status_base", &qe_vocab_cell_statuses);
	c->st_h = status_of(rec, "status_head", &qe_vocab_cell_statuses);
	c->base_s = qe_json_num(rec, "base_s");
	c->head_s = qe_json_num(rec, "head_s");
	c->ratio = qe_json_num(rec, "ratio");
	c->delta = qe_json_num(rec, "delta_s");
	c->adj_ratio = qe_json_num(rec, "adjusted_ratio");
	c->share_b = qe_json_num(rec, "share_base");
	c->share_h = qe_json_num(rec, "share_head");
	if (cJSON_IsObject(t)) {
		c->has_test = 1;
		c->p = qe_json_num(t, "p");
	}
	c->n_b = qe_diffread_count(rec, "n_base");
	c->n_h = qe_diffread_count(rec, "n_head");
	c->mem_b = qe_json_num(rec, "peak_growth_base_bytes");
	c->mem_h = qe_json_num(rec, "peak_growth_head_bytes");
	c->warm_ratio = cJSON_IsObject(w) ? qe_json_num(w, "ratio") : NAN;
	test_of(rec, &ct);
	c->lo = ct.lo;
	c->hi = ct.hi;
	warm_of(rec, &c->warm);
	c->rss_b = qe_json_num(rec, "rss_base_bytes");
	c->rss_h = qe_json_num(rec, "rss_head_bytes");
	c->rss_step = qe_json_num(rec, "rss_growth_delta_bytes");
	c->runner_mem = qe_diffsum_threshold(d, "runner_memory_bytes");
	c->jit_b = object_of(rec, "jit_base");
	c->jit_h = object_of(rec, "jit_head");
	c->beside = list_of(rec, "concurrent_head");
	c->seq = d->seq++;
}

static void
add_nb(struct qe_diffset *d, const cJSON *rec, const char *doc, int verdict)
{
	const char *m = qe_json_str(rec, "measure"), *o = qe_json_str(rec, "head_origin");
	struct qe_dnb *n;

	d->nbs = qe_mem_grow(d->nbs, d->nnbs, &d->capnbs, sizeof *d->nbs, 16);
	n = &d->nbs[d->nnbs++];
	n->doc = qe_xstrdup(doc);
	n->reason = qe_json_strdup(rec, "reason");
	n->error = qe_json_strdup(rec, qe_json_str(rec, "error_head") ? "error_head" : "error_base");
	n->timeout_seq = qe_diffread_count(cJSON_GetObjectItemCaseSensitive(rec, "timeout_cell"), "seq");
	n->verdict = verdict;
	n->flags = flags_of(rec);
	n->st_b = status_of(rec, "status_base", &qe_vocab_nb_statuses);
	n->st_h = status_of(rec, "status_head", &qe_vocab_nb_statuses);
	n->whole = m && strcmp(m, "execution_seconds") == 0;
	n->executed = verdict != QE_V_CACHED && verdict != QE_V_REMOVED &&
	    qe_vocab_lookup(&qe_vocab_origins, o) != QE_ORIGIN_INHERITED;
	n->base_s = qe_json_num(rec, "base_s");
	n->head_s = qe_json_num(rec, "head_s");
	n->ratio = qe_json_num(rec, "ratio");
	n->adj_ratio = qe_json_num(rec, "adjusted_ratio");
	n->delta = qe_json_num(rec, "delta_s");
	n->base_exec = qe_json_num(rec, "base_execution_seconds");
	n->head_exec = qe_json_num(rec, "head_execution_seconds");
	n->kernel_changes = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(rec, "kernel_changes")) > 0 ?
	    qe_json_check(cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(rec, "kernel_changes"), 1)) : NULL;
	n->kernel_imports = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(rec, "kernel_imports")) ?
	    qe_json_check(cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(rec, "kernel_imports"), 1)) : NULL;
	n->fidelity = object_of(rec, "fidelity");
	n->beside = list_of(rec, "concurrent_head");
	test_of(rec, &n->test);
	warm_of(rec, &n->warm);
	n->seq = d->seq++;
}

int
qe_diffread_record(cJSON *rec, const char *file, long line, void *set)
{
	struct qe_diffset *d = set;
	const char *kind = qe_json_str(rec, "kind");
	const char *doc;
	int v;

	if (kind == NULL) {
		warnx("%s:%ld: record without 'kind'", file, line);
		return -1;
	}
	if (strcmp(kind, "diff-summary") == 0) {
		cJSON_Delete(d->summary);
		d->summary = qe_json_check(cJSON_Duplicate(rec, 1));
		/* it comes last: the cells read before it learn the runner's memory */
		for (size_t i = 0; i < d->ncells; i++)
			d->cells[i].runner_mem = qe_diffsum_threshold(d, "runner_memory_bytes");
		return 0;
	}
	if (strcmp(kind, "cell-diff") != 0 && strcmp(kind, "notebook-diff") != 0)
		return 0;	/* extraction records and others: not ours */
	if ((doc = qe_json_str(rec, "document")) == NULL) {
		warnx("%s:%ld: %s record without 'document'", file, line, kind);
		return -1;
	}
	if ((v = qe_vocab_lookup(&qe_vocab_verdicts, qe_json_str(rec, "verdict"))) < 0) {
		warnx("%s:%ld: %s record without a known 'verdict'", file, line, kind);
		return -1;
	}
	if (kind[0] == 'c')
		add_cell(d, rec, doc, v);
	else
		add_nb(d, rec, doc, v);
	return 0;
}

void
qe_diffset_free(struct qe_diffset *d)
{
	for (size_t i = 0; i < d->ncells; i++) {
		free(d->cells[i].doc);
		free(d->cells[i].label);
		free(d->cells[i].first_line);
		free(d->cells[i].name);
		free(d->cells[i].reason);
		free(d->cells[i].warm.error);
		cJSON_Delete(d->cells[i].jit_b);
		cJSON_Delete(d->cells[i].jit_h);
		cJSON_Delete(d->cells[i].beside);
	}
	for (size_t i = 0; i < d->nnbs; i++) {
		free(d->nbs[i].doc);
		free(d->nbs[i].reason);
		free(d->nbs[i].error);
		cJSON_Delete(d->nbs[i].kernel_changes);
		cJSON_Delete(d->nbs[i].kernel_imports);
		cJSON_Delete(d->nbs[i].fidelity);
		cJSON_Delete(d->nbs[i].beside);
		free(d->nbs[i].warm.error);
	}
	free(d->cells);
	free(d->nbs);
	cJSON_Delete(d->summary);
	memset(d, 0, sizeof *d);
}

double
qe_diffsum_num(const struct qe_diffset *d, const char *key)
{
	return d->summary ? qe_json_num(d->summary, key) : NAN;
}

long
qe_diffsum_count(const struct qe_diffset *d, const char *key)
{
	return d->summary ? qe_diffread_count(d->summary, key) : -1;
}

int
qe_diffsum_bool(const struct qe_diffset *d, const char *key)
{
	return d->summary && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(d->summary, key));
}

double
qe_diffsum_threshold(const struct qe_diffset *d, const char *key)
{
	const cJSON *t = d->summary ?
	    cJSON_GetObjectItemCaseSensitive(d->summary, "thresholds") : NULL;

	return t ? qe_json_num(t, key) : NAN;
}

/* Only a word of the vocabulary: the record's string may be an artifact's Markdown. */
const char *
qe_diffsum_machines(const struct qe_diffset *d)
{
	int i = qe_vocab_lookup(&qe_vocab_machines, d->summary ? qe_json_str(d->summary, "machines") : NULL);

	return qe_vocab_name(&qe_vocab_machines, i < 0 ? QE_MA_UNKNOWN : i);
}

int
qe_diffsum_speed(const struct qe_diffset *d)
{
	return qe_vocab_lookup(&qe_vocab_speeds, d->summary ? qe_json_str(d->summary, "speed") : NULL);
}

int
qe_diffsum_machines_differ(const struct qe_diffset *d)
{
	return strcmp(qe_diffsum_machines(d), "different") == 0;
}
