/* qe-history's rows as NDJSON or one Markdown table (qe_hout.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "qe_mem.h"
#include "qe_json.h"
#include "qe_gfm.h"
#include "qe_hout.h"

void
qe_hout_begin(struct qe_hout *o, int md, const struct qe_hsink *sink, const struct qe_hcol *cols)
{
	o->md = sink ? 0 : md;
	o->sink = sink;
	o->cols = cols;
	o->rows = md ? qe_json_check(cJSON_CreateArray()) : NULL;
}

void
qe_hout_row(struct qe_hout *o, cJSON *rec)
{
	qe_json_check(rec);
	if (o->sink) {
		o->sink->row(rec, o->sink->ctx);
		return;
	}
	if (!o->md) {
		qe_json_emit(rec);
		cJSON_Delete(rec);
		return;
	}
	cJSON_AddItemToArray(o->rows, rec);
}

/* provenance_changes as "package numba: 0.60.0 → 0.61.0; ...". */
static void
changes(struct qe_buf *b, const cJSON *arr)
{
	const cJSON *c;
	int first = 1;

	cJSON_ArrayForEach(c, arr) {
		const char *name = qe_json_str(c, "name"), *bf = qe_json_str(c, "before"),
		    *af = qe_json_str(c, "after");

		qe_buf_adds(b, first ? "" : "; ");
		first = 0;
		qe_gfm_text(b, qe_json_str(c, "what"), 40);
		if (name) {
			qe_buf_adds(b, " ");
			qe_gfm_text(b, name, 60);
		}
		qe_buf_adds(b, ": ");
		if (bf == NULL || qe_gfm_text(b, bf, 20) == 0)
			qe_buf_adds(b, "none");
		qe_buf_adds(b, " → ");
		if (af == NULL || qe_gfm_text(b, af, 20) == 0)
			qe_buf_adds(b, "none");
	}
	if (first)
		qe_buf_adds(b, "—");
}

static void
cell(struct qe_buf *b, const cJSON *v, enum qe_hfmt fmt)
{
	double x = cJSON_IsNumber(v) ? v->valuedouble : NAN;
	const char *s = cJSON_IsString(v) ? v->valuestring : NULL;

	if (fmt == QE_HF_CHANGES) {
		changes(b, v);
	} else if (fmt == QE_HF_RUN && !isnan(x) && x > 0) {
		qe_buf_addf(b, "#%.0f", x);
	} else if (fmt == QE_HF_DATE && s != NULL) {
		char day[11];

		snprintf(day, sizeof day, "%s", s);
		qe_gfm_text(b, day, 10);
	} else if (cJSON_IsBool(v)) {
		qe_buf_adds(b, cJSON_IsTrue(v) ? "yes" : "no");
	} else if (s == NULL && isnan(x)) {
		qe_buf_adds(b, "—");
	} else if (s != NULL) {
		if (fmt == QE_HF_CODE)
			qe_gfm_code(b, s, 80, 1);
		else if (qe_gfm_text(b, s, fmt == QE_HF_SHORT ? 12 : 80) == 0)
			qe_buf_adds(b, "—");
	} else if (fmt == QE_HF_DUR) {
		qe_gfm_dur(b, x);
	} else if (fmt == QE_HF_RATIO) {
		qe_gfm_ratio(b, x);
	} else if (fmt == QE_HF_PCT) {
		qe_gfm_pct(b, x);
	} else {
		qe_gfm_decimal(b, x, 4);
	}
}

void
qe_hout_end(struct qe_hout *o)
{
	struct qe_buf b = { 0 };
	const cJSON *r;

	if (!o->md)
		return;
	if (cJSON_GetArraySize(o->rows) == 0) {
		qe_buf_adds(&b, "No rows.\n");
	} else {
		for (const struct qe_hcol *c = o->cols; c->key; c++)
			qe_buf_addf(&b, "| %s ", c->head);
		qe_buf_adds(&b, "|\n");
		for (const struct qe_hcol *c = o->cols; c->key; c++)
			qe_buf_adds(&b, "|---");
		qe_buf_adds(&b, "|\n");
		cJSON_ArrayForEach(r, o->rows) {
			for (const struct qe_hcol *c = o->cols; c->key; c++) {
				qe_buf_adds(&b, "| ");
				cell(&b, cJSON_GetObjectItemCaseSensitive(r, c->key), c->fmt);
				qe_buf_adds(&b, " ");
			}
			qe_buf_adds(&b, "|\n");
		}
	}
	qe_json_emit_bytes(b.data, b.len);
	qe_buf_free(&b);
	cJSON_Delete(o->rows);
	o->rows = NULL;
}
