/* A record line read with the pull reader, provenance reused (qe_recscan.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "qe_recscan.h"

#define K(s) (sizeof(s) - 1 == n && memcmp(k, s, n) == 0)

int
qe_recscan_key(const char *k, size_t n)
{
	switch (n) {
	case 3:
		return K("arm") ? QE_RK_ARM : -1;
	case 4:
		return K("kind") ? QE_RK_KIND : K("name") ? QE_RK_NAME : -1;
	case 5:
		return K("index") ? QE_RK_INDEX : K("error") ? QE_RK_ERROR : K("input") ? QE_RK_INPUT :
		    K("label") ? QE_RK_LABEL : -1;
	case 6:
		return K("origin") ? QE_RK_ORIGIN : K("status") ? QE_RK_STATUS : K("warm_s") ? QE_RK_WARM_S :
		    K("values") ? QE_RK_VALUES : K("engine") ? QE_RK_ENGINE : -1;
	case 7:
		return K("current") ? QE_RK_CURRENT : K("version") ? QE_RK_VERSION : -1;
	case 8:
		return K("document") ? QE_RK_DOCUMENT : -1;
	case 9:
		return K("cache_key") ? QE_RK_CACHE_KEY : K("rss_bytes") ? QE_RK_RSS :
		    K("warm_note") ? QE_RK_WARM_NOTE : -1;
	case 10:
		return K("duration_s") ? QE_RK_DURATION : K("first_line") ? QE_RK_FIRST_LINE :
		    K("provenance") ? QE_RK_PROVENANCE : K("kernel_env") ? QE_RK_KENV : K("code_cells") ? QE_RK_CODE_CELLS :
		    K("warm_error") ? QE_RK_WARM_ERROR : K("concurrent") ? QE_RK_CONCURRENT : -1;
	case 11:
		return K("timing_note") ? QE_RK_TNOTE : -1;
	case 12:
		return K("timeout_cell") ? QE_RK_TIMEOUT : K("warm_seconds") ? QE_RK_WARM_NB :
		    K("jit_compiles") ? QE_RK_JIT_N : -1;
	case 13:
		return K("source_sha256") ? QE_RK_SOURCE : K("cells_seconds") ? QE_RK_CELLS_S :
		    K("output_sha256") ? QE_RK_OUTPUT : K("timing_source") ? QE_RK_TSRC :
		    K("result_sha256") ? QE_RK_RESULT : K("jit_compile_s") ? QE_RK_JIT_S :
		    K("jit_functions") ? QE_RK_JIT_FN : -1;
	case 17:
		return K("execution_seconds") ? QE_RK_EXEC_S : K("peak_growth_bytes") ? QE_RK_PEAK_GROWTH : -1;
	default:
		return -1;
	}
}

/* The value at the cursor as cJSON's tree (validated first), or NULL. */
static cJSON *
tree(struct qe_jscan *s)
{
	const char *v0 = s->p;

	if (qe_js_skip(s) < 0)
		return NULL;
	return cJSON_ParseWithLength(v0, (size_t)(s->p - v0));
}

