/* qe-history's database: schema, migrations, adding a report (qe_hstore.h). */
#include <stdio.h>
#include <err.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qe_mem.h"
#include "qe_hbuild.h"
#include "qe_hstore.h"

/* Each step takes the database from version i to i + 1. */
static const char *const migrations[] = {
	/* 0 -> 1 */
	"CREATE TABLE builds(id INTEGER PRIMARY KEY, build TEXT NOT NULL UNIQUE,"
	" series TEXT NOT NULL, commit_sha TEXT, started_at TEXT NOT NULL,"
	" run_number INTEGER NOT NULL, runner_class TEXT, fingerprint TEXT,"
	" content_sha256 TEXT NOT NULL, provenance TEXT NOT NULL, file TEXT NOT NULL,"
	" notebooks INTEGER NOT NULL, cells INTEGER NOT NULL);"
	"CREATE INDEX builds_order ON builds(series, started_at, run_number);"
	"CREATE TABLE docs(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);"
	"CREATE TABLE notebooks(doc INTEGER NOT NULL, build INTEGER NOT NULL, status TEXT,"
	" execution_s REAL, cells_s REAL, code_cells INTEGER, ncells INTEGER NOT NULL,"
	" cells BLOB NOT NULL, UNIQUE(doc, build));"
	"CREATE INDEX notebooks_build ON notebooks(build);",
	/*
	 * 1 -> 2: a build without run.build_id was "commit:SHA[#FP]", so every
	 * week built from the same commit collided; it is named as qe_hbuild.h
	 * now names it (repository/run id/attempt, else commit@start). Each
	 * notebook keeps the kernel_env its record carried.
	 */
	"UPDATE builds SET build = (CASE WHEN json_type(provenance, '$.source.repository') = 'text'"
	" AND json_type(provenance, '$.run.run_id') = 'text'"
	" AND json_type(provenance, '$.run.run_attempt') IN ('integer', 'real')"
	" THEN json_extract(provenance, '$.source.repository') || '/' ||"
	" json_extract(provenance, '$.run.run_id') || '/' ||"
	" printf('%.0f', json_extract(provenance, '$.run.run_attempt'))"
	" ELSE 'commit:' || commit_sha || '@' || started_at END) ||"
	" COALESCE('#' || fingerprint, '')"
	" WHERE json_type(provenance, '$.run.build_id') IS NOT 'text';"
	"ALTER TABLE notebooks ADD COLUMN kernel_env TEXT;",
	/*
	 * 2 -> 3: qe-sweep's curves (kind "sweep"), one row per curve, named
	 * by the build its report's provenance names but apart from builds:
	 * a sweep's run is no lecture build, so the queries over builds never
	 * see it.
	 */
	"CREATE TABLE sweeps(id INTEGER PRIMARY KEY, build TEXT NOT NULL, series TEXT NOT NULL,"
	" commit_sha TEXT, started_at TEXT NOT NULL, run_number INTEGER NOT NULL,"
	" doc INTEGER NOT NULL, cell TEXT, parameter TEXT NOT NULL, fingerprint TEXT NOT NULL,"
	" runner_class TEXT, file TEXT NOT NULL, record TEXT NOT NULL);"
	"CREATE UNIQUE INDEX sweeps_key ON sweeps(build, doc, ifnull(cell, char(0)), parameter,"
	" fingerprint);"
	"CREATE INDEX sweeps_doc ON sweeps(doc, cell);",
};

int
qe_hstore_err(const struct qe_hstore *s, const char *what)
{
	warnx("%s: %s: %s", s->path, what, s->db ? sqlite3_errmsg(s->db) : "cannot open");
	return -1;
}

