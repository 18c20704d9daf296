#!/usr/bin/env bats
# The Sphinx extension qe_telemetry.sphinx ({exec-time} roles, the execution
# status file, both through the C tool qe-exec-status), with Debian's python3-sphinx and
# python3-myst-parser building the small MyST book in
# tests/fixtures/sphinx/book/lectures.  The "current build" is the real cache
# and capture-hook log of tests/fixtures/hook/cache (kernels run by nbclient
# with the hook armed), named in -D options as a lecture repository names
# them in conf.py (MyST-NB and jupyter-cache are not Debian packages; the
# end-to-end MyST-NB run is tests/fixtures/sphinx/mystnb-e2e.sh).

load helper

HOOKFIX="$TESTS_DIR/fixtures/hook"
CACHE="$HOOKFIX/cache/.jupyter_cache"
LOG="$HOOKFIX/cache/hook.log"
export PYTHONPATH="$TESTS_DIR/../python"
export PYTHONDONTWRITEBYTECODE=1
NB=$'\xc2\xa0'	# the no-break space between number and unit, as its two bytes (no LANG needed)

setup() {
	T=$BATS_TEST_TMPDIR
	cp -r "$TESTS_DIR/fixtures/sphinx/book/lectures" "$T/lectures"
	# a git workspace whose commit the provenance names
	git -C "$T" init -q repo
	git -C "$T/repo" -c user.name=t -c user.email=t@e commit -q --allow-empty -m one
	COMMIT=$(git -C "$T/repo" rev-parse HEAD)
}

# book OUT [-D name=value ...]: build the test book into $T/OUT (html);
# stdout and stderr as sphinx-build leaves them
book() {
	local out=$1
	shift
	/usr/bin/python3 -m sphinx -q -b html -d "$T/$out.doctrees" \
		-D qe_exec_time_stamp_args=-r,test-runner,-w,"$T/repo" "$@" "$T/lectures" "$T/$out"
}

# the records qe-cache-extract --timings reports for the fixture's cells
records() {
	qe-cache-extract -r /tmp/qe-hook-demo/lectures --timings "$LOG" "$@" "$CACHE"
}

current=(-D qe_exec_time_cache="$CACHE" -D qe_exec_time_log="$LOG" -D qe_exec_time_since=2026-11-29T00:00:00Z)

@test "exec-time: every role shows the duration qe-cache-extract --timings reports, within the documented rounding; unknown labels and failed documents warn and show the placeholder" {
	run -0 --separate-stderr book html "${current[@]}"
	assert_output ""
	L=$T/lectures
	assert_equal "$stderr" "$L/broken.md:3: WARNING: qe-telemetry: exec-time: no measured time for 'broken-setup' in document 'broken': the document failed (this build: ValueError: deliberate failure for the fixture)
$L/broken.md:4: WARNING: qe-telemetry: exec-time: no measured time for document 'broken': the document failed (this build: ValueError: deliberate failure for the fixture)
$L/intro.md:15: WARNING: qe-telemetry: exec-time: unknown label 'no-such-cell' in document 'intro'
$L/intro.md:19: WARNING: qe-telemetry: exec-time: unknown label 'wrapped-unknown' in document 'intro'
$L/intro.md:19: WARNING: qe-telemetry: exec-time: unknown label 'wrapped-unknown' in document 'intro'"
	records > "$T/records.ndjson"
	run -0 /usr/bin/python3 "$TESTS_DIR/tools/exec_time_check.py" "$T/html" "$T/records.ndjson"
	assert_output - <<-'EOF'
	broken | human broken-setup | — | placeholder
	broken | human broken | — | placeholder
	dynamics/markov | human markov-simulate | 0.21~s | within
	dynamics/markov | human markov-setup | 0.07~s | within
	dynamics/markov | human dynamics/markov | 1.41~s | within
	dynamics/markov | share markov-simulate | 74~% | within
	intro | human slow-sleep | 0.30~s | within
	intro | seconds slow-sleep | 0.30~s | within
	intro | rounded slow-sleep | 0.3~s | within
	intro | share slow-sleep | 68~% | within
	intro | human résumé-λ | <~0.01~s | within
	intro | human numpy-eig | 0.07~s | within
	intro | human intro | 2.12~s | within
	intro | human dynamics/markov#markov-simulate | 0.21~s | within
	intro | human numba_demo#njit-first-call | 0.30~s | within
	intro | human numba_demo#njit-second-call | <~0.01~s | within
	intro | human no-such-cell | — | placeholder
	numba_demo | human njit-first-call | 0.30~s | within
	numba_demo | rounded numba-import | 0.5~s | within
	EOF
	# the prose form renders inline, the same values
	run -0 grep -o "Compiling costs <abbr class=\"qe-exec-time\" title=\"[^\"]*\">0.30${NB}s</abbr>; the second call takes <abbr class=\"qe-exec-time\" title=\"[^\"]*\">&lt;${NB}0.01${NB}s</abbr>" "$T/html/numba_demo.html"
}

