#!/usr/bin/env bats
# qe-exec-status: the execution status document and the exec-time lookup
# (--times) from real qe-cache-extract / qe-stamp records: the cache and
# capture-hook logs of tests/fixtures/hook (kernels run by nbclient with the
# hook armed), the sequential build and the parallel one.

load helper

HOOKFIX="$TESTS_DIR/fixtures/hook"
CACHE="$HOOKFIX/cache/.jupyter_cache"
LOG="$HOOKFIX/cache/hook.log"

setup() {
	T=$BATS_TEST_TMPDIR
}

# records [OPTION...]: the fixture's records, as the Sphinx book names its documents
records() {
	qe-cache-extract -r /tmp/qe-hook-demo/lectures --timings "$LOG" "$@" "$CACHE"
}

# parallel: the parallel build's records
parallel() {
	qe-cache-extract -r /tmp/qe-hook-demo/lectures -t "$HOOKFIX/parallel/hook.log" "$HOOKFIX/parallel/.jupyter_cache"
}

valid() {
	/usr/bin/python3 "$TESTS_DIR/tools/validate_doc.py" "$@"
}

@test "the status document holds each document's newest notebook record, as the records say, and its totals; valid against schema/execution-status.json" {
	records -s 2026-11-29T15:45:44Z > "$T/records.ndjson"
	run -0 --separate-stderr qe-exec-status "$T/records.ndjson"
	assert_equal "$stderr" ""
	printf '%s\n' "$output" > "$T/s.json"
	run -0 valid execution-status.json "$T/s.json"
	# one line of compact JSON, written by the one writer
	run -0 wc -l < "$T/s.json"
	assert_output 1
	# a cache hit's cells ran in an earlier build: none timed in this one; its times are the cache's (no report)
	jq -c 'select(.kind == "notebook") | (.origin == "inherited") as $hit | {document, status, error,
		execution: ({executed: "executed", inherited: "cached"}[.origin]),
		runtime_s: .execution_seconds, cells: .code_cells, cells_timed: (if $hit then 0 else .timed_cells end),
		cells_seconds: (if $hit then null else .cells_seconds end), created, cache_key,
		times: {from: (if $hit then "cache" else "this-build" end), report: null, created, commit: null}}' "$T/records.ndjson" > "$T/want"
	jq -c '.documents[]' "$T/s.json" > "$T/got"
	run -0 diff "$T/want" "$T/got"
	# the total runtime is of every document listed; this build's executed time and timed cells its own (issue 40)
	run -0 jq -c '.totals' "$T/s.json"
	assert_output '{"documents":9,"ok":8,"failed":1,"executed":6,"cached":3,"runtime_s":13.866251,"executed_runtime_s":9.335139,"cells_timed":20}'
	run -0 jq -s -c '[.[] | select(.kind == "notebook" and .origin == "executed")] | [(map(.execution_seconds // 0) | add | . - 9.335139 | fabs < 1e-6), (map(.timed_cells) | add)]' "$T/records.ndjson"
	assert_output '[true,20]'
	S=${S:-$T/s.json}
	run -0 jq -c '[(.totals.runtime_s - ([.documents[].runtime_s // 0] | add) | fabs < 1e-6), .totals.runtime_s > .totals.executed_runtime_s]' "$S"
	assert_output '[true,true]'
	# -R: a cache hit's times come from the stored report that has it, with the commit of the build that measured them
	records -s 2026-11-29T00:00:00Z | qe-stamp -r weekly -w "$TESTS_DIR/.." > "$T/weekly.ndjson"
	run -0 --separate-stderr qe-exec-status -R "$T/weekly.ndjson" "$T/records.ndjson"
	run -0 jq -c --arg r "$T/weekly.ndjson" --arg c "$(git -C "$TESTS_DIR" rev-parse HEAD)" '[.documents[] | [.document, .times.from, .times.report == $r, .times.commit == $c, .cells_timed]] | .[:3]' <<< "$output"
	assert_output '[["broken","this-build",false,false,0],["dynamics/markov","stored-report",true,true,0],["errors_allowed","stored-report",true,true,0]]'
	# a report that only inherited the record names no commit: it did not measure it
	qe-cache-extract -r /tmp/qe-hook-demo/lectures -s 2030-01-01T00:00:00Z "$CACHE" | qe-stamp -r later -w "$TESTS_DIR/.." > "$T/later.ndjson"
	run -0 --separate-stderr qe-exec-status -R "$T/later.ndjson" "$T/records.ndjson"
	run -0 jq -c '.documents[1].times | [.from, .commit]' <<< "$output"
	assert_output '["stored-report",null]'
	# both: the build that measured it wins over the later one that inherited it
	run -0 --separate-stderr qe-exec-status -R "$T/later.ndjson" -R "$T/weekly.ndjson" "$T/records.ndjson"
	run -0 jq -c --arg r "$T/weekly.ndjson" '.documents[1].times | [.from, .report == $r, .commit != null]' <<< "$output"
	assert_output '["stored-report",true,true]'
	run -0 jq -c '.build' "$T/s.json"
	assert_output '{"generator":"qe-exec-status 0.1.0","started":null,"finished":null,"inputs":["'"$T"'/records.ndjson"],"provenance":null}'
	# without --since the records do not say what this build executed
	run -0 bash -c 'qe-cache-extract -r /tmp/qe-hook-demo/lectures "$1" | qe-exec-status | jq -c "[.totals.executed, .totals.cached, ([.documents[].execution] | unique)]"' _ "$CACHE"
	assert_output '[0,0,[null]]'
}

