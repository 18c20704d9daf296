#!/usr/bin/env bats
# Past one machine: the history store is stamped reports, plain NDJSON in
# one schema, so BigQuery and DuckDB load it unchanged.  tools/bq-schema
# generates BigQuery's table schema from schema/ (committed as
# schema/bigquery/report.json); DuckDB (the npm package @duckdb/node-api,
# installed under tests/.node by tools/deps test) runs the SQL documented in
# docs/history.md ("The monitor layer") on a generated history and
# must give what qe-history slowest and series give.

load helper

REPO="$(cd "$TESTS_DIR/.." && pwd)"

setup_file() {
	H="$BATS_FILE_TMPDIR/history"
	mkdir -p "$H"
	# real qe-cache-extract records of the two timed fixture caches, then a
	# year of builds from them (tests/tools/gen_history.py)
	qe-cache-extract "$(shared jupyter-cache-timed/base)" > "$H/base.ndjson" 2> /dev/null || true
	qe-cache-extract "$(shared jupyter-cache-timed/head)" > "$H/head.ndjson" 2> /dev/null || true
	/usr/bin/python3 "$TESTS_DIR/tools/gen_history.py" "$H/base.ndjson" "$H/head.ndjson" "$H/reports"
}

setup() {
	H="$BATS_FILE_TMPDIR/history"
	T="$BATS_TEST_TMPDIR"
}

@test "tools/bq-schema: regenerating it from schema/ gives the committed schema/bigquery/report.json" {
	run -0 --separate-stderr "$REPO/tools/bq-schema"
	printf '%s\n' "$output" > "$T/now.json"
	run -0 cmp "$T/now.json" "$REPO/schema/bigquery/report.json"
	run -2 "$REPO/tools/bq-schema" --help
	assert_output "usage: tools/bq-schema [SCHEMA_DIR]"
}

@test "the BigQuery schema: kind and schema_version required, times TIMESTAMP, tags and GPUs REPEATED, package maps JSON" {
	s="$REPO/schema/bigquery/report.json"
	run -0 jq -c '[.[] | select(.mode == "REQUIRED") | .name]' "$s"
	assert_output '["kind","schema_version","document","input","status"]'
	run -0 jq -r '.[] | select(.name == "created" or .name == "start" or .name == "duration_s" or .name == "tags" or .name == "index") | "\(.name) \(.type) \(.mode)"' "$s"
	assert_output - <<-'EOF'
	created TIMESTAMP NULLABLE
	index INTEGER NULLABLE
	tags STRING REPEATED
	duration_s FLOAT NULLABLE
	start TIMESTAMP NULLABLE
	EOF
	run -0 jq -r '.[] | select(.name == "provenance") | .fields[] | select(.name == "environment" or .name == "run" or .name == "hardware") | .fields[] | select(.type != "STRING" and .type != "INTEGER") | "\(.name) \(.type) \(.mode)"' "$s"
	assert_output - <<-'EOF'
	started_at TIMESTAMP NULLABLE
	stamped_at TIMESTAMP NULLABLE
	gpus RECORD REPEATED
	files RECORD REPEATED
	packages JSON NULLABLE
	marker JSON NULLABLE
	variables JSON NULLABLE
	EOF
}

