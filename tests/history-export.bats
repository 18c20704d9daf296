#!/usr/bin/env bats
# Past one machine: the history store is stamped reports, plain NDJSON in
# one schema, so BigQuery and DuckDB load it unchanged.  tools/bq-schema
# generates BigQuery's table schema from schema/ (committed as
# schema/bigquery/report.json); DuckDB (the npm package @duckdb/node-api,
# installed under tests/.node by tools/deps test) runs the SQL documented in
# README.md ("qe-history: the monitor layer") on a generated history and
# must give what qe-history slowest and series give.

load helper

REPO="$(cd "$TESTS_DIR/.." && pwd)"

setup_file() {
	H="$BATS_FILE_TMPDIR/history"
	mkdir -p "$H"
	# real qe-cache-extract records of the two timed fixture caches, then a
	# year of builds from them (tests/gen_history.py)
	qe-cache-extract "$(shared jupyter-cache-timed/base)" > "$H/base.ndjson" 2> /dev/null || true
	qe-cache-extract "$(shared jupyter-cache-timed/head)" > "$H/head.ndjson" 2> /dev/null || true
	/usr/bin/python3 "$TESTS_DIR/gen_history.py" "$H/base.ndjson" "$H/head.ndjson" "$H/reports"
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
	run -0 /usr/bin/python3 "$TESTS_DIR/bq_check.py" "$REPO/schema/bigquery/report.json" "$T/stamped.ndjson"
	assert_output "$(wc -l < "$H/base.ndjson") records"
	run -0 /usr/bin/python3 "$TESTS_DIR/bq_check.py" "$REPO/schema/bigquery/report.json" "$H"/reports/*.ndjson.gz
	assert_output --regexp '^[0-9]{4} records$'
	# the checker is not blind: a duration as a string, an unknown field
	sed -n 2p "$T/stamped.ndjson" | jq -c '.duration_s = "1.5" | .extra = 1' > "$T/bad.ndjson"
	run -1 /usr/bin/python3 "$TESTS_DIR/bq_check.py" "$REPO/schema/bigquery/report.json" "$T/bad.ndjson"
	assert_line --index 0 --regexp ': duration_s: FLOAT but "1.5"$'
	assert_line --index 1 --regexp ': extra: no such field$'
}
