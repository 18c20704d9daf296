#!/usr/bin/env bats
# qe-cache-extract on the real caches, notebooks and archives of the shared
# fixtures (see tests/fixtures/shared/README.md for the facts checked here).

load helper

cache() { shared "$1/.jupyter_cache"; }

setup() {
	T="$BATS_TEST_TMPDIR"
}

@test "base cache: 6 cached notebooks, the failed one, 24 cells, all valid" {
	run -0 --separate-stderr qe-cache-extract "$(cache jupyter-cache/base)"
	assert_equal "$stderr" ""
	printf '%s\n' "$output" > "$T/out"
	run -0 jq -sc '[.[] | select(.kind == "notebook") | [.document, .status, .cache_pk]]' "$T/out"
	assert_output '[["broken","failed",null],["dynamics/markov","ok",1],["errors_allowed","ok",2],["images","ok",3],["intro","ok",4],["numba_demo","ok",5],["stale_timing","ok",6]]'
	run -0 jq -s '[.[] | select(.kind == "cell")] | length' "$T/out"
	assert_output 24
	run -0 validate "$T/out"
}

@test "base cache: notebook record facts (key, seconds, created, counts, kernel)" {
	run -0 --separate-stderr qe-cache-extract "$(cache jupyter-cache/base)"
	run -0 jq -c 'select(.document == "intro" and .kind == "notebook") | [.cache_key, .execution_seconds, .created, .code_cells, .timed_cells, .kernel, .language, .language_version, .uri]' <<< "$output"
	assert_output '["c290f15f509d592015f141782d681772",1.8161358629999995,"2026-11-29T14:31:59.859127Z",7,0,"python3","python","3.11.2","/tmp/lecture-demo/lectures/intro.md"]'
}

@test "the failed notebook carries the exception line of nbproject.traceback" {
	run -0 --separate-stderr qe-cache-extract "$(cache jupyter-cache/base)"
	run -0 jq -c 'select(.document == "broken") | [.kind, .status, .error, .cache_key, .execution_seconds, .code_cells]' <<< "$output"
	assert_output '["notebook","failed","ValueError: deliberate failure for the fixture",null,null,null]'
}

@test "stock caches: every cell matches the reference reader (no timing, stale flagged)" {
	for c in base head head-incremental; do
		qe-cache-extract --all "$(cache jupyter-cache/$c)" > "$T/$c"
		run -0 /usr/bin/python3 "$TESTS_DIR/tools/check_reference.py" "$(shared reference/jupyter-cache_$c.cells.jsonl)" "$T/$c"
	done
}

@test "timed caches: durations equal the reference to the microsecond" {
	for c in base head; do
		qe-cache-extract "$(cache jupyter-cache-timed/$c)" > "$T/$c"
		run -0 /usr/bin/python3 "$TESTS_DIR/tools/check_reference.py" "$(shared reference/jupyter-cache-timed_$c.cells.jsonl)" "$T/$c"
		run -0 validate "$T/$c"
	done
	run -0 jq -c 'select(.label == "slow-sleep") | [.duration_s, .timing_source, .timing_method]' "$T/base"
	assert_output '[0.30444,"nbclient","input-reply"]'
	run -0 jq -c 'select(.label == "slow-sleep") | .duration_s >= 0.9 and .duration_s < 0.91' "$T/head"
	assert_output true
}

@test "stale timing: flagged, never reported as this build's duration" {
	run -0 --separate-stderr qe-cache-extract "$(cache jupyter-cache/base)"
	printf '%s\n' "$output" > "$T/out"
	run -0 jq -c 'select(.document == "stale_timing" and .kind == "cell") | [.status, .duration_s, .timing_note, .stale_duration_s > 0.25]' "$T/out"
	assert_output $'["ok",null,"stale",false]\n["ok",null,"stale",true]\n["ok",null,"stale",false]'
	run -0 jq -c 'select(.document == "stale_timing" and .kind == "notebook") | [.stale_cells, .timed_cells, .cells_seconds]' "$T/out"
	assert_output '[3,0,null]'
}

@test "the empty code cell is not-run, never executed" {
	run -0 --separate-stderr qe-cache-extract "$(cache jupyter-cache-timed/base)"
	run -0 jq -c 'select(.document == "intro" and .index == 6) | [.status, .execution_count, .duration_s, .timing_note, .first_line]' <<< "$output"
	assert_output '["not-run",null,null,"not-executed",null]'
}

@test "cell facts: label, tags, non-ASCII label, figure output, error output" {
	run -0 --separate-stderr qe-cache-extract "$(cache jupyter-cache/base)"
	printf '%s\n' "$output" > "$T/out"
	run -0 jq -c 'select(.document == "intro" and .kind == "cell") | [.index, .label, .tags, .status]' "$T/out"
	assert_line --index 2 '[2,"slow-sleep",["remove-output"],"ok"]'
	assert_line --index 4 '[4,"résumé-λ",[],"ok"]'
	run -0 jq -c 'select(.document == "errors_allowed" and .index == 1) | [.status, .error, .tags]' "$T/out"
	assert_output '["error","ZeroDivisionError: division by zero",["raises-exception"]]'
	run -0 jq -c 'select(.document == "errors_allowed" and .kind == "notebook") | .status' "$T/out"
	assert_output '"ok"'
	# MyST-NB invents cell ids for .md sources; an .ipynb source keeps its own
	run -0 jq -c '[select(.kind == "cell") | .cell_id != null] | unique' <(jq -c 'select(.document != "stale_timing")' "$T/out")
	run -0 jq -sc '[.[] | select(.kind == "cell" and .document != "stale_timing") | .cell_id] | unique' "$T/out"
	assert_output '[null]'
	run -0 jq -sc '[.[] | select(.kind == "cell" and .document == "stale_timing") | .cell_id | type] | unique' "$T/out"
	assert_output '["string"]'
}

@test "source digest: normalised text as documented, same in base and head when unchanged" {
	qe-cache-extract "$(cache jupyter-cache-timed/base)" > "$T/b"
	qe-cache-extract "$(cache jupyter-cache-timed/head)" > "$T/h"
	src=$(jq -r '.cells[] | select(.metadata.name == "slow-sleep") | .source | if type == "array" then join("") else . end' \
		"$(cache jupyter-cache-timed/base)"/executed/8ddd955f703d7ede10957d84ca28f83c/base.ipynb)
	want=$(printf '%s' "$src" | sha256sum | cut -d' ' -f1)
	run -0 jq -r 'select(.label == "slow-sleep") | .source_sha256' "$T/b"
	assert_output "$want"
	run -0 jq -r 'select(.label == "slow-sleep") | .source_sha256' "$T/h"
	assert_output "$want"
	run -0 jq -r 'select(.label == "params") | .source_sha256' "$T/b"
	refute_output "$(jq -r 'select(.label == "params") | .source_sha256' "$T/h")"
	# outputs: identical images in both builds digest the same
	run -0 jq -r 'select(.label == "png-figure") | .output_sha256' "$T/b"
	assert_output "$(jq -r 'select(.label == "png-figure") | .output_sha256' "$T/h")"
}

# out_digest SOURCE OUTPUTS: the output digest of one code cell SOURCE with
# OUTPUTS (a JSON array, as given) in a notebook of its own
out_digest() {
	jq -n --arg s "$1" --argjson o "$2" '{nbformat: 4, nbformat_minor: 5, metadata: {}, cells: [{cell_type: "code",
		id: "a", metadata: {}, execution_count: 1, source: $s, outputs: $o}]}' > "$T/nb.ipynb"
	qe-cache-extract "$T/nb.ipynb" | jq -r 'select(.kind == "cell") | .output_sha256'
}

