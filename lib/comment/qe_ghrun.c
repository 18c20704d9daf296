/* Checking what identifies a GitHub run (qe_ghrun.h). */
#include <ctype.h>
#include <err.h>
#include <stdlib.h>
#include <string.h>

#include "qe_mem.h"
#include "qe_ghrun.h"

#define ALNUM "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

static int
all_of(const char *s, const char *set, size_t min, size_t max)
{
	size_t n = strlen(s);

	return n >= min && n <= max && strspn(s, set) == n;
}

char *
qe_ghrun_sha(const char *s, const char *from)
{
	char *r;

	if (!all_of(s, "0123456789abcdefABCDEF", 7, 64)) {
		warnx("%s: not a hexadecimal SHA of 7 to 64 digits; left out", from);
		return NULL;
	}
	r = qe_xstrdup(s);
	for (char *p = r; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return r;
}

char *
qe_ghrun_number(const char *s, const char *from)
{
	if (!all_of(s, "0123456789", 1, 19)) {
		warnx("%s: not a number of 1 to 19 digits; left out", from);
		return NULL;
	}
	while (s[0] == '0' && s[1] != '\0')
		s++;
	return qe_xstrdup(s);
}

/* Length of a host[:port] at the start of s, or 0. */
static size_t
host_len(const char *s)
{
	size_t hl = strspn(s, ALNUM ".-"), pl;

	if (hl == 0 || s[0] == '.' || s[0] == '-')
		return 0;
	if (s[hl] == ':') {
		pl = strspn(s + hl + 1, "0123456789");
		if (pl == 0 || pl > 5)
			return 0;
		hl += 1 + pl;
	}
	return s[hl] == '\0' || s[hl] == '/' ? hl : 0;
}

char *
qe_ghrun_url(const char *s, const char *from)
{
	const char *host = s + 8, *path;
	size_t hl, n;
	char *r;

	if (strncmp(s, "https://", 8) != 0 || (hl = host_len(host)) == 0)
		goto bad;
	path = host + hl;
	if (!all_of(path, ALNUM "._~/-", 0, (size_t)-1) || strstr(path, "//") != NULL ||
	    strlen(s) > 200)
		goto bad;
	r = qe_xstrdup(s);
	n = strlen(r);
	while (n > 8 && r[n - 1] == '/')
		r[--n] = '\0';
	return r;
bad:
	warnx("%s: not an https URL of the form https://host/path; left out", from);
	return NULL;
}

void
qe_ghrun_free(struct qe_ghrun *run)
{
	free(run->head_sha);
	free(run->repo_url);
	free(run->run_number);
	free(run->run_id);
	run->head_sha = run->repo_url = run->run_number = run->run_id = NULL;
}