@test "the build: --started, --finished, --generator, --input name it; -p gives qe-stamp -d's provenance; else the stamped records' own" {
	records > "$T/r.ndjson"
	qe-stamp -d -r weekly > "$T/desc.json"
	run -0 --separate-stderr qe-exec-status --started 2026-11-29T15:45:37.000000Z --finished 2026-11-29T15:50:00Z \
		--generator "qe_telemetry.sphinx 0.1.0" --input cache --input hook.log -p "$T/desc.json" -o "$T/s.json" - < "$T/r.ndjson"
	assert_output ""
	run -0 valid execution-status.json "$T/s.json"
	run -0 jq -c '[.build.generator, .build.started, .build.finished, .build.inputs, .build.provenance.runner.class, (.build.provenance | has("kind") or has("schema_version"))]' "$T/s.json"
	assert_output '["qe_telemetry.sphinx 0.1.0","2026-11-29T15:45:37.000000Z","2026-11-29T15:50:00Z",["cache","hook.log"],"weekly",false]'
	# a stamped report carries its provenance: the document names it
	qe-stamp -r weekly-old < "$T/r.ndjson" > "$T/stamped.ndjson"
	run -0 bash -c 'qe-exec-status "$1" | jq -c "[.build.provenance.runner.class, .build.inputs == [\$f]]" --arg f "$1"' _ "$T/stamped.ndjson"
	assert_output '["weekly-old",true]'
	# a time that is not one, or a provenance file that is not qe-stamp -d's, is said
	run -2 --separate-stderr qe-exec-status --started yesterday "$T/r.ndjson"
	assert_equal "${stderr_lines[0]}" "qe-exec-status: --started: invalid value 'yesterday'"
	assert_regex "${stderr_lines[1]}" '^usage: qe-exec-status '
	assert_output ""
	run -2 --separate-stderr qe-exec-status -p "$T/r.ndjson" "$T/r.ndjson"
	assert_equal "$stderr" "qe-exec-status: $T/r.ndjson: not a provenance record (qe-stamp -d)"
	run -0 jq -c '[.totals.documents, .build.provenance]' <<< "$output"
	assert_output '[9,null]'
}

@test "--times: per document the newest record's facts and each label's duration, as the cell records say; valid against schema/exec-times.json" {
	records -s 2026-11-29T15:45:44Z > "$T/r.ndjson"
	run -0 --separate-stderr qe-exec-status --times "$T/r.ndjson"
	printf '%s\n' "$output" > "$T/t.json"
	run -0 valid exec-times.json "$T/t.json"
	jq -c 'select(.kind == "cell" and .label != null) | [.document, .label, .duration_s, .start, .timing_source]' "$T/r.ndjson" | sort > "$T/want"
	jq -c '.documents | to_entries[] | .key as $d | .value.cells | to_entries[] | [$d, .key, .value.duration_s, .value.start, .value.timing_source]' "$T/t.json" | sort > "$T/got"
	run -0 diff "$T/want" "$T/got"
	# 0.301888 s is the fixture's hook duration of slow-sleep (tests/fixtures/hook/README.md)
	run -0 jq -c '.documents.intro | [.status, .execution, .runtime_s, .cells_seconds, .cells["slow-sleep"].duration_s, .file == $f]' --arg f "$T/r.ndjson" "$T/t.json"
	assert_output --regexp '^\["ok","executed",[0-9.]+,[0-9.]+,0\.301888,true\]$'
	run -0 jq -c '.documents.broken | [.status, .error, .runtime_s]' "$T/t.json"
	assert_output '["failed","ValueError: deliberate failure for the fixture",null]'
}

