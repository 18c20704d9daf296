/*
 * qe_cellname.h - a code cell's display name (the cell record's "name"),
 * decided here once for every tool that shows a cell: its label, else the
 * exercise or solution block the markdown around it opens, with what its
 * code says, else what its code says (qe_nb_says). The blocks are read
 * from the notebook's markdown cells: a cached notebook has none, so the
 * caller hands over the build's notebook of the document (MyST-NB's
 * _build/jupyter_execute/DOC.ipynb), whose code cells are matched to the
 * cache's by their source digests.
 *
 * Invariants:
 *  - a name depends on the cell's own source and metadata and the block
 *    around it, and on the cells before it in its document only where
 *    they would have the same name (qe_cellname_unique): a cell keeps its
 *    name when other cells come or go, unless one named alike does.
 *  - the names of one document are unique: the first cell of a name keeps
 *    it, a later one takes its ordinal ("N = 100 (2nd)").
 *  - blocks are sphinx-exercise's gated directives, in any fence (```,
 *    ~~~, :::): {exercise-start} (its :label:) .. {exercise-end},
 *    {solution-start} LABEL (the exercise it solves; else its :label:) ..
 *    {solution-end}. A block stays open across cells until its end. A
 *    fence left open at a markdown cell's end ends there (a notebook's
 *    markdown cells are rendered one by one): the plain {exercise} and
 *    {solution} directives hold no code cell.
 *  - nothing is printed and nothing exits but on out-of-memory; the labels
 *    are owned by struct qe_cellname_blocks.
 */
#ifndef QE_CELLNAME_H
#define QE_CELLNAME_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "qe_sha.h"

enum { QE_CELLNAME_NONE, QE_CELLNAME_EXERCISE, QE_CELLNAME_SOLUTION };

/* The block a code cell is in. */
struct qe_cellname_block {
	int kind;			/* QE_CELLNAME_* */
	char *label;			/* the exercise's label, or NULL */
};

/* Each code cell's block, in the order of the code cells. */
struct qe_cellname_blocks {
	struct qe_cellname_block *v;
	size_t n;
};

/* Read the blocks of every code cell of `cells` (a notebook's) into b (zeroed first). */
void qe_cellname_blocks_read(const cJSON *cells, struct qe_cellname_blocks *b);

/*
 * The blocks of a cache's code cells, digests want[0..n), from another
 * notebook's code cells, digests have[0..b->n) (the same document as
 * built): in order, each wanted cell takes the block of the next cell
 * with its digest; one without stays QE_CELLNAME_NONE. out has n zeroed
 * elements; its labels are copies.
 */
void qe_cellname_blocks_match(const struct qe_cellname_blocks *b, const char (*have)[QE_SHA256_HEX],
    const char (*want)[QE_SHA256_HEX], size_t n, struct qe_cellname_block *out);

/*
 * A MyST markdown source (a book's DOC.md, MyST-NB's text notebook) as a
 * notebook's "cells" for qe_cellname_blocks_read(): each top-level
 * {code-cell} fence a code cell, its options (":key: value" lines or a
 * --- block) left out of its source as MyST-NB leaves them, the text
 * between them markdown cells. Only what names need: the code cells'
 * sources, to be matched by digest; a new cJSON array (cJSON_Delete).
 */
cJSON *qe_cellname_myst(const char *text, size_t len);

/* "exercise", "solution", or NULL for QE_CELLNAME_NONE. */
const char *qe_cellname_kind(int kind);

/*
 * The display name: `label` when there is one; else "solution LABEL: SAYS"
 * (or "solution LABEL" when the code says nothing, "solution: SAYS" for a
 * block without a label); else `says`. A new string, or NULL when all
 * three are absent.
 */
char *qe_cellname_name(const char *label, const struct qe_cellname_block *b, const char *says);

/*
 * Make the names of one document's code cells, names[0..n) in document
 * order, unique: the k-th cell (k >= 2) whose name is N is renamed
 * "N (kth)" (2nd, 3rd, 4th, 11th, 12th, 13th, 21st, ...), skipping an
 * ordinal whose name another cell has as its own; the first keeps N.
 * NULL names (blank cells) stay NULL. Renamed entries are freed and
 * replaced by new strings.
 */
void qe_cellname_unique(char **names, size_t n);

void qe_cellname_block_free(struct qe_cellname_block *b);
void qe_cellname_blocks_free(struct qe_cellname_blocks *b);

#endif /* QE_CELLNAME_H */