@test "output digest: consecutive streams of one name are one output (a print sent in two messages)" {
	dig() { out_digest 'print(x)' "$1"; }
	local one split
	one=$(dig '[{"output_type": "stream", "name": "stdout", "text": "at 0x7f3a2b1c9d40 done\nnext\n"}]')
	# split inside the address the normaliser masks, and the second part a list of lines
	split=$(dig '[{"output_type": "stream", "name": "stdout", "text": "at 0x7f3a2b1c"},
		{"output_type": "stream", "name": "stdout", "text": ["9d40 done\n", "next\n"]}]')
	assert_equal "$split" "$one"
	# the masked address: another one gives the same digest
	assert_equal "$(dig '[{"output_type": "stream", "name": "stdout", "text": "at 0x7f00000000ff done\nnext\n"}]')" "$one"
	# streams of two names stay apart, in their order
	run -0 dig '[{"output_type": "stream", "name": "stdout", "text": "a\n"},
		{"output_type": "stream", "name": "stderr", "text": "b\n"}, {"output_type": "stream", "name": "stdout", "text": "c\n"}]'
	refute_output "$(dig '[{"output_type": "stream", "name": "stdout", "text": "a\nc\n"}, {"output_type": "stream", "name": "stderr", "text": "b\n"}]')"
	assert_output "$(dig '[{"output_type": "stream", "name": "stdout", "text": ["a\n"]},
		{"output_type": "stream", "name": "stderr", "text": "b\n"}, {"output_type": "stream", "name": "stdout", "text": "c\n"}]')"
	# a stream after a result is not joined to the stream before it
	local apart joined
	apart=$(dig '[{"output_type": "stream", "name": "stdout", "text": "a\n"},
		{"output_type": "execute_result", "execution_count": 1, "metadata": {}, "data": {"text/plain": "1"}},
		{"output_type": "stream", "name": "stdout", "text": "c\n"}]')
	joined=$(dig '[{"output_type": "stream", "name": "stdout", "text": "a\nc\n"},
		{"output_type": "execute_result", "execution_count": 1, "metadata": {}, "data": {"text/plain": "1"}}]')
	[ "$apart" != "$joined" ] || fail "a stream joined across a result"
}

@test "output digest: %timeit's 'slowest run' line (a preempted run) is left out, line and all" {
	dig() { out_digest '%timeit f()' "$1"; }
	local plain warned
	plain=$(dig '[{"output_type": "stream", "name": "stdout", "text": "9 ms ± 1 ms per loop (mean ± std. dev. of 7 runs, 100 loops each)\n"}]')
	# IPython prints it with a print of its own: a stream output before the result's
	warned=$(dig '[{"output_type": "stream", "name": "stdout", "text": "The slowest run took 5.23 times longer than the fastest. This could mean that an intermediate result is being cached.\n"},
		{"output_type": "stream", "name": "stdout", "text": "2.1 us ± 1.4 us per loop (mean ± std. dev. of 2 runs, 3 loops each)\n"}]')
	assert_equal "$warned" "$plain"
	# another sentence that starts the same way is text as ever
	[ "$(dig '[{"output_type": "stream", "name": "stdout", "text": "The slowest run took 5 s\n9 ms ± 1 ms per loop (mean ± std. dev. of 7 runs, 100 loops each)\n"}]')" != "$plain" ] ||
		fail "a line that is not the warning was left out"
}

@test "incremental cache: current records by default, both records with --all, newest first" {
	run -0 --separate-stderr qe-cache-extract "$(cache jupyter-cache/head-incremental)"
	run -0 jq -sc '[.[] | select(.kind == "notebook") | [.document, .cache_pk]]' <<< "$output"
	assert_output '[["broken",null],["dynamics/markov",7],["errors_allowed",2],["images",3],["intro",8],["numba_demo",5],["stale_timing",6]]'
	run -0 --separate-stderr qe-cache-extract --all "$(cache jupyter-cache/head-incremental)"
	printf '%s\n' "$output" > "$T/all"
	run -0 jq -sc '[.[] | select(.kind == "notebook" and (.document == "intro" or .document == "dynamics/markov")) | [.document, .cache_pk, .current, .cache_key]]' "$T/all"
	assert_output '[["dynamics/markov",7,true,"562999abb37484c28d5557a606f989ee"],["dynamics/markov",1,false,"7825996c0c6de3e8ef14fe96abe156a1"],["intro",8,true,"af35ba6a90f4b3d04ea20a773b4a5b91"],["intro",4,false,"c290f15f509d592015f141782d681772"]]'
	run -0 jq -s '[.[] | select(.kind == "notebook")] | length' "$T/all"
	assert_output 9
	run -0 jq -s '[.[] | select(.kind == "cell" and .document == "dynamics/markov")] | length' "$T/all"
	assert_output 7
}

@test "--since and --baseline mark what this build executed and what it inherited" {
	want='[["broken","executed"],["dynamics/markov","executed"],["errors_allowed","inherited"],["images","inherited"],["intro","executed"],["numba_demo","inherited"],["stale_timing","inherited"]]'
	run -0 --separate-stderr qe-cache-extract --since 2026-11-29T14:32:10Z "$(cache jupyter-cache/head-incremental)"
	run -0 jq -sc '[.[] | select(.kind == "notebook") | [.document, .origin]]' <<< "$output"
	assert_output "$want"
	run -0 --separate-stderr qe-cache-extract --baseline "$(shared archives/base-artifact.zip)" "$(cache jupyter-cache/head-incremental)"
	printf '%s\n' "$output" > "$T/out"
	run -0 jq -sc '[.[] | select(.kind == "notebook") | [.document, .origin]]' "$T/out"
	assert_output "$want"
	run -0 jq -sc '[.[] | select(.kind == "cell") | .origin] | group_by(.) | map([.[0], length])' "$T/out"
	assert_output '[["executed",11],["inherited",14]]'
	run -0 validate "$T/out"
	# a copy of global.db kept aside under another name, as a workflow saves it
	cp "$(cache jupyter-cache/base)/global.db" "$T/baseline-copy.sqlite"
	run -0 --separate-stderr qe-cache-extract -b "$T/baseline-copy.sqlite" "$(cache jupyter-cache/head-incremental)"
	assert_output "$(cat "$T/out")"
}

@test "every archive layout gives the directory's records byte for byte" {
	for v in base head; do
		qe-cache-extract "$(cache jupyter-cache/$v)" > "$T/dir"
		for a in "$v-artifact.zip" "$v-workspace.tar.gz" "$v.zip" "$v.tar.gz"; do
			run -0 --separate-stderr qe-cache-extract "$(shared archives/$a)"
			assert_equal "$stderr" ""
			assert_output "$(cat "$T/dir")"
		done
	done
}

@test "a _build folder, a global.db path and a list of paths on stdin all find the cache" {
	mkdir -p "$T/_build"
	cp -r "$(cache jupyter-cache/base)" "$T/_build/.jupyter_cache"
	qe-cache-extract "$(cache jupyter-cache/base)" > "$T/want"
	run -0 --separate-stderr qe-cache-extract "$T/_build"
	assert_output "$(cat "$T/want")"
	run -0 --separate-stderr qe-cache-extract "$T/_build/.jupyter_cache/global.db"
	assert_output "$(cat "$T/want")"
	run -0 --separate-stderr qe-cache-extract - <<< "$T/_build"
	assert_output "$(cat "$T/want")"
}

@test "--root names documents from the book root" {
	run -0 --separate-stderr qe-cache-extract --root /tmp/lecture-demo "$(cache jupyter-cache/base)"
	run -0 jq -sc '[.[] | select(.kind == "notebook") | .document]' <<< "$output"
	assert_output '["lectures/broken","lectures/dynamics/markov","lectures/errors_allowed","lectures/images","lectures/intro","lectures/numba_demo","lectures/stale_timing"]'
}