@test "the newest record of a document wins: by the stamped build's time across builds, else by created, a failure counting as newest; cells follow their own notebook record" {
	records > "$T/r.ndjson"
	# two builds of intro: an old failure, a new success; their order in the files does not matter
	jq -c 'select(.document == "intro") | if .kind == "notebook" then .status = "failed" | .error = "OldError: x" | .created = null else . end
		| .provenance = {run: {started_at: "2026-11-01T00:00:00.000000Z", stamped_at: "2026-11-01T00:30:00.000000Z"}}' "$T/r.ndjson" > "$T/old.ndjson"
	jq -c 'select(.document == "intro") | .provenance = {run: {started_at: "2026-11-08T00:00:00Z", stamped_at: "2026-11-08T00:30:00Z"}}' "$T/r.ndjson" > "$T/new.ndjson"
	for order in "old new" "new old"; do
		set -- $order
		run -0 bash -c 'qe-exec-status --times "$1" "$2" | jq -c ".documents.intro | [.status, (.file | sub(\".*/\"; \"\")), (.cells | length > 0)]"' _ "$T/$1.ndjson" "$T/$2.ndjson"
		assert_output '["ok","new.ndjson",true]'
	done
	# unstamped, one file: the newest created wins; a failed record (no created) counts as newest
	jq -c 'select(.document == "intro" and .kind == "notebook")' "$T/r.ndjson" > "$T/nb.ndjson"
	jq -c '.created = "2026-11-01T00:10:00.000000Z" | .cache_key = "older"' "$T/nb.ndjson" > "$T/older.ndjson"
	cat "$T/nb.ndjson" "$T/older.ndjson" > "$T/two.ndjson"
	run -0 bash -c 'qe-exec-status "$1" | jq -c "[.documents[0].cache_key != \"older\", .totals.documents]"' _ "$T/two.ndjson"
	assert_output '[true,1]'
	jq -c '.status = "failed" | .created = null | .error = "E: f"' "$T/nb.ndjson" >> "$T/two.ndjson"
	run -0 bash -c 'qe-exec-status "$1" | jq -c "[.documents[0].status, .documents[0].error]"' _ "$T/two.ndjson"
	assert_output '["failed","E: f"]'
	# a record superseded in the cache ("current": false) is never the newest
	jq -c '.current = false | .created = "2030-01-01T00:00:00.000000Z" | .cache_key = "superseded"' "$T/nb.ndjson" > "$T/sup.ndjson"
	run -0 bash -c 'cat "$1" "$2" | qe-exec-status | jq -c ".documents[0].cache_key != \"superseded\""' _ "$T/nb.ndjson" "$T/sup.ndjson"
	assert_output true
	# cells count for the notebook record they follow, in the same file only
	jq -c 'select(.document == "intro" and .kind == "cell")' "$T/r.ndjson" > "$T/cells.ndjson"
	run -0 bash -c 'qe-exec-status --times "$1" "$2" | jq -c ".documents.intro.cells | length"' _ "$T/nb.ndjson" "$T/cells.ndjson"
	assert_output 0
	run -0 bash -c 'cat "$1" "$2" | qe-exec-status --times | jq -c ".documents.intro.cells | length > 0"' _ "$T/nb.ndjson" "$T/cells.ndjson"
	assert_output true
}

@test "across reports (the parallel build newer, gzip): the newest build's records give the times" {
	records | qe-stamp -r weekly-old > "$T/old.ndjson"
	sleep 0.01
	parallel | qe-stamp -r weekly-new | gzip > "$T/new.ndjson.gz"
	run -0 bash -c 'qe-exec-status --times "$1" "$2" | jq -c "[.documents.intro.cells[\"slow-sleep\"].duration_s, (.documents.intro.file | sub(\".*/\"; \"\")), .documents.intro.provenance.runner.class]"' _ "$T/new.ndjson.gz" "$T/old.ndjson"
	# the parallel build's hook durations (tests/fixtures/hook/README.md): slow-sleep 0.302006 s
	assert_output '[0.302006,"new.ndjson.gz","weekly-new"]'
	# gzip and standard input read the same
	run -0 diff <(gzip -dc "$T/new.ndjson.gz" | qe-exec-status | jq -c .documents) <(qe-exec-status "$T/new.ndjson.gz" | jq -c .documents)
}

