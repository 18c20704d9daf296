/*
 * libFuzzer targets for qe-cache-extract's parsers, calling the lib/
 * modules the tool is made of. Pick the entry point with -DTARGET_<NAME>:
 *   NOTEBOOK  a notebook's bytes (cells, timing, digests), read by the one
 *             reader: a refusal must say why, and a notebook taken must be
 *             a text qe_js_check() takes (an object; \u0000 rewritten)
 *   GLOBALDB  global.db bytes, opened from memory as from an archive
 *   ARCHIVE   an archive's bytes (libarchive, then the cache inside)
 *   HOOKLOG   a capture-hook log, joined against a fixed notebook
 *   RUNS      a qe-replicate run folder (qe_runs.c): the bytes up to the
 *             first NUL are its run line, the rest a cell's profile rows,
 *             beside a fixed notebook with an empty hook log
 *   MYSTMD    a mystmd page (qe_mystmd.c): the bytes up to the first NUL
 *             are a page of _build/site/content, the rest the cache entry
 *             under the page's key (.json when the entry starts with '[',
 *             else .ipynb); a refusal must say why
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qe_utf8.h"
#include "qe_json.h"
#include "notebook/qe_extract.h"
#include "notebook/qe_hooklog.h"
#include "notebook/qe_jcache.h"
#include "notebook/qe_mystmd.h"
#include "qe_jscan.h"
#include "notebook/qe_nbrecord.h"
#include "notebook/qe_runs.h"

#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#if defined(TARGET_RUNS) || defined(TARGET_MYSTMD)
#include <sys/stat.h>

static struct qe_buf *fz_kept;

/* The records of a run folder, kept for the check. */
static void
fz_keep(struct qe_buf *records)
{
	qe_buf_add(fz_kept, records->data, records->len);
	qe_buf_reset(records);
}

/* dir/name: n bytes of p written, or a folder when p is NULL; -1 on failure. */
static int
fz_put(const char *dir, const char *name, const void *p, size_t n)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (p == NULL)
		return mkdir(path, 0700) == 0 ? 0 : -1;
	if ((f = fopen(path, "w")) == NULL)
		return -1;
	if (n && fwrite(p, 1, n, f) != n) {
		fclose(f);
		return -1;
	}
	return fclose(f) == 0 ? 0 : -1;
}
#endif

/* A notebook file's context, as the tool makes it. */
static void
file_ctx(struct qe_nbctx *nb, const char *where, struct qe_hooklog *hooks)
{
	memset(nb, 0, sizeof *nb);
	nb->where = where;
	nb->document = "fuzz";
	nb->input = "ipynb";
	nb->pk = -1;
	nb->current = -1;
	nb->stable_ids = 1;
	nb->execution_seconds = NAN;
	nb->stale_margin_us = 5000000;
	nb->hooks = hooks;
}

/* The records of the failed documents, as the tool prints them. */
static void
failed_records(struct qe_jcache *c, int selected_only, struct qe_buf *out)
{
	struct qe_nbctx nb = { .input = "cache", .pk = -1 };

	for (size_t i = 0; i < c->n; i++)
		if (c->e[i].pk < 0 && (c->e[i].selected || !selected_only)) {
			nb.document = c->e[i].document;
			nb.uri = c->e[i].uri;
			nb.current = c->e[i].current;
			qe_nbrecord_failed(&nb, c->e[i].error, out ? out : &c->e[i].out);
		}
}

/* A release that keeps the bytes, for the target to look at what was read. */
static void
keep(void *p)
{
	(void)p;
}

