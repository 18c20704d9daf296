/*
 * libFuzzer target for qe-stamp's library modules:
 *  - the record splice (lib/provenance/qe_splice.c, qe_splice_raw as the tool calls
 *    it): each record of the input stream gets a fixed provenance member,
 *    with and without replace (-R); every line printed must read back as a
 *    JSON object whose last member is that provenance, a record without one
 *    must keep its bytes, and a record refused must be one that holds the key;
 *  - the parsers of machine and environment text (lib/provenance/qe_runner.c,
 *    lib/provenance/qe_packages.c, lib/provenance/qe_provenance.c) on the same bytes: no crash,
 *    and what they return has the documented shape.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qe_utf8.h"
#include "qe_json.h"
#include "qe_ndjson.h"
#include "provenance/qe_packages.h"
#include "provenance/qe_provenance.h"
#include "provenance/qe_runner.h"
#include "provenance/qe_splice.h"

#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char value[] = "{\"fingerprint\":\"f\\\"\\u00e9\",\"n\":[1,{}]}";

static int
stamp(cJSON *rec, const char *raw, size_t rawlen, const char *file, long line, void *ctx)
{
	int had = cJSON_GetObjectItemCaseSensitive(rec, "provenance") != NULL;
	struct qe_splice *sp = ctx;
	const char *s, *close = raw + rawlen;
	size_t n;

	(void)file;
	(void)line;
	if ((s = qe_splice_raw(sp, rec, raw, rawlen, &n)) == NULL) {
		if (!had || sp->replace)
			abort();
		return -1;
	}
	if (strlen(s) != n)
		abort();
	/* a record without the key keeps its bytes up to its closing brace */
	while (close > raw && close[-1] != '}')
		close--;
	if (!had && (close == raw || memcmp(s, raw, (size_t)(close - raw - 1)) != 0))
		abort();
	qe_json_emit_line(s, n);
	return 0;
}

static void
stamp_stream(const uint8_t *data, size_t size)
{
	char path[64], *argv[1], *printed, *s;
	struct qe_splice sp;
	size_t len;
	int fd;

	argv[0] = fz_file(data, size, &fd, path);
	qe_ndjson_max_line = 1 << 16;
	qe_splice_init(&sp, "provenance", value, size > 0 && data[0] & 1);
	fz_capture();
	qe_ndjson_each_raw(1, argv, stamp, &sp);
	printed = fz_captured(&len);
	fz_check_ndjson(printed, len);
	for (s = printed; *s; s = strchr(s, '\n') + 1) {
		cJSON *o = cJSON_Parse(s), *last;

		/* cJSON_Parse stops at the '\n'; the line was checked whole above */
		for (last = o->child; last && last->next; last = last->next)
			;
		if (last == NULL || strcmp(last->string, "provenance") != 0 ||
		    !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(last, "fingerprint")))
			abort();
		cJSON_Delete(o);
	}
	free(printed);
	qe_splice_free(&sp);
	close(fd);
}

/* The text parsers, each on its own NUL-terminated copy (they cut it). */
static void
parse_texts(const uint8_t *data, size_t size)
{
	struct qe_pkgs p = { 0 };
	char *t[5], *s;
	cJSON *o;
	int i;

	for (i = 0; i < 5; i++) {
		t[i] = qe_xmalloc(size + 1);
		memcpy(t[i], data, size);
		t[i][size] = '\0';
	}
	free(qe_runner_os_release_distro(t[0]));
	free(qe_runner_cpuinfo_model(t[1]));
	(void)qe_runner_meminfo_total(t[2]);
	if (!cJSON_IsArray(o = qe_runner_gpus_parse(t[3])))
		abort();
	cJSON_Delete(o);
	if (!cJSON_IsObject(o = qe_provenance_marker_parse(t[4])))
		abort();
	cJSON_Delete(o);
	if (qe_pkgs_parse(&p, (const char *)data, size, "fuzz") == 0) {
		cJSON *env = qe_json_check(cJSON_CreateObject());
		cJSON *facts = qe_json_check(cJSON_CreateObject());

		qe_pkgs_describe(&p, env, facts);
		s = qe_json_print(env);
		cJSON_free(s);
		cJSON_Delete(env);
		cJSON_Delete(facts);
	}
	qe_pkgs_free(&p);
	for (i = 0; i < 5; i++)
		free(t[i]);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	stamp_stream(data, size);
	parse_texts(data, size);
	return 0;
}
