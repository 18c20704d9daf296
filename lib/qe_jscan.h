/*
 * qe_jscan.h - a pull reader over a JSON text in memory: it walks objects,
 * arrays and values without building a tree. A string the caller only
 * digests is fed to it run by run (the bytes between escapes straight from
 * the text, each escape decoded), a value the caller does not read is
 * skipped, validated, at the speed of a word-at-a-time scan.
 *
 * Invariants:
 *  - strict, and never looser than cJSON plus the checks of qe_json.c: a
 *    text it accepts, cJSON parses to the same values and those checks pass.
 *    It accepts RFC 8259 JSON only, and less: whitespace is SP, TAB, LF, CR
 *    only; strings hold no raw control character, only well-formed UTF-8
 *    (qe_utf8.c), no escape \u0000 and no lone surrogate; a number is
 *    finite as a double (of any length: cJSON as Debian builds it reads
 *    all of it, and so does this reader); nesting
 *    is at most QE_JS_MAXDEPTH (cJSON's limit). No byte order mark: a
 *    caller that tolerates one passes it first (qe_js_bom()).
 *  - it is the one validator: what it refuses is refused, never read
 *    another way. A refusal says why and where (struct qe_js_error, in
 *    the words the tools print: "invalid JSON", "nesting deeper than 1000
 *    levels", ...; at the byte cJSON's parse would point to for the same
 *    text, so the columns the tools print did not move). qe_js_check()
 *    reads a whole text and says what is wrong with it in the order the
 *    tools always said it (a NUL byte, then bad UTF-8, then a control
 *    character, then syntax, trailing data, not an object, a number out
 *    of range).
 *  - strings decode exactly as cJSON decodes them (\uXXXX and surrogate
 *    pairs to UTF-8), so a digest of the runs fed equals a digest of
 *    cJSON's valuestring.
 *  - a failure is sticky: s->fail is set, s->err says the first failure,
 *    every later call returns QE_JS_ERR, and nothing is printed (the
 *    caller decides). Only the refusal path costs more than a flag: the
 *    reason and offset are found when the reader stops.
 *  - `trusted` (set after qe_js_init) is for a second walk over a value
 *    the reader already took: strings are then not checked again, only
 *    decoded (a text not read before must never be walked trusted).
 *  - the reader borrows the text (it must outlive the reader) and never
 *    writes to it; it owns its two scratch buffers (qe_js_free()).
 */
#ifndef QE_JSCAN_H
#define QE_JSCAN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "qe_mem.h"

/* cJSON's CJSON_NESTING_LIMIT */
#define QE_JS_MAXDEPTH 1000

enum { QE_JS_ERR = -1, QE_JS_OBJ = 1, QE_JS_ARR, QE_JS_STR, QE_JS_NUM, QE_JS_TRUE, QE_JS_FALSE,
	QE_JS_NULL };

/* Why a text is refused (struct qe_js_error's code), and the words for it. */
enum {
	QE_JSE_NONE,		/* "" */
	QE_JSE_SYNTAX,		/* "invalid JSON" */
	QE_JSE_DEEP,		/* "nesting deeper than 1000 levels" */
	QE_JSE_RANGE,		/* "number out of range (beyond a double's 1.8e308)" */
	QE_JSE_CTRL,		/* "control character U+00XX in a string" */
	QE_JSE_NULESC,		/* "NUL (\u0000) in a string" */
	QE_JSE_UTF8,		/* "invalid UTF-8" */
	QE_JSE_NUL,		/* "NUL byte" */
	QE_JSE_TRAILING,	/* "trailing data after JSON value" */
	QE_JSE_NOTOBJ		/* "not a JSON object" (qe_js_check() with QE_JS_OBJECT) */
};

/*
 * A refusal: why (code and words) and where (the byte offset from the
 * start of the text given to qe_js_init() or qe_js_check(); the tools
 * print offset + 1 as the column). For a syntax error the offset is the
 * byte cJSON's parse points to (at most the text's last byte); for a bad
 * byte, the byte; for a number out of range, the number; for "not a JSON
 * object", 0 (the tools print no column for those two).
 */
struct qe_js_error {
	size_t offset;
	int code;		/* QE_JSE_* */
	const char *reason;	/* the words, static or in buf: valid while the struct is */
	char buf[48];
};

struct qe_jscan {
	const char *p;		/* the cursor: the next byte to read */
	const char *end;	/* one past the text */
	int depth;		/* containers entered and not left */
	int first;		/* no member or element of the current container read yet */
	int fail;		/* sticky failure */
	int trusted;		/* the caller's promise: this text was read whole before
				 * without a failure; a string then ends at the first
				 * '"' or '\\' of one SIMD scan, unchecked */
	struct qe_buf key;	/* an escaped key, decoded */
	struct qe_buf esc;	/* one decoded escape */
	const char *text;	/* the start of the text: offsets count from it */
	struct qe_js_error err;	/* the first failure, when fail is set */
	int range_later;	/* qe_js_check()'s walk: a number out of range is said
				 * after the syntax of the rest (range_at), not at once */
	size_t range_at;	/* the first such number's offset, or SIZE_MAX */
};

/* Where a string's decoded runs go, in order. */
typedef void (*qe_js_sink)(void *arg, const char *p, size_t n);

