#!/usr/bin/env bats
# qe-history on a year of builds made from real records: qe-cache-extract
# reads the two timed fixture caches (real jupyter-cache + nbclient runs),
# tests/tools/gen_history.py turns them into 52 weekly main builds and 8
# pull-request builds, stamped as qe-stamp stamps, with known steps (a cell
# x3 from build 30; numba_demo x1.2 from build 40 with numba 0.60.0 ->
# 0.61.0; every time x0.8 from build 45 with a new runner class), one-off
# spikes (builds 15 and 22), edits (markov from build 25, intro from 27),
# a lecture added (intro_extra, 20) and one removed (stale_timing, 36).
# Build NN's run id is 140000NN000 (pull requests: 140000NN500).

load helper

setup_file() {
	export H="$BATS_FILE_TMPDIR"
	qe-cache-extract "$(shared jupyter-cache-timed/base/.jupyter_cache)" > "$H/base.ndjson"
	qe-cache-extract "$(shared jupyter-cache-timed/head/.jupyter_cache)" > "$H/head.ndjson"
	/usr/bin/python3 "$TESTS_DIR/tools/gen_history.py" "$H/base.ndjson" "$H/head.ndjson" "$H/reports"
	qe-history add -d "$H/all.db" "$H"/reports/*.ndjson.gz > "$H/add.ndjson"
}

setup() {
	T="$BATS_TEST_TMPDIR"
	DB="$H/all.db"
}

# build NUMBER of a build name (the run id's middle digits)
buildno() {
	jq -r "$@" '.build | split("/")[2][5:8]'
}

# dump DB: every row of every table, for "exactly as before"
dump() {
	/usr/bin/python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
print(c.execute("PRAGMA user_version").fetchone()[0])
print(c.execute("PRAGMA integrity_check").fetchone()[0])
for line in c.iterdump():
    print(line)' "$1" | sha256sum
}

@test "add: every report is one build, main's apart from pull requests, in one history-add record each" {
	run -0 jq -sc 'map(.result + " " + .series) | group_by(.) | map("\(length) \(.[0])")' "$H/add.ndjson"
	assert_output '["52 added main","8 added pull-request"]'
	run -0 jq -c 'select(.file | endswith("main-01.ndjson.gz")) | [.build, .commit, .started_at, .notebooks, .cells]' "$H/add.ndjson"
	assert_output '["QuantEcon/lecture-demo/14000001000/1#b0b3d5e28c6cda9a","b0bd943fdeff95eb270517001b478d76c2ffd8f4","2025-12-01T06:00:00.000000Z",7,24]'
	# the content digest is the decompressed report's
	run -0 jq -r 'select(.file | endswith("main-01.ndjson.gz")) | .content_sha256' "$H/add.ndjson"
	assert_output "$(zcat "$H/reports/main-01.ndjson.gz" | sha256sum | cut -d' ' -f1)"
	validate "$H/add.ndjson"
}

@test "add is idempotent: the same reports again change nothing, plain or gzip" {
	cp "$DB" "$T/db"
	before=$(dump "$T/db")
	zcat "$H/reports/main-07.ndjson.gz" > "$T/main-07.ndjson"
	run -0 qe-history add -d "$T/db" "$H/reports/main-01.ndjson.gz" "$T/main-07.ndjson" "$H/reports/pr-09.ndjson.gz"
	run -0 jq -c '[.result, .notebooks, .cells]' <<< "$output"
	assert_output $'["present",7,24]\n["present",7,24]\n["present",7,24]'
	assert_equal "$(dump "$T/db")" "$before"
}

@test "add refuses the same build with other content, a report without provenance, and a report mixing builds" {
	cp "$DB" "$T/db"
	before=$(dump "$T/db")
	zcat "$H/reports/main-03.ndjson.gz" | sed '5s/"duration_s":[0-9.]*/"duration_s":99.5/' > "$T/changed.ndjson"
	run -2 --separate-stderr qe-history add -d "$T/db" "$T/changed.ndjson"
	assert_output ''
	assert_equal "$stderr" "qe-history: $T/changed.ndjson: not added: build QuantEcon/lecture-demo/14000003000/1#b0b3d5e28c6cda9a is already stored with other content: stored from $H/reports/main-03.ndjson.gz (content_sha256 $(zcat "$H/reports/main-03.ndjson.gz" | sha256sum | cut -c1-12)), this report's $(sha256sum < "$T/changed.ndjson" | cut -c1-12); they differ in the measurements (same provenance and record counts): not replaced (qe-history add --replace stores this report instead)"
	zcat "$H/reports/main-03.ndjson.gz" | head -n 20 | jq -c '.provenance.descriptor_sha256 = "0123456789abcdef"' > "$T/restamped.ndjson"
	run -2 --separate-stderr qe-history add -d "$T/db" "$T/restamped.ndjson"
	assert_equal "$stderr" "qe-history: $T/restamped.ndjson: not added: build QuantEcon/lecture-demo/14000003000/1#b0b3d5e28c6cda9a is already stored with other content: stored from $H/reports/main-03.ndjson.gz (content_sha256 $(zcat "$H/reports/main-03.ndjson.gz" | sha256sum | cut -c1-12)), this report's $(sha256sum < "$T/restamped.ndjson" | cut -c1-12); they differ in the provenance (descriptor_sha256: another qe-stamp run), the records ($(zcat "$H/reports/main-03.ndjson.gz" | jq -s 'map(select(.kind == "notebook")) | length') notebooks and $(zcat "$H/reports/main-03.ndjson.gz" | jq -s 'map(select(.kind == "cell")) | length') cells vs $(head -n 20 "$T/restamped.ndjson" | jq -s 'map(select(.kind == "notebook")) | length') and $(head -n 20 "$T/restamped.ndjson" | jq -s 'map(select(.kind == "cell")) | length')): not replaced (qe-history add --replace stores this report instead)"
	zcat "$H/reports/main-03.ndjson.gz" | jq -c 'del(.provenance)' > "$T/bare.ndjson"
	run -2 --separate-stderr qe-history add -d "$T/db" "$T/bare.ndjson"
	assert_equal "$stderr" "qe-history: $T/bare.ndjson:1: not added: no provenance (pass the report through qe-stamp): without one a build has no place in a series"
	zcat "$H/reports/main-03.ndjson.gz" | jq -c 'del(.provenance.run.build_id, .provenance.source.commit)' > "$T/anon.ndjson"
	run -2 --separate-stderr qe-history add -d "$T/db" "$T/anon.ndjson"
	assert_equal "$stderr" "qe-history: $T/anon.ndjson:1: not added: the provenance names neither run.build_id nor source.commit: nothing identifies the build"
	{ zcat "$H/reports/main-05.ndjson.gz" | head -n 3; zcat "$H/reports/main-06.ndjson.gz"; } > "$T/mixed.ndjson"
	rm -f "$T/fresh.db"
	run -2 --separate-stderr qe-history add -d "$T/fresh.db" "$T/mixed.ndjson"
	assert_equal "$stderr" "qe-history: $T/mixed.ndjson:4: not added: records of more than one qe-stamp run in one report: add each build's report on its own"
	run -0 /usr/bin/python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from builds").fetchone()[0])' "$T/fresh.db"
	assert_output 0
	assert_equal "$(dump "$T/db")" "$before"
}