@test "exec-time: the tooltip says what, when, where (runner class, CPU, commit) and which source" {
	run -0 --separate-stderr book html "${current[@]}" -D qe_exec_time_digits=6
	run -0 grep -o '<li><p>seconds slow-sleep: <abbr class="qe-exec-time" title="[^"]*">[^<]*</abbr>' "$T/html/intro.html"
	# 0.301888 s is the fixture's hook duration of slow-sleep (tests/fixtures/hook/README.md)
	assert_output --regexp "^<li><p>seconds slow-sleep: <abbr class=\"qe-exec-time\" title=\"cell slow-sleep of intro: measured 2026-11-29 15:45 UTC on test-runner \([^\"]*[0-9]+ CPUs, [0-9]+ GB\), commit ${COMMIT:0:12}; source: this build, hook timing\">0.301888${NB}s</abbr>\$"
	run -0 grep -o '<li><p>human intro: <abbr [^>]*>' "$T/html/intro.html"
	assert_output --regexp "title=\"whole execution of intro \(kernel start-up included\): measured 2026-11-29 15:45 UTC on test-runner .*; source: this build\">\$"
	run -0 grep -o '<li><p>share slow-sleep: <abbr [^>]*>' "$T/html/intro.html"
	# the seconds forms of the cell and of its base (the intro's timed cells), qe_exec_time_digits decimals
	assert_output --regexp "title=\"0.301888 s of the 0.443424 s of timed cells of intro, cell slow-sleep: measured"
}

# texts PAGE: the "KEY: TEXT" of every list item of a built page, a no-break space as ~
texts() {
	sed -n 's|.*<li><p>\([^:<]*\): <abbr [^>]*>\([^<]*\)</abbr>.*|\1: \2|p' "$1" | nbsp
}

# nbsp: standard input with each no-break space written ~
nbsp() {
	LC_ALL=C sed 's/\xc2\xa0/~/g'
}

@test "exec-time: qe_exec_time_format sets the form of {exec-time}, qe_exec_time_style the space before %; a bad form, style or digits is a configuration error (qe-exec-status's own rule)" {
	run -0 --separate-stderr book html "${current[@]}" -D qe_exec_time_format=seconds -D qe_exec_time_digits=3 -D qe_exec_time_style=en
	run -0 texts "$T/html/dynamics/markov.html"
	assert_output - <<-'EOF'
	human markov-simulate: 0.209~s
	human markov-setup: 0.071~s
	human dynamics/markov: 1.406~s
	share markov-simulate: 74%
	EOF
	run -2 --separate-stderr book html2 "${current[@]}" -D qe_exec_time_format=minutes
	assert_regex "$stderr" "qe_exec_time_format: 'minutes' is not one of human, rounded, seconds"
	run -2 --separate-stderr book html3 "${current[@]}" -D qe_exec_time_style=fr
	assert_regex "$stderr" "qe_exec_time_style: 'fr' refused \(qe-exec-status: --style: invalid value 'fr' \(one of en, si\)\)"
	run -2 --separate-stderr book html4 "${current[@]}" -D qe_exec_time_digits=12
	assert_regex "$stderr" "qe_exec_time_digits: '12' refused \(qe-exec-status: --digits: invalid value '12'\)"
}

@test "exec-time: builders other than HTML (here the text builder; LaTeX takes the same path) get the time alone, no explanation inline" {
	run -0 --separate-stderr /usr/bin/python3 -m sphinx -q -b text -d "$T/dt" "${current[@]}" "$T/lectures" "$T/text"
	run -0 bash -c "grep -F 'human slow-sleep:' '$T/text/intro.txt' | LC_ALL=C sed 's/\xc2\xa0/~/g'"
	assert_output "* human slow-sleep: 0.30~s"
	run -0 grep -F 'human no-such-cell:' "$T/text/intro.txt"
	assert_output "* human no-such-cell: —"
}

