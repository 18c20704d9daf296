/* What the pull request touched, and the ignore list (qe_prscope.h). */
#include <err.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "qe_mem.h"
#include "qe_file.h"
#include "qe_align.h"
#include "qe_prscope.h"

#define LIST_LIMIT ((size_t)64 << 20)

void
qe_prscope_changed_add(struct qe_prscope *s, const char *path)
{
	s->changed = qe_mem_grow(s->changed, s->nchanged, &s->capchanged, sizeof *s->changed, 16);
	s->changed[s->nchanged++] = qe_xstrdup(path);
	s->have_changed = 1;
}

/* Each non-blank line of path to fn (skipping '#' lines when comments). */
static int
each_line(const char *path, int comments, void (*fn)(struct qe_prscope *, const char *, int *),
    struct qe_prscope *s)
{
	struct qe_buf b = { 0 };
	char *line, *next;
	int bad = 0;

	if (qe_file_read(strcmp(path, "-") ? path : "/dev/stdin", LIST_LIMIT, &b) < 0) {
		warnx("%s: %s", path, strerror(errno));
		qe_buf_free(&b);
		return -1;
	}
	for (line = b.data; line && *line; line = next) {
		size_t n;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		n = strlen(line);
		while (n > 0 && (line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
			line[--n] = '\0';
		if (n == 0 || (comments && line[0] == '#'))
			continue;
		fn(s, line, &bad);
	}
	qe_buf_free(&b);
	return bad ? -1 : 0;
}

static void
add_changed(struct qe_prscope *s, const char *line, int *bad)
{
	(void)bad;
	qe_prscope_changed_add(s, line);
}

int
qe_prscope_changed_file(struct qe_prscope *s, const char *path)
{
	s->have_changed = 1;	/* an empty list says the PR touched no document */
	return each_line(path, 0, add_changed, s);
}

int
qe_prscope_ignore(struct qe_prscope *s, const char *spec)
{
	const char *hash = strchr(spec, '#');
	size_t nd = hash ? (size_t)(hash - spec) : strlen(spec);
	struct qe_ignore *g;

	if (nd == 0) {
		warnx("ignore '%s': no document before '#'", spec);
		return -1;
	}
	s->ign = qe_mem_grow(s->ign, s->nign, &s->capign, sizeof *s->ign, 8);
	g = &s->ign[s->nign++];
	g->doc = qe_xstrndup(spec, nd);
	g->label = hash && hash[1] ? qe_xstrdup(hash + 1) : NULL;
	return 0;
}

static void
add_ignore(struct qe_prscope *s, const char *line, int *bad)
{
	if (qe_prscope_ignore(s, line) < 0)
		*bad = 1;
}

int
qe_prscope_ignore_file(struct qe_prscope *s, const char *path)
{
	return each_line(path, 1, add_ignore, s);
}

int
qe_prscope_touched(const struct qe_prscope *s, const char *doc)
{
	if (!s->have_changed)
		return -1;
	for (size_t i = 0; i < s->nchanged; i++)
		if (qe_align_relname(s->changed[i], doc))
			return 1;
	return 0;
}

int
qe_prscope_ignored_doc(const struct qe_prscope *s, const char *doc)
{
	for (size_t i = 0; i < s->nign; i++)
		if (s->ign[i].label == NULL && qe_align_relname(s->ign[i].doc, doc))
			return 1;
	return 0;
}

int
qe_prscope_ignored_cell(const struct qe_prscope *s, const char *doc, const char *label)
{
	for (size_t i = 0; i < s->nign; i++)
		if (qe_align_relname(s->ign[i].doc, doc) &&
		    (s->ign[i].label == NULL || (label && strcmp(s->ign[i].label, label) == 0)))
			return 1;
	return 0;
}

void
qe_prscope_free(struct qe_prscope *s)
{
	for (size_t i = 0; i < s->nchanged; i++)
		free(s->changed[i]);
	for (size_t i = 0; i < s->nign; i++) {
		free(s->ign[i].doc);
		free(s->ign[i].label);
	}
	free(s->changed);
	free(s->ign);
	memset(s, 0, sizeof *s);
}
