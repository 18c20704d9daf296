/*
 * libFuzzer target for qe-stamp's record splice: each record of the input
 * stream goes through the tool's own callback with a fixed provenance tail
 * (with and without -R); every line printed must read back as a JSON
 * object whose last member is that provenance. The tool's file is compiled
 * in with its main() renamed.
 */
#define main qe_stamp_main
#include "../cmd/qe-stamp.c"
#undef main

#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char tail[] = ",\"provenance\":{\"fingerprint\":\"f\\\"\\u00e9\",\"n\":[1,{}]}}";

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], *argv[1], *printed, *s;
	int fd;
	size_t len;

	argv[0] = fz_file(data, size, &fd, path);
	qe_max_line = 1 << 16;
	stamp_tail = (char *)tail;
	stamp_len = sizeof tail - 1;
	Rflag = size > 0 && data[0] & 1;
	fz_capture();
	qe_each_record(1, argv, stamp, NULL);
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
	free(outbuf);
	outbuf = NULL;
	outcap = 0;
	close(fd);
	return 0;
}