/* After the last member's value: '}', then only SP and TAB (qe_ndjson's rule). */
static int
at_end(const struct qe_jscan *s)
{
	const char *p = s->p;

	while (p < s->end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	if (p >= s->end || *p != '}')
		return 0;
	for (p++; p < s->end && (*p == ' ' || *p == '\t'); p++)
		;
	return p == s->end;
}

/* "provenance": the previous line's tree when the rest of the line is its end; 0, or -1. */
static int
provenance(struct qe_recscan *sc, struct qe_recline *l)
{
	struct qe_jscan *s = &sc->s;
	const char *v0 = s->p;
	size_t rest = (size_t)(s->end - v0);
	cJSON *t;

	if (sc->ptree && rest == sc->psuffix.len && memcmp(v0, sc->psuffix.data, rest) == 0) {
		l->prov = sc->ptree;	/* read whole before, at the same depth */
		l->reused = 1;
		s->p = s->end - 1;	/* the '}' (then blanks: none, or they were equal) */
		while (*s->p != '}')
			s->p--;
		return 0;
	}
	if (l->type[QE_RK_PROVENANCE] != QE_JS_OBJ)
		return qe_js_skip(s) < 0 ? -1 : 0;
	if ((t = tree(s)) == NULL)
		return -1;
	if (at_end(s)) {
		cJSON_Delete(sc->ptree);
		sc->ptree = t;
		qe_buf_reset(&sc->psuffix);
		qe_buf_add(&sc->psuffix, v0, rest);
	} else
		sc->own[0] = t;
	l->prov = t;
	return 0;
}


/*
 * The fast path (most members of most lines): a key or string of plain
 * ASCII without escapes, directly after its ',' or ':', read here; at
 * anything else the cursor is left where it was and qe_jscan reads the
 * member, so what is taken is what qe_jscan takes.
 */

/* The plain string at p (*p == '"'): its closing quote, or NULL when it is not plain. */
static const char *
plain_str(const char *p, const char *end)
{
	const char *q = qe_js_plain_end(p + 1, end);

	return q < end && *q == '"' ? q : NULL;
}

/* 1 when a[0..n) and b[0..n) are equal, n >= 8: eight bytes at a time, the last eight overlapping. */
static int
same(const char *a, const char *b, size_t n)
{
	uint64_t x, y, d = 0;
	size_t i = 0;

	for (; n - i > 8; i += 8) {
		memcpy(&x, a + i, 8), memcpy(&y, b + i, 8);
		d |= x ^ y;
	}
	memcpy(&x, a + n - 8, 8), memcpy(&y, b + n - 8, 8);
	return (d | (x ^ y)) == 0;
}

/* Member i's key at p, '"key":' being p[0..n), is the previous line's member i's: 1 (its id in *id), or 0. */
static int
predicted(struct qe_recscan *sc, int i, const char *p, int *id)
{
	const struct qe_jscan *s = &sc->s;
	size_t n;

	if (i >= sc->npk)
		return 0;
	n = sc->pkoff[i + 1] - sc->pkoff[i];
	if ((size_t)(s->end - p) >= n && (n < 8 ? memcmp(p, sc->pk.data + sc->pkoff[i], n) == 0 :
	    same(p, sc->pk.data + sc->pkoff[i], n))) {
		*id = sc->pkid[i];
		return 1;
	}
	sc->npk = i;	/* another key from here: predicted from this line on */
	return 0;
}

/* Member i's key p[0..n) ('"key":', plain), id id: kept to predict the next line's. */
static void
remember(struct qe_recscan *sc, int i, const char *p, size_t n, int id)
{
	if (i != sc->npk || i >= QE_RS_NPK)
		return;
	sc->pk.len = sc->pkoff[i];
	qe_buf_add(&sc->pk, p, n);
	sc->pkoff[i + 1] = (unsigned)sc->pk.len;
	sc->pkid[i] = (signed char)id;
	sc->npk = i + 1;
}

/* Member i's key as the id *id (-1 unknown): 1, 0 at the object's end, or QE_JS_ERR. */
static int
next_key(struct qe_recscan *sc, int i, int *id)
{
	struct qe_jscan *s = &sc->s;
	const char *p = s->p + !s->first, *q, *k;
	size_t kn;
	int r;

	if (!s->fail && (s->first || (p <= s->end && p[-1] == ',')) && p < s->end && *p == '"') {
		if (predicted(sc, i, p, id)) {
			s->p = p + (sc->pkoff[i + 1] - sc->pkoff[i]);
			s->first = 0;
			return 1;
		}
		if ((q = plain_str(p, s->end)) != NULL && q + 1 < s->end && q[1] == ':') {
			*id = qe_recscan_key(p + 1, (size_t)(q - p - 1));
			remember(sc, i, p, (size_t)(q + 2 - p), *id);
			s->p = q + 2;
			s->first = 0;
			return 1;
		}
	}
	if (sc->npk > i)
		sc->npk = i;	/* a key not read plain: not predicted */
	if ((r = qe_js_key(s, &k, &kn)) == 1)
		*id = qe_recscan_key(k, kn);
	return r;
}

static int
digit(const char *p, const char *end)
{
	return p < end && *p >= '0' && *p <= '9';
}

/*
 * The end of the number at p without an exponent (finite then: at most 63
 * bytes, as qe_jscan takes), or NULL for qe_jscan to read it.
 */
static const char *
plain_num(const char *p, const char *end)
{
	const char *q = p + (p < end && *p == '-');

	if (!digit(q, end))
		return NULL;
	if (*q++ != '0')
		while (digit(q, end))
			q++;
	if (q < end && *q == '.') {
		if (!digit(++q, end))
			return NULL;
		while (digit(q, end))
			q++;
	}
	return (q < end && (*q == 'e' || *q == 'E')) || q - p > 63 ? NULL : q;
}

/* The literal null, true or false at the cursor passed: its type, or 0 (cursor kept) when none is there. */
static int
literal(struct qe_jscan *s)
{
	size_t left = (size_t)(s->end - s->p);

	if (left >= 4 && memcmp(s->p, "null", 4) == 0)
		return s->p += 4, QE_JS_NULL;
	if (left >= 4 && memcmp(s->p, "true", 4) == 0)
		return s->p += 4, QE_JS_TRUE;
	if (left >= 5 && memcmp(s->p, "false", 5) == 0)
		return s->p += 5, QE_JS_FALSE;
	return 0;
}

/* A value not read: a plain string, number or literal, or else qe_jscan's skip; 0, or -1. */
static int
skip(struct qe_jscan *s)
{
	const char *q;

	if (s->fail || s->p >= s->end)
		return qe_js_skip(s) < 0 ? -1 : 0;
	if (*s->p == '"' && (q = plain_str(s->p, s->end)) != NULL) {
		s->p = q + 1;
		return 0;
	}
	if ((*s->p == '-' || (*s->p >= '0' && *s->p <= '9')) && (q = plain_num(s->p, s->end)) != NULL) {
		s->p = q;
		return 0;
	}
	if (literal(s))
		return 0;
	return qe_js_skip(s) < 0 ? -1 : 0;
}

/*
 * A number member: a plain one (plain_num) of at most 15 digits read here
 * as qe_jscan reads it (its digits as an integer m < 10^15, exact as a
 * double, divided by 10^k: the one correctly rounded division strtod's
 * value is, -0 kept), anything else by qe_js_num; 0, or -1.
 */
static int
num_member(struct qe_jscan *s, double *d)
{
	static const double p10[] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8,
	    1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15 };
	const char *q = s->fail ? NULL : plain_num(s->p, s->end), *p = s->p;
	uint64_t m = 0;
	int digits = 0, k = -1;
	double v;

	if (q == NULL)
		return qe_js_num(s, d) < 0 ? -1 : 0;
	for (p += *p == '-'; p < q; p++) {
		if (*p == '.') {
			k = 0;
			continue;
		}
		m = m * 10 + (uint64_t)(*p - '0');
		digits++;
		k += k >= 0;
	}
	if (digits > 15)
		return qe_js_num(s, d) < 0 ? -1 : 0;
	v = k > 0 ? (double)m / p10[k] : (double)m;
	*d = *s->p == '-' ? -v : v;
	s->p = q;
	return 0;
}

