/*
 * qe_gfm.h - GitHub-flavoured Markdown: the one escaper of the project, and
 * the small pieces of Markdown text every report is made of (counts with
 * thousands separators, durations, ratios, percentages, plurals).
 *
 * Invariants:
 *  - any string from a build is untrusted. Written with qe_gfm_text() it is
 *    inert inline text; with qe_gfm_code() an inert code span. Either way it
 *    forms no HTML, no mention (@user), no reference (#123, GH-123), no
 *    autolink (www., scheme://), no emphasis, link, image, heading, quote or
 *    list, and cannot split a table row; controls, bidirectional controls,
 *    invisible separators and invalid UTF-8 are shown, never obeyed; the
 *    output is well-formed UTF-8 without NUL bytes.
 *  - a mention or reference is broken by a zero-width joiner after '@', a
 *    '#' before a digit (#123; "# Set parameters" gets none: nothing
 *    invisible where nothing needs breaking) and in "GH-", "://", "www.":
 *    on github.com these are not Markdown
 *    syntax but a pass over the rendered text, which a backslash does not
 *    stop (a backslash before '@' or '#' only works in some renderers).
 *  - strings are cut to a number of code points (never inside one), with an
 *    ellipsis (U+2026) when cut.
 *  - numbers are formatted in the C locale; nothing here calls setlocale.
 *  - every function appends to a caller-owned struct qe_buf and allocates
 *    nothing the caller must free; none fails (out of memory exits).
 */
#ifndef QE_GFM_H
#define QE_GFM_H

#include <stddef.h>

struct qe_buf;

/*
 * Append s as inert inline text, at most `max` code points of it (plus an
 * ellipsis when cut): HTML's special characters as entities, Markdown
 * punctuation backslash-escaped ('|' too, so it is safe in a table cell),
 * a zero-width joiner against mentions, references and autolinks, and
 * blanks at either end dropped. Returns the number of code points shown
 * (0: nothing visible was appended; the caller may write a stand-in).
 */
size_t qe_gfm_text(struct qe_buf *b, const char *s, size_t max);

/*
 * Append s as a code span of at most `max` code points (plus an ellipsis):
 * the fence is one backtick longer than the longest run inside, padded with
 * a space when s starts or ends with a backtick or a blank. With `intable`
 * a '|' gets the backslash a table row needs (one more after an odd run of
 * backslashes), so the row never splits.
 */
void qe_gfm_code(struct qe_buf *b, const char *s, size_t max, int intable);

/*
 * The visible stand-in for an invisible or layout-changing code point, or
 * cp itself: C0 controls become their Control Pictures (newline U+2424),
 * DEL U+2421; C1 controls, bidirectional controls, line and paragraph
 * separators, the BOM, tag characters and invalid UTF-8 (cp < 0) U+FFFD.
 */
long qe_gfm_visible(long cp);

/*
 * printf into b, at most 255 bytes of it (more is cut), for numbers: the
 * cap bounds a hostile value (1e300). Links and the marker, whose parts are
 * checked and bounded (qe_ghrun.h), are written whole with qe_buf_addf().
 */
void qe_gfm_addf(struct qe_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * x rounded to `places` decimals (half away from zero), in its shortest
 * form as jq prints numbers: "2", "0.59", "12.3"; NaN: em dash.
 */
void qe_gfm_decimal(struct qe_buf *b, double x, int places);

/* A whole number with thousands separators: 12345 -> "12,345". */
void qe_gfm_count(struct qe_buf *b, long n);

/* `one` when n is 1, else `many`. */
const char *qe_gfm_plural(long n, const char *one, const char *many);

/*
 * What the numbers below print for a value no build gives (a negative or
 * infinite duration, 1e308 s, a ratio of 1e308): the limits are a million
 * hours (QE_GFM_MAX_S) and a ratio or fraction of a million.
 */
#define QE_GFM_OUT_OF_RANGE "out of range"
#define QE_GFM_MAX_S 3.6e9
#define QE_GFM_MAX_RATIO 1e6

/*
 * Seconds as a duration a reader takes in at once: "<1 ms", "8 ms",
 * "0.30 s", "12.3 s", "2m 05s", "1h 02m" (a no-break space inside); NaN is
 * an em dash; negative or beyond QE_GFM_MAX_S: "out of range".
 */
void qe_gfm_dur(struct qe_buf *b, double s);

/* A signed change of duration: "+1.20 s", "-8 ms", "0 ms"; NaN: em dash;
 * beyond QE_GFM_MAX_S either way: "out of range". */
void qe_gfm_delta(struct qe_buf *b, double d);

/* A signed change of memory in decimal units: "+315 MB", "+2.1 GB",
 * "-40 kB", "0 kB"; NaN: em dash; beyond 1e18 bytes either way: "out of
 * range". */
void qe_gfm_bytes_delta(struct qe_buf *b, double d);

/* An amount of memory in the same units, unsigned: "7.0 GB", "512 MB". */
void qe_gfm_bytes(struct qe_buf *b, double n);

/* A ratio: "×1.25", "×120", "×<0.01"; NaN: em dash; negative or beyond
 * QE_GFM_MAX_RATIO: "out of range". */
void qe_gfm_ratio(struct qe_buf *b, double r);

/* A fraction as a percentage: "42%", "<1%" (above 0); NaN: em dash;
 * beyond QE_GFM_MAX_RATIO either way: "out of range". */
void qe_gfm_pct(struct qe_buf *b, double f);

/*
 * A problem size as its reader writes it: from 1e4 on, two significant
 * digits and a power of ten ("1e5", "2.8e4", "3e6"); below, the number with
 * at most four significant digits ("1000", "250", "0.5"); NaN, zero, a
 * negative or an infinite size: em dash.
 */
void qe_gfm_magnitude(struct qe_buf *b, double x);

/* The em dash of an empty or unknown table cell. */
#define QE_GFM_NONE "\xe2\x80\x94"

#endif /* QE_GFM_H */
