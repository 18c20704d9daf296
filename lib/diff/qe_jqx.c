/* User jq expressions over records (qe_jqx.h). */
#include <err.h>
#include <string.h>

#include <jq.h>
#include <jv.h>

#include "qe_json.h"
#include "qe_jqx.h"

static void
errcb(void *data, jv msg)
{
	struct qe_jqx *x = data;

	/* keep the first line of the first message: the detail, not the count */
	if (jv_get_kind(msg) == JV_KIND_STRING && x->err.len == 0) {
		const char *m = jv_string_value(msg);

		qe_buf_add(&x->err, m, strcspn(m, "\n"));
	}
	jv_free(msg);
}

int
qe_jqx_compile(struct qe_jqx *x, const char *text, const char *opt)
{
	x->text = text;
	x->jq = jq_init();
	if (x->jq == NULL)
		qe_mem_oom();
	jq_set_error_cb(x->jq, errcb, x);
	qe_buf_reset(&x->err);
	if (!jq_compile(x->jq, x->text)) {
		warnx("%s: cannot compile '%s'%s%s", opt, x->text, x->err.len ? ": " : "",
		    x->err.len ? x->err.data : "");
		return -1;
	}
	return 0;
}

/* The first output of x on rec (caller frees), or -1 after a jq error. */
static int
run(struct qe_jqx *x, const cJSON *rec, const char *file, long line, jv *out)
{
	char *s = qe_json_print(rec);
	jv in, r;

	in = jv_parse(s);
	cJSON_free(s);
	jq_start(x->jq, in, 0);
	r = jq_next(x->jq);
	if (!jv_is_valid(r)) {
		if (jv_invalid_has_msg(jv_copy(r))) {
			jv msg = jv_invalid_get_msg(r);

			if (jv_get_kind(msg) == JV_KIND_STRING)
				warnx("%s:%ld: '%s': %s", file, line, x->text, jv_string_value(msg));
			else
				warnx("%s:%ld: '%s': error", file, line, x->text);
			jv_free(msg);
			return -1;
		}
		jv_free(r);
		r = jv_null();		/* no output */
	}
	*out = r;
	return 0;
}

int
qe_jqx_test(void *x, const cJSON *rec, const char *file, long line)
{
	jv r;
	int keep;

	if (run(x, rec, file, line, &r) < 0)
		return -1;
	keep = jv_get_kind(r) != JV_KIND_NULL && jv_get_kind(r) != JV_KIND_FALSE;
	jv_free(r);
	return keep;
}

int
qe_jqx_text(void *x, const cJSON *rec, const char *file, long line, char **out)
{
	jv v;

	if (run(x, rec, file, line, &v) < 0)
		return -1;
	if (jv_get_kind(v) == JV_KIND_NULL) {
		*out = NULL;
	} else if (jv_get_kind(v) == JV_KIND_STRING) {
		*out = qe_xstrdup(jv_string_value(v));
	} else {
		v = jv_dump_string(v, JV_PRINT_SORTED);
		*out = qe_xstrdup(jv_string_value(v));
	}
	jv_free(v);
	return 0;
}

void
qe_jqx_free(struct qe_jqx *x)
{
	if (x->jq)
		jq_teardown(&x->jq);
	qe_buf_free(&x->err);
}
