/* Numerical fidelity of two versions' captured values (qe_fidelity.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qe_fidelity.h"
#include "qe_json.h"
#include "qe_jw.h"
#include "qe_record.h"

/* A real number: a number or "nan", "inf", "-inf"; 0 when none. */
static int
real(const cJSON *e, double *v)
{
	const char *s = cJSON_IsString(e) ? e->valuestring : NULL;

	if (cJSON_IsNumber(e))
		return *v = e->valuedouble, 1;
	if (s == NULL)
		return 0;
	*v = strcmp(s, "nan") == 0 ? NAN : strcmp(s, "inf") == 0 ? INFINITY : strcmp(s, "-inf") == 0 ? -INFINITY : 0;
	return *v != 0;
}

/* An element's value as [re, im]: a real number or a pair [re, im]; 0 when none. */
static int
element(const cJSON *e, double v[2])
{
	v[1] = 0;
	if (cJSON_IsArray(e) && cJSON_GetArraySize(e) == 2)
		return real(e->child, &v[0]) && real(e->child->next, &v[1]);
	return real(e, &v[0]);
}

/* One element pair by the rule into *abs, *rel: 1 within the tolerance. */
static int
close_pair(const double a[2], const double h[2], double rtol, double atol, double *abs, double *rel)
{
	int nan_a = isnan(a[0]) || isnan(a[1]), nan_h = isnan(h[0]) || isnan(h[1]);
	double d, m;

	if (nan_a || nan_h) {	/* NaN equals NaN */
		*abs = *rel = nan_a && nan_h ? 0 : INFINITY;
		return nan_a && nan_h;
	}
	if (isinf(a[0]) || isinf(a[1]) || isinf(h[0]) || isinf(h[1])) {
		int same = a[0] == h[0] && a[1] == h[1];

		*abs = *rel = same ? 0 : INFINITY;
		return same;
	}
	d = hypot(h[0] - a[0], h[1] - a[1]);
	m = hypot(a[0], a[1]);
	*abs = d;
	*rel = m > 0 ? d / m : d > 0 ? INFINITY : 0;
	return d <= atol + rtol * m;
}

/* Two arrays of elements compared into v: 1 all within, 0 not, -1 not numbers. */
static int
close_arrays(const cJSON *x, const cJSON *y, double rtol, double atol, struct qe_fid_value *v)
{
	const cJSON *a, *h;
	int ok = 1;

	if (cJSON_GetArraySize(x) != cJSON_GetArraySize(y))
		return -1;
	v->max_abs = v->max_rel = 0;
	for (a = x->child, h = y->child; a && h; a = a->next, h = h->next) {
		double p[2], q[2], abs, rel;

		if (!element(a, p) || !element(h, q)) {
			v->max_abs = v->max_rel = NAN;
			return -1;
		}
		ok &= close_pair(p, q, rtol, atol, &abs, &rel);
		v->max_abs = fmax(v->max_abs, abs);
		v->max_rel = fmax(v->max_rel, rel);
	}
	return ok;
}

/* The bits of one component of a floating dtype, 0 for any other. */
static int
float_bits(const char *dt)
{
	static const struct { const char *name; int bits; } t[] = {
		{ "float16", 16 }, { "float32", 32 }, { "float64", 64 }, { "float128", 128 },
		{ "longdouble", 128 }, { "bfloat16", 16 }, { "complex64", 32 }, { "complex128", 64 },
		{ "complex256", 128 },
	};

	for (size_t i = 0; dt && i < sizeof t / sizeof *t; i++)
		if (strcmp(dt, t[i].name) == 0)
			return t[i].bits;
	return 0;
}

/* "[3, 4]" of a value's shape, or NULL. */
static char *
shape_text(const cJSON *x)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(x, "shape"), *d;
	struct qe_buf b = { 0 };

	if (!cJSON_IsArray(s))
		return NULL;
	qe_buf_addc(&b, '[');
	/* a dimension that is no whole number a machine could hold reads -1 */
	cJSON_ArrayForEach(d, s)
		qe_buf_addf(&b, "%s%.0f", d == s->child ? "" : ", ", cJSON_IsNumber(d) && d->valuedouble >= 0 &&
		    d->valuedouble < 1e15 && d->valuedouble == floor(d->valuedouble) ? d->valuedouble : -1);
	qe_buf_addc(&b, ']');
	qe_buf_addc(&b, '\0');
	return b.data;
}