@test "exec-time: qe_exec_time_strict turns a missing time into a build error naming the document and the label" {
	run -2 --separate-stderr book html "${current[@]}" -D qe_exec_time_strict=1
	assert_regex "$stderr" "/lectures/broken.md:3: qe-telemetry: exec-time: no measured time for 'broken-setup' in document 'broken': the document failed"
	# without the option the same build succeeds (first test)
}

@test "exec-time: without this build's data, the newest stored report (plain or gzip, files or a pattern) gives the times; with neither, the placeholder and a warning" {
	# two weekly reports, stamped: the sequential build (older) and the parallel one (newer, gzip)
	mkdir "$T/history"
	qe-cache-extract -r /tmp/qe-hook-demo/lectures -t "$HOOKFIX/cache/hook.log" "$HOOKFIX/cache/.jupyter_cache" |
		qe-stamp -r weekly-old -w "$T/repo" > "$T/old.ndjson"
	qe-cache-extract -r /tmp/qe-hook-demo/lectures -t "$HOOKFIX/parallel/hook.log" "$HOOKFIX/parallel/.jupyter_cache" |
		qe-stamp -r weekly-new -w "$T/repo" | gzip > "$T/history/new.ndjson.gz"
	# the newer first in name order: the records' times decide, not the order of the files
	gzip -c "$T/old.ndjson" > "$T/history/old.ndjson.gz"
	# this build's cache holds only records older than the build (cache hits): not this build's
	run -0 --separate-stderr book html -D qe_exec_time_cache="$CACHE" -D qe_exec_time_log="$LOG" \
		-D qe_exec_time_report="$T/history/*.ndjson.gz" -D qe_exec_time_digits=6
	# broken's failure has no creation time: qe-cache-extract counts it as this build's
	L=$T/lectures
	assert_equal "$stderr" "$L/broken.md:3: WARNING: qe-telemetry: exec-time: no measured time for 'broken-setup' in document 'broken': the document failed (this build: ValueError: deliberate failure for the fixture)
$L/broken.md:4: WARNING: qe-telemetry: exec-time: no measured time for document 'broken': the document failed (this build: ValueError: deliberate failure for the fixture)
$L/intro.md:15: WARNING: qe-telemetry: exec-time: unknown label 'no-such-cell' in document 'intro'
$L/intro.md:19: WARNING: qe-telemetry: exec-time: unknown label 'wrapped-unknown' in document 'intro'
$L/intro.md:19: WARNING: qe-telemetry: exec-time: unknown label 'wrapped-unknown' in document 'intro'"
	run -0 texts "$T/html/intro.html"
	# the parallel build's hook durations (tests/fixtures/hook/README.md): slow-sleep 0.302006 s
	assert_line --index 1 "seconds slow-sleep: 0.302006~s"
	run -0 grep -o '<li><p>seconds slow-sleep: <abbr [^>]*>' "$T/html/intro.html"
	assert_output --regexp "measured 2026-11-29 15:45 UTC on weekly-new \(.*\), commit ${COMMIT:0:12}; source: stored report new.ndjson.gz, hook timing\">\$"
	gzip -dc "$T/history/new.ndjson.gz" > "$T/new.ndjson"
	run -0 /usr/bin/python3 "$TESTS_DIR/tools/exec_time_check.py" "$T/html" "$T/new.ndjson"
	refute_output --partial OFF
	assert_line "intro | human intro | 1.71~s | within"
	assert_line "numba_demo | human njit-first-call | 0.61~s | within"
	# the older report alone gives its own values
	run -0 --separate-stderr book html-old -D qe_exec_time_cache=/nonexistent -D qe_exec_time_report="$T/old.ndjson" -D qe_exec_time_digits=6
	run -0 texts "$T/html-old/intro.html"
	assert_line --index 1 "seconds slow-sleep: 0.301888~s"
	# neither: placeholders, one warning per role naming document and label
	run -0 --separate-stderr book html-none -D qe_exec_time_cache=/nonexistent -D qe_exec_time_log=
	run -0 texts "$T/html-none/dynamics/markov.html"
	assert_output - <<-'EOF'
	human markov-simulate: —
	human markov-setup: —
	human dynamics/markov: —
	share markov-simulate: —
	EOF
	assert_regex "$stderr" "dynamics/markov.md:3: WARNING: qe-telemetry: exec-time: no measured time for 'markov-simulate' in document 'dynamics/markov': not executed in this build and not in a stored report"
	# with no data at all a bare name cannot be told a label from a document
	assert_regex "$stderr" "dynamics/markov.md:5: WARNING: qe-telemetry: exec-time: no measured time for 'dynamics/markov' in document 'dynamics/markov': not executed in this build and not in a stored report"
	run -0 grep -c 'WARNING: qe-telemetry: exec-time: no measured time for .* in document .*: not executed in this build and not in a stored report$' <<< "$stderr"
	assert_output 23
}

