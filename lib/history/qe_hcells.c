/* A document's cells packed into one blob (qe_hcells.h). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "qe_hcells.h"

enum { F_DUR = 1, F_LABEL = 2, F_FIRST = 4, F_NAME = 8 };

static void
put_le(struct qe_buf *b, uint64_t v, int n)
{
	unsigned char x[8];

	for (int i = 0; i < n; i++)
		x[i] = (unsigned char)(v >> (8 * i));
	qe_buf_add(b, x, (size_t)n);
}

static uint64_t
get_le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static void
put_str(struct qe_buf *b, const char *s)
{
	size_t n = strlen(s);

	put_le(b, n, 4);
	qe_buf_add(b, s, n + 1);
}

void
qe_hcells_put(struct qe_buf *b, const struct qe_hcellrec *c)
{
	uint64_t d = 0;
	double dur = isnan(c->dur) ? 0 : c->dur;

	memcpy(&d, &dur, sizeof d);
	put_le(b, (uint64_t)c->idx, 4);
	put_le(b, (uint64_t)(c->status + 1), 1);
	put_le(b, (!isnan(c->dur) ? F_DUR : 0) | (c->label ? F_LABEL : 0) |
	    (c->first_line ? F_FIRST : 0) | (c->name ? F_NAME : 0), 1);
	put_le(b, d, 8);
	qe_buf_add(b, c->sha, 32);
	if (c->label)
		put_str(b, c->label);
	if (c->first_line)
		put_str(b, c->first_line);
	if (c->name)
		put_str(b, c->name);
}

/* A string at *off: its length, bytes and NUL all inside p[0..n). */
static const char *
get_str(const unsigned char *p, size_t n, size_t *off)
{
	uint64_t len;
	const char *s;

	if (n - *off < 4)
		return NULL;
	len = get_le(p + *off, 4);
	if (n - *off - 4 < len + 1 || p[*off + 4 + len] != '\0')
		return NULL;
	s = (const char *)p + *off + 4;
	*off += 4 + (size_t)len + 1;
	return s;
}

int
qe_hcells_get(const unsigned char *p, size_t n, size_t *off, struct qe_hcellrec *c)
{
	uint64_t d;
	int flags;

	if (*off == n)
		return 0;
	if (*off > n || n - *off < 46)
		return -1;
	c->idx = (long)get_le(p + *off, 4);
	c->status = (int)p[*off + 4] - 1;
	flags = p[*off + 5];
	d = get_le(p + *off + 6, 8);
	memcpy(&c->dur, &d, sizeof d);
	if (!(flags & F_DUR))
		c->dur = NAN;
	memcpy(c->sha, p + *off + 14, 32);
	*off += 46;
	c->label = c->first_line = c->name = NULL;
	if ((flags & F_LABEL) && (c->label = get_str(p, n, off)) == NULL)
		return -1;
	if ((flags & F_FIRST) && (c->first_line = get_str(p, n, off)) == NULL)
		return -1;
	if ((flags & F_NAME) && (c->name = get_str(p, n, off)) == NULL)
		return -1;
	return 1;
}