@test "without --root, a cache restored from a build at another path is named as one checkout's: no lecture twice, the other checkout's failure inherited" {
	# the baseline built at /tmp/lecture-demo, the pull request's two re-executed lectures at a runner's path
	cp -r "$(cache jupyter-cache/head-incremental)" "$T/c"
	sqlite3 "$T/c/global.db" "UPDATE nbcache SET uri = replace(uri, '/tmp/lecture-demo/', '/home/runner/_work/lecture-demo/') WHERE created > '2026-11-29 14:32:10'"
	run -0 --separate-stderr qe-cache-extract -a --since 2026-11-29T14:32:10Z "$T/c"
	assert_equal "$stderr" ""
	printf '%s\n' "$output" > "$T/moved"
	run -0 validate "$T/moved"
	# the names, origins and currency of the cache built at one path, record by record
	qe-cache-extract -a --since 2026-11-29T14:32:10Z "$(cache jupyter-cache/head-incremental)" > "$T/here"
	run -0 jq -c 'select(.kind == "notebook") | [.document, .origin, .current]' "$T/here"
	local want="$output"
	run -0 jq -c 'select(.kind == "notebook") | [.document, .origin, .current]' "$T/moved"
	# but the failure: recorded at the baseline's path, which this build did not run
	assert_output "${want/'["broken","executed",true]'/'["broken","inherited",true]'}"
	assert_line --index 0 '["broken","inherited",true]'
	# the cells too
	assert_equal "$(jq -c 'select(.kind == "cell") | [.document, .index, .source_sha256]' "$T/moved")" "$(jq -c 'select(.kind == "cell") | [.document, .index, .source_sha256]' "$T/here")"
	# against the baseline: no lecture removed, none new
	qe-cache-extract "$(cache jupyter-cache/base)" > "$T/base"
	run -0 jq -c 'select(.kind == "notebook-diff") | .verdict' <(qe-cell-diff "$T/base" <(qe-cache-extract --since 2026-11-29T14:32:10Z "$T/c"))
	refute_output --partial removed
	refute_output --partial new
	assert_equal "${#lines[@]}" 7
	# with -r the same names, whichever checkout -r names
	run -0 jq -c 'select(.kind == "notebook") | .document' <(qe-cache-extract --root /tmp/lecture-demo/lectures "$T/c")
	assert_equal "$output" "$(jq -c 'select(.kind == "notebook") | .document' <(qe-cache-extract "$T/c"))"
	# a root none of the cache's paths is below only maps paths to names: the failure is this build's
	run -0 jq -c 'select(.kind == "notebook" and .document == "broken") | .origin' \
		<(qe-cache-extract --since 2026-11-29T14:32:10Z --root /runner/ws/lecture-demo/lectures "$(cache jupyter-cache/head-incremental)")
	assert_output '"executed"'
}

@test "the timed cache and plain nbclient runs of the same book agree on structure" {
	qe-cache-extract "$(cache jupyter-cache-timed/base)" | jq -c 'select(.kind == "cell") | [.document, .index, .label, .source_sha256, .status]' > "$T/cache"
	qe-cache-extract "$(shared nbclient/base)" | jq -c 'select(.kind == "cell" and .document != "broken") | [.document, .index, .label, .source_sha256, .status]' > "$T/nbclient"
	run -0 diff "$T/cache" "$T/nbclient"
}

@test "nbclient notebook files: the failing one and its aborted cell" {
	run -0 --separate-stderr qe-cache-extract "$(shared nbclient/base)"
	printf '%s\n' "$output" > "$T/out"
	run -0 jq -c 'select(.document == "broken") | [.kind, .index, .status, .timing_note, .error]' "$T/out"
	assert_output $'["notebook",null,"failed",null,"ValueError: deliberate failure for the fixture"]\n["cell",0,"ok",null,null]\n["cell",1,"error",null,"ValueError: deliberate failure for the fixture"]\n["cell",2,"not-run","not-executed",null]'
	run -0 jq -sc '[.[] | select(.kind == "notebook") | .document]' "$T/out"
	assert_output '["broken","dynamics/markov","errors_allowed","images","intro","numba_demo","stale_timing"]'
	run -0 validate "$T/out"
}

@test "papermill 2.6.0 (naive) and main (+00:00): pending cells, same clock" {
	for v in papermill-2.6.0 papermill-main-83512185; do
		qe-cache-extract "$(shared papermill/$v)" > "$T/$v"
		run -0 validate "$T/$v"
	done
	run -0 jq -c 'select(.document == "broken") | [.kind, .status, .execution_seconds]' "$T/papermill-2.6.0"
	assert_output $'["notebook","failed",1.551997]\n["cell","ok",null]\n["cell","error",null]\n["cell","not-run",null]'
	# duration from the same writer pair whatever the offset style
	run -0 jq -c 'select(.label == "slow-sleep") | [.duration_s, .timing_source]' "$T/papermill-main-83512185"
	assert_output '[0.304036,"nbclient"]'
	run -0 jq -c 'select(.document == "intro" and .index == 6) | [.status, .duration_s]' "$T/papermill-2.6.0"
	assert_output '["not-run",null]'
}

@test "timestamp forms, writer precedence, skipped and impossible timings" {
	run -0 --separate-stderr qe-cache-extract "$(fixture qe-cache-extract/timestamps.ipynb)"
	assert_equal "$stderr" ""
	printf '%s\n' "$output" > "$T/out"
	run -0 jq -c 'select(.kind == "cell") | [.index, .status, (if .index == 9 then .duration_s == 0.000001 else .duration_s end), .timing_source, .timing_method, .timing_note, .start]' "$T/out"
	assert_line --index 0 '[0,"ok",0.304123,"nbclient","input-reply",null,"2026-11-29T14:30:11.300000Z"]'
	assert_line --index 1 '[1,"ok",0.5,"nbclient","input-reply",null,"2026-11-29T14:30:12.000000Z"]'
	assert_line --index 2 '[2,"ok",0.24478,"nbclient","input-reply",null,"2026-11-29T14:30:13.904000Z"]'
	assert_line --index 3 '[3,"ok",0.25,"jupyterlab","started-reply",null,"2026-11-29T14:30:15.001000Z"]'
	assert_line --index 4 '[4,"ok",null,null,null,"no-timing",null]'
	assert_line --index 5 '[5,"ok",1.170553,"executetime","start-end",null,"2017-04-22T16:27:39.829447Z"]'
	assert_line --index 6 '[6,"ok",0.5,"executetime","start-end","approximate","2016-02-11T18:51:18.536796Z"]'
	assert_line --index 7 '[7,"ok",null,null,null,"invalid",null]'
	assert_line --index 8 '[8,"skipped",null,null,null,"skipped",null]'
	assert_line --index 9 '[9,"ok",true,"nbclient","input-reply",null,"2026-11-29T14:30:21.000000Z"]'
	run -0 jq -c 'select(.kind == "notebook") | [.code_cells, .timed_cells, .discarded_timings, .created]' "$T/out"
	assert_output '[10,7,1,"2026-11-29T14:30:21.000001Z"]'
	run -0 jq -r 'select(.index == 9) | [.label, .first_line] | join("|")' "$T/out"
	assert_output 'fig-résumé|plt.plot([1, 2])'
	run -0 validate "$T/out"
}

@test "first line: first non-blank line, cut at 80 characters on a UTF-8 boundary" {
	long=$(printf 'λ%.0s' $(seq 200))
	jq -n --arg s "$long" '{nbformat: 4, nbformat_minor: 5, metadata: {}, cells: [{cell_type: "code", metadata: {}, outputs: [], execution_count: null, source: ["\n", $s]}]}' > "$T/long.ipynb"
	run -0 --separate-stderr qe-cache-extract "$T/long.ipynb"
	run -0 jq -r 'select(.kind == "cell") | .first_line' <<< "$output"
	assert_output "$(printf 'λ%.0s' $(seq 80))…"
}

