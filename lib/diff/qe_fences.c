/* Per-cell thresholds from qe-history's fences (qe_fences.h). */
#include <err.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qe_mem.h"
#include "qe_json.h"
#include "qe_ndjson.h"
#include "qe_sha.h"
#include "qe_fences.h"

struct load {
	struct qe_fences *fs;
	size_t cap;
};

static int
fence_record(cJSON *rec, const char *file, long line, void *ctx)
{
	struct load *l = ctx;
	const char *kind = qe_json_str(rec, "kind"), *level = qe_json_str(rec, "level");
	const char *doc = qe_json_str(rec, "document"), *label = qe_json_str(rec, "label");
	const char *src = qe_json_str(rec, "source_sha256");
	double ratio = qe_json_num(rec, "ratio"), abs = qe_json_num(rec, "abs_s");
	struct qe_fence *f;
	struct qe_buf key = { 0 };

	if (kind == NULL || strcmp(kind, "history-fence") != 0 || level == NULL ||
	    strcmp(level, "cell") != 0)
		return 0;
	if (doc == NULL || !(ratio >= 1) || !(abs >= 0) ||
	    (label == NULL && (src == NULL || strlen(src) != 64))) {
		warnx("%s:%ld: not a cell fence: document, label or source_sha256, ratio >= 1 and"
		    " abs_s >= 0 are needed", file, line);
		l->fs->bad++;
		return -1;
	}
	if (label)
		qe_buf_addf(&key, "L%s", label);
	else
		qe_buf_addf(&key, "S%.32s", src);
	l->fs->f = qe_mem_grow(l->fs->f, l->fs->n, &l->cap, sizeof *l->fs->f, 64);
	f = &l->fs->f[l->fs->n++];
	f->doc = qe_xstrdup(doc);
	f->key = key.data;
	f->ratio = ratio;
	f->abs = abs;
	return 0;
}

static int
cmp_fence(const void *a, const void *b)
{
	const struct qe_fence *x = a, *y = b;
	int c = strcmp(x->doc, y->doc);

	return c ? c : strcmp(x->key, y->key);
}

int
qe_fences_load(struct qe_fences *fs, const char *file)
{
	struct load l = { fs, 0 };
	char *argv[] = { (char *)file, NULL };
	int status;

	memset(fs, 0, sizeof *fs);
	status = qe_ndjson_each(1, argv, fence_record, &l);
	if (fs->n > 1) /* an empty file: fs->f is NULL, which qsort may not take */
		qsort(fs->f, fs->n, sizeof *fs->f, cmp_fence);
	return status;
}

void
qe_fences_free(struct qe_fences *fs)
{
	for (size_t i = 0; i < fs->n; i++) {
		free(fs->f[i].doc);
		free(fs->f[i].key);
	}
	free(fs->f);
	memset(fs, 0, sizeof *fs);
}

static const struct qe_fence *
find(const struct qe_fences *fs, const char *doc, const char *key)
{
	struct qe_fence k = { (char *)doc, (char *)key, 0, 0 };

	return fs->n ? bsearch(&k, fs->f, fs->n, sizeof *fs->f, cmp_fence) : NULL;
}

struct qe_rule
qe_fences_rule(const struct qe_fences *fs, const struct qe_rule *def, const char *doc,
    const char *label, const uint8_t src[16])
{
	struct qe_rule r = *def;
	const struct qe_fence *f = NULL;
	struct qe_buf key = { 0 };
	char hex[33];

	if (fs == NULL || doc == NULL)
		return r;
	if (label) {
		qe_buf_addf(&key, "L%s", label);
		f = find(fs, doc, key.data);
	}
	if (f == NULL && src) {
		qe_sha_hex(src, 16, hex);
		qe_buf_reset(&key);
		qe_buf_addf(&key, "S%s", hex);
		f = find(fs, doc, key.data);
	}
	qe_buf_free(&key);
	if (f) {
		r.ratio = f->ratio;
		r.abs = f->abs;
	}
	return r;
}