@test "every record of a generated history and of a real qe-stamp run fits the BigQuery schema; a wrong type does not" {
	F="$(fixture qe-stamp)"
	env PATH="$F/bin:$PATH" GITHUB_ACTIONS=true GITHUB_REPOSITORY=o/r GITHUB_RUN_ID=5 \
		GITHUB_RUN_ATTEMPT=1 GITHUB_RUN_NUMBER=3 GITHUB_EVENT_NAME=schedule \
		GITHUB_EVENT_PATH="$F/event-schedule.json" \
		qe-stamp -a -c "$F/conda-list.json" -p "$F/pip-list.json" -f "$F/environment.yml" \
		-m "$F/quantecon-container" -v HOME -t 2026-11-30T03:00:00Z "$H/base.ndjson" > "$T/stamped.ndjson"
	run -0 /usr/bin/python3 "$TESTS_DIR/tools/bq_check.py" "$REPO/schema/bigquery/report.json" "$T/stamped.ndjson"
	assert_output "$(wc -l < "$H/base.ndjson") records"
	run -0 /usr/bin/python3 "$TESTS_DIR/tools/bq_check.py" "$REPO/schema/bigquery/report.json" "$H"/reports/*.ndjson.gz
	assert_output --regexp '^[0-9]{4} records$'
	# the checker is not blind: a duration as a string, an unknown field
	sed -n 2p "$T/stamped.ndjson" | jq -c '.duration_s = "1.5" | .extra = 1' > "$T/bad.ndjson"
	run -1 /usr/bin/python3 "$TESTS_DIR/tools/bq_check.py" "$REPO/schema/bigquery/report.json" "$T/bad.ndjson"
	assert_line --index 0 --regexp ': duration_s: FLOAT but "1.5"$'
	assert_line --index 1 --regexp ': extra: no such field$'
}

# duckdb SQL...: run docs/history.md's views and then SQL in DuckDB, in $H (where
# reports/ is); skips the test where @duckdb/node-api is not installed
duckdb() {
	awk '/<!-- duckdb-sql-begin -->/ { f = 1; next } /<!-- duckdb-sql-end -->/ { f = 0 } f' "$REPO/docs/history.md" |
		sed '/^```/d' > "$T/q.sql"
	printf '%s\n' "$@" >> "$T/q.sql"
	local rc=0
	(cd "$H" && node "$TESTS_DIR/tools/duckdb-query.js" "$T/q.sql") > "$T/duck.ndjson" 2> "$T/duck.err" || rc=$?
	if [ "$rc" = 3 ]; then
		skip "$(cat "$T/duck.err")"
	fi
	[ "$rc" = 0 ] || { cat "$T/duck.err"; return 1; }
}

# same A B: the NDJSON arrays of A and B agree, numbers to 1e-12 relative
same() {
	/usr/bin/python3 - "$1" "$2" <<-'PY'
	import json, math, sys
	a = [json.loads(l) for l in open(sys.argv[1])]
	b = [json.loads(l) for l in open(sys.argv[2])]
	def eq(x, y):
	    if isinstance(x, float) or isinstance(y, float):
	        return x is not None and y is not None and math.isclose(x, y, rel_tol=1e-12, abs_tol=1e-15)
	    return x == y
	bad = [(i, x, y) for i, (x, y) in enumerate(zip(a, b)) if len(x) != len(y) or not all(map(eq, x, y))]
	if len(a) != len(b) or bad:
	    print(f"{len(a)} rows against {len(b)}; first difference: {bad[:1]}")
	    sys.exit(1)
	print(f"{len(a)} rows agree")
	PY
}

@test "DuckDB (@duckdb/node-api) loads the stored reports unchanged; docs/history.md's SQL gives qe-history slowest's rows and series" {
	command -v node > /dev/null || skip "no node: tools/deps test installs nodejs and @duckdb/node-api"
	qe-history add -d "$T/h.db" "$H"/reports/*.ndjson.gz > /dev/null
	# slowest: both levels, the first 20 of each, in order
	qe-history slowest -d "$T/h.db" |
		jq -c '[.level, .rank, .document, .index, .label, .seconds, .share_lecture, .share_build]' > "$T/qe.ndjson"
	duckdb "SELECT level, rank, document, idx, label, seconds, share_lecture, share_build FROM slowest WHERE rank <= 20 ORDER BY level DESC, rank;"
	jq -c '[.level, .rank, .document, .idx, .label, .seconds, .share_lecture, .share_build]' "$T/duck.ndjson" > "$T/dk.ndjson"
	run -0 same "$T/qe.ndjson" "$T/dk.ndjson"
	assert_output "26 rows agree"
	# series: a lecture there all year, one added at build 20, one removed after build 35
	for doc in intro intro_extra stale_timing; do
		qe-history series -d "$T/h.db" "$doc" | jq -c '[.build, .commit, .started_at, .seconds]' > "$T/qe.ndjson"
		duckdb "SELECT build, commit_sha, started_at, seconds FROM lecture_series WHERE document = '$doc' ORDER BY started_at, run_number;"
		jq -c '[.build, .commit_sha, .started_at, .seconds]' "$T/duck.ndjson" > "$T/dk.ndjson"
		run -0 same "$T/qe.ndjson" "$T/dk.ndjson"
		case $doc in
		intro) assert_output "52 rows agree" ;;
		intro_extra) assert_output "33 rows agree" ;;
		stale_timing) assert_output "35 rows agree" ;;
		esac
	done
	# the pull requests' builds (x5) are in the files, not in main's rows
	duckdb "SELECT count(DISTINCT build) AS n FROM rec WHERE series = 'pull-request';"
	run -0 cat "$T/duck.ndjson"
	assert_output '{"n":8}'
}