@test "bad inputs: each reported as prog: path: reason, exit 2, good records still flow" {
	printf '{"cells": [' > "$T/truncated.ipynb"
	printf '{"hello": "world"}' > "$T/notanotebook.ipynb"
	mkdir "$T/dir.ipynb"
	mkdir -p "$T/corrupt/executed"
	head -c 4096 /dev/urandom > "$T/corrupt/global.db"
	mkdir -p "$T/text"
	echo 'not sqlite at all' > "$T/text/global.db"
	mkdir -p "$T/wrong"
	sqlite3 "$T/wrong/global.db" 'CREATE TABLE other (x);'
	(cd "$(shared nbclient/base)" && zip -q -r "$T/nocache.zip" lectures)
	good="$(cache jupyter-cache/base)"
	run -2 --separate-stderr qe-cache-extract "$T/truncated.ipynb" "$T/notanotebook.ipynb" "$T/dir.ipynb" \
		"$T/corrupt" "$T/text" "$T/wrong" "$T/nocache.zip" "$T/missing" "$good"
	assert_equal "$output" "$(qe-cache-extract "$good")"
	assert_equal "${stderr_lines[0]}" "qe-cache-extract: $T/truncated.ipynb:1: invalid JSON at column 11"
	assert_equal "${stderr_lines[1]}" "qe-cache-extract: $T/notanotebook.ipynb: not a notebook: no 'nbformat' and 'cells'"
	assert_equal "${stderr_lines[2]}" "qe-cache-extract: $T/dir.ipynb: no jupyter-cache and no notebooks found"
	assert_equal "${stderr_lines[3]}" "qe-cache-extract: $T/corrupt/global.db: file is not a database"
	assert_equal "${stderr_lines[4]}" "qe-cache-extract: $T/text/global.db: file is not a database"
	assert_equal "${stderr_lines[5]}" "qe-cache-extract: $T/wrong/global.db: not a jupyter-cache database (no table 'nbcache')"
	assert_equal "${stderr_lines[6]}" "qe-cache-extract: $T/nocache.zip: no jupyter-cache (no global.db) in the archive"
	assert_equal "${stderr_lines[7]}" "qe-cache-extract: $T/missing: No such file or directory"
	assert_equal "${#stderr_lines[@]}" 8
}

@test "archives: an artifact of _build without hidden files, two caches, unsafe names" {
	mkdir -p "$T/b/_build/html" "$T/b/_build/jupyter_execute"
	echo x > "$T/b/_build/html/index.html"
	(cd "$T/b/_build" && zip -q -r "$T/nohidden.zip" html jupyter_execute)
	run -2 --separate-stderr qe-cache-extract "$T/nohidden.zip"
	assert_equal "$stderr" "qe-cache-extract: $T/nohidden.zip: no jupyter-cache (no global.db) in the archive; an artifact of _build made without 'include-hidden-files: true' has no .jupyter_cache"
	mkdir -p "$T/two/a" "$T/two/b"
	cp -r "$(cache jupyter-cache/base)" "$T/two/a/.jupyter_cache"
	cp -r "$(cache jupyter-cache/head)" "$T/two/b/.jupyter_cache"
	tar -C "$T/two" -czf "$T/two.tar.gz" a b
	run -2 --separate-stderr qe-cache-extract "$T/two.tar.gz"
	assert_equal "$stderr" "qe-cache-extract: $T/two.tar.gz: two caches: 'a/.jupyter_cache/global.db' and 'b/.jupyter_cache/global.db'"
	assert_output ""
	/usr/bin/python3 - "$T/evil.tar" "$(cache jupyter-cache/base)" <<-'PY'
	import sys, tarfile, io
	with tarfile.open(sys.argv[1], "w") as t:
	    t.add(sys.argv[2], arcname=".jupyter_cache")
	    for name in ("/etc/evil", "../evil", "x/../../evil"):
	        data = b"evil"
	        info = tarfile.TarInfo(name); info.size = len(data)
	        t.addfile(info, io.BytesIO(data))
	    link = tarfile.TarInfo(".jupyter_cache/executed/link"); link.type = tarfile.SYMTYPE; link.linkname = "/etc/passwd"
	    t.addfile(link)
	PY
	run -2 --separate-stderr qe-cache-extract "$T/evil.tar"
	assert_equal "${stderr_lines[0]}" "qe-cache-extract: $T/evil.tar: member '/etc/evil': absolute or '..' name, skipped"
	assert_equal "${stderr_lines[1]}" "qe-cache-extract: $T/evil.tar: member '../evil': absolute or '..' name, skipped"
	assert_equal "${stderr_lines[2]}" "qe-cache-extract: $T/evil.tar: member 'x/../../evil': absolute or '..' name, skipped"
	assert_equal "${#stderr_lines[@]}" 3
	assert_equal "$(jq -s 'length' <<< "$output")" 31
	[ ! -e "$BATS_TEST_TMPDIR/../evil" ] && [ ! -e /etc/evil ]
}

@test "a cache written before jupyter-cache 0.5 (nbstage) is read" {
	mkdir -p "$T/old/executed"
	cp -r "$(cache jupyter-cache/base)/executed/c290f15f509d592015f141782d681772" "$T/old/executed/"
	sqlite3 "$T/old/global.db" <<-'SQL'
	CREATE TABLE nbcache (pk INTEGER PRIMARY KEY, hashkey VARCHAR(255) UNIQUE, uri VARCHAR(255), description VARCHAR(255), data JSON, created DATETIME, accessed DATETIME);
	CREATE TABLE nbstage (pk INTEGER PRIMARY KEY, uri VARCHAR(255) UNIQUE, assets JSON, traceback TEXT, created DATETIME);
	INSERT INTO nbcache VALUES (1, 'c290f15f509d592015f141782d681772', '/book/intro.ipynb', '', '{"execution_seconds": 2.5}', '2021-03-01 10:00:00.000001', '2021-03-01 10:00:00.000001');
	INSERT INTO nbstage VALUES (1, '/book/bad.ipynb', '[]', 'Traceback (most recent call last):' || char(10) || '  File "x"' || char(10) || char(27) || '[0;31mKeyError' || char(27) || '[0m: ''k''' || char(10), '2021-03-01 09:00:00');
	SQL
	run -0 --separate-stderr qe-cache-extract "$T/old"
	run -0 jq -c 'select(.kind == "notebook") | [.document, .status, .error, .execution_seconds, .created]' <<< "$output"
	assert_output $'["bad","failed","KeyError: \'k\'",null,null]\n["intro","ok",null,2.5,"2021-03-01T10:00:00.000001Z"]'
}

@test "--max-notebook bounds what is read; bad option values are usage errors" {
	run -2 --separate-stderr qe-cache-extract --max-notebook 1000 "$(shared nbclient/base/lectures/intro.ipynb)"
	assert_equal "$stderr" "qe-cache-extract: $(shared nbclient/base/lectures/intro.ipynb): notebook larger than 1000 bytes (see --max-notebook)"
	run -2 --separate-stderr qe-cache-extract --since yesterday "$(cache jupyter-cache/base)"
	assert_equal "${stderr_lines[0]}" "qe-cache-extract: --since: 'yesterday' is not a timestamp (YYYY-MM-DDTHH:MM:SS[.f][Z|+HH:MM])"
	assert_output ""
}

@test "a cached notebook missing from executed/: reported, the other records still flow" {
	cp -r "$(cache jupyter-cache/base)" "$T/c"
	chmod -R u+w "$T/c"
	rm "$T/c/executed/c290f15f509d592015f141782d681772/base.ipynb"
	run -2 --separate-stderr qe-cache-extract "$T/c"
	assert_equal "$stderr" "qe-cache-extract: $T/c/executed/c290f15f509d592015f141782d681772/base.ipynb: No such file or directory"
	run -0 jq -sc '[.[] | select(.kind == "notebook") | .document]' <<< "$output"
	assert_output '["broken","dynamics/markov","errors_allowed","images","numba_demo","stale_timing"]'
}