@test "bad input: prog: file:line: reason, the good records still counted, status 2; a missing file is said" {
	records > "$T/r.ndjson"
	n=$(($(wc -l < "$T/r.ndjson") + 1))
	{ cat "$T/r.ndjson"; printf '{"kind":"notebook"\n'; printf '{"kind":"notebook","document":"x","execution_seconds":"2 s"}\n'
	  printf '{"document":"y"}\n'; printf '{"kind":"cell","label":"a"}\n'; printf '{"kind":"diff-summary"}\n'; } > "$T/bad.ndjson"
	run -2 --separate-stderr qe-exec-status "$T/bad.ndjson"
	assert_equal "$stderr" "qe-exec-status: $T/bad.ndjson:$n: invalid JSON at column 18
qe-exec-status: $T/bad.ndjson:$((n + 1)): notebook record with an invalid 'execution_seconds' (not a number)
qe-exec-status: $T/bad.ndjson:$((n + 2)): record without 'kind'
qe-exec-status: $T/bad.ndjson:$((n + 3)): cell record without 'document'
qe-exec-status: 4 lines rejected"
	run -0 jq -c .totals.documents <<< "$output"
	assert_output 9
	run -2 --separate-stderr qe-exec-status "$T/missing.ndjson"
	assert_equal "$stderr" "qe-exec-status: $T/missing.ndjson: No such file or directory"
	run -0 jq -c '[.totals.documents, .build.inputs]' <<< "$output"
	assert_output '[0,["'"$T"'/missing.ndjson"]]'
}

@test "-o replaces the file whole; a failed write is said and is status 2, as in every tool" {
	records > "$T/r.ndjson"
	echo old > "$T/s.json"
	run -0 qe-exec-status -o "$T/s.json" "$T/r.ndjson"
	assert_output ""
	run -0 jq -c .totals.documents "$T/s.json"
	assert_output 9
	run -0 ls "$T"
	assert_output - <<-EOF
	r.ndjson
	s.json
	EOF
	run -2 --separate-stderr qe-exec-status -o "$T/no/such/dir/s.json" "$T/r.ndjson"
	assert_equal "$stderr" "qe-exec-status: $T/no/such/dir/s.json: No such file or directory"
	for a in --version -h "$T/r.ndjson" "--times $T/r.ndjson"; do
		run -2 --separate-stderr bash -c 'qe-exec-status $1 > /dev/full' _ "$a"
		assert_equal "$stderr" "qe-exec-status: stdout: No space left on device"
	done
}

@test "-h, --version, a bad option; the words are the schema's (the one vocabulary)" {
	run -0 qe-exec-status --version
	assert_output "qe-exec-status 0.1.0"
	run -0 qe-exec-status -h
	assert_line --index 0 --regexp '^usage: qe-exec-status '
	run -2 --separate-stderr qe-exec-status --no-such-option
	assert_regex "${stderr_lines[0]}" "unrecognized option '--no-such-option'"
	S="$TESTS_DIR/../schema/execution-status.json"
	run -0 "$TESTS_DIR/../build/unit/vocab" --dump
	assert_line "notebook status: $(jq -r '.properties.documents.items.properties.status.enum | join(" ")' "$S")"
	assert_line "execution: $(jq -r '.properties.documents.items.properties.execution.enum | map(select(. != null)) | join(" ")' "$S")"
}

@test "the man page's examples run: the status of a stored report, and straight from a build's cache and hook log" {
	mkdir -p "$T/_build/qe-telemetry"
	records | qe-stamp > "$T/_build/qe-telemetry/report.ndjson"
	cd "$T"
	run -0 qe-exec-status -o execution_status.json _build/qe-telemetry/report.ndjson
	run -0 valid execution-status.json execution_status.json
	start=2026-11-29T15:45:44Z
	run -0 bash -c 'qe-cache-extract -s "$1" -t "$2" "$3" | qe-stamp | qe-exec-status > execution_status.json' _ "$start" "$LOG" "$CACHE"
	run -0 valid execution-status.json execution_status.json
	run -0 jq -c '[.totals.executed, .totals.cached]' execution_status.json
	assert_output '[6,3]'
	mkdir history
	records | qe-stamp | gzip > history/old.ndjson.gz
	parallel | qe-stamp | gzip > history/new.ndjson.gz
	run -0 bash -c "qe-exec-status -t history/*.ndjson.gz | jq '.documents.intro.cells[\"slow-sleep\"].duration_s'"
	assert_output 0.302006
}

