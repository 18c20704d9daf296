/*
 * libFuzzer target for qe-cell-diff: the input is BASE and HEAD, split at
 * the first 0x1e byte (ASCII record separator; no 0x1e: all BASE, empty
 * HEAD). Both streams go through a fresh reader (lib/qe_reader.c), then the
 * comparison and the record writers (lib/qe_diff.c, lib/qe_diffrec.c),
 * exactly as the tool's main() runs them; every line printed must read
 * back as a JSON object (the hand-written writer for cell-diff records,
 * lib/qe_jw.c, must stay valid JSON). All state is in the reader and the
 * options, made and freed per input.
 */
#include "qe.h"
#include "qe_diff.h"
#include "qe_diffrec.h"
#include "qe_reader.h"

#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *rs = memchr(data, 0x1e, size);
	size_t nbase = rs ? (size_t)(rs - data) : size;
	struct qe_diff_opts opts = QE_DIFF_OPTS_DEFAULT;
	struct qe_reader rd = { 0 };
	char paths[2][64], *argv[2], *printed;
	int fds[2];
	size_t len;

	argv[QE_BASE] = fz_file(data, nbase, &fds[QE_BASE], paths[QE_BASE]);
	argv[QE_HEAD] = rs ? fz_file(rs + 1, size - nbase - 1, &fds[QE_HEAD], paths[QE_HEAD]) :
	    fz_file(data, 0, &fds[QE_HEAD], paths[QE_HEAD]);
	qe_max_line = 1 << 16;
	fz_capture();

	qe_reader_read(&rd, QE_BASE, argv[QE_BASE]);
	qe_reader_read(&rd, QE_HEAD, argv[QE_HEAD]);
	qe_diff_write(&opts, &rd, "base", "head");

	printed = fz_captured(&len);
	fz_check_ndjson(printed, len);
	free(printed);
	qe_reader_free(&rd);
	close(fds[QE_BASE]);
	close(fds[QE_HEAD]);
	return 0;
}