# --timings: the hook's log joined to a real cache made with the hook armed
# (tests/fixtures/hook, made by make-hook-fixture.py with real kernels).

# log_durations LOG: per run, the durations of its cells in seq order
log_durations() {
	jq -sc 'map(select(.event == "end")) | group_by(.run) | map(sort_by(.seq) | map(.duration_s)) | sort' "$1"
}

# extract_durations FILE: per notebook, the hook durations of its cells
extract_durations() {
	jq -sc '[.[] | select(.kind == "cell" and .timing_source == "hook")] | group_by(.document) | map(map(.duration_s)) | sort' "$1"
}

@test "--timings: every executed cell takes the hook's own duration, matched by digest" {
	for v in cache parallel; do
		H="$(fixture hook/$v)"
		run -0 --separate-stderr qe-cache-extract -t "$H/hook.log" "$H/.jupyter_cache"
		assert_equal "$stderr" ""
		printf '%s\n' "$output" > "$T/$v"
		run -0 validate "$T/$v"
		# all runs but the failed notebook's are joined, each value exactly
		jq -c 'select(.cwd | endswith("/lectures")) | select(.event == "end" and .success == false and .error == "ValueError") | .run' "$H/hook.log" > "$T/failed-run"
		run -0 diff <(jq -sc --slurpfile f "$T/failed-run" '[.[] | select(.event == "end" and ([.run] | inside($f) | not))] | group_by(.run) | map(sort_by(.seq) | map(.duration_s)) | sort' "$H/hook.log") \
			<(extract_durations "$T/$v")
		run -0 jq -sc '[.[] | select(.kind == "cell" and .timing_source != "hook") | [.document, .index, .status]]' "$T/$v"
		assert_output '[["intro",6,"not-run"],["twins/a/twin",2,"skipped"],["twins/b/twin",2,"skipped"]]'
		run -0 jq -c 'select(.label == "slow-sleep" or .label == "markov-simulate" or .label == "stale-sleep") | [.label, .timing_method, .duration_s > 0.19, .duration_s < 0.35]' "$T/$v"
		assert_output $'["markov-simulate","in-kernel",true,true]\n["slow-sleep","in-kernel",true,true]\n["stale-sleep","in-kernel",true,true]'
	done
}

@test "--timings: identical notebooks in parallel kernels need the kernel's folder, else ambiguous" {
	H="$(fixture hook/parallel)"
	jq -c 'del(.cwd)' "$H/hook.log" > "$T/nocwd.log"
	run -0 --separate-stderr qe-cache-extract -t "$T/nocwd.log" "$H/.jupyter_cache"
	printf '%s\n' "$output" > "$T/out"
	key_a=$(jq -r 'select(.kind == "notebook" and .document == "twins/a/twin") | .cache_key' "$T/out")
	key_b=$(jq -r 'select(.kind == "notebook" and .document == "twins/b/twin") | .cache_key' "$T/out")
	assert_equal "${stderr_lines[0]}" "qe-cache-extract: $H/.jupyter_cache/executed/$key_a/base.ipynb: several runs in '$T/nocwd.log' match 'twins/a/twin': no hook timing taken"
	assert_equal "${stderr_lines[1]}" "qe-cache-extract: $H/.jupyter_cache/executed/$key_b/base.ipynb: several runs in '$T/nocwd.log' match 'twins/b/twin': no hook timing taken"
	run -0 jq -c 'select(.document == "twins/a/twin" and .index == 1) | [.duration_s, .timing_note]' "$T/out"
	assert_output '[null,"ambiguous"]'
	run -0 jq -c 'select(.label == "slow-sleep") | .timing_source' "$T/out"
	assert_output '"hook"'
}

@test "--timings: a run whose digests match nothing is reported; bad log lines are rejected" {
	H="$(fixture hook/cache)"
	sleep_digest=$(qe-cache-extract "$H/.jupyter_cache" | jq -r 'select(.label == "slow-sleep") | .source_sha256')
	intro_run=$(jq -r --arg d "$sleep_digest" 'select(.event == "end" and .source_sha256 == $d) | .run' "$H/hook.log")
	jq -c --arg r "$intro_run" 'if .run == $r and .seq == 2 then .source_sha256 = ("0" * 64) else . end' "$H/hook.log" > "$T/edited.log"
	printf '{"qe_hook":1,"event":"end","run":"x"}\nnot json\n' >> "$T/edited.log"
	run -2 --separate-stderr qe-cache-extract -t "$T/edited.log" "$H/.jupyter_cache"
	n=$(wc -l < "$T/edited.log")
	assert_equal "${stderr_lines[0]}" "qe-cache-extract: $T/edited.log:$((n - 1)): hook record with a missing or bad 'run', 'seq', 'source_sha256', 'start', 'end' or 'duration_s'"
	assert_equal "${stderr_lines[1]}" "qe-cache-extract: $T/edited.log:$n: invalid JSON at column 1"
	assert_equal "${stderr_lines[2]}" "qe-cache-extract: 2 lines rejected"
	assert_equal "${stderr_lines[3]}" "qe-cache-extract: $T/edited.log: run '$intro_run' (6 cells, cwd '/tmp/qe-hook-demo/lectures') matches no notebook"
	run -0 jq -sc '[.[] | select(.document == "intro" and .kind == "cell") | .timing_note] | unique' <<< "$output"
	assert_output '["no-timing","not-executed"]'
}

@test "--timings with --since: a log kept across builds; runs of kernels started before the build are another build's: not matched, not reported" {
	H="$(fixture hook/cache)"
	# an earlier build's run of a since-replaced notebook, its kernel started a day before
	jq -c --arg r "$(jq -r 'select(.cwd // "" | endswith("/dynamics")) | .run' "$H/hook.log" | head -n 1)" 'select(.run == $r and .seq <= 2 and .event != "env") | .run = "1-1" | .kernel_start = "2026-11-28T10:00:00.000000Z"
		| .start = "2026-11-28T10:00:01.000000Z" | if .event == "end" then .end = "2026-11-28T10:00:02.000000Z" else . end
		| .source_sha256 = ("ab" * 32)' "$H/hook.log" > "$T/kept.log"
	cat "$H/hook.log" >> "$T/kept.log"
	run -0 --separate-stderr qe-cache-extract -t "$T/kept.log" "$H/.jupyter_cache"
	assert_regex "$stderr" "run '1-1' \(2 cells, cwd '[^']*'\) matches no notebook"
	# with --since (the build's start) it is not this build's: nothing said
	run -0 --separate-stderr qe-cache-extract -s 2026-11-29T00:00:00Z -t "$T/kept.log" "$H/.jupyter_cache"
	assert_equal "$stderr" ""
	run -0 jq -sc '[.[] | select(.kind == "cell") | .timing_source] | group_by(.) | map([.[0], length])' <<< "$output"
	printf '%s\n' "$output" > "$T/with"
	# this build's kernels still join: the same hook timings as without the old run
	run -0 bash -c 'qe-cache-extract -s 2026-11-29T00:00:00Z -t "$1" "$2" | jq -sc "[.[] | select(.kind == \"cell\") | .timing_source] | group_by(.) | map([.[0], length])"' _ "$H/hook.log" "$H/.jupyter_cache"
	assert_output "$(cat "$T/with")"
	assert_output --partial '["hook",'
	# a --since after a run's kernel started drops that run: its notebook's cells get no hook timing
	run -0 --separate-stderr bash -c 'qe-cache-extract -s 2026-11-29T15:45:44.5Z -t "$1" "$2" | jq -c "select(.kind == \"notebook\") | [.document, .timed_cells]"' _ "$H/hook.log" "$H/.jupyter_cache"
	assert_line '["intro",0]'
	assert_line '["numba_demo",5]'
}