/* A string member into sc->text (NUL after it): 0, or -1. */
static int
str_member(struct qe_recscan *sc, int id)
{
	struct qe_jscan *s = &sc->s;
	const char *q;

	sc->off[id] = sc->text.len;
	if (!s->fail && s->p < s->end && *s->p == '"' && (q = plain_str(s->p, s->end)) != NULL) {
		/* room reserved for the line's strings (qe_recscan_line) */
		memcpy(sc->text.data + sc->text.len, s->p + 1, (size_t)(q - s->p - 1));
		sc->text.len += (size_t)(q - s->p - 1);
		sc->text.data[sc->text.len] = '\0';
		s->p = q + 1;
	} else if (qe_js_str_buf(s, &sc->text) < 0)
		return -1;
	sc->text.len++;		/* keep the NUL qe_buf ends with */
	return 0;
}

/* The type of the value at the cursor: by its first byte, else (blanks first) qe_jscan's word. */
static int
type_at(struct qe_jscan *s)
{
	if (!s->fail && s->p < s->end)
		switch (*s->p) {
		case '"':
			return QE_JS_STR;
		case 'n':
			return QE_JS_NULL;
		case 't':
			return QE_JS_TRUE;
		case 'f':
			return QE_JS_FALSE;
		case '{':
			return QE_JS_OBJ;
		case '[':
			return QE_JS_ARR;
		case '-': case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8': case '9':
			return QE_JS_NUM;
		default:
			break;
		}
	return qe_js_type(s);
}

