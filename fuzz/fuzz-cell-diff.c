/*
 * libFuzzer target for qe-cell-diff: the input is BASE and HEAD, split at
 * the first 0x1e byte (ASCII record separator; no 0x1e: all BASE, empty
 * HEAD). Both streams go through a fresh reader (lib/diff/qe_reader.c), then the
 * comparison and the record writers (lib/diff/qe_diff.c, lib/diff/qe_diffrec.c),
 * exactly as the tool's main() runs them; every line printed must read
 * back as a JSON object (the hand-written writer for cell-diff records,
 * lib/qe_jw.c, must stay valid JSON). All state is in the reader and the
 * options, made and freed per input. Then again with every line read as
 * cJSON's tree (qe_reader's `tree`): the pull reader's way must print the
 * same bytes and give the same statuses.
 */
#include "qe_utf8.h"
#include "qe_json.h"
#include "qe_ndjson.h"
#include "diff/qe_diff.h"
#include "diff/qe_diffrec.h"
#include "diff/qe_reader.h"

#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *rs = memchr(data, 0x1e, size);
	size_t nbase = rs ? (size_t)(rs - data) : size;
	struct qe_diff_opts opts = QE_DIFF_OPTS_DEFAULT;
	struct qe_reader rd = { 0 };
	char paths[2][64], *argv[2], *printed[2];
	int fds[2], st[2];
	size_t len[2];

	argv[QE_BASE] = fz_file(data, nbase, &fds[QE_BASE], paths[QE_BASE]);
	argv[QE_HEAD] = rs ? fz_file(rs + 1, size - nbase - 1, &fds[QE_HEAD], paths[QE_HEAD]) :
	    fz_file(data, 0, &fds[QE_HEAD], paths[QE_HEAD]);
	qe_ndjson_max_line = 1 << 16;
	for (int tree = 0; tree < 2; tree++) {
		rd.tree = tree;
		fz_capture();
		st[tree] = qe_reader_read(&rd, QE_BASE, argv[QE_BASE]) * 4 +
		    qe_reader_read(&rd, QE_HEAD, argv[QE_HEAD]);
		qe_reader_relayout(&rd);
		{
			struct qe_diffrec dw;
			struct qe_diff_emit e = qe_diffrec_emitter(&dw, &opts, &rd, "base", "head");

			qe_diff_all(&opts, &rd, &e);
			qe_diffrec_free(&dw);
		}
		printed[tree] = fz_captured(&len[tree]);
		fz_check_ndjson(printed[tree], len[tree]);
		qe_reader_free(&rd);
		memset(&rd, 0, sizeof rd);
	}
	if (st[0] != st[1] || len[0] != len[1] || memcmp(printed[0], printed[1], len[0]) != 0)
		abort();
	free(printed[0]);
	free(printed[1]);
	close(fds[QE_BASE]);
	close(fds[QE_HEAD]);
	return 0;
}