@test "add --replace: the stored build's rows give way to the report's in one transaction; the same content again is present" {
	cp "$DB" "$T/db"
	zcat "$H/reports/main-03.ndjson.gz" | sed '5s/"duration_s":[0-9.]*/"duration_s":99.5/' > "$T/changed.ndjson"
	builds=$(sqlite3 "$T/db" 'select count(*) from builds')
	run -0 qe-history add -d "$T/db" --replace "$T/changed.ndjson"
	assert_equal "$(jq -r .result <<< "$output")" replaced
	assert_equal "$(sqlite3 "$T/db" 'select count(*) from builds')" "$builds"
	run -0 qe-history add -d "$T/db" "$T/changed.ndjson"
	assert_equal "$(jq -r .result <<< "$output")" present
	run -0 qe-history add -d "$T/db" --replace "$T/changed.ndjson"
	assert_equal "$(jq -r .result <<< "$output")" present
	doc=$(sed -n 5p "$T/changed.ndjson" | jq -r .document)
	run -0 qe-history series -d "$T/db" "$doc"
	assert_equal "$(jq -s -r 'map(select(.build | test("/14000003000/"))) | length' <<< "$output")" 1
}

@test "add: reports stamped before run.build_id existed are builds of their run (repository, run id, attempt), a commit built twice two builds; old and new mix" {
	rm -f "$T/db"
	for b in 04 05 06; do
		# week 5 and 6 rebuild week 4's commit, stamped without build_id
		zcat "$H/reports/main-$b.ndjson.gz" | jq -c --arg c "$(zcat "$H/reports/main-04.ndjson.gz" | head -n1 | jq -r .provenance.source.commit)" \
		    '.provenance.source.commit = $c | del(.provenance.run.build_id)' > "$T/old-$b.ndjson"
	done
	run -0 qe-history add -d "$T/db" "$T/old-04.ndjson" "$T/old-05.ndjson" "$T/old-06.ndjson"
	assert_equal "$(jq -r '[.result, .build] | join(" ")' <<< "$output" | cut -d'#' -f1)" "added QuantEcon/lecture-demo/14000004000/1
added QuantEcon/lecture-demo/14000005000/1
added QuantEcon/lecture-demo/14000006000/1"
	# a new report (build_id) beside them
	run -0 qe-history add -d "$T/db" "$H/reports/main-07.ndjson.gz"
	assert_equal "$(jq -r '[.result, .build] | join(" ")' <<< "$output" | cut -d'#' -f1)" "added QuantEcon/lecture-demo/14000007000/1"
	# the same run stamped again, now with build_id: the same build, so a conflict that says so
	run -2 --separate-stderr qe-history add -d "$T/db" "$H/reports/main-04.ndjson.gz"
	assert_regex "$stderr" "build QuantEcon/lecture-demo/14000004000/1#[0-9a-f]+ is already stored with other content: stored from $T/old-04.ndjson .* they differ in the provenance \\(run.build_id: another qe-stamp run\\): not replaced \\(qe-history add --replace stores this report instead\\)$"
	# neither build_id nor run id: commit and start time
	jq -c 'del(.provenance.run.run_id)' "$T/old-05.ndjson" > "$T/bare-05.ndjson"
	jq -c 'del(.provenance.run.run_id)' "$T/old-06.ndjson" > "$T/bare-06.ndjson"
	run -0 qe-history add -d "$T/db" "$T/bare-05.ndjson" "$T/bare-06.ndjson"
	c=$(head -n1 "$T/old-04.ndjson" | jq -r .provenance.source.commit)
	assert_equal "$(jq -r '[.result, .build] | join(" ")' <<< "$output" | cut -d'#' -f1)" "added commit:$c@2025-12-29T06:00:00.000000Z
added commit:$c@2026-01-05T06:00:00.000000Z"
}

@test "a version 1 database is migrated when add opens it (1 -> 2 -> 3, step by step): builds without build_id renamed as now, kernel_env kept from then on; the queries read it" {
	rm -f "$T/v1.db"
	# a version 1 store, made by the schema of version 1, with a build stored as version 1 named it
	zcat "$H/reports/main-07.ndjson.gz" | jq -c 'del(.provenance.run.build_id)' > "$T/old-07.ndjson"
	/usr/bin/python3 - "$T/v1.db" "$T/old-07.ndjson" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executescript("""CREATE TABLE builds(id INTEGER PRIMARY KEY, build TEXT NOT NULL UNIQUE, series TEXT NOT NULL, commit_sha TEXT, started_at TEXT NOT NULL, run_number INTEGER NOT NULL, runner_class TEXT, fingerprint TEXT, content_sha256 TEXT NOT NULL, provenance TEXT NOT NULL, file TEXT NOT NULL, notebooks INTEGER NOT NULL, cells INTEGER NOT NULL);
CREATE INDEX builds_order ON builds(series, started_at, run_number);
CREATE TABLE docs(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE notebooks(doc INTEGER NOT NULL, build INTEGER NOT NULL, status TEXT, execution_s REAL, cells_s REAL, code_cells INTEGER, ncells INTEGER NOT NULL, cells BLOB NOT NULL, UNIQUE(doc, build));
CREATE INDEX notebooks_build ON notebooks(build);
PRAGMA user_version = 1;""")
p = json.loads(open(sys.argv[2]).readline())["provenance"]
db.execute("INSERT INTO builds VALUES (1, ?, 'main', ?, ?, ?, ?, ?, 'x', ?, 'old', 0, 0)",
           ("commit:%s#%s" % (p["source"]["commit"], p["fingerprint"]), p["source"]["commit"], p["run"]["started_at"],
            p["run"]["run_number"], p["runner"]["class"], p["fingerprint"], json.dumps(p)))
db.commit()
PY
	run -2 --separate-stderr qe-history slowest -d "$T/v1.db"
	assert_equal "$stderr" "qe-history: $T/v1.db: an older qe-history database (schema version 1): run qe-history add to create or migrate it"
	run -0 qe-history add -d "$T/v1.db" "$H/reports/main-08.ndjson.gz"
	assert_equal "$(sqlite3 "$T/v1.db" 'pragma user_version; select build from builds where id = 1' | cut -d'#' -f1)" "3
QuantEcon/lecture-demo/14000007000/1"
	run -0 sqlite3 "$T/v1.db" 'select count(*) from pragma_table_info("notebooks") where name = "kernel_env"'
	assert_output 1
	run -0 sqlite3 "$T/v1.db" 'select count(*) from sqlite_master where name = "sweeps"'
	assert_output 1
	run -0 qe-history slowest -d "$T/v1.db"
}