@test "exec-time: a rebuild without -E reads the pages with roles again, so new data reaches them (not with qe_exec_time_reread = False)" {
	# the same configuration both times; only the data changes
	mkdir "$T/c" "$T/c2"
	run -0 --separate-stderr book html -D qe_exec_time_cache="$T/c" -D qe_exec_time_log="$LOG" -D qe_exec_time_since=2026-11-29T00:00:00Z
	run -0 texts "$T/html/numba_demo.html"
	assert_line "human njit-first-call: —"
	cp -r "$CACHE/." "$T/c"
	run -0 --separate-stderr book html -D qe_exec_time_cache="$T/c" -D qe_exec_time_log="$LOG" -D qe_exec_time_since=2026-11-29T00:00:00Z
	run -0 texts "$T/html/numba_demo.html"
	assert_line "human njit-first-call: 0.30~s"
	# qe_exec_time_reread = False: an unchanged page keeps what it showed
	run -0 --separate-stderr book html2 -D qe_exec_time_cache="$T/c2" -D qe_exec_time_log="$LOG" -D qe_exec_time_since=2026-11-29T00:00:00Z -D qe_exec_time_reread=0
	cp -r "$CACHE/." "$T/c2"
	run -0 --separate-stderr book html2 -D qe_exec_time_cache="$T/c2" -D qe_exec_time_log="$LOG" -D qe_exec_time_since=2026-11-29T00:00:00Z -D qe_exec_time_reread=0
	run -0 texts "$T/html2/numba_demo.html"
	assert_line "human njit-first-call: —"
}

@test "exec-time: the tools are found in \$QE_TELEMETRY_BIN (the action's before step exports it) before PATH; without them, an info line and placeholders, and -W builds pass" {
	local bin
	bin=$(dirname "$(command -v qe-cache-extract)")
	mkdir "$T/empty"
	PATH=/usr/bin:/bin QE_TELEMETRY_BIN="$bin" run -0 --separate-stderr book html "${current[@]}"
	run -0 texts "$T/html/numba_demo.html"
	assert_line "human njit-first-call: 0.30~s"
	# our trouble is not the book's: no warning (the failed and unknown roles included), -W passes
	PATH=/usr/bin:/bin QE_TELEMETRY_BIN="$T/empty" run -0 --separate-stderr /usr/bin/python3 -m sphinx -W -b html -d "$T/html2.doctrees" \
		"${current[@]}" "$T/lectures" "$T/html2"
	assert_equal "$stderr" ""
	assert_line "qe-telemetry: qe-cache-extract not found (install qe-telemetry, or set QE_TELEMETRY_BIN): this build's times are not used, placeholders shown"
	assert_line "qe-telemetry: qe-exec-status not found (install qe-telemetry, or set QE_TELEMETRY_BIN): no execution status file"
	run -0 texts "$T/html2/numba_demo.html"
	assert_line "human njit-first-call: —"
	run -0 bash -c "grep -o 'class=\"qe-exec-time qe-exec-time-missing\" title=\"not measured: qe-cache-extract not found\"' '$T/html2/intro.html' | wc -l"
	assert_output 13
}

@test "exec-time: every warning of ours has a location: a tool's message the file and line it names, else the input it read" {
	cp "$LOG" "$T/bad.log"
	echo 'not json' >> "$T/bad.log"
	n=$(wc -l < "$T/bad.log")
	run -0 --separate-stderr book html -D qe_exec_time_cache="$CACHE" -D qe_exec_time_log="$T/bad.log" -D qe_exec_time_since=2026-11-29T00:00:00Z
	assert_equal "${stderr_lines[0]}" "$T/bad.log:$n: WARNING: qe-telemetry: qe-cache-extract: $T/bad.log:$n: invalid JSON at column 1"
	assert_equal "${stderr_lines[1]}" "$CACHE:: WARNING: qe-telemetry: qe-cache-extract: 1 line rejected"
	# the good lines still join
	run -0 texts "$T/html/numba_demo.html"
	assert_line "human njit-first-call: 0.30~s"
}

