/*
 * qe_hstore.h - qe-history's SQLite database: its schema, its migrations,
 * opening it and its prepared statements.
 *
 * Invariants:
 *  - the schema's version is PRAGMA user_version (QE_HSTORE_VERSION); an
 *    older database is migrated step by step inside one transaction when it
 *    is opened for writing, a newer one is refused.
 *  - the journal is WAL; a report is added in ONE transaction (qe_hadd.h).
 *  - struct qe_hstore owns the connection and its prepared statements.
 *
 * Tables (version 3; version 2 had no sweeps; version 1 had no notebooks.kernel_env, named a
 * build without run.build_id "commit:SHA[#FP]" and packed no cell's
 * display name: a version-1 qe-history refuses a version-2 store, so it
 * never misreads a name's blob flag, qe_hcells.h):
 *   builds(id, build UNIQUE, series, commit_sha, started_at, run_number,
 *          runner_class, fingerprint, content_sha256, provenance JSON,
 *          file, notebooks, cells)
 *   docs(id, name UNIQUE)
 *   notebooks(doc, build, status, execution_s, cells_s, code_cells,
 *             ncells, cells)   UNIQUE (doc, build); status NULL when the
 *             report had cells of the document but no notebook record;
 *             cells: the document's code cells in this build, packed in
 *             index order (qe_hcells.h); kernel_env: the notebook
             record's kernel_env (JSON text), else NULL
 *   sweeps(id, build, series, commit_sha, started_at, run_number, doc,
 *          cell, parameter, fingerprint, runner_class, file, record)
 *             one qe-sweep curve (kind "sweep"): build, series, commit,
 *             start and run number as its report's provenance names them
 *             (qe_hbuild.h) but no row of builds (a sweep is no lecture
 *             build; the queries over builds never see it); cell NULL for
 *             the lecture's total; fingerprint and runner_class the
 *             curve's machine's (machine.*); file: the report it came
 *             from; record: the sweep record without its provenance (JSON
 *             text); UNIQUE (build, doc, cell, parameter, fingerprint)
 */
#ifndef QE_HSTORE_H
#define QE_HSTORE_H

#include <sqlite3.h>

#define QE_HSTORE_VERSION 3
#define QE_HSTORE_DEFAULT "qe-history.db"

struct qe_hstore {
	sqlite3 *db;
	const char *path;
	sqlite3_stmt *ins_build, *find_build, *fin_build, *ins_doc, *find_doc,
	    *ins_nb, *del_build, *del_nbs, *ins_sweep, *find_sweep, *del_sweep;
};

/*
 * Open `path`: for writing (creating and migrating it as needed) or, with
 * readonly, an existing database of a version this program reads. Returns
 * 0, or -1 after saying why ("prog: path: ...").
 */
int qe_hstore_open(struct qe_hstore *s, const char *path, int readonly);
void qe_hstore_close(struct qe_hstore *s);

/* Say "prog: path: what: sqlite's message"; returns -1. */
int qe_hstore_err(const struct qe_hstore *s, const char *what);

#endif /* QE_HSTORE_H */
