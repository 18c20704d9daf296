/* What qe-cache-extract's operands are (qe_operand.h). */
#include <dirent.h>
#include <err.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "qe_mem.h"
#include "qe_operand.h"

void
qe_operand_paths_add(struct qe_paths *l, const char *p)
{
	l->v = qe_xrealloc(l->v, (l->n + 1) * sizeof *l->v);
	l->v[l->n++] = qe_xstrdup(p);
}

void
qe_operand_paths_read_lines(struct qe_paths *l, FILE *fp)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	while ((n = getline(&line, &cap, fp)) > 0) {
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (n > 0)
			qe_operand_paths_add(l, line);
	}
	free(line);
}

void
qe_operand_paths_free(struct qe_paths *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof *l);
}

char *
qe_operand_abspath(const char *path, const char *cwd)
{
	struct qe_buf b = { 0 };
	const char *p = path;

	if (*p != '/')
		qe_buf_adds(&b, cwd);
	while (*p) {
		size_t n;

		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (n == 0 || (n == 1 && p[0] == '.')) {
			/* nothing */
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (b.len > 0 && b.data[b.len - 1] != '/')
				b.len--;
			if (b.len > 0)
				b.len--;
			qe_buf_add(&b, "", 0);
			b.data[b.len] = '\0';
		} else {
			qe_buf_addc(&b, '/');
			qe_buf_add(&b, p, n);
		}
		p += n;
	}
	if (b.len == 0)
		qe_buf_addc(&b, '/');
	return b.data;
}

int
qe_operand_is_ipynb(const char *name)
{
	size_t n = strlen(name);

	return n > 6 && strcmp(name + n - 6, ".ipynb") == 0;
}

/* A SQLite database whatever its name (a copy of global.db kept aside). */
static int
is_sqlite_file(const char *path)
{
	static const char magic[16] = "SQLite format 3";
	char head[16];
	struct stat sb;
	int fd, ok;

	if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode) || (fd = open(path, O_RDONLY)) < 0)
		return 0;
	ok = read(fd, head, sizeof head) == (ssize_t)sizeof head &&
	    memcmp(head, magic, sizeof head) == 0;
	close(fd);
	return ok;
}

/* A folder: the cache itself, or a _build holding it, or notebooks. */
static enum qe_operand
classify_dir(const char *path, struct qe_buf *cachedir, struct qe_buf *db)
{
	for (int i = 0; i < 2; i++) {
		qe_buf_reset(cachedir);
		qe_buf_adds(cachedir, path);
		if (i == 1)
			qe_buf_adds(cachedir, "/.jupyter_cache");
		qe_buf_reset(db);
		qe_buf_adds(db, cachedir->data);
		qe_buf_adds(db, "/global.db");
		if (access(db->data, F_OK) == 0)
			return QE_OPERAND_CACHE_DIR;
	}
	qe_buf_reset(cachedir);
	qe_buf_reset(db);
	return QE_OPERAND_IPYNB_DIR;
}

enum qe_operand
qe_operand_classify(const char *path, struct qe_buf *cachedir, struct qe_buf *db)
{
	struct stat sb;
	const char *base;

	qe_buf_reset(cachedir);
	qe_buf_reset(db);
	if (stat(path, &sb) != 0) {
		warn("%s", path);
		return QE_OPERAND_NONE;
	}
	if (S_ISDIR(sb.st_mode))
		return classify_dir(path, cachedir, db);
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (strcmp(base, "global.db") == 0 || is_sqlite_file(path)) {
		qe_buf_add(cachedir, path, (size_t)(base - path));
		if (cachedir->len > 1)
			cachedir->data[--cachedir->len] = '\0';
		else if (cachedir->len == 0)
			qe_buf_adds(cachedir, ".");
		qe_buf_adds(db, path);
		return QE_OPERAND_CACHE_DIR;
	}
	if (qe_operand_is_ipynb(path))
		return QE_OPERAND_IPYNB;
	return QE_OPERAND_ARCHIVE;
}

/* The folders being walked, innermost first: a symbolic link loop is a
 * folder met again among its own ancestors. */
struct walk_up {
	dev_t dev;
	ino_t ino;
	const struct walk_up *up;
};

static int
is_ancestor(const struct walk_up *w, const struct stat *sb)
{
	for (; w != NULL; w = w->up)
		if (w->dev == sb->st_dev && w->ino == sb->st_ino)
			return 1;
	return 0;
}

static void walk(const char *dir, const struct walk_up *up, struct qe_paths *out, int *problems);

/* One entry of a folder being walked. */
static void
walk_entry(const char *path, const char *name, const struct walk_up *up,
    struct qe_paths *out, int *problems)
{
	struct stat sb;

	if (stat(path, &sb) != 0) {
		warn("%s", path);
		++*problems;
	} else if (S_ISDIR(sb.st_mode)) {
		if (is_ancestor(up, &sb)) {
			warnx("%s: symbolic link loop (a folder that holds it), not followed", path);
			++*problems;
		} else {
			struct walk_up here = { sb.st_dev, sb.st_ino, up };

			walk(path, &here, out, problems);
		}
	} else if (S_ISREG(sb.st_mode) && qe_operand_is_ipynb(name))
		qe_operand_paths_add(out, path);
}

static void
walk(const char *dir, const struct walk_up *up, struct qe_paths *out, int *problems)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort);

	if (n < 0) {
		warn("%s", dir);
		++*problems;
		return;
	}
	for (int i = 0; i < n; i++) {
		struct qe_buf p = { 0 };

		if (ents[i]->d_name[0] != '.') {
			qe_buf_adds(&p, dir);
			if (p.len == 0 || p.data[p.len - 1] != '/')
				qe_buf_addc(&p, '/');
			qe_buf_adds(&p, ents[i]->d_name);
			walk_entry(p.data, ents[i]->d_name, up, out, problems);
		}
		qe_buf_free(&p);
		free(ents[i]);
	}
	free(ents);
}

void
qe_operand_walk(const char *dir, struct qe_paths *out, int *problems)
{
	struct stat sb;
	struct walk_up top;

	if (stat(dir, &sb) != 0) {
		warn("%s", dir);
		++*problems;
		return;
	}
	top = (struct walk_up){ sb.st_dev, sb.st_ino, NULL };
	walk(dir, &top, out, problems);
}
