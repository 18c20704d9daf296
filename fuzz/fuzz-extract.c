/*
 * libFuzzer targets for qe-cache-extract's parsers. The tool's file is
 * compiled in with its main() renamed, so the fuzzers exercise exactly the
 * shipped code. Pick the entry point with -DTARGET_<NAME>:
 *   NOTEBOOK  a notebook's bytes (cJSON, cells, timing, digests)
 *   GLOBALDB  global.db bytes, opened from memory as from an archive
 *   ARCHIVE   an archive's bytes (libarchive, then the cache inside)
 *   HOOKLOG   a capture-hook log, joined against a fixed notebook
 */
#define main qe_cache_extract_main
#include "../cmd/qe-cache-extract.c"
#undef main

#include <sys/mman.h>

/* The bytes as a file, for the entry points that take a path. */
static char *
as_file(const uint8_t *data, size_t size, int *fdp)
{
	static char path[64];
	int fd = memfd_create("fuzz", 0);

	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
		abort();
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	*fdp = fd;
	return path;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct qe_buf out = { 0 };

#if defined(TARGET_NOTEBOOK)
	struct nbctx nb = { .where = "fuzz.ipynb", .document = "fuzz", .input = "ipynb",
	    .pk = -1, .current = -1, .stable_ids = 1, .execution_seconds = NAN };
	char *copy = qe_xmalloc(size + 1);

	memcpy(copy, data, size);
	notebook_records(&nb, copy, size, free, &out);
#elif defined(TARGET_GLOBALDB)
	struct cache c = { .name = "fuzz" };
	unsigned char *db = sqlite3_malloc64(size ? size : 1);

	if (db == NULL)
		abort();
	memcpy(db, data, size);
	c.dbwhere = qe_xstrdup("fuzz:global.db");
	if (open_db_memory(&c, db, size) == 0 && read_cache(&c, 0) == 0) {
		arrange(&c);
		for (size_t i = 0; i < c.n; i++)
			if (c.e[i].pk < 0)
				failed_record(&c.e[i], &out);
	}
	cache_free(&c);
#elif defined(TARGET_ARCHIVE)
	struct cache c = { 0 };
	int fd;

	max_notebook = 1 << 20;		/* bounded work per input */
	if (archive_cache(as_file(data, size, &fd), &c, 0) == 0)
		for (size_t i = 0; i < c.n; i++)
			if (c.e[i].selected && c.e[i].pk < 0)
				failed_record(&c.e[i], &c.e[i].out);
	cache_free(&c);
	close(fd);
#elif defined(TARGET_HOOKLOG)
	static const char nbtext[] = "{\"nbformat\": 4, \"nbformat_minor\": 5, \"metadata\": {},"
	    " \"cells\": [{\"cell_type\": \"code\", \"metadata\": {}, \"outputs\": [],"
	    " \"execution_count\": 1, \"source\": \"import time\"}, {\"cell_type\": \"code\","
	    " \"metadata\": {}, \"outputs\": [], \"execution_count\": 2, \"source\": \"x = 1\"}]}";
	struct nbctx nb = { .where = "/tmp/fuzz.ipynb", .document = "fuzz", .input = "ipynb",
	    .pk = -1, .current = -1, .stable_ids = 1, .execution_seconds = NAN };
	int fd;

	timings_log = as_file(data, size, &fd);
	load_timings(timings_log);
	notebook_records(&nb, qe_xstrdup(nbtext), sizeof nbtext - 1, free, &out);
	free_runs();
	close(fd);
#else
#error "define one TARGET_*"
#endif
	qe_buf_free(&out);
	return 0;
}