@test "add: a line that is not JSON rolls the whole report back; the next report is still added" {
	zcat "$H/reports/main-04.ndjson.gz" | sed '6s/^/x/' > "$T/bad.ndjson"
	run -2 --separate-stderr qe-history add -d "$T/db" "$T/bad.ndjson" "$H/reports/main-05.ndjson.gz"
	[[ "${stderr_lines[0]}" == "qe-history: $T/bad.ndjson:6: invalid JSON"* ]]
	assert_equal "${stderr_lines[-1]}" "qe-history: $T/bad.ndjson: not added: lines were rejected"
	run -0 jq -r '.file + " " + .result' <<< "$output"
	assert_output "$H/reports/main-05.ndjson.gz added"
	run -0 qe-history slowest -d "$T/db" -n 1
	assert_equal "$(buildno <<< "${lines[0]}")" 005
}

@test "a database this user may not write: add says so (status 2, the database as before); the queries still read it, without -wal and -shm" {
	local ro before want as=()
	# outside the test's folders (other users may not enter them); as root, run as nobody
	ro=$(mktemp -d "/tmp/qe history ro?%#é.XXXXXX")	# a name the file: URI must escape
	cp "$DB" "$ro/db"
	before=$(dump "$ro/db")
	want=$(qe-history slowest -d "$DB" -n 3)
	chmod 444 "$ro/db"
	chmod 555 "$ro"
	[ "$(id -u)" != 0 ] || as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	run -2 --separate-stderr "${as[@]}" "$(command -v qe-history)" add -d "$ro/db" "$H/reports/main-01.ndjson.gz"
	assert_output ""
	assert_equal "$stderr" "qe-history: $ro/db: cannot write it (add writes the file and makes its -wal and -shm files beside it: the file and its folder must be writable): attempt to write a readonly database"
	# before: "reading the schema version: attempt to write a readonly database" and no rows
	run -0 --separate-stderr "${as[@]}" "$(command -v qe-history)" slowest -d "$ro/db" -n 3
	assert_equal "$stderr" ""
	assert_output "$want"
	assert_equal "$(ls -A "$ro")" db
	chmod 755 "$ro"
	assert_equal "$(dump "$ro/db")" "$before"
	rm -rf "$ro"
}

@test "add killed mid-ingest (SIGKILL while it waits on a FIFO inside its transaction) leaves the database exactly as before" {
	/usr/bin/python3 "$TESTS_DIR/tools/gen_history.py" --builds 1 --prs 0 --lectures 40 --cells 60 --plain \
		"$H/base.ndjson" "$H/head.ndjson" "$T/big"
	qe-history add -d "$T/db" "$H/reports/main-02.ndjson.gz" "$H/reports/main-03.ndjson.gz" > /dev/null
	before=$(dump "$T/db")
	mkfifo "$T/fifo"
	# one process writes the first 1000 lines, then holds the FIFO open
	/usr/bin/python3 -c 'import sys, time
with open(sys.argv[1]) as f:
    sys.stdout.writelines(l for _, l in zip(range(1000), f))
sys.stdout.flush()
time.sleep(60)' "$T/big/main-01.ndjson" > "$T/fifo" 2>/dev/null 3>&- &
	writer=$!
	qe-history add -d "$T/db" "$T/fifo" > /dev/null 2>&1 3>&- &
	adder=$!
	# wait until add holds its write transaction: another writer is refused
	locked=
	for i in $(seq 100); do
		if ! /usr/bin/python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1], timeout=0, isolation_level=None)
c.execute("BEGIN IMMEDIATE")' "$T/db" 2>/dev/null; then locked=1; break; fi
		sleep 0.1
	done
	kill -9 "$adder"
	wait "$adder" || true
	kill "$writer" 2>/dev/null || true
	wait "$writer" 2>/dev/null || true
	assert_equal "$locked" 1
	assert_equal "$(dump "$T/db")" "$before"
	# and the database takes the report afterwards
	run -0 qe-history add -d "$T/db" "$T/big/main-01.ndjson"
	run -0 jq -c '[.result, .notebooks, .cells]' <<< "$output"
	assert_output '["added",39,1944]'
}

@test "a database of a newer schema version is refused; a file that is not one is not read as one" {
	/usr/bin/python3 -c 'import sqlite3,sys; c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA user_version = 7"); c.commit()' "$T/new.db"
	run -2 --separate-stderr qe-history add -d "$T/new.db" "$H/reports/main-01.ndjson.gz"
	assert_equal "$stderr" "qe-history: $T/new.db: database schema version 7 is newer than this qe-history's (3)"
	/usr/bin/python3 -c 'import sqlite3,sys; c = sqlite3.connect(sys.argv[1]); c.execute("create table t(x)"); c.commit()' "$T/other.db"
	run -2 --separate-stderr qe-history slowest -d "$T/other.db"
	assert_equal "$stderr" "qe-history: $T/other.db: not a qe-history database (schema version 0): run qe-history add to create or migrate it"
	run -2 --separate-stderr qe-history slowest -d "$T/none.db"
	assert_equal "$stderr" "qe-history: $T/none.db: cannot open (qe-history add creates it): unable to open database file"
	[ ! -e "$T/none.db" ]
}

@test "slowest: lectures and cells of the newest main build with their shares (pull requests never count)" {
	run -0 qe-history slowest -d "$DB" -n 2
	assert_equal "${#lines[@]}" 4
	assert_equal "$(buildno <<< "${lines[0]}")" 052
	run -0 jq -c '[.level, .rank, .document, .cell, .index, .seconds, (.share_lecture | if . then . * 1000 | round else . end), (.share_build * 1000 | round)]' <<< "$output"
	assert_output '["lecture",1,"intro",null,null,9.848279,null,322]
["lecture",2,"numba_demo",null,null,8.534442,null,279]
["cell",1,"intro","label:slow-sleep",2,7.470137,759,244]
["cell",2,"numba_demo","label:njit-first-call",2,4.064403,476,133]'
	# (durations carry a no-break space before their unit: shown as a space here)
	run -0 bash -c "qe-history slowest -d '$DB' -n 2 --format md | sed 's/\xc2\xa0/ /g'"
	# a cell by its display name and its code cell counted from 1 (index 2: code cell 3)
	assert_output '| level | # | document | code cell | cell | time | of lecture | of build |
|---|---|---|---|---|---|---|---|
| lecture | 1 | `intro` | — | — | 9.85 s | — | 32% |
| lecture | 2 | `numba_demo` | — | — | 8.53 s | — | 28% |
| cell | 1 | `intro` | 3 | slow-sleep | 7.47 s | 76% | 24% |
| cell | 2 | `numba_demo` | 3 | njit-first-call | 4.06 s | 48% | 13% |'
	qe-history slowest -d "$DB" > "$T/s.ndjson"
	validate "$T/s.ndjson"
	# shares of a build add up to 1
	run -0 jq -s '[.[] | select(.level == "lecture") | .share_build] | add * 1e9 | round'  "$T/s.ndjson"
	assert_output 1000000000
}