@test "exec-time: the messages say what happened: 'the capture hook was not armed' only for a lecture this build executed, 'not executed in this build and not in a stored report' for a cache hit" {
	# no hook log; intro and numba_demo executed by this build (created after 15:45:44), markov a cache hit
	run -0 --separate-stderr book html -D qe_exec_time_cache="$CACHE" -D qe_exec_time_log= -D qe_exec_time_since=2026-11-29T15:45:44Z
	L=$T/lectures
	run -0 grep -F "$L/intro.md:5: " <<< "$stderr"
	assert_output "$L/intro.md:5: WARNING: qe-telemetry: exec-time: cell 'slow-sleep' of document 'intro' has no timing: this build executed it and the capture hook logged nothing (the capture hook was not armed?)"
	run -0 grep -F "$L/dynamics/markov.md:3: " <<< "$stderr"
	assert_output "$L/dynamics/markov.md:3: WARNING: qe-telemetry: exec-time: no measured time for 'markov-simulate' in document 'dynamics/markov': not executed in this build and not in a stored report"
	# the whole cached lecture has the cache's own time, an earlier build's, with no commit (the cache does not say)
	run -0 grep -o '<li><p>human dynamics/markov: <abbr [^>]*>' "$T/html/dynamics/markov.html"
	assert_output --regexp 'title="whole execution of dynamics/markov \(kernel start-up included\): measured 2026-11-29 15:45 UTC; source: cache \(an earlier build\)">$'
	run -1 grep -c 'hook was not armed' <<< "$(grep -F "$L/dynamics/" <<< "$stderr")"
}

@test "exec-time: every role prints qe-exec-status's own string (the one formatter, in C: tests/unit/extime.test holds its rounding), in the configured digits and style" {
	run -0 --separate-stderr book html "${current[@]}" -D qe_exec_time_digits=3 -D qe_exec_time_style=en
	records -s 2026-11-29T00:00:00Z | qe-exec-status --times --digits 3 --style en > "$T/lookup.json"
	run -0 texts "$T/html/intro.html"
	jq -r '.documents.intro as $d | $d.cells["slow-sleep"].text as $c | $d.cells["résumé-λ"].text.human as $r
		| "human slow-sleep: \($c.human)", "seconds slow-sleep: \($c.seconds)", "rounded slow-sleep: \($c.rounded)",
		"share slow-sleep: \($c.share)", "human résumé-λ: \($r)", "human numpy-eig: \($d.cells["numpy-eig"].text.human)",
		"human intro: \($d.text.human)"' "$T/lookup.json" | nbsp > "$T/want"
	head -7 <<< "$output" | sed "s/&lt;/</g" > "$T/got"
	run -0 diff "$T/want" "$T/got"
	# en: no space before %, a no-break space between number and unit; 3 digits
	run -0 sed -n '2p;4p' "$T/got"
	assert_output $'seconds slow-sleep: 0.302~s\nshare slow-sleep: 68%'
	# the Python package formats nothing: no number is put into a string there
	run -1 grep -nE ':\.[0-9]f|%\.[0-9]f|round\(' "$TESTS_DIR/../python/qe_telemetry/sphinx.py"
}