static int
exec(struct qe_hstore *s, const char *sql)
{
	return sqlite3_exec(s->db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : qe_hstore_err(s, sql);
}

static int
user_version(struct qe_hstore *s)
{
	sqlite3_stmt *st;
	int v = -1;

	if (sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
		return qe_hstore_err(s, "reading the schema version");
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return v < 0 ? qe_hstore_err(s, "reading the schema version") : v;
}

/* Bring the schema to QE_HSTORE_VERSION in one transaction. */
static int
migrate(struct qe_hstore *s, int v)
{
	char sql[64];

	if (exec(s, "BEGIN IMMEDIATE") < 0)
		return -1;
	if ((v = user_version(s)) < 0)	/* again, under the write lock */
		goto fail;
	for (; v < QE_HSTORE_VERSION; v++) {
		if (exec(s, migrations[v]) < 0)
			goto fail;
		snprintf(sql, sizeof sql, "PRAGMA user_version = %d", v + 1);
		if (exec(s, sql) < 0)
			goto fail;
	}
	return exec(s, "COMMIT");
fail:
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

static const struct {
	size_t off;
	const char *sql;
} stmts[] = {
	{ offsetof(struct qe_hstore, ins_build), "INSERT INTO builds(build, series, commit_sha,"
	    " started_at, run_number, runner_class, fingerprint, content_sha256, provenance, file,"
	    " notebooks, cells) VALUES (?,?,?,?,?,?,?,'',?,?,0,0)" },
	{ offsetof(struct qe_hstore, find_build), "SELECT id, content_sha256, file, notebooks, cells,"
	    " provenance, started_at FROM builds WHERE build = ?" },
	{ offsetof(struct qe_hstore, fin_build), "UPDATE builds SET content_sha256 = ?, notebooks = ?,"
	    " cells = ? WHERE id = ?" },
	{ offsetof(struct qe_hstore, ins_doc), "INSERT INTO docs(name) VALUES (?)" },
	{ offsetof(struct qe_hstore, find_doc), "SELECT id FROM docs WHERE name = ?" },
	{ offsetof(struct qe_hstore, ins_nb), "INSERT INTO notebooks(doc, build, status, execution_s,"
	    " cells_s, code_cells, ncells, cells, kernel_env) VALUES (?,?,?,?,?,?,?,?,?)" },
	{ offsetof(struct qe_hstore, del_build), "DELETE FROM builds WHERE id = ?" },
	{ offsetof(struct qe_hstore, del_nbs), "DELETE FROM notebooks WHERE build = ?" },
	{ offsetof(struct qe_hstore, ins_sweep), "INSERT INTO sweeps(build, series, commit_sha,"
	    " started_at, run_number, doc, cell, parameter, fingerprint, runner_class, file, record)"
	    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?)" },
	{ offsetof(struct qe_hstore, find_sweep), "SELECT id, record, file FROM sweeps WHERE build = ?"
	    " AND doc = ? AND cell IS ? AND parameter = ? AND fingerprint = ?" },
	{ offsetof(struct qe_hstore, del_sweep), "DELETE FROM sweeps WHERE id = ?" },
};

static int
prepare(struct qe_hstore *s)
{
	for (size_t i = 0; i < sizeof stmts / sizeof stmts[0]; i++) {
		sqlite3_stmt **st = (sqlite3_stmt **)((char *)s + stmts[i].off);

		if (sqlite3_prepare_v3(s->db, stmts[i].sql, -1, SQLITE_PREPARE_PERSISTENT, st,
		    NULL) != SQLITE_OK)
			return qe_hstore_err(s, "preparing statements");
	}
	return 0;
}

/* A readable database: one this program knows the schema of. */
static int
check_version(struct qe_hstore *s, int readonly)
{
	int v = user_version(s);

	if (v < 0)
		return -1;
	if (v > QE_HSTORE_VERSION) {
		warnx("%s: database schema version %d is newer than this qe-history's (%d)",
		    s->path, v, QE_HSTORE_VERSION);
		return -1;
	}
	if (readonly && v < QE_HSTORE_VERSION) {
		warnx("%s: %s (schema version %d): run qe-history add to create or migrate it",
		    s->path, v == 0 ? "not a qe-history database" : "an older qe-history database", v);
		return -1;
	}
	if (!readonly && v < QE_HSTORE_VERSION)
		return migrate(s, v);
	return 0;
}

/* A file: URI that names path exactly (bytes outside the unreserved set %-escaped), with query. */
static char *
file_uri(const char *path, const char *query)
{
	struct qe_buf b = { 0 };

	qe_buf_adds(&b, "file:");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("/-._~", *p))
			qe_buf_addc(&b, (char)*p);
		else
			qe_buf_addf(&b, "%%%02X", *p);
	qe_buf_addf(&b, "?%s", query);
	return b.data;	/* NUL-terminated; the caller frees it */
}

/*
 * A WAL database whose -wal and -shm files do not exist cannot be read
 * where they cannot be created (a folder this user may not write): SQLite
 * says "readonly" or "cannot open" on the first read. Such a database has
 * no writer at this moment (a writer would have made those files), so it
 * is read as immutable, without them.
 */
static int
open_reader(struct qe_hstore *s, const char *path)
{
	const int fl = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX;
	sqlite3_stmt *st;
	int rc = SQLITE_ERROR;

	if (sqlite3_open_v2(path, &s->db, fl, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK) {
		rc = sqlite3_step(st);
		sqlite3_finalize(st);
	} else
		rc = sqlite3_errcode(s->db);
	if ((rc & 0xff) != SQLITE_READONLY && (rc & 0xff) != SQLITE_CANTOPEN)
		return 0;	/* readable, or an error the version check reports */
	char *uri = file_uri(path, "immutable=1");

	sqlite3_close(s->db);
	rc = sqlite3_open_v2(uri, &s->db, fl | SQLITE_OPEN_URI, NULL);
	free(uri);
	return rc == SQLITE_OK ? 0 : -1;
}

/* WAL and its settings, or why the database cannot be written. */
static int
set_journal(struct qe_hstore *s)
{
	if (sqlite3_exec(s->db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL) != SQLITE_OK) {
		if ((sqlite3_errcode(s->db) & 0xff) == SQLITE_READONLY)
			return qe_hstore_err(s, "cannot write it (add writes the file and makes its "
			    "-wal and -shm files beside it: the file and its folder must be writable)");
		return qe_hstore_err(s, "PRAGMA journal_mode = WAL");
	}
	return exec(s, "PRAGMA synchronous = NORMAL");
}

int
qe_hstore_open(struct qe_hstore *s, const char *path, int readonly)
{
	memset(s, 0, sizeof *s);
	s->path = path;
	if (readonly ? open_reader(s, path) < 0 : sqlite3_open_v2(path, &s->db,
	    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		qe_hstore_err(s, readonly ? "cannot open (qe-history add creates it)" : "cannot open");
		qe_hstore_close(s);
		return -1;
	}
	sqlite3_busy_timeout(s->db, 10000);
	if ((!readonly && set_journal(s) < 0) || check_version(s, readonly) < 0 ||
	    (!readonly && prepare(s) < 0)) {
		qe_hstore_close(s);
		return -1;
	}
	return 0;
}

void
qe_hstore_close(struct qe_hstore *s)
{
	sqlite3_stmt *all[] = { s->ins_build, s->find_build, s->fin_build, s->ins_doc,
	    s->find_doc, s->ins_nb, s->del_build, s->del_nbs, s->ins_sweep, s->find_sweep, s->del_sweep };

	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		sqlite3_finalize(all[i]);
	sqlite3_close(s->db);
	memset(s, 0, sizeof *s);
}