static void
discard(struct qe_buf *b)
{
	fz_check_ndjson(b->data ? b->data : "", b->len);
	qe_buf_reset(b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct qe_buf out = { 0 };

#if defined(TARGET_NOTEBOOK)
	struct qe_nbctx nb;
	struct qe_js_error e;
	char *copy = qe_xmalloc(size + 1), *said = NULL;
	size_t nsaid = 0, bom = size >= 5 ? qe_js_bom((const char *)data, size) : 0;
	FILE *mem = open_memstream(&said, &nsaid), *old = stderr;
	int r;

	if (mem == NULL)
		abort();
	file_ctx(&nb, "fuzz.ipynb", NULL);
	memcpy(copy, data, size);
	stderr = mem;		/* warnx() writes to whatever stderr is */
	r = qe_nbrecord_notebook(&nb, copy, size, keep, &out);
	stderr = old;
	fclose(mem);
	/* never silent: a refusal says why; nothing taken that the checker refuses */
	if ((r < 0 && nsaid == 0) || (r < 0 && out.len > 0) ||
	    (r == 0 && qe_js_check(copy + bom, size - bom, QE_JS_OBJECT, &e) != 0))
		abort();
	free(copy);
	free(said);
#elif defined(TARGET_GLOBALDB)
	struct qe_jcache c = { .name = "fuzz" };
	unsigned char *db = sqlite3_malloc64(size ? size : 1);

	if (db == NULL)
		abort();
	memcpy(db, data, size);
	c.dbwhere = qe_xstrdup("fuzz:global.db");
	if (qe_jcache_open_memory(&c, db, size) == 0 && qe_jcache_read(&c, 0) == 0) {
		qe_jcache_arrange(&c, 0, NULL);
		failed_records(&c, 0, &out);
	}
	qe_jcache_free(&c);
#elif defined(TARGET_ARCHIVE)
	struct qe_extract x;
	struct qe_jcache c = { 0 };
	char path[64];
	int fd;

	qe_extract_init(&x, discard);
	x.lim.member_bytes = 1 << 20;		/* bounded work per input */
	if (qe_extract_archive_cache(&x, fz_file(data, size, &fd, path), &c, 0) == 0)
		failed_records(&c, 1, NULL);
	for (size_t i = 0; i < c.n; i++) {
		qe_utf8_repair_buf(&c.e[i].out);	/* as qe_extract's emit does */
		fz_check_ndjson(c.e[i].out.data ? c.e[i].out.data : "", c.e[i].out.len);
	}
	qe_jcache_free(&c);
	qe_extract_free(&x);
	close(fd);
#elif defined(TARGET_HOOKLOG)
	static const char nbtext[] = "{\"nbformat\": 4, \"nbformat_minor\": 5, \"metadata\": {},"
	    " \"cells\": [{\"cell_type\": \"code\", \"metadata\": {}, \"outputs\": [],"
	    " \"execution_count\": 1, \"source\": \"import time\"}, {\"cell_type\": \"code\","
	    " \"metadata\": {}, \"outputs\": [], \"execution_count\": 2, \"source\": \"x = 1\"}]}";
	struct qe_hooklog log = { 0 };
	struct qe_nbctx nb;
	char path[64];
	int fd;

	qe_hooklog_load(&log, fz_file(data, size, &fd, path));
	file_ctx(&nb, "/tmp/fuzz.ipynb", &log);
	qe_nbrecord_notebook(&nb, qe_xstrdup(nbtext), sizeof nbtext - 1, free, &out);
	qe_hooklog_free(&log);
	close(fd);
#elif defined(TARGET_RUNS)
	static const char nbtext[] = "{\"nbformat\": 4, \"nbformat_minor\": 5, \"metadata\": {},"
	    " \"cells\": [{\"cell_type\": \"code\", \"metadata\": {}, \"outputs\": [],"
	    " \"execution_count\": 1, \"source\": \"x = 1\"}]}";
	static char dir[] = "/tmp/fuzz-runs.XXXXXX";
	static int made;
	const uint8_t *z = memchr(data, '\0', size);
	size_t n1 = z ? (size_t)(z - data) : size;
	struct qe_extract x;

	if (!made && (mkdtemp(dir) == NULL || fz_put(dir, "notebook.ipynb", nbtext, sizeof nbtext - 1) < 0 ||
	    fz_put(dir, "hook.log", "", 0) < 0 || fz_put(dir, "profile", NULL, 0) < 0))
		abort();
	made = 1;
	if (fz_put(dir, "run", data, n1) < 0 ||
	    fz_put(dir, "profile/0.tsv", z ? z + 1 : data, z ? size - n1 - 1 : 0) < 0)
		abort();
	qe_extract_init(&x, fz_keep);
	fz_kept = &out;
	{
		struct qe_runs rs = QE_RUNS_OF(&x);

		qe_runs_extract(&rs, dir);
	}
	qe_extract_free(&x);
#elif defined(TARGET_MYSTMD)
	static char dir[] = "/tmp/fuzz-mystmd.XXXXXX";
	static int made;
	const uint8_t *z = memchr(data, '\0', size);
	size_t n1 = z ? (size_t)(z - data) : size, n2 = z ? size - n1 - 1 : 0;
	struct qe_hooklog log = { 0 };
	struct qe_mystmd m = { .stale_margin_us = 5000000, .max_bytes = 1 << 20, .hooks = &log,
	    .root = "/tmp/fuzz-book" };
	char key[33], name[64], *said = NULL;
	size_t nsaid = 0;
	FILE *mem, *old = stderr;
	int r;

	if (!made && mkdtemp(dir) == NULL)
		abort();
	made = 1;
	if ((mem = open_memstream(&said, &nsaid)) == NULL)
		abort();
	stderr = mem;
	/* once for the key, then again with the entry written under it */
	r = qe_mystmd_page(&m, "fuzz.json", (const char *)data, n1, NULL, key, &out);
	if (r >= 0 && key[0] != '\0' && z != NULL) {
		snprintf(name, sizeof name, "%s%s", key, n2 && z[1] == '[' ? ".json" : ".ipynb");
		if (fz_put(dir, name, z + 1, n2) < 0)
			abort();
		qe_buf_reset(&out);
		r = qe_mystmd_page(&m, "fuzz.json", (const char *)data, n1, dir, key, &out);
		snprintf(name, sizeof name, "%s/%s%s", dir, key, n2 && z[1] == '[' ? ".json" : ".ipynb");
		unlink(name);
	}
	stderr = old;
	fclose(mem);
	if (r < 0 && nsaid == 0)	/* never silent */
		abort();
	free(said);
#else
#error "define one TARGET_*"
#endif
	qe_utf8_repair_buf(&out);	/* as qe_extract's emit does (file names, tracebacks) */
	fz_check_ndjson(out.data ? out.data : "", out.len);
	qe_buf_free(&out);
	return 0;
}
