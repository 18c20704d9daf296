/*
 * qe_hout.h - qe-history's output: each row record as an NDJSON line, or,
 * with --format md, all rows as one GitHub-flavoured Markdown table.
 *
 * Invariants:
 *  - NDJSON rows are written as they come (nothing kept); Markdown rows are
 *    kept until qe_hout_end, which writes the table (or "No rows.").
 *  - with a sink (struct qe_hsink), every row goes to it instead, whatever
 *    the format, and nothing is written to standard output.
 *  - every string from the database reaches Markdown through qe_gfm.
 *  - qe_hout_row takes ownership of the record.
 */
#ifndef QE_HOUT_H
#define QE_HOUT_H

#include <cjson/cJSON.h>

enum qe_hfmt {
	QE_HF_TEXT,	/* a string, escaped */
	QE_HF_CODE,	/* a string as a code span (documents, keys) */
	QE_HF_DUR,	/* seconds: "12.3 s" */
	QE_HF_RATIO,	/* "×1.25" */
	QE_HF_PCT,	/* a fraction: "42%" */
	QE_HF_NUM,	/* a number, 4 decimals at most */
	QE_HF_SHORT,	/* a string, its first 12 characters (commits, digests) */
	QE_HF_CHANGES,	/* history-change's provenance_changes */
	QE_HF_RUN,	/* a build's run number: "#241" */
	QE_HF_DATE	/* a time stamp's date: its first 10 characters */
};

struct qe_hcol {
	const char *key, *head;
	enum qe_hfmt fmt;
};

/*
 * Where a caller that reads the rows itself (qe_hreport) takes them: row()
 * gets each record as it is decided and owns it from then on.
 */
struct qe_hsink {
	void (*row)(cJSON *rec, void *ctx);
	void *ctx;
};

struct qe_hout {
	int md;
	const struct qe_hsink *sink;	/* NULL: standard output */
	const struct qe_hcol *cols;	/* NULL-key-terminated */
	cJSON *rows;
};

/* sink NULL: rows to standard output, as NDJSON or (md) one table. */
void qe_hout_begin(struct qe_hout *o, int md, const struct qe_hsink *sink, const struct qe_hcol *cols);
void qe_hout_row(struct qe_hout *o, cJSON *rec);
void qe_hout_end(struct qe_hout *o);

#endif /* QE_HOUT_H */
