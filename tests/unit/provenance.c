/*
 * Unit driver for lib/provenance/qe_provenance.c: GitHub's hashFiles() composition,
 * the image marker, and the --describe record.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "provenance/qe_provenance.h"

/* The value, printed, then deleted. */
static void
add_json(struct qe_buf *out, cJSON *o)
{
	unit_add_json(out, o);
	cJSON_Delete(o);
}

/* Each file's sha256 (blank-separated) -> hashFiles() of them, or "error". */
static void
hash_files(const char *in, size_t n, struct qe_buf *out)
{
	cJSON *files = qe_json_check(cJSON_CreateArray());
	char *text = qe_xstrndup(in, n), *tok, *save = NULL, hex[QE_SHA256_HEX];

	for (tok = strtok_r(text, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		cJSON *f = qe_json_check(cJSON_CreateObject());

		qe_json_check(cJSON_AddStringToObject(f, "sha256", tok));
		cJSON_AddItemToArray(files, f);
	}
	qe_buf_adds(out, qe_provenance_hash_files(files, hex) == 0 ? hex : "error");
	cJSON_Delete(files);
	free(text);
}

static void
marker(const char *in, size_t n, struct qe_buf *out)
{
	char *text = qe_xstrndup(in, n);

	add_json(out, qe_provenance_marker_parse(text));
	free(text);
}

/* A descriptor (JSON) -> the --describe record. */
static void
record(const char *in, size_t n, struct qe_buf *out)
{
	cJSON *d = cJSON_ParseWithLength(in, n);

	if (d == NULL)
		qe_buf_adds(out, "bad case");
	else
		add_json(out, qe_provenance_record(d));
}

static const struct unit_fn fns[] = {
	{ "hash-files", hash_files },
	{ "marker", marker },
	{ "record", record },
	{ NULL, NULL }
};

int
main(int argc, char **argv)
{
	return unit_main(argc, argv, fns);
}
