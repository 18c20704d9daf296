/*
 * libFuzzer target for qe-comment: the input is a qe-cell-diff stream. It
 * goes through the record reader (lib/comment/qe_diffread.c), the review
 * (lib/comment/qe_review.c) and the renderer (lib/comment/qe_comment.c), as qe-comment's
 * main() runs them, with a fresh context per input and a small size limit
 * so truncation is exercised too; then, as a build's records, through
 * lib/comment/qe_buildsum.c (qe-comment -r). Each document must stay within the
 * limit, be valid UTF-8 and hold no NUL byte.
 */
#include "qe.h"
#include "qe_mem.h"
#include "qe_utf8.h"
#include "qe_json.h"
#include "qe_ndjson.h"
#include "comment/qe_buildsum.h"
#include "comment/qe_comment.h"
#include "comment/qe_diffread.h"
#include "comment/qe_review.h"

#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check(const struct qe_buf *out, size_t limit)
{
	if (out->len > limit || qe_utf8_valid(out->data ? out->data : "", out->len) != out->len)
		abort();
	if (out->data && strlen(out->data) != out->len)
		abort();	/* no NUL byte in a comment */
}

/* The same bytes as one build's records (qe-comment -r). */
static void
report(char **argv, size_t limit)
{
	struct qe_buildsum s = { 0 };
	struct qe_buf out = { 0 };

	qe_ndjson_each(1, argv, qe_buildsum_record, &s);
	qe_buildsum_render(&out, &s, limit);
	check(&out, limit);
	qe_buf_free(&out);
	qe_buildsum_free(&s);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], *argv[1];
	struct qe_diffset d = { 0 };
	struct qe_review r;
	struct qe_buf out = { 0 };
	struct qe_comment_opts o = {
		.max_rows = -1,
		/* a limit from the input's length, so both roomy and tight comments occur */
		.limit = QE_COMMENT_MIN_LIMIT + (size * 7) % 20000,
		.summary = (int)(size % 2),
		.run = {
			.head_sha = "0123456789abcdef0123456789abcdef01234567",
			.run_number = "12",
			.run_id = "345",
			.repo_url = "https://github.com/o/r",
		},
	};
	int fd, status;

	argv[0] = fz_file(data, size, &fd, path);
	qe_ndjson_max_line = 1 << 16;
	status = qe_ndjson_each(1, argv, qe_diffread_record, &d);
	qe_review_build(&r, &d);
	qe_comment_render(&out, &o, &r, status != QE_EXIT_OK && d.ncells + d.nnbs > 0);
	check(&out, o.limit);
	qe_buf_free(&out);
	qe_review_free(&r);
	qe_diffset_free(&d);
	report(argv, o.limit);
	close(fd);
	return 0;
}