static const cJSON *
by_name(const cJSON *values, const char *name)
{
	const cJSON *x;

	cJSON_ArrayForEach(x, values) {
		const char *n = qe_json_str(x, "name"), *k = qe_json_str(x, "kind");

		if (n && strcmp(n, name) == 0)
			return k && strcmp(k, "missing") == 0 ? NULL : x;
	}
	return NULL;
}

/* Big values: equal by digest, else their summaries by the rule. */
static int
by_summary(const cJSON *x, const cJSON *y, double rtol, double atol, struct qe_fid_value *v)
{
	const char *dx = qe_json_str(x, "sha256"), *dy = qe_json_str(y, "sha256");
	const cJSON *sx = cJSON_GetObjectItemCaseSensitive(x, "summary");
	const cJSON *sy = cJSON_GetObjectItemCaseSensitive(y, "summary");
	cJSON *ax, *ay;
	int r;

	if (dx && dy && strcmp(dx, dy) == 0) {
		v->compared = "digest", v->max_abs = v->max_rel = 0;
		return 1;
	}
	if (!cJSON_IsObject(sx) || !cJSON_IsObject(sy)) {
		v->compared = "digest";
		return 0;
	}
	v->compared = "summary";
	ax = qe_json_check(cJSON_CreateArray()), ay = qe_json_check(cJSON_CreateArray());
	for (int i = 0; i < 3; i++) {
		static const char *const k[] = { "min", "max", "mean" };
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(sx, k[i]), *q = cJSON_GetObjectItemCaseSensitive(sy, k[i]);

		cJSON_AddItemToArray(ax, qe_json_check(p ? cJSON_Duplicate(p, 1) : cJSON_CreateNull()));
		cJSON_AddItemToArray(ay, qe_json_check(q ? cJSON_Duplicate(q, 1) : cJSON_CreateNull()));
	}
	r = close_arrays(ax, ay, rtol, atol, v);
	cJSON_Delete(ax), cJSON_Delete(ay);
	return r;
}

/* One variable, both sides present: its verdict and differences into v. */
static void
compare_one(const cJSON *x, const cJSON *y, double rtol, double atol, struct qe_fid_value *v)
{
	const cJSON *vx = cJSON_GetObjectItemCaseSensitive(x, "values");
	const cJSON *vy = cJSON_GetObjectItemCaseSensitive(y, "values");
	const char *kx = qe_json_str(x, "kind"), *ky = qe_json_str(y, "kind");
	int bx = float_bits(v->dtype[0]), by = float_bits(v->dtype[1]), r;

	v->dtype_changed = v->dtype[0] && v->dtype[1] && strcmp(v->dtype[0], v->dtype[1]) != 0;
	v->precision_loss = bx > 0 && by > 0 && by < bx;
	if (!kx || !ky || strcmp(kx, "other") == 0 || strcmp(ky, "other") == 0) {
		const char *dx = qe_json_str(x, "sha256"), *dy = qe_json_str(y, "sha256");

		v->compared = "digest";
		v->verdict = dx && dy && strcmp(dx, dy) == 0 ? QE_FV_SAME : QE_FV_DIFFER;
		return;
	}
	if (!v->shape[0] || !v->shape[1] || strcmp(v->shape[0], v->shape[1]) != 0) {
		v->verdict = QE_FV_SHAPE;
		return;
	}
	if (cJSON_IsArray(vx) && cJSON_IsArray(vy)) {
		v->compared = "values";
		r = close_arrays(vx, vy, rtol, atol, v);
	} else
		r = by_summary(x, y, rtol, atol, v);
	v->verdict = r > 0 ? QE_FV_SAME : r == 0 ? QE_FV_DIFFER : QE_FV_NOTCOMPARED;
}

/* The names of both sides, base's order first, each once. */
static cJSON *
names_of(const cJSON *base, const cJSON *head)
{
	cJSON *names = qe_json_check(cJSON_CreateArray());
	const cJSON *side[2] = { base, head }, *x, *seen;

	for (int s = 0; s < 2; s++)
		cJSON_ArrayForEach(x, side[s]) {
			const char *n = qe_json_str(x, "name");
			int dup = 0;

			if (n == NULL)
				continue;
			cJSON_ArrayForEach(seen, names)
				dup |= strcmp(seen->valuestring, n) == 0;
			if (!dup)
				cJSON_AddItemToArray(names, qe_json_check(cJSON_CreateString(n)));
		}
	return names;
}