@test "series follows a cell through edits: by label, by digest prefix, an unlabelled cell whose digest changed" {
	run -0 qe-history series -d "$DB" dynamics/markov markov-simulate
	run -0 jq -sc '[length, (map(.source_sha256[:8]) | unique), (map(.index) | unique), (map(.cell) | unique)]' <<< "$output"
	assert_output '[52,["0cc77a28","1cd4a96e"],[1,2],["label:markov-simulate"]]'
	# intro's unlabelled cell 5 is edited at build 27: still one series
	run -0 qe-history series -d "$DB" intro c5d65b16
	run -0 jq -sc '[length, (map(.source_sha256[:8]) | unique), (map(.cell) | unique)]' <<< "$output"
	assert_output '[52,["c5d65b16","fea46550"],["sha256:c5d65b16896ece5e8d8529de8d7c5379ec7db4cbc8277751afa5e503ed94c11f"]]'
	# the edited digest names the same cell
	run -0 qe-history series -d "$DB" intro fea46550
	assert_equal "${#lines[@]}" 52
	# so do its code-cell number (1-based) and its first line, whole or its start
	for name in 6 'x = 1 + 1' 'x = 1'; do
		run -0 qe-history series -d "$DB" intro "$name"
		assert_equal "$(jq -sc '[length, (map(.cell) | unique)]' <<< "$output")" '[52,["sha256:c5d65b16896ece5e8d8529de8d7c5379ec7db4cbc8277751afa5e503ed94c11f"]]'
	done
	run -0 qe-history series -d "$DB" intro 3
	assert_equal "$(jq -sc 'map(.label) | unique' <<< "$output")" '["slow-sleep"]'
	# a lecture: one point per main build that has it
	run -0 qe-history series -d "$DB" intro_extra
	assert_equal "${#lines[@]}" 33
	assert_equal "$(buildno <<< "${lines[0]}")" 020
	run -0 qe-history series -d "$DB" stale_timing
	assert_equal "${#lines[@]}" 35
	qe-history series -d "$DB" intro slow-sleep > "$T/p.ndjson"
	validate "$T/p.ndjson"
	run -2 --separate-stderr qe-history series -d "$DB" intro nosuchcell
	assert_equal "$stderr" "qe-history: $DB: document intro has no cell named nosuchcell (a label, a code-cell number from 1, its name, a first line or its start, a cell key, or 8 or more hex digits of a source digest)"
	run -2 --separate-stderr qe-history series -d "$DB" nosuchdoc
	assert_equal "$stderr" "qe-history: $DB: no main build has document nosuchdoc"
}

@test "series: a first line that repeats in a lecture (copied cells) lists every cell it answers to and exits 2; a label or code-cell number still names one" {
	/usr/bin/python3 "$TESTS_DIR/tools/gen_history.py" --builds 2 --prs 0 --lectures 9 --cells 7 --plain \
		"$H/base.ndjson" "$H/head.ndjson" "$T/dup" > /dev/null
	qe-history add -d "$T/dup.db" "$T"/dup/main-*.ndjson > /dev/null
	# lectures/gen/000 repeats markov's three cells to 7: "import time" opens cells 1, 4 and 7
	run -2 --separate-stderr qe-history series -d "$T/dup.db" lectures/gen/000 "import time"
	assert_output ''
	assert_equal "$stderr" "qe-history: $T/dup.db: document lectures/gen/000: import time names 3 cells; ask for one by its code-cell number, label or key:
qe-history:   code cell 1: markov-setup (label:markov-setup)
qe-history:   code cell 4: markov-setup (label:markov-setup-3)
qe-history:   code cell 7: markov-setup (label:markov-setup-6)"
	# its start too, and the display name they share
	run -2 qe-history series -d "$T/dup.db" lectures/gen/000 "import t"
	# a label names one cell even where it is another cell's display name
	run -0 qe-history series -d "$T/dup.db" lectures/gen/000 markov-setup
	assert_equal "$(jq -sc 'map(.code_cell) | unique' <<< "$output")" '[1]'
	run -0 qe-history series -d "$T/dup.db" lectures/gen/000 4
	assert_equal "$(jq -sc 'map(.label) | unique' <<< "$output")" '["markov-setup-3"]'
}

@test "changes: every injected step at its build with its cause and what changed in provenance, and nothing else (no edit without a step, no pull request); the spikes apart" {
	run -0 qe-history changes -d "$DB"
	run -0 jq -c 'select(.change == "step") | [(.build | split("/")[2][5:8]), .level, .document, .label, .n_before, .n_after, (.before_median_s * 1000 | round), (.after_median_s * 1000 | round), .cause, (.provenance_changes | map([.what, .name, .before[:12], .after[:12]]))]' <<< "$output"
	assert_output '["025","lecture","dynamics/markov",null,24,20,3360,4321,"edit",[]]
["030","lecture","intro",null,29,15,6005,11549,"unexplained",[]]
["030","cell","intro","slow-sleep",29,15,3115,8811,"unexplained",[]]
["040","lecture","numba_demo",null,39,5,8712,10089,"environment",[["package","numba","0.60.0","0.61.0"],["env-file","environment.yml","be6fc624fd05","c8895436531c"]]]
["040","cell","numba_demo","njit-define",39,5,471,579,"environment",[["package","numba","0.60.0","0.61.0"],["env-file","environment.yml","be6fc624fd05","c8895436531c"]]]
["040","cell","numba_demo","njit-first-call",39,5,4340,5142,"environment",[["package","numba","0.60.0","0.61.0"],["env-file","environment.yml","be6fc624fd05","c8895436531c"]]]
["040","cell","numba_demo","njit-big",39,5,172,216,"environment",[["package","numba","0.60.0","0.61.0"],["env-file","environment.yml","be6fc624fd05","c8895436531c"]]]
["045","build",null,null,44,8,31939,29848,"runner",[["runner-class",null,"github-hoste","runs-on/cpu="]]]'
	# the two injected spikes (build 15: numpy-eig x4; build 22: errors_allowed x1.8), listed after the steps
	run -0 bash -c "qe-history changes -d '$DB' | jq -c 'select(.change == \"spike\") | [(.build | split(\"/\")[2][5:8]), .level, .document, .label]'"
	assert_output '["015","lecture","intro",null]
["015","cell","intro","numpy-eig"]
["022","lecture","errors_allowed",null]
["022","cell","errors_allowed","ea-after"]'
	qe-history changes -d "$DB" > "$T/c.ndjson"
	validate "$T/c.ndjson"
	run -0 jq -r 'select(.level == "lecture" and .change == "step") | .explanation' "$T/c.ndjson"
	assert_line --index 0 "2 cells edited or added in $(printf 'main-25' | sha1sum | cut -c1-7)"
	run -0 jq -r 'select(.level == "cell" and .change == "step") | [.commit, .previous_commit, (.previous_build | split("/")[2][5:8]), .run_number] | join(" ")' "$T/c.ndjson"
	assert_line --index 0 "$(printf 'main-30' | sha1sum | cut -d' ' -f1) $(printf 'main-29' | sha1sum | cut -d' ' -f1) 029 230"
	run -0 bash -c "qe-history changes -d '$DB' --format md | sed 's/\xc2\xa0/ /g'"
	assert_line --index 0 '| build | date | commit | change | level | document | cell | before | after | ratio | cause | explanation | note |'
	assert_line --index 5 '| #240 | 2026-08-31 | 8fd6cad9d1ca… | step | lecture | `numba_demo` | — | 8.71 s | 10.1 s | ×1.16 | environment | numba 0.60.0 → 0.61.0, environment.yml changed | — |'
	assert_line --index 9 '| #245 | 2026-10-05 | e0b1ecb3cbfa… | step | build | — | — | 31.9 s | 29.8 s | ×0.93 | runner | runner class github-hosted/ubuntu-24.04/4cpu → runs-on/cpu=4+ram=16 | — |'
}