@test "execution status file: written at build-finished, valid against schema/execution-status.json, and it matches the cache" {
	run -0 --separate-stderr book html -D qe_exec_time_cache="$CACHE" -D qe_exec_time_log="$LOG" -D qe_exec_time_since=2026-11-29T15:45:44Z
	S=$T/html/execution_status.json
	run -0 /usr/bin/python3 "$TESTS_DIR/tools/validate_doc.py" execution-status.json "$S"
	records -s 2026-11-29T15:45:44Z > "$T/records.ndjson"
	# per document: exactly what the records of the cache + hook log say; a
	# cache hit's cells ran in an earlier build (none timed in this one), its
	# times come from the cache's record (no stored report), commit unknown
	jq -c --arg commit "$COMMIT" 'select(.kind == "notebook") | (.origin == "inherited") as $hit | {document, status, error,
		execution: ({executed: "executed", inherited: "cached"}[.origin]),
		runtime_s: .execution_seconds, cells: .code_cells, cells_timed: (if $hit then 0 else .timed_cells end),
		cells_seconds: (if $hit then null else .cells_seconds end), created, cache_key,
		times: {from: (if $hit then "cache" else "this-build" end), report: null, created,
			commit: (if $hit then null else $commit end)}}' "$T/records.ndjson" > "$T/want"
	jq -c '.documents[]' "$S" > "$T/got"
	run -0 diff "$T/want" "$T/got"
	# the total runtime is of every document listed; this build's executed time and timed cells its own (issue 40)
	run -0 jq -c '.totals' "$S"
	assert_output '{"documents":9,"ok":8,"failed":1,"executed":6,"cached":3,"runtime_s":13.866251,"executed_runtime_s":9.335139,"cells_timed":20}'
	run -0 jq -s -c '[.[] | select(.kind == "notebook" and .origin == "executed")] | [(map(.execution_seconds // 0) | add | . - 9.335139 | fabs < 1e-6), (map(.timed_cells) | add)]' "$T/records.ndjson"
	assert_output '[true,20]'
	S=${S:-$T/s.json}
	run -0 jq -c '[(.totals.runtime_s - ([.documents[].runtime_s // 0] | add) | fabs < 1e-6), .totals.runtime_s > .totals.executed_runtime_s]' "$S"
	assert_output '[true,true]'
	# a stored report (-R) is where a cache hit's times come from: the build that measured them, its commit
	records -s 2026-11-29T00:00:00Z | qe-stamp -r weekly -w "$T/repo" > "$T/weekly.ndjson"
	run -0 --separate-stderr book html-r -D qe_exec_time_cache="$CACHE" -D qe_exec_time_log="$LOG" -D qe_exec_time_since=2026-11-29T15:45:44Z \
		-D qe_exec_time_report="$T/weekly.ndjson"
	run -0 jq -c --arg r "$T/weekly.ndjson" '.documents[] | select(.execution == "cached") | [.document, .cells_timed, .times.from, .times.report == $r, .times.commit]' "$T/html-r/execution_status.json"
	assert_output - <<-EOF
	["dynamics/markov",0,"stored-report",true,"$COMMIT"]
	["errors_allowed",0,"stored-report",true,"$COMMIT"]
	["images",0,"stored-report",true,"$COMMIT"]
	EOF
	run -0 jq -c '.documents[] | select(.status == "failed") | [.document, .error, .execution]' "$S"
	assert_output '["broken","ValueError: deliberate failure for the fixture","executed"]'
	run -0 jq -r '[.build.generator, .build.provenance.runner.class, .build.provenance.source.commit, (.build.inputs | map(sub(".*/fixtures/"; "")) | join(","))] | join(" ")' "$S"
	assert_output "qe_telemetry.sphinx 0.1.0 test-runner $COMMIT hook/cache/hook.log,hook/cache/.jupyter_cache"
	# a build with no cache still writes one (no documents), valid; qe_exec_status_file= turns it off
	run -0 --separate-stderr book html-none -D qe_exec_time_cache=/nonexistent
	run -0 /usr/bin/python3 "$TESTS_DIR/tools/validate_doc.py" execution-status.json "$T/html-none/execution_status.json"
	run -0 jq -c '[.totals.documents, .build.inputs]' "$T/html-none/execution_status.json"
	assert_output '[0,[]]'
	run -0 --separate-stderr book html-off "${current[@]}" -D qe_exec_status_file=
	[ ! -e "$T/html-off/execution_status.json" ]
	# the schema refuses what is not a status
	jq '.documents[0].status = "cached"' "$S" > "$T/bad.json"
	run -1 /usr/bin/python3 "$TESTS_DIR/tools/validate_doc.py" execution-status.json "$T/bad.json"
	assert_output --partial "documents/0/status: 'cached' is not one of ['ok', 'failed']"
}

