/* One member spliced into every record (qe_splice.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "qe.h"
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

/*
 * Print rec into sp->buf, leaving room for the tail after it. cJSON may
 * need a few bytes more than it prints, hence the margin.
 */
static void
print_record(struct qe_splice *sp, cJSON *rec)
{
	int exact = qe_json_exact_begin(rec->child);

	for (;;) {
		if (sp->cap > sp->tail_len + 16) {
			size_t room = sp->cap - sp->tail_len - 8;

			if (room > INT32_MAX)
				room = INT32_MAX;
			if (cJSON_PrintPreallocated(rec, sp->buf, (int)room, 0)) {
				if (exact)
					qe_json_exact_end(rec->child);
				return;
			}
			if (room == INT32_MAX)
				qe_oom();
		}
		sp->cap = sp->cap > 0 ? sp->cap * 2 : sp->tail_len + 65536;
		sp->buf = qe_xrealloc(sp->buf, sp->cap);
	}
}

const char *
qe_splice_record(struct qe_splice *sp, cJSON *rec, size_t *len)
{
	size_t n;

	while (cJSON_GetObjectItemCaseSensitive(rec, sp->key) != NULL) {
		if (!sp->replace)
			return NULL;
		cJSON_DeleteItemFromObjectCaseSensitive(rec, sp->key);
	}
	print_record(sp, rec);
	n = strlen(sp->buf);
	if (n == 2) {		/* {}: no comma before the member */
		memcpy(sp->buf + 1, sp->tail + 1, sp->tail_len - 1);
		n = sp->tail_len;
	} else {
		memcpy(sp->buf + n - 1, sp->tail, sp->tail_len);
		n += sp->tail_len - 1;
	}
	sp->buf[n] = '\0';
	*len = n;
	return sp->buf;
}

const char *
qe_splice_raw(struct qe_splice *sp, cJSON *rec, const char *raw, size_t rawlen, size_t *len)
{
	size_t n = rawlen;

	if (cJSON_GetObjectItemCaseSensitive(rec, sp->key) != NULL)
		return qe_splice_record(sp, rec, len);
	while (n > 0 && raw[n - 1] != '}')
		n--;
	if (n == 0)
		return qe_splice_record(sp, rec, len);
	n--;			/* the record's bytes up to its closing brace */
	if (sp->cap < n + sp->tail_len + 1) {
		sp->cap = n + sp->tail_len + 65536;
		sp->buf = qe_xrealloc(sp->buf, sp->cap);
	}
	memcpy(sp->buf, raw, n);
	if (rec->child == NULL) {	/* {}: no comma before the member */
		memcpy(sp->buf + n, sp->tail + 1, sp->tail_len - 1);
		n += sp->tail_len - 1;
	} else {
		memcpy(sp->buf + n, sp->tail, sp->tail_len);
		n += sp->tail_len;
	}
	sp->buf[n] = '\0';
	*len = n;
	return sp->buf;
}

void
qe_splice_free(struct qe_splice *sp)
{
	free(sp->tail);
	free(sp->key);
	free(sp->buf);
	memset(sp, 0, sizeof *sp);
}
