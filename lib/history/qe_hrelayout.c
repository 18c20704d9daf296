/* Documents of a report built in another folder, named as stored (qe_hrelayout.h). */
#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "qe_align.h"
#include "qe_mem.h"
#include "qe_hrelayout.h"

struct names {
	char **v;
	size_t n, cap;
};

static void
names_add(struct names *s, const char *name)
{
	s->v = qe_mem_grow(s->v, s->n, &s->cap, sizeof *s->v, 64);
	s->v[s->n++] = qe_xstrdup(name);
}

static void
names_free(struct names *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
}

static int
has(char *const *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] && strcmp(v[i], name) == 0)
			return 1;
	return 0;
}

/* The stored document names; -1 on a database error. */
static int
stored(sqlite3 *db, struct names *s)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT name FROM docs ORDER BY name", -1, &st, NULL) != SQLITE_OK)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (sqlite3_column_text(st, 0) != NULL)
			names_add(s, (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Give names[i] the stored name `to`, unless another of the report's has it. */
static int
rename_to(char **names, size_t n, size_t i, const char *to)
{
	if (has(names, n, to))
		return 0;
	free(names[i]);
	names[i] = qe_xstrdup(to);
	return 1;
}

/* The longest stored name named relatively that path names (qe_align_relname), or NULL. */
static const char *
relative_match(const struct names *s, const char *path)
{
	const char *best = NULL;

	for (size_t i = 0; i < s->n; i++) {
		if (s->v[i][0] == '/' || !qe_align_relname(path, s->v[i]))
			continue;
		if (best == NULL || strlen(s->v[i]) > strlen(best))
			best = s->v[i];
	}
	return best;
}

/* Step two: the names left by absolute path against the stored ones by absolute path. */
static long
by_folders(const char *file, const struct names *s, char **names, size_t n, const char **lone, size_t nlone)
{
	const char **abs = qe_xcalloc(s->n + 1, sizeof *abs);
	struct qe_align_dirs d;
	size_t na = 0;
	long moved = 0;
	int rc;

	for (size_t i = 0; i < s->n; i++)
		if (s->v[i][0] == '/' && !has(names, n, s->v[i]))
			abs[na++] = s->v[i];
	rc = na > 0 ? qe_align_folders(abs, na, lone, nlone, &d) : 0;
	free(abs);
	if (rc == -1)
		warnx("%s: documents named by absolute path match the history's by their relative layout in "
		    "more than one way (the history's %s/ with this report's %s/, or %s/ with %s/): not matched",
		    file, d.base, d.head, d.base2, d.head2);
	if (rc != 1) {
		qe_align_dirs_free(&d);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		const char *rel = names[i][0] == '/' && !has(s->v, s->n, names[i]) ? qe_align_below(names[i], d.head) : NULL;
		struct qe_buf to = { 0 };

		if (rel == NULL)
			continue;
		qe_buf_addf(&to, "%s/%s", d.base, rel);
		moved += rename_to(names, n, i, to.data);
		qe_buf_free(&to);
	}
	warnx("%s: built in another folder than the history's documents: %ld document%s matched by their "
	    "relative layout, the history's %s/ with this report's %s/", file, moved, moved == 1 ? "" : "s",
	    d.base, d.head);
	qe_align_dirs_free(&d);
	return moved;
}

int
qe_hrelayout(sqlite3 *db, const char *file, char **names, size_t n)
{
	struct names s = { 0 };
	const char **lone, *example = NULL;
	size_t nlone = 0, nabs = 0;
	long moved = 0, left = 0;

	for (size_t i = 0; i < n; i++)
		nabs += names[i][0] == '/';
	if (nabs == 0)	/* the usual report: no query */
		return 0;
	lone = qe_xcalloc(n + 1, sizeof *lone);
	if (stored(db, &s) < 0) {
		names_free(&s), free(lone);
		return -1;
	}
	for (size_t i = 0; s.n > 0 && i < n; i++) {
		const char *to;

		if (names[i][0] != '/' || has(s.v, s.n, names[i]))
			continue;
		if ((to = relative_match(&s, names[i])) == NULL)
			lone[nlone++] = names[i];
		else if (rename_to(names, n, i, to)) {
			moved++;
			example = example ? example : to;
		}
	}
	if (moved > 0)
		warnx("%s: %ld document%s named by absolute path (built in another folder?), matched to the "
		    "history's by their relative layout: e.g. %s", file, moved, moved == 1 ? "" : "s", example);
	if (nlone > 0)
		by_folders(file, &s, names, n, lone, nlone);
	for (size_t i = 0; s.n > 0 && i < n; i++)
		left += names[i][0] == '/' && !has(s.v, s.n, names[i]);
	if (left > 0)
		warnx("%s: %ld document%s named by absolute path match%s none of the history's", file, left,
		    left == 1 ? "" : "s", left == 1 ? "es" : "");
	names_free(&s);
	free(lone);
	return 0;
}