@test "changes: a higher penalty or a longer minimum segment is accepted and deterministic" {
	run -0 qe-history changes -d "$DB" -m 6
	a=$output
	run -0 qe-history changes -d "$DB" -m 6
	assert_equal "$output" "$a"
	# -m 6: numba's step (5 builds before the runner change) cannot be at its
	# cause (a segment needs 6 builds); 6 builds before it nothing explains it
	# and it is not plain (its log medians are less than 6 standard errors
	# apart, QE_HQ_UNEXPLAINED_Z), so it is not reported: a step is never
	# moved to a cause, and at 6 builds before one it has none
	run -0 buildno <<< "$a"
	assert_output $'025\n030\n030\n045\n015\n015\n022\n022'
}

@test "fences reflect the noise: cells that swing (first cells, error cells) get looser fences than the rest; -o writes the file" {
	qe-history fences -d "$DB" > "$T/f.ndjson"
	validate "$T/f.ndjson"
	# the newest runner class has 8 builds (45-52): every fence learned from them
	run -0 jq -sc 'map(.n) | unique' "$T/f.ndjson"
	assert_output '[8]'
	# generator: per-build log sd 0.065 (plain) and 0.12 (first cells):
	# consecutive log-ratios 0.092 and 0.17
	run -0 jq -sc '[map(select(.level == "cell" and .median_s >= 0.5)) | group_by(.cell | test("setup|helper|imports|numba-import")) | .[] | map(.noise) | sort | .[length / 2 | floor] * 1000 | round]' "$T/f.ndjson"
	assert_output '[86,163]'
	# cells well under the 0.05 s floor: the tightest fence, and the least floor in seconds
	run -0 jq -sc 'map(select(.level == "cell" and .median_s < 0.045) | [.ratio, .abs_s]) | unique' "$T/f.ndjson"
	assert_output '[[1.15,0.1]]'
	run -0 jq -c 'select(.cell == "label:png-helper") | [.n, (.median_s * 1000 | round), (.noise * 1000 | round), (.ratio * 1000 | round), (.abs_s * 1000 | round)]' "$T/f.ndjson"
	assert_output '[8,720,163,1771,463]'
	run -0 qe-history fences -d "$DB" -o "$T/fences.ndjson"
	assert_output ''
	cmp "$T/fences.ndjson" "$T/f.ndjson"
	[ ! -e "$T/fences.ndjson.tmp" ]
	run -0 qe-history fences -d "$DB" -k 5
	run -0 jq -sc 'map(.n) | unique' <<< "$output"
	assert_output '[5]'
}

@test "compare: every environment change on main with what moved, by effect; the runner change one machine row; --by numba the same change; --all every row" {
	run -0 qe-history compare -d "$DB"
	run -0 jq -c '[(.build | split("/")[2][5:8]), .level, .document, .label, .moved, .n_before, .n_after, (.changes | map(.name // .what))]' <<< "$output"
	assert_output '["040","build",null,null,"moved",10,13,["numba","environment.yml"]]
["040","lecture","numba_demo",null,"slower",10,13,["numba","environment.yml"]]
["040","cell","numba_demo","njit-big","slower",10,13,["numba","environment.yml"]]
["040","cell","numba_demo","njit-first-call","slower",10,13,["numba","environment.yml"]]
["045","build",null,null,"machine",5,8,["runner-class"]]'
	qe-history compare -d "$DB" > "$T/all.ndjson"
	validate "$T/all.ndjson"
	# the effect: cells by |log ratio|, largest first
	run -0 jq -s -r 'map(select(.level == "cell") | .ratio) | . == (sort | reverse)' "$T/all.ndjson"
	assert_output true
	run -0 qe-history compare -d "$DB" --by numba
	run -0 jq -c '[.level, .document, .moved, .before, .after, .n_before, .n_after, (.ratio | if . then . * 1000 | round else . end), (.ci_low | if . then . * 1000 | round else . end), (.ci_high | if . then . * 1000 | round else . end)]' <<< "$output"
	# the after side runs on across the runner change at 45 (its factor, from every lecture, taken out): 13 builds
	assert_output '["build",null,"moved","0.60.0","0.61.0",10,13,1050,null,null]
["lecture","numba_demo","slower","0.60.0","0.61.0",10,13,1154,1082,1247]
["cell","numba_demo","slower","0.60.0","0.61.0",10,13,1240,1147,1321]
["cell","numba_demo","slower","0.60.0","0.61.0",10,13,1200,1108,1288]'
	# --all: every lecture and cell, the ones that did not move "same"; a lecture gone before the change "unknown"
	run -0 qe-history compare -d "$DB" --by numba --all
	run -0 jq -r 'select(.level == "lecture") | [.document, .moved] | join(" ")' <<< "$output"
	assert_output 'numba_demo slower
intro same
images same
errors_allowed same
dynamics/markov same
intro_extra same
stale_timing unknown'
	qe-history compare -d "$DB" --by env-file > "$T/e.ndjson"
	validate "$T/e.ndjson"
	run -0 jq -r 'select(.moved == "slower" and .level == "lecture") | [.document, (.build | split("/")[2][5:8])] | join(" ")' "$T/e.ndjson"
	assert_output 'numba_demo 040'
	# the fingerprint changes at both: the upgrade, and the runner change as a machine change, never lectures faster
	run -0 qe-history compare -d "$DB" --by fingerprint
	run -0 jq -r 'select(.level != "cell") | [(.build | split("/")[2][5:8]), .level, .document // "-", .moved] | join(" ")' <<< "$output"
	assert_output '040 build - moved
040 lecture numba_demo slower
045 build - machine'
	run -0 --separate-stderr qe-history compare -d "$DB" --by scipy
	assert_output ''
	assert_equal "$stderr" "qe-history: $DB: compare: package scipy does not change among 52 main builds"
	run -0 --separate-stderr qe-history compare -d "$DB" --format md
	assert_line --index 0 '| build | date | what changed | level | document | cell | median before | median after | ratio | 95% low | 95% high | moved |'
	assert_line --index 3 --partial '| #240 | 2026-08-31 | package numba: 0.60.0 → 0.61.0; env-file environment.yml:'
}