@test "qe-exec-status makes the same document from a stamped report, without Sphinx, as the extension writes at build-finished (the C tool writes both)" {
	records -s 2026-11-29T15:45:44Z | qe-stamp -r weekly -w "$T/repo" > "$T/report.ndjson"
	run -0 --separate-stderr qe-exec-status --started 2026-11-29T15:45:37.000000Z -o "$T/s.json" "$T/report.ndjson"
	assert_output ""
	assert_equal "$stderr" ""
	run -0 /usr/bin/python3 "$TESTS_DIR/tools/validate_doc.py" execution-status.json "$T/s.json"
	run -0 --separate-stderr book html -D qe_exec_time_cache="$CACHE" -D qe_exec_time_log="$LOG" -D qe_exec_time_since=2026-11-29T15:45:44Z
	run -0 diff <(jq -c '.documents, .totals' "$T/s.json") <(jq -c '.documents, .totals' "$T/html/execution_status.json")
	run -0 jq -c '[.build.generator, .build.started, .build.finished, .build.provenance.runner.class, .build.provenance.source.commit == "'"$COMMIT"'"]' "$T/s.json"
	assert_output '["qe-exec-status 0.1.0","2026-11-29T15:45:37.000000Z",null,"weekly",true]'
	# (the tool alone, its options, bad input and the newest-record rule: tests/qe-exec-status.bats)
}

@test "the Python package: its version is QE_VERSION, it reads no record itself, and make install puts it where PYTHONPATH can name it" {
	run -0 /usr/bin/python3 -c 'import qe_telemetry; print(qe_telemetry.__version__)'
	assert_output "$(sed -n 's/^#define QE_VERSION "\(.*\)"/\1/p' "$TESTS_DIR/../lib/qe.h")"
	# the package reads no record itself: qe-exec-status (C) reads them and decides the newest
	run -1 grep -rlE 'schema_version|"regression"|json\.loads\(line' "$TESTS_DIR/../python"
	make -s -C "$TESTS_DIR/.." install DESTDIR="$T/root" PREFIX=/usr > /dev/null
	run -0 ls "$T/root/usr/share/qe-telemetry/python/qe_telemetry"
	assert_output - <<-'EOF'
	__init__.py
	sphinx.py
	EOF
	run -0 env -u PYTHONPATH "$T/root/usr/bin/qe-exec-status" --version
	assert_output "qe-exec-status 0.1.0"
	[ -f "$T/root/usr/share/man/man1/qe-exec-status.1" ]
	# the installed extension builds the book
	PYTHONPATH="$T/root/usr/share/qe-telemetry/python" run -0 --separate-stderr book html "${current[@]}"
	run -0 texts "$T/html/numba_demo.html"
	assert_line "human njit-first-call: 0.30~s"
}

# mystnb ARRAY: the arguments of the MyST-NB scripts (source checkouts) into
# ARRAY, or skip: MyST-NB and jupyter-cache are not Debian packages, so these
# run where they are importable, or with QE_JCACHE_SRC and QE_MYSTNB_SRC
# naming source checkouts (jupyter-cache 1.0.x, MyST-NB v0.17.2; see
# tests/fixtures/sphinx/mystnb-env.sh)
mystnb() {
	local -n into=$1
	into=()
	if [ -n "${QE_JCACHE_SRC:-}" ] && [ -n "${QE_MYSTNB_SRC:-}" ]; then
		into=("$QE_JCACHE_SRC" "$QE_MYSTNB_SRC")
	elif ! /usr/bin/python3 -c 'import myst_nb, jupyter_cache' 2> /dev/null; then
		skip "MyST-NB and jupyter-cache are not installed (set QE_JCACHE_SRC and QE_MYSTNB_SRC to checkouts)"
	fi
}

@test "end to end: real MyST-NB executes the book with the hook armed and the roles of the same build are filled (skipped without MyST-NB)" {
	local args
	mystnb args
	run -0 bash "$TESTS_DIR/fixtures/sphinx/mystnb-e2e.sh" "${args[@]}"
	assert_line "end to end: OK"
	assert_line --regexp '^intro \| seconds slow-sleep \| 0\.[0-9]{2}~s \| within$'
	assert_line --regexp '^dynamics/markov \| human markov-simulate \| 0\.[0-9]{2}~s \| within$'
	refute_line --partial "| OFF"
	assert_line --regexp '^\{"documents": 3, "ok": 2, "failed": 1, "executed": 3, "cached": 0, '
	assert_line --regexp '^\{"documents": 3, "ok": 2, "failed": 1, "executed": 1, "cached": 2, '
	assert_line --regexp "source: stored report report.ndjson, hook timing\">0\\.[0-9]{2}${NB}s\$"
}