/*
 * A later occurrence of member id, of type t, the record's member pos: kept
 * (the first of each type) for the checks of every occurrence's type.
 */
static void
dup_add(struct qe_recscan *sc, int id, int t, unsigned pos)
{
	if (sc->dupseen[id] & (1u << t))
		return;
	sc->dupseen[id] |= (unsigned char)(1u << t);
	sc->dups = qe_mem_grow(sc->dups, sc->ndups, &sc->capdups, sizeof *sc->dups, 8);
	sc->dups[sc->ndups++] = (struct qe_recdup){ .pos = pos, .id = (signed char)id, .type = (signed char)t };
}

/* Forget the last record's repeated members. */
static void
dup_reset(struct qe_recscan *sc)
{
	if (sc->ndups > 0) {
		memset(sc->dupseen, 0, sizeof sc->dupseen);
		sc->ndups = 0;
	}
}

/* One known member's value into l, the record's member pos; 0, or -1. */
static int
member(struct qe_recscan *sc, int id, unsigned pos, struct qe_recline *l)
{
	struct qe_jscan *s = &sc->s;
	int t = type_at(s);

	if (t < 0)
		return -1;
	if (l->type[id] != 0) {	/* repeated: the first is read (as cJSON's lookups read it) */
		dup_add(sc, id, t, pos);
		return skip(s);
	}
	l->type[id] = (signed char)t;
	l->pos[id] = pos;
	if (id == QE_RK_PROVENANCE)
		return provenance(sc, l);
	if (t == QE_JS_STR)
		return str_member(sc, id);
	if (t == QE_JS_NUM)
		return num_member(s, &l->num[id]);
	if ((t == QE_JS_NULL || t == QE_JS_TRUE || t == QE_JS_FALSE) && literal(s) == t)
		return 0;
	if (id == QE_RK_TIMEOUT && t == QE_JS_OBJ)
		return (l->tc = sc->own[1] = tree(s)) ? 0 : -1;
	if (id == QE_RK_KENV && t == QE_JS_OBJ)
		return (l->kenv = sc->own[2] = tree(s)) ? 0 : -1;
	if (id == QE_RK_VALUES && t == QE_JS_ARR)
		return (l->values = sc->own[3] = tree(s)) ? 0 : -1;
	if (id == QE_RK_JIT_FN && t == QE_JS_OBJ)
		return (l->jitfn = sc->own[4] = tree(s)) ? 0 : -1;
	if (id == QE_RK_CONCURRENT && t == QE_JS_ARR)
		return (l->concurrent = sc->own[5] = tree(s)) ? 0 : -1;
	return qe_js_skip(s) < 0 ? -1 : 0;
}

