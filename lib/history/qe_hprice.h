/*
 * qe_hprice.h - what a runner minute costs: the default table for
 * GitHub-hosted classes (qe-history(1), COST) and a user's price file.
 *
 * Invariants:
 *  - a class named in the file wins over the default table; a class in
 *    neither has no price (NAN), never a guess.
 *  - the default applies only to classes qe-stamp derives for GitHub's own
 *    runners: "github-hosted/DISTRO/Ncpu", priced by operating system
 *    (DISTRO ubuntu-* or debian-*: Linux; windows-*; macos-*) and N.
 *  - struct qe_hprices owns its strings (qe_hprices_free).
 */
#ifndef QE_HPRICE_H
#define QE_HPRICE_H

struct qe_hprices {
	char **cls;
	double *usd;
	int n;
};

/*
 * One line of a price file: "CLASS USD_PER_MINUTE" (the last blank-separated
 * word is the price, the rest trimmed the class). Returns 1 with *cls
 * (free it) and *usd set, 0 for a blank or '#' comment line, -1 when the
 * line is neither (*why: what is wrong).
 */
int qe_hprice_line(const char *line, char **cls, double *usd, const char **why);

/*
 * Read a price file: a JSON table {"CLASS": USD_PER_MINUTE, ...} when its
 * first character that is not blank is '{', else lines as above. 0, or -1
 * after "prog: file[:line]: reason".
 */
int qe_hprices_load(struct qe_hprices *p, const char *file);
void qe_hprices_free(struct qe_hprices *p);

/* The default price of a class (USD per minute), or NAN. */
double qe_hprice_default(const char *cls);

/* The file's price of cls, else the default, else NAN (cls NULL: NAN). */
double qe_hprice(const struct qe_hprices *p, const char *cls);

#endif /* QE_HPRICE_H */