@test "memory is bounded by the largest notebook, not by the cache size" {
	[ -z "${QE_VALGRIND:-}${QE_SANITIZED:-}" ] || skip "peak RSS means nothing under valgrind or ASan"
	make_big_cache "$T/c10" 10
	make_big_cache "$T/c80" 80
	(cd "$T/c80" && zip -q -r "$T/c80.zip" global.db executed)
	nb=$(($(stat -c %s "$T/c10/big.ipynb") / 1024))
	base=$("$TESTS_DIR/tools/maxrss.py" qe-cache-extract --version)
	r10=$("$TESTS_DIR/tools/maxrss.py" qe-cache-extract "$T/c10")
	r80=$("$TESTS_DIR/tools/maxrss.py" qe-cache-extract "$T/c80")
	rzip=$("$TESTS_DIR/tools/maxrss.py" qe-cache-extract "$T/c80.zip")
	echo "notebook ${nb} KiB; peak RSS KiB: baseline $base, 10 records $r10, 80 records $r80, 80 in a zip $rzip"
	# 8 times the notebooks cost (almost) nothing more
	(( r80 - r10 < 1024 )) || fail "80 notebooks took $((r80 - r10)) KiB more than 10"
	(( rzip - r80 < 2048 )) || fail "the archive took $((rzip - r80)) KiB more than the directory"
	# one notebook's text plus its cJSON tree (see CAVEATS in the man page)
	(( r80 - base < 5 * nb )) || fail "$((r80 - base)) KiB above baseline for a $nb KiB notebook"
	run -0 bash -c 'qe-cache-extract "$1" | wc -l' _ "$T/c80.zip"
	assert_output 160
}