@test "--times prints each duration's forms (--digits, --style; the defaults 2 and si): a document's runtime, a cell's duration and share of the timed cells; a bad value is a usage error" {
	records -s 2026-11-29T15:45:44Z > "$T/r.ndjson"
	nb() { LC_ALL=C sed 's/\xc2\xa0/~/g'; }
	# 0.301888 s of intro's 0.443424 s of timed cells (tests/fixtures/hook/README.md)
	run -0 bash -c 'qe-exec-status --times "$1" | jq -c ".documents.intro.cells[\"slow-sleep\"].text"' _ "$T/r.ndjson"
	assert_equal "$(nb <<< "$output")" '{"human":"0.30~s","seconds":"0.30~s","rounded":"0.3~s","share":"68~%","share_base":"0.44~s"}'
	run -0 bash -c 'qe-exec-status --times --digits 4 --style en "$1" | jq -c ".documents.intro.cells[\"slow-sleep\"].text, (.documents.intro | [.runtime_s, .text.seconds])"' _ "$T/r.ndjson"
	assert_equal "$(nb <<< "${lines[0]}")" '{"human":"0.30~s","seconds":"0.3019~s","rounded":"0.3~s","share":"68%","share_base":"0.4434~s"}'
	run -0 jq -r '"\(.[0] * 10000 | round / 10000 | tostring)~s" == (.[1] | sub("\u00a0"; "~")) and (.[1] | test("^[0-9]+\\.[0-9]{4}\u00a0s$"))' <<< "${lines[1]}"
	assert_output true
	# the defaults docs/exec-time.md and qe-mystmd(7) restate are the tool's (digits and style live in C)
	local digits
	digits=$(qe-exec-status --times "$T/r.ndjson" | jq -r '.documents.intro.text.seconds | split(".")[1] | split("\u00a0")[0] | length')
	run -0 grep -c -F -e "| \`qe_exec_time_digits\` | \`$digits\` |" -e "| \`qe_exec_time_style\` | \`si\` |" "$TESTS_DIR/../docs/exec-time.md"
	assert_output 2
	run -0 grep -c -F "unset, its default, $digits)" "$TESTS_DIR/../man/qe-mystmd.7"
	# a failed document has no runtime: no forms
	run -0 bash -c 'qe-exec-status --times "$1" | jq -c ".documents.broken.text"' _ "$T/r.ndjson"
	assert_output null
	for bad in "--digits=10" "--digits=-1" "--digits=x" "--style=fr" "--style="; do
		run -2 --separate-stderr qe-exec-status --times "$bad" "$T/r.ndjson"
		assert_regex "${stderr_lines[0]}" "^qe-exec-status: --(digits|style): invalid value '"
		assert_output ""
	done
	assert_equal "${stderr_lines[0]}" "qe-exec-status: --style: invalid value '' (one of en, si)"
}

@test "--qe-status: the execution block of QuantEcon's status dashboard (qe.status.json), from the same records, valid against schema/qe-status.json; each field the status document's" {
	records -s 2026-11-29T15:45:44Z > "$T/r.ndjson"
	run -0 --separate-stderr qe-exec-status --qe-status "$T/qe.json" -o "$T/s.json" "$T/r.ndjson"
	assert_equal "$stderr" ""
	run -0 valid qe-status.json "$T/qe.json"
	# each field maps to the status document's (man/qe-exec-status.1)
	run -0 jq -c --slurpfile s "$T/s.json" '.execution as $e | $s[0] as $s
		| [$e.documents == $s.totals.documents, $e.succeeded == $s.totals.ok, $e.failed == $s.totals.failed,
		   $e.failed_documents == [$s.documents[] | select(.status == "failed") | .document],
		   $e.total_run_time_seconds == $s.totals.runtime_s,
		   $e.slowest == ($s.documents | map(select(.runtime_s != null)) | max_by(.runtime_s) | {document, run_time_seconds: .runtime_s})]' "$T/qe.json"
	assert_output '[true,true,true,true,true,true]'
	# the values, from the fixture's records (the cache's 9 documents, broken failed)
	run -0 jq -c '.execution | [.documents, .succeeded, .failed, .failed_documents, .total_run_time_seconds, .slowest.document]' "$T/qe.json"
	assert_output '[9,8,1,["broken"],13.866251,"numba_demo"]'
	# no records: zeros and no slowest; an unwritable file is said, status 2
	run -0 bash -c 'qe-exec-status --qe-status "$1" < /dev/null > /dev/null && cat "$1"' _ "$T/empty.json"
	assert_output '{"execution":{"documents":0,"succeeded":0,"failed":0,"failed_documents":[],"total_run_time_seconds":0,"slowest":null}}'
	run -2 --separate-stderr qe-exec-status --qe-status "$T/no/such/qe.json" "$T/r.ndjson"
	assert_equal "$stderr" "qe-exec-status: $T/no/such/qe.json: No such file or directory"
}
