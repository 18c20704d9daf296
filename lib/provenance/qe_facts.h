/*
 * qe_facts.h - turning what the machine says (environment variables, files
 * of /proc and /etc, a helper program's output) into JSON facts, with one
 * rule: a fact that is missing, empty where emptiness means unknown, or not
 * UTF-8 is left out, never guessed and never written as null.
 *
 * Invariants:
 *  - the qe_fact_* adders take the key and value as they are; cJSON copies
 *    them, the caller keeps ownership of its strings. An item handed to
 *    qe_fact_item/qe_fact_group belongs to the object afterwards (or is
 *    freed, for an empty group).
 *  - out of memory exits (qe_json_check); nothing else here fails or prints.
 *  - qe_fact_trim edits its argument in place and returns a pointer into it.
 */
#ifndef QE_FACTS_H
#define QE_FACTS_H

#include <cjson/cJSON.h>

/* 1 if the C string s is well-formed UTF-8. */
int qe_fact_utf8(const char *s);

/* Add o[k] = v when v is not NULL and both k and v are UTF-8; else nothing. */
void qe_fact_str(cJSON *o, const char *k, const char *v);

/* Add o[k] = v (a number). */
void qe_fact_num(cJSON *o, const char *k, double v);

/* Add o[k] = item; o owns item afterwards. */
void qe_fact_item(cJSON *o, const char *k, cJSON *item);

/* Add o[k] = item unless item has no member (then free it): empty is missing. */
void qe_fact_group(cJSON *o, const char *k, cJSON *item);

/* getenv(name), or NULL when it is unset or empty. */
const char *qe_fact_env(const char *name);

/*
 * A positive decimal integer of at most 2^53 (exact in a double) written as
 * the whole of s, leading zeros allowed, no sign or blank; -1 otherwise
 * (also for NULL).
 */
long long qe_fact_posint(const char *s);

/* s without leading and trailing blanks (" \t\r\n"); cuts s in place. */
char *qe_fact_trim(char *s);

#endif /* QE_FACTS_H */
