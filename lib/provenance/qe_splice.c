/* One member spliced into every record (qe_splice.h). */
#include <stdlib.h>
#include <string.h>

#include "qe_jw.h"
#include "qe_splice.h"

void
qe_splice_init(struct qe_splice *sp, const char *key, const char *value, int replace)
{
	struct qe_buf b = { 0 };

	memset(sp, 0, sizeof *sp);
	qe_buf_addf(&b, ",\"%s\":%s}", key, value);
	sp->tail = b.data;
	sp->tail_len = b.len;
	sp->key = qe_xstrdup(key);
	sp->replace = replace;
}

const char *
qe_splice_record(struct qe_splice *sp, cJSON *rec, size_t *len)
{
	struct qe_buf *b = &sp->line;

	while (cJSON_GetObjectItemCaseSensitive(rec, sp->key) != NULL) {
		if (!sp->replace)
			return NULL;
		cJSON_DeleteItemFromObjectCaseSensitive(rec, sp->key);
	}
	qe_buf_reset(b);
	qe_jw_value(b, rec);
	b->len--;		/* the closing brace goes, the member's tail ends it */
	if (b->len == 1)	/* {}: no comma before the member */
		qe_jw_raw(b, sp->tail + 1, sp->tail_len - 1);
	else
		qe_jw_raw(b, sp->tail, sp->tail_len);
	*len = b->len;
	return b->data;
}

const char *
qe_splice_raw(struct qe_splice *sp, cJSON *rec, const char *raw, size_t rawlen, size_t *len)
{
	struct qe_buf *b = &sp->line;
	size_t n = rawlen;

	if (cJSON_GetObjectItemCaseSensitive(rec, sp->key) != NULL)
		return qe_splice_record(sp, rec, len);
	while (n > 0 && raw[n - 1] != '}')
		n--;
	if (n == 0)
		return qe_splice_record(sp, rec, len);
	n--;			/* the record's bytes up to its closing brace */
	qe_buf_reset(b);
	qe_buf_grow(b, n + sp->tail_len);
	qe_jw_raw(b, raw, n);
	if (rec->child == NULL)	/* {}: no comma before the member */
		qe_jw_raw(b, sp->tail + 1, sp->tail_len - 1);
	else
		qe_jw_raw(b, sp->tail, sp->tail_len);
	*len = b->len;
	return b->data;
}

void
qe_splice_free(struct qe_splice *sp)
{
	free(sp->tail);
	free(sp->key);
	qe_buf_free(&sp->line);
	memset(sp, 0, sizeof *sp);
}
