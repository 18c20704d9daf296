/*
 * libFuzzer target for qe-comment: the input is a qe-cell-diff stream. It
 * goes through the tool's record callback, model and renderer, as main()
 * runs them, with a small size limit so truncation is exercised too. The
 * comment must stay within the limit and be valid UTF-8. The tool's file
 * is compiled in with its main() renamed; its global state is reset after
 * each input.
 */
#define main qe_comment_main
#include "../cmd/qe-comment.c"
#undef main

#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
reset(void)
{
	for (size_t i = 0; i < ncells; i++) {
		free(cells[i].doc);
		free(cells[i].label);
		free(cells[i].first_line);
		free(cells[i].reason);
	}
	free(cells);
	cells = NULL;
	ncells = capcells = 0;
	for (size_t i = 0; i < nnbs; i++) {
		free(nbs[i].doc);
		free(nbs[i].reason);
	}
	free(nbs);
	nbs = NULL;
	nnbs = capnbs = 0;
	cJSON_Delete(summary);
	summary = NULL;
	seq = 0;
	free(tops);
	tops = NULL;
	ntops = 0;
	memset(ccount, 0, sizeof ccount);
	memset(nbcount, 0, sizeof nbcount);
	n_executed = n_cached = n_failed = n_failed_new = n_fixed_nb = n_whole = 0;
	n_now_failing = n_fixed_cells = n_notcomp_cells = 0;
	nb_only_regressions = nb_only_improvements = 0;
	qe_buf_free(&out);
	trouble = 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], *argv[1];
	int fd, status;

	argv[0] = fz_file(data, size, &fd, path);
	qe_max_line = 1 << 16;
	/* a limit from the input's length, so both roomy and tight comments occur */
	limit = MIN_LIMIT + (size * 7) % 20000;
	head_sha = "0123456789abcdef0123456789abcdef01234567";
	run_number = "12";
	run_id = "345";
	repo_url = "https://github.com/o/r";

	/* main() from its reading on */
	status = qe_each_record(1, argv, read_record, NULL);
	build_model();
	render(status != QE_EXIT_OK && ncells + nnbs > 0);
	if (out.len > limit || qe_utf8_valid(out.data ? out.data : "", out.len) != out.len)
		abort();
	if (out.data && strlen(out.data) != out.len)
		abort();	/* no NUL byte in a comment */
	reset();
	close(fd);
	return 0;
}