#ifdef __SSE2__
/* The bytes of the 16 at p that are '"', '\\', below 0x20 or above 0x7f, as a bit mask. */
static inline unsigned
qe_js_special16(const char *p)
{
	const __m128i q = _mm_set1_epi8('"'), b = _mm_set1_epi8('\\'), c = _mm_set1_epi8(0x20);
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);

	/* signed: below 0x20 is a control character or a byte above 0x7f */
	return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, q),
	    _mm_cmpeq_epi8(v, b)), _mm_cmplt_epi8(v, c)));
}
#endif

/*
 * The first byte at or after p that is '"', '\\', below 0x20 or above 0x7f
 * (what ends a run of plain ASCII in a string), or end. With SSE2 one
 * block of 16 bytes, then 64 a step (four blocks, one test), then 16;
 * then 8 a step by SWAR, then byte by byte. The one copy of this scan: qe_jscan's strings and qe_recscan's
 * plain keys and values both use it (past a string's first 32 bytes
 * qe_jscan.c goes on by AVX2 where the CPU has it: a base64 image is long).
 */
static inline const char *
qe_js_plain_end(const char *p, const char *end)
{
	const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
	uint64_t w, q, b;

#ifdef __SSE2__
	uint64_t m;

	/* one block first: most strings of a record end in it */
	if (end - p >= 16 && (m = qe_js_special16(p)) != 0)
		return p + __builtin_ctzll(m);
	if (end - p >= 16)
		p += 16;
	for (; end - p >= 64; p += 64) {
		m = qe_js_special16(p) | (uint64_t)qe_js_special16(p + 16) << 16 |
		    (uint64_t)qe_js_special16(p + 32) << 32 | (uint64_t)qe_js_special16(p + 48) << 48;
		if (m)
			return p + __builtin_ctzll(m);
	}
	for (; end - p >= 16; p += 16)
		if ((m = qe_js_special16(p)) != 0)
			return p + __builtin_ctzll(m);
#endif
	for (; end - p >= 8; p += 8) {
		memcpy(&w, p, 8);
		q = w ^ (ones * '"'), b = w ^ (ones * '\\');
		if ((((w - ones * 0x20) & ~w) | ((q - ones) & ~q) | ((b - ones) & ~b) | w) & highs)
			break;
	}
	while (p < end && *p != '"' && *p != '\\' && (unsigned char)*p >= 0x20 && (unsigned char)*p < 0x80)
		p++;
	return p;
}

/* Read text[0..n) from its start; depth 0. */
void qe_js_init(struct qe_jscan *s, const char *text, size_t n);

/* Release the scratch buffers; s can be initialised again. */
void qe_js_free(struct qe_jscan *s);

/* Whitespace passed, the type of the value at the cursor (by its first byte), or QE_JS_ERR. */
int qe_js_type(struct qe_jscan *s);

/* Pass one whole value, validating all of it; its type, or QE_JS_ERR. */
int qe_js_skip(struct qe_jscan *s);

/* Pass the '{' or '[' of a value of type `type`; 0, or QE_JS_ERR. */
int qe_js_enter(struct qe_jscan *s, int type);

/*
 * In an object: 1 with the next member's key (*k, *n: the text's own
 * bytes, or the decoded key when it holds escapes; valid until the next
 * call) and the cursor at its value; 0 when the '}' was passed (the object
 * is left); QE_JS_ERR.
 */
int qe_js_key(struct qe_jscan *s, const char **k, size_t *n);

/* In an array: 1 with the cursor at the next element, 0 when the ']' was passed, QE_JS_ERR. */
int qe_js_elem(struct qe_jscan *s);

/* Decode the string at the cursor, feeding its runs to fn (or to nothing: fn NULL). */
int qe_js_str(struct qe_jscan *s, qe_js_sink fn, void *arg);

/* The same, appending the decoded text to out (NUL-terminated, as qe_buf is). */
int qe_js_str_buf(struct qe_jscan *s, struct qe_buf *out);

/* The number at the cursor as strtod (thus cJSON) reads it. */
int qe_js_num(struct qe_jscan *s, double *d);

/* 0 when only whitespace is left, else QE_JS_ERR. */
int qe_js_done(struct qe_jscan *s);

/*
 * For tests: 0 scans strings with SSE2 (or 8 bytes a step) only, even on
 * a CPU with AVX2; 1 (the default) lets a string's scan past its first
 * 32 bytes use AVX2 where the CPU has it. Results are the same either way.
 */
void qe_js_allow_avx2(int on);

/*
 * The whole text s[0..n) as one JSON value: 0, or -1 with *e saying what is
 * wrong, in the order the tools say it: a NUL byte, invalid UTF-8, a
 * control character or \u0000 in a string (the first of those), then the
 * first syntax error (or nesting too deep), then trailing data, then
 * (QE_JS_OBJECT) "not a JSON object", then a number out of range. After the
 * value only whitespace may follow: SP, TAB, LF and CR, or with QE_JS_SPTAB
 * SP and TAB only (an NDJSON line's rule). A good text costs one walk of
 * the pull reader; only a refused one is read again, for the words.
 */
#define QE_JS_OBJECT 1
#define QE_JS_SPTAB 2
int qe_js_check(const char *s, size_t n, unsigned flags, struct qe_js_error *e);

/* 3 when s[0..n) starts with a UTF-8 byte order mark (EF BB BF), else 0. */
size_t qe_js_bom(const char *s, size_t n);

/* A sink that appends to the struct qe_buf *arg. */
void qe_js_sink_buf(void *arg, const char *p, size_t n);

#endif /* QE_JSCAN_H */
