/*
 * qe_hrelayout.h - a report built in another folder: its documents named by
 * absolute path are given the names the history stores, by the rule
 * qe-cell-diff joins two builds by (qe-cell-diff(1), a build in a folder of
 * another name), so their series go on instead of starting anew.
 *
 * Invariants:
 *  - names are the report's documents, each once; a name is replaced (the
 *    old string freed, a new one the caller's) only by a stored one no other
 *    of the report's documents has, so the report keeps one row a document.
 *  - first, a name named by absolute path that ends in "/" and a stored
 *    name named relatively takes the longest such; then the rest, against
 *    the stored names by absolute path (another folder), by
 *    qe_align_folders: one folder each, never when two pairings fit as
 *    well. Names the history has already are left.
 *  - warns ("prog: file: ...") what it matched, the two folders, an
 *    ambiguous layout and what matched none of the history's; nothing when
 *    no name is absolute or the history has no documents.
 */
#ifndef QE_HRELAYOUT_H
#define QE_HRELAYOUT_H

#include <stddef.h>
#include <sqlite3.h>

/* Rename names[0..n) as above, reading the stored names from db; -1 on a database error. */
int qe_hrelayout(sqlite3 *db, const char *file, char **names, size_t n);

#endif /* QE_HRELAYOUT_H */
