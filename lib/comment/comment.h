/*
 * comment/comment.h - the public header of qe-comment's folder: qe-cell-diff's
 * records read back into a model, ranked, and rendered as the pull-request
 * comment or a job summary (GitHub-flavoured Markdown).
 *
 * Invariants:
 *  - cmd/qe-comment.c includes this header and lib/'s foundation only; the
 *    folder's other headers are its modules' own, for this folder's files
 *    and their unit tests.
 *  - nothing here includes another tool folder's header: diff records are
 *    read as records (qe_diffread.h), never through qe-cell-diff's model.
 *  - every untrusted string reaches the Markdown through qe_gfm (lib/), the
 *    one escaper.
 */
#ifndef QE_COMMENT_COMMENT_H
#define QE_COMMENT_COMMENT_H

#include "qe_buildsum.h"
#include "qe_comment.h"
#include "qe_decide.h"
#include "qe_diffread.h"
#include "qe_evalmd.h"
#include "qe_ghrun.h"
#include "qe_review.h"

#endif /* QE_COMMENT_COMMENT_H */
