/* Document names of notebooks (qe_docname.h). */
#include <string.h>

#include "qe.h"
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

char *
qe_docname(const char *path, const char *root, const char *base, size_t baselen)
{
	const char *rel = path, *slash, *dot;
	size_t rl;

	if (root != NULL && strncmp(path, root, strlen(root)) == 0 && path[strlen(root)] == '/')
		rel = path + strlen(root) + 1;
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