@test "three builds on one _build with -W, real MyST-NB: full, an edit, a prose-only commit with -j 2; no warning, every role and tooltip the measuring build's, status counts this build's; with a kept log, a fresh log, no tools (skipped without MyST-NB)" {
	local args
	mystnb args
	run -0 bash "$TESTS_DIR/fixtures/sphinx/mystnb-builds.sh" "${args[@]}"
	assert_line "three builds: OK"
	refute_line --partial "FAIL"
	refute_line --partial "| OFF"
	# build 3 of the kept log: nothing executed, every time from the stored
	# reports, each naming the build that measured it
	assert_line "status totals | executed 0 | cached 2 | cells_timed 0"
	assert_line "intro | dynamics/markov#markov-simulate | commit of the measuring build | stored report"
	run -0 grep -c '^placeholders: 12 of 12 roles$' <<< "$output"
	assert_output 3
}

@test "three builds on one _build with -W and the tools missing (plain Sphinx + MyST, runs everywhere): placeholders, an info line, no warning, no failure" {
	local i
	mkdir "$T/empty"
	for i in 1 2 3; do
		# the third after a prose edit, with -j 2
		[ "$i" != 3 ] || sed -i 's/^# Introduction$/# Introduction, again/' "$T/lectures/intro.md"
		PATH=/usr/bin:/bin QE_TELEMETRY_BIN="$T/empty" run -0 --separate-stderr /usr/bin/python3 -m sphinx -W --keep-going \
			$([ "$i" != 3 ] || echo -j 2) -b html -d "$T/_build/doctrees" "${current[@]}" -D qe_exec_time_report="$T/none.ndjson" "$T/lectures" "$T/_build/html"
		assert_equal "$stderr" ""
		assert_line "qe-telemetry: qe-cache-extract not found (install qe-telemetry, or set QE_TELEMETRY_BIN): this build's times are not used, placeholders shown"
		run -0 texts "$T/_build/html/dynamics/markov.html"
		assert_output - <<-'EOF'
		human markov-simulate: —
		human markov-setup: —
		human dynamics/markov: —
		share markov-simulate: —
		EOF
	done
	run -0 grep -c 'Introduction, again' "$T/_build/html/intro.html"
}

@test "exec-time: with -j 2 and a parallel read (more than 5 documents: Sphinx reads 5 or fewer serially even with -j), every warning names the role's own line, as a serial build's do" {
	# two more documents, so that Sphinx's workers read the book in chunks
	local i
	for i in 1 2 3; do
		printf '# Extra %s\n\nNothing timed here.\n' "$i" > "$T/lectures/extra$i.md"
		printf 'extra%s\n' "$i" >> "$T/lectures/toc-extra"
	done
	sed -i '/^broken$/r '"$T/lectures/toc-extra" "$T/lectures/index.md"
	rm "$T/lectures/toc-extra"
	run -0 --separate-stderr /usr/bin/python3 -m sphinx -j 2 -b html -d "$T/par.doctrees" \
		-D qe_exec_time_stamp_args=-r,test-runner,-w,"$T/repo" "${current[@]}" "$T/lectures" "$T/par"
	# the read was parallel: Sphinx names each worker's chunk "first .. last"
	assert_line --regexp '^reading sources\.\.\. \[ *[0-9]+%\] [^ ]+ \.\. [^ ]+$'
	L=$T/lectures
	assert_equal "$stderr" "$L/broken.md:3: WARNING: qe-telemetry: exec-time: no measured time for 'broken-setup' in document 'broken': the document failed (this build: ValueError: deliberate failure for the fixture)
$L/broken.md:4: WARNING: qe-telemetry: exec-time: no measured time for document 'broken': the document failed (this build: ValueError: deliberate failure for the fixture)
$L/intro.md:15: WARNING: qe-telemetry: exec-time: unknown label 'no-such-cell' in document 'intro'
$L/intro.md:19: WARNING: qe-telemetry: exec-time: unknown label 'wrapped-unknown' in document 'intro'
$L/intro.md:19: WARNING: qe-telemetry: exec-time: unknown label 'wrapped-unknown' in document 'intro'"
	# intro.md's line 19 is the wrapped paragraph's third line, where the roles are
	run -0 sed -n 19p "$L/intro.md"
	assert_output --partial '{exec-time}`wrapped-unknown`'
}