@test "the stock and the timed cache of one book agree on every cell but the timing" {
	for v in base:23 head:24; do
		timed=${v#*:} v=${v%:*}
		qe-cache-extract "$(cache jupyter-cache/$v)" | jq -c 'select(.kind == "cell") | [.document, .index, .label, .tags, .source_sha256, .status, .execution_count, .error]' > "$T/stock"
		qe-cache-extract "$(cache jupyter-cache-timed/$v)" | jq -c 'select(.kind == "cell") | [.document, .index, .label, .tags, .source_sha256, .status, .execution_count, .error]' > "$T/timed"
		run -0 diff "$T/stock" "$T/timed"
		run -0 jq -sc '[.[] | select(.kind == "cell") | .timing_source] | group_by(.) | map([.[0], length])' <(qe-cache-extract "$(cache jupyter-cache-timed/$v)")
		assert_output "[[null,1],[\"nbclient\",$timed]]"
	done
}

@test "unreadable files and folders: reported, the readable ones still flow" {
	d=$(mktemp -d /tmp/qe-unreadable.XXXXXX)
	chmod 755 "$d"
	cp "$(shared nbclient/base/lectures/intro.ipynb)" "$d/good.ipynb"
	cp "$(shared nbclient/base/lectures/images.ipynb)" "$d/secret.ipynb"
	mkdir -p "$d/locked" "$d/cache"
	cp -r "$(cache jupyter-cache/base)/." "$d/cache/"
	chmod -R a+rX "$d"
	chmod 000 "$d/secret.ipynb" "$d/locked" "$d/cache/global.db"
	as_user=()
	if [ "$(id -u)" = 0 ]; then
		as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	fi
	# the tool runs from $d too: the checkout may sit where that user cannot look
	mkdir "$d/bin" && cp "$(command -v qe-cache-extract)" "$d/bin/"
	run -2 --separate-stderr "${as_user[@]}" "$d/bin/qe-cache-extract" "$d/good.ipynb" "$d/secret.ipynb" "$d/locked" "$d/cache"
	assert_equal "${stderr_lines[0]}" "qe-cache-extract: $d/secret.ipynb: Permission denied"
	assert_equal "${stderr_lines[1]}" "qe-cache-extract: $d/locked: Permission denied"
	assert_equal "${stderr_lines[2]}" "qe-cache-extract: $d/locked: no jupyter-cache and no notebooks found"
	assert_equal "${stderr_lines[3]}" "qe-cache-extract: $d/cache/global.db: Permission denied"
	run -0 jq -sc '[.[] | select(.kind == "notebook") | .document]' <<< "$output"
	assert_output '["good"]'
	chmod -R u+rwX "$d"
	rm -rf "$d"
}

@test "an empty cache (no records yet) prints nothing and is not an error" {
	mkdir -p "$T/empty"
	sqlite3 "$T/empty/global.db" 'CREATE TABLE nbcache (pk INTEGER PRIMARY KEY, hashkey VARCHAR(255) UNIQUE, uri VARCHAR(255), description VARCHAR(255), data JSON, created DATETIME, accessed DATETIME); CREATE TABLE nbproject (pk INTEGER PRIMARY KEY, uri VARCHAR(255) UNIQUE, read_data JSON, assets JSON, exec_data JSON, created DATETIME, traceback TEXT);'
	run -0 --separate-stderr qe-cache-extract "$T/empty"
	assert_output ""
	assert_equal "$stderr" ""
}

@test "a timing from year 1 to year 9999: no int64 overflow (fuzz-notebook); beyond 366 days it is invalid" {
	run -0 --separate-stderr qe-cache-extract "$(fixture hostile/span-10000-years.ipynb)"
	assert_equal "$stderr" ""
	run -0 jq -c 'select(.kind == "cell") | [.index, .duration_s, .timing_note]' <<< "$output"
	assert_output $'[0,null,"invalid"]\n[1,null,"invalid"]'
}

@test "an archive whose global.db is SQLite but not a cache: reported once, no double free (fuzz-archive)" {
	mkdir -p "$T/w/.jupyter_cache"
	sqlite3 "$T/w/.jupyter_cache/global.db" 'CREATE TABLE other (x);'
	(cd "$T/w" && zip -q -r "$T/wrong.zip" .jupyter_cache)
	run -2 --separate-stderr qe-cache-extract "$T/wrong.zip" "$(cache jupyter-cache/base)"
	assert_equal "$stderr" "qe-cache-extract: $T/wrong.zip:.jupyter_cache/global.db: not a jupyter-cache database (no table 'nbcache')"
	assert_output "$(qe-cache-extract "$(cache jupyter-cache/base)")"
}

# ---- cell names (issue 28): label, exercise/solution block, what the code says

@test "names: every cell of the fixture books reads as tests/fixtures/names/names.golden" {
	S="$SHARED_FIXTURES"
	N="$TESTS_DIR/fixtures/names/book/_build/.jupyter_cache"
	{
		sed -n '1,3p' "$TESTS_DIR/fixtures/names/names.golden"
		qe-cache-extract "$N" | python3 "$TESTS_DIR/tools/cell_names.py"
		for v in base head; do
			echo "## shared/jupyter-cache/$v (--jupyter-execute shared/mystnb-build/$v/jupyter_execute)"
			qe-cache-extract --jupyter-execute "$S/mystnb-build/$v/jupyter_execute" \
			    "$S/jupyter-cache/$v/.jupyter_cache" | python3 "$TESTS_DIR/tools/cell_names.py"
		done
	} > "$T/names"
	run -0 diff -u "$TESTS_DIR/fixtures/names/names.golden" "$T/names"
}

@test "names: exercise and solution blocks, magics shown, comments skipped; fields valid" {
	run -0 --separate-stderr qe-cache-extract "$TESTS_DIR/fixtures/names/book/_build/.jupyter_cache"
	assert_equal "$stderr" ""
	printf '%s\n' "$output" > "$T/out"
	run -0 validate "$T/out"
	run -0 jq -c 'select(.document == "ar1_processes" and .kind == "cell" and .block != null) | [.index, .block, .block_label, .label]' "$T/out"
	assert_output $'[6,"solution","ar1p_ex1",null]\n[7,"solution","ar1p_ex1",null]\n[8,"exercise","ar1p_ex2",null]\n[9,"solution","ar1p_ex2",null]'
	# the raw first line stays as it was; the name says what the cell does
	run -0 jq -c 'select(.document == "ar1_processes" and .index == 3) | [.first_line, .name]' "$T/out"
	assert_output '["%%time","rng = np.random.default_rng(1) (%%time)"]'
	run -0 jq -c 'select(.document == "ar1_processes" and .index == 5) | [.label, .name]' "$T/out"
	assert_output '["ar1-plot","ar1-plot"]'
}

@test "names: a book's cache without _build/jupyter_execute says so once, exit 0, names from code" {
	mkdir -p "$T/a/_build" "$T/b/_build"
	cp -r "$TESTS_DIR/fixtures/names/book/_build/.jupyter_cache" "$T/a/_build/"
	cp -r "$TESTS_DIR/fixtures/names/book/_build/.jupyter_cache" "$T/b/_build/"
	run -0 --separate-stderr qe-cache-extract "$T/a/_build/.jupyter_cache" "$T/b/_build/.jupyter_cache"
	assert_equal "$(grep -c 'note: .*named from their code alone' <<< "$stderr")" 1
	assert_equal "$(wc -l <<< "$stderr")" 1
	printf '%s\n' "$output" > "$T/out"
	run -0 jq -r 'select(.kind == "cell" and .document == "ar1_processes" and .index == 6) | [.name, .block] | @tsv' "$T/out"
	assert_output $'from math import fsum\t\nfrom math import fsum\t'
	run -0 jq -r 'select(.kind == "notebook") | .names_from' "$T/out"
	assert_output $'none\nnone\nnone\nnone\nnone\nnone'
}

@test "names: an ipynb names its cells from its own markdown; stable when other cells change" {
	J="$TESTS_DIR/fixtures/names/book/_build/jupyter_execute/lectures/ar1_processes.ipynb"
	run -0 --separate-stderr qe-cache-extract "$J"
	assert_equal "$stderr" ""
	jq -c 'select(.kind == "cell") | [.source_sha256, .name]' <<< "$output" > "$T/before"
	# drop the first code cell and the exercise's prose: the others keep their names
	jq '.cells |= (del(.[1]) | map(if .cell_type == "markdown" then .source |= (if type == "array" then join("") else . end | sub("Here is one solution:"; "")) else . end))' "$J" > "$T/ar1_processes.ipynb"
	run -0 qe-cache-extract "$T/ar1_processes.ipynb"
	jq -c 'select(.kind == "cell") | [.source_sha256, .name]' <<< "$output" > "$T/after"
	run -0 diff <(tail -n +2 "$T/before") "$T/after"
	run -0 qe-cache-extract "$T/ar1_processes.ipynb"
	run -0 jq -r 'select(.kind == "notebook") | .names_from' <<< "$output"
	assert_output notebook
}

@test "names: without jupyter_execute, the MyST sources the URIs name give the same names (a CI checkout)" {
	B="$TESTS_DIR/fixtures/names/book"
	mkdir -p "$T/book/_build" "$T/moved"
	cp -r "$B/_build/.jupyter_cache" "$T/book/_build/"
	cp -r "$B/lectures" "$T/book/"
	sqlite3 "$T/book/_build/.jupyter_cache/global.db" \
	    "UPDATE nbcache SET uri = replace(uri, '/tmp/qe-names-demo', '$T/book');
	     UPDATE nbproject SET uri = replace(uri, '/tmp/qe-names-demo', '$T/book')"
	run -0 --separate-stderr qe-cache-extract "$T/book/_build/.jupyter_cache"
	assert_equal "$stderr" ""
	printf '%s\n' "$output" > "$T/src"
	run -0 jq -r 'select(.kind == "notebook") | .names_from' "$T/src"
	assert_output $'source\nsource\nsource'
	run -0 diff <(qe-cache-extract "$B/_build/.jupyter_cache" | jq -c 'select(.kind == "cell") | [.index, .name, .block, .block_label]') \
	    <(jq -c 'select(.kind == "cell") | [.index, .name, .block, .block_label]' "$T/src")
	# a URI is the cache's word: one through ".." names no source
	sqlite3 "$T/book/_build/.jupyter_cache/global.db" \
	    "UPDATE nbcache SET uri = replace(uri, '/lectures/intro', '/lectures/../lectures/intro')"
	run -0 --separate-stderr qe-cache-extract "$T/book/_build/.jupyter_cache"
	run -0 jq -rs 'map(select(.kind == "notebook") | [(.uri | split("/") | .[-1]), .names_from]) | sort[] | @tsv' <<< "$output"
	assert_output $'ar1_processes.md\tsource\nintro.md\tnone\nlake_model.md\tsource'
	# no source and no build notebooks beside a book's cache: said once
	rm -r "$T/book/lectures"
	run -0 --separate-stderr qe-cache-extract "$T/book/_build/.jupyter_cache"
	assert_equal "$(grep -c 'named from their code alone' <<< "$stderr")" 1
}

@test "--builder: auto is mystmd for a myst.yml without Jupyter Book 1's _config.yml or _toc.yml; each builder's build folder and what to read (nothing yet: read= empty)" {
	local d="$BATS_TEST_TMPDIR"
	mkdir -p "$d/my/lectures" "$d/jb/lectures" "$d/both/lectures" "$d/toc/lectures" "$d/jb/_build/.jupyter_cache"
	touch "$d/my/lectures/myst.yml" "$d/both/lectures/myst.yml" "$d/both/lectures/_config.yml" \
		"$d/toc/lectures/myst.yml" "$d/toc/lectures/_toc.yml" "$d/jb/lectures/_config.yml" "$d/jb/_build/.jupyter_cache/global.db"
	for w in my jb both toc; do
		run -0 --separate-stderr qe-cache-extract --builder auto "$d/$w/lectures" "$d/$w/_build"
		assert_equal "$stderr" ""
		echo "$w ${lines[0]}" >> "$d/got"
	done
	run -0 cat "$d/got"
	assert_output "my builder=mystmd
jb builder=jupyter-book
both builder=jupyter-book
toc builder=jupyter-book"
	# mystmd: the project's own _build, whatever build says; read once it executed
	run -0 qe-cache-extract --builder auto "$d/my/lectures" "$d/my/_build"
	assert_output "builder=mystmd
build=$d/my/lectures/_build
read="
	mkdir -p "$d/my/lectures/_build/execute"
	run -0 qe-cache-extract --builder mystmd "$d/my/lectures" "$d/my/_build"
	assert_line "read=$d/my/lectures"
	# without myst.yml in source: the parent of build is the project
	run -0 qe-cache-extract --builder mystmd "$d/jb/lectures" "$d/my/lectures/_build"
	assert_output "builder=mystmd
build=$d/my/lectures/_build
read=$d/my/lectures"
	# Jupyter Book: the cache given, else build's .jupyter_cache, read when it holds global.db
	run -0 qe-cache-extract --builder jupyter-book "$d/jb/lectures" "$d/jb/_build"
	assert_output "builder=jupyter-book
build=$d/jb/_build
read=$d/jb/_build/.jupyter_cache"
	run -0 qe-cache-extract --builder jupyter-book "$d/jb/lectures" "$d/jb/_build" "$d/elsewhere"
	assert_line "read="
}

@test "--builder: another builder, a path with a newline or a wrong number of operands is a usage error (exit 2, one line), nothing on stdout" {
	run -2 --separate-stderr qe-cache-extract --builder sphinx a b
	assert_output ""
	assert_equal "$stderr" "qe-cache-extract: --builder: expected auto, jupyter-book or mystmd, got 'sphinx'"
	run -2 --separate-stderr qe-cache-extract --builder auto $'a\nb' c
	assert_output ""
	assert_equal "$stderr" "qe-cache-extract: --builder: a path holds a newline"
	run -2 --separate-stderr qe-cache-extract --builder auto a
	assert_output ""
	assert_equal "$stderr" "qe-cache-extract: --builder takes the lecture folder, the build folder and the cache folder (optional), not 1 operands"
}

@test "names: one name per cell in a lecture whose cells open alike (lake_model): ordinals in document order, %%file by its file; the same over two extractions and from the cache, the build's notebook and the MyST source" {
	N="$TESTS_DIR/fixtures/names/book/_build/.jupyter_cache"
	J="$TESTS_DIR/fixtures/names/book/_build/jupyter_execute/lectures/lake_model.ipynb"
	qe-cache-extract "$N" > "$T/one"
	# the cells whose code opens alike: five open "N = 100", two "lm = LakeModel()",
	# two define rate_steady_state (the text redefines the solution's function)
	run -0 jq -r 'select(.document == "lake_model" and .kind == "cell" and
	    (.first_line == "N = 100" or .first_line == "lm = LakeModel()" or (.first_line | startswith("def "))))
	    | "\(.index + 1)\t\(.first_line)\t\(.name)"' "$T/one"
	assert_output - <<-'EOF'
	4	def rate_steady_state(alpha, lmda):	def rate_steady_state(alpha, lmda):
	6	lm = LakeModel()	lm = LakeModel()
	7	N = 100	N = 100
	8	lm = LakeModel()	lm = LakeModel() (2nd)
	9	N = 100	solution lm_ex1: N = 100
	10	N = 100	solution lm_ex1: N = 100 (2nd)
	11	def rate_steady_state(alpha, lmda):	def rate_steady_state(alpha, lmda): (2nd)
	12	N = 100	N = 100 (2nd)
	14	N = 100	N = 100 (3rd)
	EOF
	# a cell written to a file is named by the file; its first line stays as it is
	run -0 jq -r 'select(.document == "lake_model" and .kind == "cell" and (.first_line | startswith("%%")))
	    | "\(.first_line)\t\(.name)"' "$T/one"
	assert_output $'%%file lake_params.py\tlake_params.py (%%file)\n%%writefile -a lake_params.py\tlake_params.py (%%writefile)'
	# stable: a second extraction, the build's notebook read as a notebook file, the
	# MyST source (no jupyter_execute) all name every cell alike
	qe-cache-extract "$N" > "$T/two"
	run -0 cmp "$T/one" "$T/two"
	jq -c 'select(.document == "lake_model" and .kind == "cell") | [.index, .name]' "$T/one" > "$T/cache"
	run -0 diff "$T/cache" <(qe-cache-extract "$J" | jq -c 'select(.kind == "cell") | [.index, .name]')
	mkdir -p "$T/book/_build"
	cp -r "$N" "$T/book/_build/"
	cp -r "$TESTS_DIR/fixtures/names/book/lectures" "$T/book/"
	sqlite3 "$T/book/_build/.jupyter_cache/global.db" "UPDATE nbcache SET uri = replace(uri, '/tmp/qe-names-demo', '$T/book')"
	qe-cache-extract "$T/book/_build/.jupyter_cache" > "$T/src"
	run -0 jq -r 'select(.document == "lake_model" and .kind == "notebook") | .names_from' "$T/src"
	assert_output source
	run -0 diff "$T/cache" <(jq -c 'select(.document == "lake_model" and .kind == "cell") | [.index, .name]' "$T/src")
}