int
qe_recscan_line(struct qe_recscan *sc, const char *s, size_t n, struct qe_recline *l)
{
	int r, id, m = 0;

	memset(l, 0, sizeof *l);
	for (size_t i = 0; i < sizeof sc->own / sizeof *sc->own; i++) {
		cJSON_Delete(sc->own[i]);
		sc->own[i] = NULL;
	}
	qe_buf_reset(&sc->text);
	/* every string of the line, decoded, with its NUL: at most the line's n bytes (a
	 * string's quotes make room for its NUL, and an escape decodes shorter than it is) */
	qe_buf_grow(&sc->text, n);
	dup_reset(sc);
	qe_js_init(&sc->s, s, n);
	if (qe_js_enter(&sc->s, QE_JS_OBJ) < 0)
		return -1;
	while ((r = next_key(sc, m++, &id)) == 1) {
		if (id >= 0 ? member(sc, id, (unsigned)(m - 1), l) < 0 : skip(&sc->s) < 0)
			return -1;
	}
	/* only SP and TAB after the record (qe_ndjson's rule), which at_end() also keeps */
	while (r == 0 && sc->s.p < sc->s.end && (*sc->s.p == ' ' || *sc->s.p == '\t'))
		sc->s.p++;
	if (r != 0 || sc->s.p != sc->s.end)
		return -1;
	for (id = 0; id < QE_RK_N; id++)
		if (l->type[id] == QE_JS_STR)
			l->str[id] = sc->text.data + sc->off[id];
	l->dup = sc->dups;
	l->ndup = sc->ndups;
	return 0;
}

/* The QE_JS_* of a tree's value. */
static int
tree_type(const cJSON *v)
{
	return cJSON_IsObject(v) ? QE_JS_OBJ : cJSON_IsArray(v) ? QE_JS_ARR : cJSON_IsString(v) ? QE_JS_STR :
	    cJSON_IsNumber(v) ? QE_JS_NUM : cJSON_IsTrue(v) ? QE_JS_TRUE : cJSON_IsFalse(v) ? QE_JS_FALSE :
	    QE_JS_NULL;
}

void
qe_recscan_tree(struct qe_recscan *sc, const cJSON *t, struct qe_recline *l)
{
	const cJSON *v;
	unsigned pos = 0;
	int id, type;

	memset(l, 0, sizeof *l);
	dup_reset(sc);
	cJSON_ArrayForEach(v, t) {
		if ((id = qe_recscan_key(v->string, strlen(v->string))) >= 0) {
			type = tree_type(v);
			if (l->type[id] != 0)
				dup_add(sc, id, type, pos);
			else {
				l->type[id] = (signed char)type;
				l->pos[id] = pos;
				l->str[id] = type == QE_JS_STR ? v->valuestring : NULL;
				l->num[id] = type == QE_JS_NUM ? v->valuedouble : 0;
				if (type == QE_JS_OBJ && id == QE_RK_PROVENANCE)
					l->prov = v;
				else if (type == QE_JS_OBJ && id == QE_RK_TIMEOUT)
					l->tc = v;
				else if (type == QE_JS_OBJ && id == QE_RK_KENV)
					l->kenv = v;
				else if (type == QE_JS_ARR && id == QE_RK_VALUES)
					l->values = v;
				else if (type == QE_JS_OBJ && id == QE_RK_JIT_FN)
					l->jitfn = v;
				else if (type == QE_JS_ARR && id == QE_RK_CONCURRENT)
					l->concurrent = v;
			}
		}
		pos++;
	}
	l->dup = sc->dups;
	l->ndup = sc->ndups;
}

void
qe_recscan_free(struct qe_recscan *sc)
{
	qe_js_free(&sc->s);
	qe_buf_free(&sc->text);
	qe_buf_free(&sc->psuffix);
	qe_buf_free(&sc->pk);
	free(sc->dups);
	cJSON_Delete(sc->ptree);
	for (size_t i = 0; i < sizeof sc->own / sizeof *sc->own; i++)
		cJSON_Delete(sc->own[i]);
	memset(sc, 0, sizeof *sc);
}
