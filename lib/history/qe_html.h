/*
 * qe_html.h - HTML text: the one HTML escaper of the project (what
 * qe_gfm.c is for Markdown), for qe-history's static report page.
 *
 * Invariants:
 *  - any string from a build or a history (lecture names, labels, first
 *    lines, commits, build ids, package names and versions, runner
 *    classes) is untrusted. Written with qe_html_text() it is inert text,
 *    in an element or inside a quoted attribute value (double or single
 *    quotes): & < > " ' become character references, so it closes no
 *    element, opens no tag, comment or CDATA, and ends no attribute.
 *  - controls, bidirectional controls, invisible separators and invalid
 *    UTF-8 are shown as qe_gfm_visible() shows them (Control Pictures or
 *    U+FFFD), never obeyed; the output is well-formed UTF-8 without NUL.
 *  - strings are cut to a number of code points (never inside one), with
 *    an ellipsis (U+2026) when cut; max 0 means no cut.
 *  - appends to a caller-owned struct qe_buf; never fails (out of memory
 *    exits).
 */
#ifndef QE_HTML_H
#define QE_HTML_H

#include <stddef.h>

struct qe_buf;

/*
 * Append s (NULL: nothing) as inert HTML text of at most `max` code points
 * (0: all of it), plus an ellipsis when cut. Returns the code points shown.
 */
size_t qe_html_text(struct qe_buf *b, const char *s, size_t max);

#endif /* QE_HTML_H */
