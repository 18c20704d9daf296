/* The build's notebook of a cache record, whose markdown names its cells (qe_buildnb.h). */
#include <string.h>
#include <sys/stat.h>

#include "qe_file.h"
#include "qe_jcache.h"
#include "qe_mem.h"
#include "qe_nbrecord.h"
#include "qe_buildnb.h"

/* 1 when a path has a ".." component (a URI is the cache's word: it names nothing above). */
static int
has_dotdot(const char *p)
{
	for (const char *s = p; (s = strstr(s, "..")) != NULL; s += 2)
		if ((s == p || s[-1] == '/') && (s[2] == '\0' || s[2] == '/'))
			return 1;
	return 0;
}

void
qe_buildnb_find(size_t max, const char *dir, const char *uri, struct qe_buf *where,
    struct qe_nbctx *nb)
{
	const char *slash = strrchr(uri, '/'), *dot = strrchr(uri, '.');
	size_t stem = dot && (slash == NULL || dot > slash) ? (size_t)(dot - uri) : strlen(uri);

	if (has_dotdot(uri))
		return;
	for (size_t i = 0; dir != NULL && i < stem; i++) {
		if (i > 0 && uri[i - 1] != '/')
			continue;	/* the tails of the URI, longest first */
		qe_buf_reset(where);
		qe_buf_addf(where, "%s/%.*s.ipynb", dir, (int)(stem - i), uri + i);
		if (qe_file_regular(where->data) != 0)
			continue;
		if ((nb->build_bytes = qe_file_slurp(where->data, max, &nb->build_len)) == NULL) {
			qe_file_warn(where->data);
			nb->problems++;
		}
		nb->build_where = where->data;
		return;
	}
	/* else the MyST source, where it is here (a checkout) */
	if (stem < strlen(uri) && strcmp(uri + stem, ".md") == 0 && qe_file_regular(uri) == 0 &&
	    (nb->build_bytes = qe_file_slurp(uri, max, &nb->build_len)) != NULL) {
		qe_buf_reset(where);
		qe_buf_adds(where, uri);	/* a copy: the URI may be freed first */
		nb->build_where = where->data;
		nb->build_myst = 1;
	}
}

/*
 * The cache folder and hashkey of a stored notebook's path,
 * DIR/executed/KEY/base.ipynb (as --stored names it): DIR into dir, KEY
 * into key; -1 when path is no such path.
 */
static int
stored_parts(const char *path, struct qe_buf *dir, struct qe_buf *key)
{
	static const char tail[] = "/base.ipynb", mid[] = "/executed/";
	size_t n = strlen(path), k;

	if (n < sizeof tail || strcmp(path + n - (sizeof tail - 1), tail) != 0)
		return -1;
	n -= sizeof tail - 1;
	for (k = n; k > 0 && path[k - 1] != '/'; k--)
		;
	if (k == n || k < sizeof mid - 1 || memcmp(path + k - (sizeof mid - 1), mid, sizeof mid - 1) != 0)
		return -1;
	qe_buf_add(key, path + k, n - k);
	qe_buf_addc(key, '\0');
	qe_buf_add(dir, path, k - (sizeof mid - 1));
	qe_buf_addc(dir, '\0');
	return 0;
}

void
qe_buildnb_stored(size_t max, const char *path, struct qe_buf *where, struct qe_nbctx *nb)
{
	struct qe_buf dir = { 0 }, key = { 0 }, db = { 0 }, bdir = { 0 };
	struct qe_jcache c = { .name = path };
	struct stat sb;

	if (stored_parts(path, &dir, &key) < 0)
		return;
	qe_buf_addf(&db, "%s/global.db", dir.data);
	qe_buf_addf(&bdir, "%s/../jupyter_execute", dir.data);
	/* quietly: a notebook that only looks stored is named from itself */
	if (qe_file_regular(db.data) == 0 && qe_jcache_open_file(&c, db.data) == 0 &&
	    qe_jcache_read(&c, 1) == 0)
		for (size_t i = 0; i < c.n; i++)
			if (c.e[i].hashkey && c.e[i].uri && strcmp(c.e[i].hashkey, key.data) == 0) {
				int isdir = stat(bdir.data, &sb) == 0 && S_ISDIR(sb.st_mode);

				qe_buildnb_find(max, isdir ? bdir.data : NULL, c.e[i].uri, where, nb);
				break;
			}
	qe_jcache_free(&c);
	qe_buf_free(&dir);
	qe_buf_free(&key);
	qe_buf_free(&db);
	qe_buf_free(&bdir);
}
