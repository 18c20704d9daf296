/* Document names of notebooks (qe_docname.h). */
#include <stdlib.h>
#include <string.h>

#include "qe_mem.h"
#include "qe_docname.h"

size_t
qe_docname_dir_len(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? (size_t)(s - path) : 0;
}

void
qe_docname_common(const char *path, const char *prefix, size_t *len)
{
	size_t i = 0, lastslash = 0;

	while (i < *len && path[i] && path[i] == prefix[i]) {
		if (path[i] == '/')
			lastslash = i;
		i++;
	}
	/* whole prefix matched and path continues with a separator */
	if (i == *len && path[i] == '/')
		return;
	*len = lastslash;
}

/* The first place path holds tail (n bytes) as whole folders followed by '/'. */
static const char *
find_folders(const char *path, const char *tail, size_t n)
{
	for (const char *p = path; (p = strstr(p, tail)) != NULL; p++)
		if ((p == path || p[-1] == '/') && p[n] == '/')
			return p;
	return NULL;
}

const char *
qe_docname_under(const char *path, const char *root, int *moved)
{
	size_t rl = strlen(root), off, n;
	const char *s, *at;

	*moved = 0;
	if (rl > 0 && strncmp(path, root, rl) == 0 && path[rl] == '/')
		return path + rl + 1;
	/* the root's last folders, longest run first: what follows each '/' of
	 * root (a relative root whole first) */
	for (off = root[0] == '/';; off = (size_t)(s - root) + 1) {
		n = rl - off;
		if (n > 0 && root[off] != '/' && (at = find_folders(path, root + off, n)) != NULL) {
			*moved = 1;
			return at + n + 1;
		}
		if ((s = strchr(root + off, '/')) == NULL)
			return NULL;
	}
}

/* Whether every path is below root, or the same book elsewhere (at least one is). */
static int
one_book(const char *root, size_t rl, const char *const *paths, size_t n)
{
	int elsewhere = 0, moved;

	for (size_t i = 0; i < n; i++) {
		const char *under = qe_docname_under(paths[i], root, &moved), *place;
		size_t pl;

		if (under == NULL)
			return 0;
		if (!moved)
			continue;
		/* the folder that holds the book there: an ancestor of the root is
		 * this checkout's own folder of the same name, not another checkout */
		place = paths[i];
		pl = (size_t)(under - place) - 1;
		if (pl <= rl && strncmp(root, place, pl) == 0 && (pl == rl || root[pl] == '/'))
			return 0;
		elsewhere = 1;
	}
	return elsewhere;
}

char *
qe_docname_guess(const char *newest, const char *const *paths, size_t n)
{
	size_t common, len, bytes = 0, folders = 0;

	if (n < 2)
		return NULL;
	common = qe_docname_dir_len(paths[0]);
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			qe_docname_common(paths[i], paths[0], &common);
		bytes += strlen(paths[i]);
	}
	for (const char *p = newest; (p = strchr(p, '/')) != NULL; p++)
		folders++;
	/* each folder tried reads every path once per folder of the root: a
	 * cache built to make that quadratic is named by its common directory */
	if ((double)bytes * (double)folders * (double)folders > QE_DOCNAME_GUESS_WORK)
		return NULL;
	/* deepest first: the shallowest that works would be the common directory */
	for (len = qe_docname_dir_len(newest); len > common;) {
		char *root = qe_xstrndup(newest, len);

		if (one_book(root, len, paths, n))
			return root;
		free(root);
		while (len > 0 && newest[--len] != '/')
			;
	}
	return NULL;
}

char *
qe_docname(const char *path, const char *root, const char *base, size_t baselen)
{
	const char *rel = path, *slash, *dot, *under;
	size_t rl;
	int moved;

	if (root != NULL && (under = qe_docname_under(path, root, &moved)) != NULL)
		rel = under;
	else if (root == NULL && baselen > 0 && strncmp(path, base, baselen) == 0 &&
	    path[baselen] == '/')
		rel = path + baselen + 1;
	else if (root == NULL && baselen == 0 && path[0] == '/' && base && base[0] == '/')
		rel = path + 1;
	slash = strrchr(rel, '/');
	dot = strrchr(rel, '.');
	rl = dot && dot > (slash ? slash : rel) ? (size_t)(dot - rel) : strlen(rel);
	return qe_xstrndup(rel, rl);
}