@test "names: no two cells of a document share a name over the fixture books, caches and notebooks (the shared fixtures and the test books)" {
	S="$SHARED_FIXTURES"
	: > "$T/all"
	# cells OPERAND [OPTION...]: each cell of one operand's records as [operand, document, name]
	cells() {
		local op=$1
		shift
		{ qe-cache-extract "$@" "$op" 2> /dev/null || true; } |
		    jq -c --arg op "$op $*" 'select(.kind == "cell") | [$op, .document, .name]' >> "$T/all"
	}
	for v in base head; do
		cells "$S/jupyter-cache/$v/.jupyter_cache" --jupyter-execute "$S/mystnb-build/$v/jupyter_execute"
	done
	# every cache as it is, each notebook file on its own (two folders may
	# hold documents of one name)
	while IFS= read -r -d '' f; do
		cells "$f"
	done < <(find "$TESTS_DIR/fixtures" -not -path '*/hostile/*' \( -name .jupyter_cache -o \
	    \( -name '*.ipynb' -not -path '*/.jupyter_cache/*' \) \) -print0)
	# the set holds the lecture whose cells once shared names (lake_model: the
	# cache and the build's notebook), and the rest: 90 documents, 500 cells
	[ "$(jq -s 'map(select(.[1] == "lake_model")) | length' "$T/all")" -eq 28 ]
	[ "$(jq -s 'map(.[0:2]) | unique | length' "$T/all")" -ge 90 ]
	[ "$(wc -l < "$T/all")" -ge 500 ]
	run -0 jq -rs 'map(select(.[2] != null)) | group_by(.) | map(select(length > 1) | .[0] | @tsv) | .[]' "$T/all"
	assert_output ''
}

@test "names: the replicate path names each cell as the build path does (qe-replicate -d runs the cache's own notebook, real kernels); the replicate section shows each unique name once" {
	N="$TESTS_DIR/fixtures/names/book/_build/.jupyter_cache"
	mkdir -p "$T/cwd"
	export IPYTHONDIR="$T/ipython"
	# the cache's notebook holds code cells only: the names come from its build's notebook
	run -0 --separate-stderr /usr/bin/python3 "$(command -v qe-replicate)" -q -k 1 -C "$T/cwd" \
	    --keep-runs "$T/runs" -d lake_model "$N" "$N"
	printf '%s\n' "$output" > "$T/rep"
	validate "$T/rep"
	qe-cache-extract "$N" | jq -c 'select(.document == "lake_model" and .kind == "cell") | [.index, .name, .block, .block_label]' > "$T/build"
	[ "$(wc -l < "$T/build")" -eq 14 ]
	for v in base head; do
		run -0 diff "$T/build" <(jq -c --arg v "$v" 'select(.kind == "cell" and .version == $v) | [.index, .name, .block, .block_label]' "$T/rep")
	done
	run -0 jq -r 'select(.kind == "notebook") | .names_from' "$T/rep"
	assert_output $'build\nbuild'
	# the kept run folders read again: the same names
	run -0 diff <(jq -c 'select(.kind == "cell") | [.version, .index, .name]' "$T/rep") \
	    <(qe-cache-extract --runs "$T/runs" | jq -c 'select(.kind == "cell") | [.version, .index, .name]')
	# the run's notebook away from its cache: named from its code alone, as any notebook file
	cp "$T"/runs/*-head-1/notebook.ipynb "$T/lake_model.ipynb"
	run -0 jq -r 'select(.kind == "cell" and .index == 8) | .name' <(qe-cache-extract "$T/lake_model.ipynb")
	assert_output 'N = 100 (2nd)'
	# the replicate section (qe-cell-diff of the runs, qe-comment -s): every cell, each name once
	qe-cell-diff "$T/rep" "$T/rep" > "$T/rd"
	run -0 qe-comment -s -t Replicate "$T/rd"
	grep -o '| lake\\_model | code cell [0-9]* `[^`]*`' <<< "$output" | sed 's/.*code cell //' > "$T/shown"
	run -0 cat "$T/shown"
	assert_output - <<-'EOF'
	1 `import numpy as np`
	2 `lake_params.py (%%file)`
	3 `from lake_params import alpha, lmda`
	4 `def rate_steady_state(alpha, lmda):`
	5 `class LakeModel:`
	6 `lm = LakeModel()`
	7 `N = 100`
	8 `lm = LakeModel() (2nd)`
	9 `solution lm_ex1: N = 100`
	10 `solution lm_ex1: N = 100 (2nd)`
	11 `def rate_steady_state(alpha, lmda): (2nd)`
	12 `N = 100 (2nd)`
	13 `lake_params.py (%%writefile)`
	14 `N = 100 (3rd)`
	EOF
}
