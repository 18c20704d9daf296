/*
 * qe_packages.h - the Python packages of a build environment, from
 * `conda list --json` and `pip list --format=json`, and what provenance
 * records of them: the key packages (recorded and fingerprinted by release
 * series), the build tools (recorded only), a count and a digest of all.
 *
 * Invariants:
 *  - names are kept in PEP 503 normal form (lower case, each run of '-',
 *    '_', '.' one '-'), so "Typing_Extensions" from pip and
 *    "typing-extensions" from conda are one package.
 *  - lists are read in order and a later list wins for a package both name
 *    (pip's, read after conda's, is what `pip install -U` left).
 *  - an entry without a non-empty UTF-8 name and version is skipped, as a
 *    missing fact; a file that is not a JSON array is refused (-1, said why).
 *  - struct qe_pkgs is owned by the caller: zero-initialise it, set `all`
 *    and the keys, free it with qe_pkgs_free(). Strings it holds are its own.
 *  - functions returning char * return a new string the caller frees.
 */
#ifndef QE_PACKAGES_H
#define QE_PACKAGES_H

#include <stddef.h>

#include <cjson/cJSON.h>

struct qe_pkg {
	char *name;		/* normal form */
	char *version;
	size_t seq;		/* reading order: a later list wins */
};

struct qe_pkgs {
	struct qe_pkg *v;	/* the packages read */
	size_t n;
	char **keys;		/* key package names (normal form); none: the defaults */
	size_t nkeys;
	int all;		/* record every package, not only key ones and build tools */
};

/* PEP 503 normal form of a package name (a new string). */
char *qe_pkg_norm(const char *name);

/*
 * Add the key packages named in `list`, separated by commas, blanks around
 * a name ignored, empty names skipped ("NumPy, jax,").
 */
void qe_pkgs_add_keys(struct qe_pkgs *p, const char *list);

/*
 * 1 if `name` (normal form) is a key package: one of the keys given, or
 * when none was given one of python, numpy, scipy, numba, jax, jaxlib,
 * torch, quantecon, numpyro.
 */
int qe_pkgs_is_key(const struct qe_pkgs *p, const char *name);

/*
 * Add the packages of the JSON text s[0..n), an array of objects with
 * "name" and "version". Returns 0, or -1 after "what: invalid JSON" or
 * "what: not a JSON array of packages".
 */
int qe_pkgs_parse(struct qe_pkgs *p, const char *s, size_t n, const char *what);

/*
 * Add one package as if read from a list (a version the caller asked for,
 * e.g. the interpreter's own, which pip never lists); skipped like a list's
 * entry when name or version is empty or not UTF-8.
 */
void qe_pkgs_add(struct qe_pkgs *p, const char *name, const char *version);

/* qe_pkgs_parse() of the file at path; -1 also after "path: strerror". */
int qe_pkgs_read(struct qe_pkgs *p, const char *path);

/*
 * The release series of a version: its leading "N" or "N.N" ("2.3.1" ->
 * "2.3", "1.0.4.post1" -> "1.0", "2026.07" -> "2026.07"), else the whole
 * version ("v1.2").
 */
char *qe_pkg_series(const char *version);

/*
 * Sort the packages read by name, keeping the last one read of a name, and
 * describe them: env gets "packages" (key packages, build tools, or all of
 * them with p->all; name -> version), "package_count" and
 * "packages_sha256" (SHA-256 of the "name==version\n" lines of every
 * package, sorted); facts gets name -> release series of each key package.
 */
void qe_pkgs_describe(struct qe_pkgs *p, cJSON *env, cJSON *facts);

/* Free what p holds, keys too; p is zeroed for reuse. */
void qe_pkgs_free(struct qe_pkgs *p);

#endif /* QE_PACKAGES_H */
