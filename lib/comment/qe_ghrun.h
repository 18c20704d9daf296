/*
 * qe_ghrun.h - what identifies a GitHub Actions run in a report (the head
 * commit, the run's number and id, the repository's URL), checked before
 * any of it reaches a link or the comment's hidden marker.
 *
 * Invariants and ownership:
 *  - a value is accepted whole or refused: a refused value is reported
 *    ("prog: FROM: not ...; left out") without echoing it, and the checker
 *    returns NULL; the caller decides the exit status.
 *  - an accepted value is a new string (the caller frees it) made only of
 *    characters that are inert in Markdown link targets, HTML comments and
 *    JSON: hex digits, decimal digits, or an https URL of a fixed alphabet.
 */
#ifndef QE_GHRUN_H
#define QE_GHRUN_H

/* The identity of a run; any member may be NULL (unknown, or left out). */
struct qe_ghrun {
	char *head_sha;		/* 7 to 64 hex digits, lower case */
	char *run_number;	/* 1 to 19 digits, no leading zeros */
	char *run_id;		/* likewise */
	char *repo_url;		/* https://host[:port][/path], no trailing '/' */
};

/* A 7-64 digit hexadecimal SHA, lowercased. `from` names it in the warning. */
char *qe_ghrun_sha(const char *s, const char *from);

/* 1 to 19 decimal digits, leading zeros dropped ("007" -> "7"). */
char *qe_ghrun_number(const char *s, const char *from);

/*
 * https://host[:port][/path] of letters, digits and "._~/-" (no "//" in the
 * path, no query, at most 200 bytes), trailing '/' dropped.
 */
char *qe_ghrun_url(const char *s, const char *from);

/* Free the members and set them to NULL. */
void qe_ghrun_free(struct qe_ghrun *run);

#endif /* QE_GHRUN_H */