void
qe_fidelity_compare(const cJSON *base, const cJSON *head, double rtol, double atol, struct qe_fidelity *f)
{
	cJSON *names, *nm;
	int differ = 0, loss = 0, compared = 0;

	memset(f, 0, sizeof *f);
	f->rtol = rtol, f->atol = atol;
	if (!cJSON_IsArray(base) || !cJSON_IsArray(head))
		return;
	f->present = 1;
	names = names_of(base, head);
	f->v = qe_xcalloc((size_t)cJSON_GetArraySize(names) + 1, sizeof *f->v);
	cJSON_ArrayForEach(nm, names) {
		struct qe_fid_value *v = &f->v[f->n++];
		const cJSON *x = by_name(base, nm->valuestring), *y = by_name(head, nm->valuestring);

		v->name = qe_xstrdup(nm->valuestring);
		v->max_abs = v->max_rel = NAN;
		v->dtype[0] = qe_json_strdup(x, "dtype"), v->dtype[1] = qe_json_strdup(y, "dtype");
		v->shape[0] = shape_text(x), v->shape[1] = shape_text(y);
		if (x && y)
			compare_one(x, y, rtol, atol, v);
		else
			v->verdict = x || y ? QE_FV_MISSING : QE_FV_NOTCOMPARED;
		differ |= v->verdict == QE_FV_DIFFER || v->verdict == QE_FV_SHAPE || v->verdict == QE_FV_MISSING;
		loss |= v->precision_loss;
		compared |= v->verdict != QE_FV_NOTCOMPARED;
	}
	cJSON_Delete(names);
	f->answer = differ ? QE_FA_DIFFER : loss ? QE_FA_PRECISION : compared ? QE_FA_SAME : QE_FA_NOTCOMPARED;
}

static void
write_value(struct qe_buf *b, const struct qe_fid_value *v)
{
	QE_JW_LIT(b, "{\"name\":"), qe_jw_str(b, v->name);
	QE_JW_KEY(b, "verdict"), qe_jw_str(b, qe_vocab_name(&qe_vocab_fidelity, v->verdict));
	QE_JW_KEY(b, "compared"), qe_jw_str(b, v->compared);
	QE_JW_KEY(b, "max_abs"), qe_jw_numfmt(b, v->max_abs);
	QE_JW_KEY(b, "max_rel"), qe_jw_numfmt(b, v->max_rel);
	QE_JW_KEY(b, "dtype_base"), qe_jw_str(b, v->dtype[0]);
	QE_JW_KEY(b, "dtype_head"), qe_jw_str(b, v->dtype[1]);
	QE_JW_KEY(b, "shape_base"), qe_jw_str(b, v->shape[0]);
	QE_JW_KEY(b, "shape_head"), qe_jw_str(b, v->shape[1]);
	QE_JW_KEY(b, "dtype_changed"), qe_jw_bool(b, v->dtype_changed);
	QE_JW_KEY(b, "precision_loss"), qe_jw_bool(b, v->precision_loss);
	QE_JW_LIT(b, "}");
}

void
qe_fidelity_write(struct qe_buf *b, const struct qe_fidelity *f)
{
	QE_JW_KEY(b, "fidelity");
	if (!f->present) {
		QE_JW_LIT(b, "null");
		return;
	}
	QE_JW_LIT(b, "{\"answer\":"), qe_jw_str(b, qe_vocab_name(&qe_vocab_fidelity_answers, f->answer));
	QE_JW_KEY(b, "rtol"), qe_jw_numfmt(b, f->rtol);
	QE_JW_KEY(b, "atol"), qe_jw_numfmt(b, f->atol);
	QE_JW_KEY(b, "replicates_vary"), qe_jw_bool(b, f->vary);
	QE_JW_KEY(b, "values"), QE_JW_LIT(b, "[");
	for (int i = 0; i < f->n; i++) {
		if (i)
			QE_JW_LIT(b, ",");
		write_value(b, &f->v[i]);
	}
	QE_JW_LIT(b, "]}");
}

void
qe_fidelity_free(struct qe_fidelity *f)
{
	for (int i = 0; i < f->n; i++) {
		free(f->v[i].name);
		for (int s = 0; s < 2; s++)
			free(f->v[i].dtype[s]), free(f->v[i].shape[s]);
	}
	free(f->v);
	memset(f, 0, sizeof *f);
}