@test "cost: minutes are the reports' execution_seconds, every total is the sum of its rows, prices from the default table or --prices" {
	qe-history cost -d "$DB" > "$T/cost.ndjson"
	validate "$T/cost.ndjson"
	want=$(zcat "$H"/reports/*.gz | jq -s '[.[] | select(.kind == "notebook") | (.execution_seconds // .cells_seconds // 0)] | add / 60')
	run -0 jq -s --argjson want "$want" 'map(select(.month == null))[0] | [.builds, ((.minutes - $want) | fabs < 1e-9)] | @text' "$T/cost.ndjson"
	assert_output '"[60,true]"'
	# lecture rows add up to their month x class total, totals to the grand total
	run -0 jq -s '[group_by([.month, .runner_class])[] | select(.[0].month) | [(map(select(.document) | .minutes) | add * 1e6 | round), (map(select(.document == null) | .minutes)[0] * 1e6 | round), (map(select(.document) | .cost_usd // 0) | add * 1e9 | round), (map(select(.document == null) | .cost_usd // 0)[0] * 1e9 | round)] | (.[0] == .[1] and .[2] == .[3])] | unique' "$T/cost.ndjson"
	assert_output '[
  true
]'
	run -0 jq -sc '((map(select(.month and .document == null) | .cost_usd // 0) | add) - (map(select(.month == null))[0].cost_usd)) | fabs < 1e-12' "$T/cost.ndjson"
	assert_output true
	# GitHub's 4-core Linux price; the RunsOn class has none until a file gives it
	run -0 jq -sc 'map([.runner_class, .usd_per_minute]) | unique' "$T/cost.ndjson"
	assert_output '[[null,null],["github-hosted/ubuntu-24.04/4cpu",0.016],["runs-on/cpu=4+ram=16",null]]'
	printf '# RunsOn c7a.xlarge spot\nruns-on/cpu=4+ram=16   0.0021\n\n' > "$T/prices"
	run -0 qe-history cost -d "$DB" --prices "$T/prices"
	run -0 jq -sc 'map(select(.month == "2026-11" and .document == null) | [.runner_class, .builds, .usd_per_minute, (.cost_usd / .minutes * 1e6 | round)])' <<< "$output"
	assert_output '[["runs-on/cpu=4+ram=16",4,0.0021,2100]]'
	# a JSON table (class -> USD per minute) gives the same, and may override a default
	printf '{"runs-on/cpu=4+ram=16": 0.0021,\n "github-hosted/ubuntu-24.04/4cpu": 0.01}\n' > "$T/prices.json"
	run -0 qe-history cost -d "$DB" --prices "$T/prices.json"
	run -0 jq -sc 'map(select(.month == "2026-11" and .document == null) | [.runner_class, .builds, .usd_per_minute, (.cost_usd / .minutes * 1e6 | round)])' <<< "$output"
	assert_output '[["runs-on/cpu=4+ram=16",4,0.0021,2100]]'
	run -0 bash -c "qe-history cost -d '$DB' --prices '$T/prices.json' | jq -c 'select(.month == \"2025-12\" and .document == null) | .usd_per_minute'"
	assert_output 0.01
	printf '{"runs-on/cpu=4+ram=16": "cheap"}' > "$T/bad.json"
	run -2 --separate-stderr qe-history cost -d "$DB" --prices "$T/bad.json"
	assert_equal "$stderr" "qe-history: $T/bad.json: \"runs-on/cpu=4+ram=16\": the price is not a number of 0 or more"
	printf '{"runs-on/cpu=4+ram=16": 0.1,}' > "$T/bad.json"
	run -2 --separate-stderr qe-history cost -d "$DB" --prices "$T/bad.json"
	assert_equal "$stderr" "qe-history: $T/bad.json: invalid JSON (a price table is one JSON object: class -> USD per minute)"
	printf 'runs-on/cpu=4+ram=16 cheap\n' > "$T/bad"
	run -2 --separate-stderr qe-history cost -d "$DB" --prices "$T/bad"
	assert_equal "$stderr" "qe-history: $T/bad:1: the price is not a number of 0 or more"
}

@test "usage: the subcommands and their options" {
	run -2 --separate-stderr qe-history
	assert_equal "${stderr_lines[0]}" "qe-history: no subcommand"
	assert_equal "${stderr_lines[1]}" "usage: qe-history add [-d db] [--main-ref ref] [--replace] report ..."
	run -2 --separate-stderr qe-history frobnicate
	assert_equal "${stderr_lines[0]}" "qe-history: frobnicate: no such subcommand"
	run -2 --separate-stderr qe-history add -d "$T/db" -k 3 x
	assert_equal "${stderr_lines[0]}" "qe-history: -k: not an option of add"
	run -2 --separate-stderr qe-history compare -d "$DB" --replace
	assert_equal "${stderr_lines[0]}" "qe-history: --replace: not an option of compare"
	run -2 --separate-stderr qe-history changes -d "$DB" --all
	assert_equal "${stderr_lines[0]}" "qe-history: --all: not an option of changes"
	run -2 --separate-stderr qe-history slowest -d "$DB" --format html
	assert_equal "${stderr_lines[0]}" "qe-history: --format: invalid value 'html' (ndjson or md)"
	run -2 --separate-stderr qe-history fences -d "$DB" -o "$T/f" --format md
	assert_equal "${stderr_lines[0]}" "qe-history: fences: -o writes NDJSON: --format md does not go with it"
	run -2 --separate-stderr qe-history report -d "$DB" -o "$T/site" --format md
	assert_equal "${stderr_lines[0]}" "qe-history: report: -o dir (the page) or --format md (the trend table, with --diff), one of them"
	[ ! -e "$T/site" ]
	run -0 qe-history --version
	assert_output "qe-history 0.1.0"
	run -0 qe-history -h
	assert_line --index 0 "usage: qe-history add [-d db] [--main-ref ref] [--replace] report ..."
}

@test "add --main-ref: a push to another branch is kept apart as a branch build" {
	zcat "$H/reports/main-01.ndjson.gz" > "$T/r.ndjson"
	run -0 qe-history add -d "$T/db" --main-ref refs/heads/master "$T/r.ndjson"
	run -0 jq -r '.series' <<< "$output"
	assert_output branch
	run -2 --separate-stderr qe-history slowest -d "$T/db"
	assert_equal "$stderr" "qe-history: $T/db: no main builds"
}

@test "qe-cell-diff --fences: a stable cell gets a tighter rule, a noisy one a looser rule, a cell without a fence today's" {
	zcat "$H/reports/main-52.ndjson.gz" > "$T/base.ndjson"
	# the pull request re-executes intro: slow-sleep (stable, fence x1.23)
	# x1.3, imports (a first cell that swings, fence x2.09) x1.8, numpy-eig
	# x2 with no fence (removed from the file below)
	jq -c 'if .document == "intro" then (if .cache_key then .cache_key = "0123456789abcdef0123456789abcdef" else . end)
		| (if .label == "slow-sleep" then .duration_s *= 1.3 elif .label == "imports" then .duration_s *= 1.8
		   elif .label == "numpy-eig" then .duration_s *= 2 else . end) else . end' "$T/base.ndjson" > "$T/head.ndjson"
	qe-history fences -d "$DB" -o "$T/all.ndjson"
	grep -v '"label:numpy-eig"' "$T/all.ndjson" > "$T/fences.ndjson"
	run -0 jq -c 'select(.document == "intro" and .level == "cell" and (.label == "slow-sleep" or .label == "imports")) | [.label, (.ratio * 100 | round), (.abs_s * 100 | round)]' "$T/fences.ndjson"
	assert_output $'["imports",209,52]\n["slow-sleep",123,157]'
	# without fences: imports is the lecture's first cell, an import, so the
	# import rule's 2 s floor holds it (+0.76 s); the four steady cells of one
	# lecture are too few for the default runner factor, so numpy-eig stays slower
	run -0 qe-cell-diff "$T/base.ndjson" "$T/head.ndjson"
	run -0 jq -c 'select(.kind == "cell-diff" and .document == "intro" and .label != null) | [.label, .verdict]' <<< "$output"
	assert_output '["imports","unchanged"]
["params","unchanged"]
["slow-sleep","unchanged"]
["numpy-eig","regression"]
["résumé-λ","unchanged"]'
	run -0 qe-cell-diff --fences "$T/fences.ndjson" "$T/base.ndjson" "$T/head.ndjson"
	run -0 jq -c 'select(.kind == "cell-diff" and .document == "intro" and .label != null) | [.label, .verdict]' <<< "$output"
	assert_output '["imports","unchanged"]
["params","unchanged"]
["slow-sleep","regression"]
["numpy-eig","regression"]
["résumé-λ","unchanged"]'
	# a fence that is not one is refused with its line; the others still apply
	{ head -n 2 "$T/fences.ndjson"; echo '{"kind":"history-fence","level":"cell","document":"intro","label":"x","ratio":0.5,"abs_s":1}'; } > "$T/bad.ndjson"
	run -2 --separate-stderr qe-cell-diff --fences "$T/bad.ndjson" "$T/base.ndjson" "$T/head.ndjson"
	assert_equal "${stderr_lines[0]}" "qe-cell-diff: $T/bad.ndjson:3: not a cell fence: document, label or source_sha256, ratio >= 1 and abs_s >= 0 are needed"
}

@test "a history of one or two main builds: every query answers with what it has (no change, no fence) and status 0; an empty fences file is today's rule" {
	# the action's first weeks: too few builds to find a step or learn a fence
	qe-history add -d "$T/one.db" "$H/reports/main-01.ndjson.gz" > /dev/null
	qe-history add -d "$T/two.db" "$H"/reports/main-0[12].ndjson.gz > /dev/null
	for db in "$T/one.db" "$T/two.db"; do
		run -0 qe-history changes -d "$db"
		assert_output ''
		run -0 qe-history fences -d "$db"
		assert_output ''
		run -0 qe-history slowest -d "$db"
		[ "${#lines[@]}" -gt 0 ]
		run -0 qe-history report -d "$db" -o "$T/site"
		[ -s "$T/site/index.html" ]
	done
	: > "$T/empty.ndjson"
	run -0 qe-cell-diff --fences "$T/empty.ndjson" "$H/base.ndjson" "$H/head.ndjson"
	plain=$(qe-cell-diff "$H/base.ndjson" "$H/head.ndjson")
	assert_equal "$output" "$plain"
}

@test "names: series finds a cell by its display name or the exercise/solution block it opens, lists the cells a name answers to when there are several; rows count code cells from 1" {
	J="$TESTS_DIR/fixtures/names/book/_build/jupyter_execute/lectures"
	qe-cache-extract "$J"/*.ipynb > "$T/r.ndjson"
	for i in 1 2; do
		jq -c --arg i "$i" '. + {provenance: {tool: "qe-stamp 0.1.0",
		    source: {repository: "o/r", commit: ($i * 40), event: "push", ref: "refs/heads/main"},
		    run: {build_id: ("o/r/" + $i + "/1"), run_id: $i, run_number: ($i | tonumber),
		          started_at: ("2026-12-0" + $i + "T10:00:00.000000Z")}}}' "$T/r.ndjson" > "$T/b$i.ndjson"
		qe-history add -d "$T/n.db" "$T/b$i.ndjson" > /dev/null
	done
	run -0 --separate-stderr qe-history series -d "$T/n.db" ar1_processes "solution ar1p_ex1: from math import fsum"
	assert_equal "$stderr" ""
	run -0 jq -c '[.name, .index, .code_cell]' <<< "$output"
	assert_output '["solution ar1p_ex1: from math import fsum",6,7]
["solution ar1p_ex1: from math import fsum",6,7]'
	# the block names two cells: both listed, none picked (it was the first)
	run -2 --separate-stderr qe-history series -d "$T/n.db" ar1_processes "solution ar1p_ex1"
	assert_output ''
	assert_equal "$stderr" "qe-history: $T/n.db: document ar1_processes: solution ar1p_ex1 names 2 cells; ask for one by its code-cell number, label or key:
qe-history:   code cell 7: solution ar1p_ex1: from math import fsum (sha256:17c6916da77bfbc8e884a8026fa1ac2f0914e8cea6f34daac8d30b3fb8abb4c6)
qe-history:   code cell 8: solution ar1p_ex1: T = 200 (sha256:7d746edf942f011b72094e8fd19839e5bf98cd09a1019c15ff6c222769ab7451)"
	# either, asked for by its code-cell number
	run -0 qe-history series -d "$T/n.db" ar1_processes 8
	assert_equal "$(jq -r .name <<< "${lines[0]}")" "solution ar1p_ex1: T = 200"
	run -0 qe-history series -d "$T/n.db" ar1_processes "solution ar1p_ex2: max(xs) (%config)"
	run -0 jq -c '[.name, .code_cell]' <<< "${lines[0]}"
	assert_output '["solution ar1p_ex2: max(xs) (%config)",10]'
	# a prefix that is not the whole block name names nothing
	run -2 --separate-stderr qe-history series -d "$T/n.db" ar1_processes "solution ar1p"
	run -0 qe-history series -d "$T/n.db" ar1_processes "exercise ar1p_ex2" --format md
	assert_line "| 2026-12-01T10:00:00.000000Z | 111111111111… | — | exercise ar1p\\_ex2: xs\\[:3\\] | 9 | — |"
	qe-history series -d "$T/n.db" ar1_processes "solution ar1p_ex1: T = 200" > "$T/s.ndjson"
	validate "$T/s.ndjson"
}

@test "names: unique display names (lake_model) each name one cell in series; cells keep their history across builds whose names changed (keys are identity, not names)" {
	J="$TESTS_DIR/fixtures/names/book/_build/jupyter_execute/lectures"
	qe-cache-extract "$J/lake_model.ipynb" > "$T/r.ndjson"
	# build 1 as an extraction before names were unique (the ordinals dropped), build 2 as now
	for i in 1 2; do
		jq -c --arg i "$i" '(if $i == "1" and .kind == "cell" then .name |= (. // "" | sub(" \\([0-9]+(st|nd|rd|th)\\)$"; "")) else . end)
		    + {provenance: {tool: "qe-stamp 0.1.0",
		    source: {repository: "o/r", commit: ($i * 40), event: "push", ref: "refs/heads/main"},
		    run: {build_id: ("o/r/" + $i + "/1"), run_id: $i, run_number: ($i | tonumber),
		          started_at: ("2026-12-0" + $i + "T10:00:00.000000Z")}}}' "$T/r.ndjson" > "$T/b$i.ndjson"
		qe-history add -d "$T/n.db" "$T/b$i.ndjson" > /dev/null
	done
	run -0 jq -r 'select(.kind == "cell" and .index == 11) | .name' "$T/b1.ndjson"
	assert_output 'N = 100'
	# each unique name: one cell, both builds (its key joins them); the newest row carries
	# the name, the older one the name its build recorded
	for want in "N = 100:7" "N = 100 (2nd):12" "N = 100 (3rd):14" "solution lm_ex1: N = 100 (2nd):10" \
	    "lm = LakeModel() (2nd):8" "def rate_steady_state(alpha, lmda): (2nd):11" "lake_params.py (%%file):2"; do
		run -0 --separate-stderr qe-history series -d "$T/n.db" lake_model "${want%:*}"
		assert_equal "$stderr" ""
		assert_equal "$(jq -s length <<< "$output")" 2
		run -0 jq -sc '[(map([.code_cell, .key]) | unique | map(.[0])), .[-1].name]' <<< "$output"
		assert_output "$(jq -nc --arg n "${want%:*}" "[[${want##*:}], \$n]")"
	done
	# every cell's series holds both builds under one key
	for n in $(seq 1 14); do
		run -0 qe-history series -d "$T/n.db" lake_model "$n"
		assert_equal "$(jq -s 'map(.key) | unique | length' <<< "$output"):$(jq -s length <<< "$output")" "1:2"
	done
	# a first line that opens several cells still names none: they are listed
	run -2 --separate-stderr qe-history series -d "$T/n.db" lake_model "N = 1"
	assert_equal "${stderr_lines[0]}" "qe-history: $T/n.db: document lake_model: N = 1 names 5 cells; ask for one by its code-cell number, label or key:"
	assert_equal "${stderr_lines[2]}" "qe-history:   code cell 9: solution lm_ex1: N = 100 ($(jq -r 'select(.index == 8) | "sha256:" + .source_sha256' "$T/r.ndjson"))"
}

# stamp_as RUN FILE: FILE stamped as main's build RUN (run id 16000000RUN)
stamp_as() {
	GITHUB_REPOSITORY=QuantEcon/lecture-demo GITHUB_RUN_ID="16000000$1" GITHUB_RUN_ATTEMPT=1 \
		GITHUB_SHA="$(printf '%040d' "$1")" GITHUB_REF=refs/heads/main GITHUB_EVENT_NAME=push \
		qe-stamp -r ci/build -t "2026-12-0$1T06:00:00Z" "$2"
}

@test "a build in another folder (real caches): documents named by absolute path go on the history's series by their relative layout, one folder each; an ambiguous layout is said and not matched" {
	local a="$T/A/home/runner/work/lectures/lectures" b="$T/B/tmp/x" c="$T/C/tmp/y"
	build_book_at "$a" "$a/lectures"
	stamp_as 1 "$a.ndjson" > "$T/1.ndjson"
	build_book_at "$b" "$T/checkout/book"
	stamp_as 2 "$b.ndjson" > "$T/2.ndjson"
	run -0 jq -r 'select(.kind == "notebook") | .document' "$T/1.ndjson" "$T/2.ndjson"
	assert_output - <<-EOF
	dynamics/markov
	intro
	$b/lectures/dynamics/markov
	$b/lectures/intro
	EOF
	# named relatively in the history (CI), by absolute path in the new build
	qe-history add -d "$T/h.db" "$T/1.ndjson" > /dev/null
	run -0 --separate-stderr qe-history add -d "$T/h.db" "$T/2.ndjson"
	assert_equal "$stderr" "qe-history: $T/2.ndjson: 2 documents named by absolute path (built in another folder?), matched to the history's by their relative layout: e.g. dynamics/markov"
	run -0 --separate-stderr qe-history series -d "$T/h.db" --format ndjson intro
	assert_equal "$(jq -s 'map(select(.document == "intro")) | length' <<< "$output")" 2
	run -0 --separate-stderr qe-history slowest -d "$T/h.db" --format ndjson
	refute_output --partial "$T"

	# both by absolute path, in two folders: the history's names kept
	build_book_at "$a" "$T/checkout/book"
	stamp_as 1 "$a.ndjson" > "$T/1a.ndjson"
	qe-history add -d "$T/h2.db" "$T/1a.ndjson" > /dev/null
	run -0 --separate-stderr qe-history add -d "$T/h2.db" "$T/2.ndjson"
	assert_equal "$stderr" "qe-history: $T/2.ndjson: built in another folder than the history's documents: 2 documents matched by their relative layout, the history's $a/lectures/ with this report's $b/lectures/"
	run -0 --separate-stderr qe-history series -d "$T/h2.db" --format ndjson "$a/lectures/dynamics/markov"
	assert_equal "$(jq -s 'length' <<< "$output")" 2

	# markov in another folder of the new build's book: two pairings fit as well
	build_book_at "$c" "$T/checkout/book" other
	stamp_as 3 "$c.ndjson" > "$T/3.ndjson"
	run -0 --separate-stderr qe-history add -d "$T/h2.db" "$T/3.ndjson"
	assert_equal "${stderr_lines[0]}" "qe-history: $T/3.ndjson: documents named by absolute path match the history's by their relative layout in more than one way (the history's $a/lectures/ with this report's $c/lectures/, or $a/lectures/dynamics/ with $c/lectures/other/): not matched"
	assert_equal "${stderr_lines[1]}" "qe-history: $T/3.ndjson: 2 documents named by absolute path match none of the history's"
	run -0 --separate-stderr qe-history series -d "$T/h2.db" --format ndjson "$c/lectures/intro"
	assert_equal "$(jq -s 'length' <<< "$output")" 1
}
