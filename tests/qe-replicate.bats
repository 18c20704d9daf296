#!/usr/bin/env bats
# qe-replicate: as-used replicate runs with real kernels (Debian's
# /usr/bin/python3, python3-nbclient, python3-ipykernel), then qe-cell-diff's
# replicate mode on its records.
#
# The kernel runs happen once, in setup_file (78 kernel starts, three to four
# minutes on a loaded 2-core machine), on the notebooks of tests/replicate/make.py;
# the tests read the records. Every designed effect is at least 3x, far
# beyond the 2x a loaded machine adds:
#   J  plain vs jit, K=4, --warm: as used 0.2 s vs 1.02 s; warm 0.2 vs 0.02 s (run folders kept)
#   S  plain vs slow, K=5: "calls" 0.2 -> 0.6 s; "result" prints 4 vs 5
#   AA plain vs plain, K=5
#   SF, SS plain vs slow on a 2.5x faster and a 2x slower machine (every
#      sleep scaled), K=5: the lecture +0.16 s and +0.8 s, both under 1 s
#   B  var vs var-bug, K=2: a numerical bug, 0.4 s -> 1 ms, "report" differs
#   N  loops vs loops-numba, K=4, --warm: a real numba conversion
#   R  redefine vs redefine, K=2, --warm: the warm pass raises TypeError
#   F  plain vs fail, K=1, and plain vs hang (60 s) with -t 15, K=1
#   M  mem0 vs mem, K=1: "alloc" 8 kB vs 300 MiB
#   P  jaxlec/base vs jaxlec/head, K=1: a stand-in JAX on a GPU vs on the CPU
#   C  -d dynamics/markov from the shared base and head caches, K=1
#   V  volatile vs volatile, K=2: addresses, %time, %timeit, a progress bar, ANSI
load helper

load replicate

# In the comment a duration's unit and an arrow's first space are no-break
# spaces: D matches a duration, TO the arrow between two.
NBSP=$'\xc2\xa0'
TO="${NBSP}→ "
D="[0-9.<]+${NBSP}(ms|s)"

# rep ARGS...: qe-replicate run by the Python that has nbclient
setup_file() {
	local w="$BATS_FILE_TMPDIR"
	mkdir -p "$w/lec/dynamics"
	"$PY" "$TESTS_DIR/replicate/make.py" "$w/lec"
	cp -R "$(shared jupyter-cache/base)" "$w/base" && cp -R "$(shared jupyter-cache/head)" "$w/head"
	chmod -R u+w "$w/base" "$w/head"
	export IPYTHONDIR="$w/ipython"
	(
		cd "$w/lec" || exit
		replicate_into "$w" J -k 4 --warm -n lecture --keep-runs "$w/J.runs" plain.ipynb jit.ipynb
		replicate_into "$w" S -k 5 -n lecture plain.ipynb slow.ipynb
		replicate_into "$w" AA -k 5 plain.ipynb plain.ipynb
		replicate_into "$w" SF -k 5 -n lecture fast.ipynb fast-slow.ipynb
		replicate_into "$w" SS -k 5 -n lecture slowmachine.ipynb slowmachine-slow.ipynb
		replicate_into "$w" B -k 2 -n var var.ipynb var-bug.ipynb
		replicate_into "$w" N -k 4 --warm -n loops loops.ipynb loops-numba.ipynb
		replicate_into "$w" R -k 2 --warm -n redefine redefine.ipynb redefine.ipynb
		replicate_into "$w" F1 -k 1 -n lecture plain.ipynb fail.ipynb
		replicate_into "$w" F2 -k 1 -t 15 -n lecture plain.ipynb hang.ipynb
		replicate_into "$w" M -k 1 -n lecture mem0.ipynb mem.ipynb
		replicate_into "$w" P -k 1 jaxlec/base/lecture.ipynb jaxlec/head/lecture.ipynb
		replicate_into "$w" V -k 2 -n vol volatile.ipynb volatile.ipynb
		replicate_into "$w" C -k 1 -d dynamics/markov -C "$w/lec/dynamics" "$w/base" "$w/head"
	)
}

# recs RUN FILTER [JQ OPTIONS]: jq -c over a run's records
recs() {
	jq -c "${@:2}" "$BATS_FILE_TMPDIR/$1.ndjson"
}

# diff RUN: qe-cell-diff of a run's stream against itself (base side, head side)
diff_of() {
	qe-cell-diff "$BATS_FILE_TMPDIR/$1.ndjson" "$BATS_FILE_TMPDIR/$1.ndjson"
}

@test "qe-replicate: -h, --version, usage errors exit 2" {
	run -0 --separate-stderr rep -h
	assert_line --index 0 "usage: qe-replicate [-h] [--version] [-k runs] [-t seconds] [--warm] [-n name]"
	run -0 --separate-stderr rep --version
	assert_output "qe-replicate 0.1.0"
	run -2 --separate-stderr rep --bogus a b
	assert_equal "${stderr_lines[0]}" "qe-replicate: unknown option '--bogus'"
	run -2 --separate-stderr rep -k 0 a b
	assert_equal "$stderr" "qe-replicate: option '-k': '0' is not a number of at least 1"
	run -2 --separate-stderr rep "$BATS_FILE_TMPDIR/lec/plain.ipynb"
	assert_equal "${stderr_lines[0]}" "qe-replicate: usage: qe-replicate [-h] [--version] [-k runs] [-t seconds] [--warm] [-n name]"
	run -2 --separate-stderr rep "$BATS_FILE_TMPDIR/lec/plain.ipynb" "$BATS_FILE_TMPDIR/none.ipynb"
	assert_equal "$stderr" "qe-replicate: $BATS_FILE_TMPDIR/none.ipynb: not a notebook file"
	assert_output ""
}

@test "qe-replicate -d: a document the cache lacks, a folder that is not here" {
	local w="$BATS_FILE_TMPDIR"
	# qe-cache-extract --stored finds the document's notebook, and says why not
	run -2 --separate-stderr rep -d nosuch "$w/base" "$w/head"
	assert_equal "$stderr" "qe-cache-extract: $w/base: no record of document 'nosuch'"
	run -2 --separate-stderr rep -d dynamics/markov "$w/base" "$w/head"
	assert_equal "$stderr" "qe-replicate: base: the lecture's folder /tmp/lecture-demo/lectures/dynamics does not exist here (use -C)"
	run -2 --separate-stderr rep -d intro "$w/lec" "$w/head"
	assert_equal "$stderr" "qe-cache-extract: $w/lec: not a jupyter-cache (no global.db)"
	run -2 --separate-stderr rep -d broken "$w/base" "$w/head"
	assert_equal "$stderr" "qe-cache-extract: $w/base: no record of document 'broken'"
}

@test "qe-replicate: every run's records validate, in balanced order, cwd the lecture's folder" {
	local r
	for r in J S AA F1 F2 C; do
		validate "$BATS_FILE_TMPDIR/$r.ndjson"
	done
	assert_equal "$(cat "$BATS_FILE_TMPDIR"/{J,S,AA,F1,F2,C}.status | tr '\n' ' ')" "0 0 0 0 0 0 "
	# ABBA BAAB: each pair alternates which version runs first
	run -0 recs S 'select(.kind == "notebook") | "\(.run_order) \(.version) \(.replicate)"' -r
	assert_equal "$(echo "$output" | tr '\n' ',')" \
		"1 base 1,2 head 1,3 head 2,4 base 2,5 head 3,6 base 3,7 base 4,8 head 4,9 base 5,10 head 5,"
	# every cell record names its run; the data cell read data.txt from the lecture's folder
	run -0 recs S 'select(.kind == "cell" and .label == "data") | [.version, .replicate, .run_order, .status, .timing_source]'
	assert_equal "${#lines[@]}" 10
	assert_line --index 0 '["base",1,1,"ok","hook"]'
	assert_equal "$(recs S 'select(.kind == "cell") | .document' | sort -u)" '"lecture"'
	assert_equal "$(cat "$BATS_FILE_TMPDIR/S.err")" ""
}

@test "qe-replicate: durations come from the hook in each fresh kernel" {
	# the slow calls cell: 4 x 0.15 s, never less, at most 2x on a loaded machine
	run -0 recs S 'select(.kind == "cell" and .label == "calls" and .version == "head") | .duration_s'
	assert_equal "${#lines[@]}" 5
	local d
	for d in "${lines[@]}"; do
		awk -v d="$d" 'BEGIN { exit !(d >= 0.6 && d <= 1.2) }' || fail "head calls took $d s"
	done
	# each run is its own kernel: five different execution windows, counts from 1
	assert_equal "$(recs S 'select(.kind == "cell" and .label == "imports") | .execution_count' | sort -u)" 1
	assert_equal "$(recs S 'select(.kind == "notebook") | .created' | sort -u | wc -l)" 10
}

@test "qe-cell-diff: 3x slower in steady state is regressed with p < 0.05 at K=5" {
	run -0 --separate-stderr diff_of S
	assert_equal "$stderr" ""
	run -0 jq -c 'select(.kind == "cell-diff" and .label == "calls") | [.verdict, .test.answer, .test.n_base, .test.n_head, .test.p < 0.05, .ratio > 2]' <<< "$output"
	assert_output '["regression","regressed",5,5,true,true]'
}

@test "qe-cell-diff: an A/A pair is same or inconclusive, never regressed" {
	run -0 --separate-stderr diff_of AA
	assert_equal "$stderr" ""
	run -0 jq -r 'select(.kind == "cell-diff") | "\(.label) \(.test.answer) \(.test.n_base) \(.flags | join(","))"' <<< "$output"
	assert_equal "${#lines[@]}" 6
	refute_output --partial regressed
	refute_output --partial improved
	refute_output --partial output-changed
	assert_line --index 4 --regexp '^calls (same|inconclusive) 5 $'
	run -0 jq -r 'select(.kind == "notebook-diff") | "\(.verdict) \(.test.answer)"' <<< "$(diff_of AA)"
	assert_output --regexp '^(unchanged same|inconclusive inconclusive)$'
	# the comment: no results-differ line, nothing slower or faster
	diff_of AA > "$BATS_TEST_TMPDIR/d.ndjson"
	run -0 --separate-stderr qe-comment "$BATS_TEST_TMPDIR/d.ndjson"
	refute_output --partial "Results differ"
	refute_output --partial "results differ"
	# the decision first (qe-comment(1), DECISION), then the headline
	assert_line --index 2 --regexp '^\*\*Decision for '
	assert_line --index 3 --regexp '^🟢 No cell moved beyond the thresholds: 6 unchanged in 1 re-executed lecture \(replicate runs: 5 \+ 5\)$|^🟡 0 cells slower, 0 faster, [0-9] unclear'
}

@test "qe-cell-diff: different outputs are flagged, on the cell and its notebook" {
	run -0 --separate-stderr diff_of S
	run -0 jq -c 'select(.kind == "cell-diff" and .label == "result") | [.verdict, .flags]' <<< "$output"
	assert_output '["unchanged",["upstream-changed","output-changed"]]'
	run -0 jq -c 'select(.kind == "notebook-diff") | .flags' <<< "$(diff_of S)"
	assert_output '["source-changed","output-changed"]'
	# the digests: one per version, the same in every run of it
	assert_equal "$(recs S 'select(.label == "result") | [.version, .result_sha256] | @text' | sort -u | wc -l)" 2
}

@test "qe-replicate: the result digest is the build's output digest: addresses, %time, %timeit, progress bars, ANSI" {
	local w="$BATS_FILE_TMPDIR" label want
	assert_equal "$(cat "$w/V.status")" 0
	validate "$w/V.ndjson"
	# volatile-seen.ipynb: the same cells with other such text, as a build stored them
	run -0 --separate-stderr qe-cache-extract "$w/lec/volatile-seen.ipynb"
	local seen=$output
	for label in address time timeit progress ansi; do
		want=$(jq -r --arg l "$label" 'select(.kind == "cell" and .label == $l) | .output_sha256' <<< "$seen")
		[ "$want" != "$(jq -r 'select(.kind == "cell" and .label == "imports") | .output_sha256' <<< "$seen")" ] ||
			fail "$label: the seen notebook's output digest is that of no output"
		# every run of both versions: the build's digest, as result and as output digest
		run -0 recs V --arg l "$label" 'select(.kind == "cell" and .label == $l) | [.result_sha256, .output_sha256] | .[]' -r
		assert_equal "${#lines[@]}" 8
		assert_equal "$(printf '%s\n' "${lines[@]}" | sort -u)" "$want"
	done
	# so no cell of an A/A pair says its output changed
	run -0 jq -c 'select(.kind == "notebook-diff") | .flags' <(diff_of V)
	assert_output '[]'
}

@test "qe-replicate: a failing run is recorded as failed and the others still run" {
	run -0 recs F1 'select(.kind == "notebook") | [.version, .status, .error]'
	assert_line --index 0 '["base","ok",null]'
	assert_line --index 1 '["head","failed","ValueError: no convergence"]'
	assert_equal "$(recs F1 'select(.kind == "cell" and .version == "base") | .index' | wc -l)" 6
	assert_equal "$(cat "$BATS_FILE_TMPDIR/F1.err")" \
		"qe-replicate: lecture: head run 1 (run 2) failed: ValueError: no convergence"
	run -0 recs F2 'select(.kind == "notebook") | [.version, .status, .error, .execution_seconds >= 15 and .execution_seconds < 30]'
	assert_line --index 0 '["base","ok",null,false]'
	assert_line --index 1 '["head","failed","timed out after 15 s",true]'
	# the failed run's record is qe-cache-extract --failed's: no cells, the run's wall time
	run -0 recs F2 'select(.kind == "notebook" and .status == "failed") | [.document, .path, .code_cells, .timeout_cell, .replicate, .run_order]'
	assert_output '["lecture","hang.ipynb",null,null,1,2]'
	assert_equal "$(recs F2 'select(.kind == "cell" and .version == "head")' | wc -l)" 0
	run -0 jq -c 'select(.kind == "notebook-diff") | .verdict' <<< "$(diff_of F1)"
	assert_output '"newly-failed"'
}

@test "qe-replicate -d: one document's executed notebook from each of two caches" {
	run -0 recs C 'select(.kind == "notebook") | [.document, .version, .status, .code_cells, .timed_cells]'
	assert_line --index 0 '["dynamics/markov","base","ok",3,3]'
	assert_line --index 1 '["dynamics/markov","head","ok",4,4]'
	run -0 recs C 'select(.kind == "notebook") | .path'
	assert_line --index 0 --regexp "/base/\.jupyter_cache/executed/[0-9a-f]{32}/base\.ipynb\"\$"
}

@test "qe-replicate --warm: a JIT-like conversion is slower as used, faster warm: a compile-time regression" {
	# the definition cells are not run again (re-running @jit would compile again)
	run -0 recs J 'select(.kind == "cell" and .version == "head" and .replicate == 1) | [.label, .warm_note]'
	assert_line --index 2 '["jit-def","definition"]'
	assert_line --index 3 '["params",null]'
	assert_line --index 4 '["f-def","definition"]'
	assert_line --index 5 '["calls",null]'
	# compile_s = cold - warm: about the 1 s compile
	run -0 recs J 'select(.kind == "cell" and .version == "head" and .label == "calls") | .compile_s >= 0.9 and .compile_s <= 2'
	assert_equal "$(echo "$output" | sort -u)" true
	run -0 --separate-stderr diff_of J
	assert_equal "$stderr" ""
	run -0 jq -c 'select(.kind == "cell-diff" and .label == "calls") | [.verdict, .test.answer, .warm.verdict, .warm.test.answer, .flags, .ratio > 2, .warm.ratio < 0.5]' <<< "$output"
	assert_output '["regression","regressed","improvement","improved",["upstream-changed","compile-time-regression"],true,true]'
	diff_of J > "$BATS_TEST_TMPDIR/d.ndjson"
	validate "$BATS_TEST_TMPDIR/d.ndjson"
	run -0 --separate-stderr qe-comment "$BATS_TEST_TMPDIR/d.ndjson"
	assert_line --regexp "^\| 🔴 slower \| lecture \| calls \| .* \| compile-time regression, slower as used: ${D}${TO}${D} \(×[0-9.]+, p = 0\.029, 4 \+ 4 runs, spread ×[0-9.]+–×[0-9.]+\); faster warm: ${D}${TO}${D} \(×0\.[0-9]+\); compile ~${D}; earlier cell changed \|\$"
}

@test "qe-cell-diff: a record naming another version is rejected" {
	printf '%s\n' '{"kind":"notebook","schema_version":1,"document":"d","input":"ipynb","status":"ok","code_cells":0,"timed_cells":0,"execution_seconds":1,"created":null,"version":"middle"}' > "$BATS_TEST_TMPDIR/v.ndjson"
	run -2 --separate-stderr qe-cell-diff "$BATS_TEST_TMPDIR/v.ndjson" "$BATS_TEST_TMPDIR/v.ndjson"
	assert_equal "${stderr_lines[0]}" "qe-cell-diff: $BATS_TEST_TMPDIR/v.ndjson:1: 'version' is not base or head"
}

@test "memory: a cell that allocates 300 MiB grows the peak by that much (within 10%), flagged with what it needs" {
	validate "$BATS_FILE_TMPDIR/M.ndjson"
	run -0 recs M 'select(.kind == "cell" and .label == "alloc") | [.version, .peak_growth_bytes >= 0.9 * 314572800 and .peak_growth_bytes <= 1.1 * 314572800, .rss_bytes > 314572800]'
	assert_output $'["base",false,false]\n["head",true,true]'
	run -0 recs M 'select(.kind == "cell" and .label == "after") | .peak_growth_bytes'
	assert_output $'0\n0'
	diff_of M > "$BATS_TEST_TMPDIR/d.ndjson"
	validate "$BATS_TEST_TMPDIR/d.ndjson"
	run -0 jq -c 'select(.kind == "cell-diff" and .label == "alloc") | [.flags, (.peak_growth_head_bytes - .peak_growth_base_bytes | . >= 0.9 * 314572800 and . <= 1.1 * 314572800)]' "$BATS_TEST_TMPDIR/d.ndjson"
	assert_output '[["source-changed","memory-growth"],true]'
	run -0 jq -c 'select(.kind == "notebook-diff") | .flags' "$BATS_TEST_TMPDIR/d.ndjson"
	assert_output '["source-changed","memory-growth"]'
	# The flag is the memory's, not the time's: how long the allocation takes
	# depends on the machine's load (50 -> 89 ms, "unchanged", on a loaded
	# one), so with both sides' time set to 50 ms the flag stays.
	jq -c 'if .kind == "cell" and .label == "alloc" then .duration_s = 0.05 else . end' "$BATS_FILE_TMPDIR/M.ndjson" > "$BATS_TEST_TMPDIR/same.ndjson"
	run -0 jq -c 'select(.kind == "cell-diff" and .label == "alloc") | [.verdict, .flags]' <(qe-cell-diff "$BATS_TEST_TMPDIR/same.ndjson" "$BATS_TEST_TMPDIR/same.ndjson")
	assert_output '["unchanged",["source-changed","memory-growth"]]'
	# The comment says what it needs on the cell's row: +315 MB, give or take
	# 10%, peak and resident. With the head's time set to 2 s the cell is
	# slower too: the memory stays beside the verdict.
	jq -c 'if .kind == "cell" and .label == "alloc" and .version == "head" then .duration_s = 2 else . end' "$BATS_FILE_TMPDIR/M.ndjson" > "$BATS_TEST_TMPDIR/slow.ndjson"
	qe-cell-diff "$BATS_TEST_TMPDIR/slow.ndjson" "$BATS_TEST_TMPDIR/slow.ndjson" > "$BATS_TEST_TMPDIR/d2.ndjson"
	run -0 --separate-stderr qe-comment "$BATS_TEST_TMPDIR/d2.ndjson"
	local nbsp=$'\xc2\xa0' # the unit's no-break space as bytes: with no LANG, `.` matches one byte
	assert_line --regexp "^\| lecture \| alloc \| 🔴 slower \| .* \| needs \+(2[89][0-9]|3[0-4][0-9])${nbsp}MB more \(peak\), resident \+(2[89][0-9]|3[0-4][0-9])${nbsp}MB, source changed \|\$"
	# --mem-abs above the growth: no flag
	run -0 jq -c 'select(.kind == "cell-diff" and .label == "alloc") | .flags' <(qe-cell-diff --mem-abs 400e6 "$BATS_FILE_TMPDIR/M.ndjson" "$BATS_FILE_TMPDIR/M.ndjson")
	assert_output '["source-changed"]'
}

@test "provenance: what each kernel ran with, measured inside it, and the change named first in the comment" {
	validate "$BATS_FILE_TMPDIR/P.ndjson"
	assert_equal "$(cat "$BATS_FILE_TMPDIR/P.status")" 0
	run -0 recs P 'select(.kind == "notebook") | [.version, .kernel_env.jax, .kernel_env.modules]'
	assert_line --index 0 '["base",{"backend":"gpu","devices":["cuda(id=0)"],"x64":false},{"jax":"0.4.30"}]'
	assert_line --index 1 '["head",{"backend":"cpu","devices":["TFRT_CPU_0"],"x64":false},{"jax":"0.4.30"}]'
	# the hook imported nothing: numpy is installed, the notebook never imports it
	run -0 recs P 'select(.kind == "notebook") | .kernel_env.modules | has("numpy")'
	assert_output $'false\nfalse'
	"$PY" -c 'import numpy' || fail "numpy is not installed: the check above proves nothing"
	diff_of P > "$BATS_TEST_TMPDIR/d.ndjson"
	validate "$BATS_TEST_TMPDIR/d.ndjson"
	run -0 jq -c 'select(.kind == "notebook-diff") | .kernel_changes' "$BATS_TEST_TMPDIR/d.ndjson"
	assert_output '["jax backend gpu -> cpu","jax devices cuda(id=0) -> TFRT_CPU_0"]'
	run -0 --separate-stderr qe-comment "$BATS_TEST_TMPDIR/d.ndjson"
	assert_line --index 4 '> - **What the kernel ran with changed** (a likely cause): lecture: `jax backend gpu -> cpu`, `jax devices cuda(id=0) -> TFRT_CPU_0`.'
	assert_line --index 3 '> [!WARNING]'
	# an A/A pair names no change (the field is there, empty)
	run -0 jq -c 'select(.kind == "notebook-diff") | .kernel_changes' <(diff_of AA)
	assert_output '[]'
}

@test "qe-cache-extract --stored, --failed, --execution-seconds: what qe-replicate asks the C tools" {
	local w="$BATS_FILE_TMPDIR" key
	key=$(qe-cache-extract "$w/base" | jq -r 'select(.kind == "notebook" and .document == "dynamics/markov") | .cache_key')
	run -0 --separate-stderr qe-cache-extract --stored dynamics/markov "$w/base"
	assert_equal "$(qe-cache-extract --stored dynamics/markov "$w/base" | od -An -c | tr -d ' \n')" \
		"$(printf '%s\0%s\0' "$w/base/.jupyter_cache/executed/$key/base.ipynb" /tmp/lecture-demo/lectures/dynamics/markov.md | od -An -c | tr -d ' \n')"
	# -r names documents as the records do; a name relative to another root
	# is the end of one document's source path
	local want
	want=$(qe-cache-extract --stored dynamics/markov "$w/base" | od -An -c)
	assert_equal "$(qe-cache-extract -r /tmp/lecture-demo --stored lectures/dynamics/markov "$w/base" | od -An -c)" "$want"
	assert_equal "$(qe-cache-extract --stored lectures/dynamics/markov "$w/base" | od -An -c)" "$want"
	assert_equal "$(qe-cache-extract --stored markov "$w/base" | od -An -c)" "$want"
	run -2 --separate-stderr qe-cache-extract --stored namics/markov "$w/base"
	assert_equal "$stderr" "qe-cache-extract: $w/base: no record of document 'namics/markov'"
	run -2 --separate-stderr qe-cache-extract --stored dynamics/markov "$w/base" "$w/head"
	assert_equal "$stderr" "qe-cache-extract: --stored reads one cache folder, not 2 operands"
	cp -R "$w/base" "$BATS_TEST_TMPDIR/c" && chmod -R u+w "$BATS_TEST_TMPDIR/c"
	rm "$BATS_TEST_TMPDIR/c/.jupyter_cache/executed/$key/base.ipynb"
	run -2 --separate-stderr qe-cache-extract --stored dynamics/markov "$BATS_TEST_TMPDIR/c"
	assert_equal "$stderr" "qe-cache-extract: $BATS_TEST_TMPDIR/c: record $key of 'dynamics/markov' has no stored notebook ($BATS_TEST_TMPDIR/c/.jupyter_cache/executed/$key/base.ipynb)"
	assert_output ""
	(cd "$w/base" && tar -cf "$BATS_TEST_TMPDIR/c.tar" .jupyter_cache)
	run -2 --separate-stderr qe-cache-extract --stored dynamics/markov "$BATS_TEST_TMPDIR/c.tar"
	assert_equal "$stderr" "qe-cache-extract: $BATS_TEST_TMPDIR/c.tar: an archive holds no notebook file to name: --stored reads a cache folder"
	# a runner's failed run: one notebook record, its reason and wall time, no cells
	run -0 --separate-stderr qe-cache-extract --failed "DeadKernelError: gone" --execution-seconds 2.5 "$w/lec/plain.ipynb"
	assert_equal "${#lines[@]}" 1
	run -0 jq -c '[.document, .status, .error, .execution_seconds, .code_cells, .timed_cells]' <<< "$output"
	assert_output '["plain","failed","DeadKernelError: gone",2.5,null,0]'
	# a run that went through: the wall time, and the overhead beside the cells' sum
	run -0 --separate-stderr qe-cache-extract --execution-seconds 9 "$BATS_FILE_TMPDIR/lec/volatile-seen.ipynb"
	run -0 jq -c 'select(.kind == "notebook") | [.status, .execution_seconds, .overhead_seconds]' <<< "$output"
	assert_output '["ok",9,null]'
	run -2 --separate-stderr qe-cache-extract --execution-seconds soon "$w/lec/plain.ipynb"
	# the cache's own records keep the cache's times
	assert_equal "$(qe-cache-extract --execution-seconds 9 "$w/base" | jq -c 'select(.document == "intro" and .kind == "notebook") | .execution_seconds')" \
		"$(qe-cache-extract "$w/base" | jq -c 'select(.document == "intro" and .kind == "notebook") | .execution_seconds')"
}

@test "correctness first: a numerical bug (results differ, much faster) opens the comment with the cells it changed" {
	assert_equal "$(cat "$BATS_FILE_TMPDIR/B.status")" 0
	validate "$BATS_FILE_TMPDIR/B.ndjson"
	diff_of B > "$BATS_TEST_TMPDIR/d.ndjson"
	validate "$BATS_TEST_TMPDIR/d.ndjson"
	# the buggy simulate skips the 0.4 s loop: far faster
	run -0 jq -c 'select(.kind == "cell-diff" and .label == "simulate") | .ratio < 0.1' "$BATS_TEST_TMPDIR/d.ndjson"
	assert_output true
	run -0 --separate-stderr qe-comment "$BATS_TEST_TMPDIR/d.ndjson"
	# the first line after the title: report has the same source and prints another variance
	assert_line --index 1 "### Lecture execution times"
	# the decision first (qe-comment(1), DECISION), then the headline
	assert_line --index 2 --regexp '^\*\*Decision for '
	assert_line --index 3 "⚠️ **Results differ** in report (var): the timings below compare different computations."
	assert_line --partial "| var | report | unchanged |"
	assert_line --regexp '^\| var \| .* \| 1 unclear, 3 unchanged \|'
	assert_line --regexp '^\| var \| .*; \*\*results differ\*\* \|'
	assert_line --regexp '^\| .* \| var \| report \| .* \| \*\*results differ\*\*|^\| var \| report \| .* \| \*\*results differ\*\*'
}

@test "one answer per lecture: 3x slower, the lecture under 1 s more, regressed in verdict and test at K=5, on a fast and a slow machine" {
	local r
	for r in SF SS; do
		assert_equal "$(cat "$BATS_FILE_TMPDIR/$r.status")" 0
		diff_of "$r" > "$BATS_TEST_TMPDIR/$r.ndjson"
		validate "$BATS_TEST_TMPDIR/$r.ndjson"
		run -0 jq -c 'select(.kind == "notebook-diff") | [.verdict, .test.answer, .verdict_rule, .delta_s < 1, .ratio > 2, .test.n_base, .test.p < 0.05]' "$BATS_TEST_TMPDIR/$r.ndjson"
		assert_output '["regression","regressed","sum",true,true,5,true]'
		# the footer states the replicate rule applied, for cells and lectures, not the single-run one
		run -0 --separate-stderr qe-comment "$BATS_TEST_TMPDIR/$r.ndjson"
		assert_line --regexp "^<sub>Replicate rule: slower or faster means beyond ×1\.20 and by more than 50${NBSP}ms per cell \(×1\.20 and 50${NBSP}ms per lecture total\)"
		refute_output --partial "×1.50 and 1.00 s per lecture"
		assert_line --regexp '^\| lecture \| 🔴 slower as used: .* \(×[0-9.]+, p = 0\.0079, 5 \+ 5 runs, spread ×[0-9.]+–×[0-9.]+\)(; \*\*results differ\*\*)? \|'
	done
}

@test "a numba conversion: as used, warm and compile in seconds with the spread; the headline names the compile-time regression; its own import is no environment change" {
	assert_equal "$(cat "$BATS_FILE_TMPDIR/N.status")" 0
	python3 -c 'import numba' 2> /dev/null || /usr/bin/python3 -c 'import numba' || fail "numba is not installed (python3-numba)"
	validate "$BATS_FILE_TMPDIR/N.ndjson"
	diff_of N > "$BATS_TEST_TMPDIR/d.ndjson"
	validate "$BATS_TEST_TMPDIR/d.ndjson"
	run -0 jq -c 'select(.kind == "cell-diff" and .label == "run") | [.verdict, .warm.verdict, .flags]' "$BATS_TEST_TMPDIR/d.ndjson"
	assert_output '["regression","improvement",["upstream-changed","compile-time-regression"]]'
	# the lecture: slower as used, faster warm, one answer each
	run -0 jq -c 'select(.kind == "notebook-diff") | [.verdict, .test.answer, .warm.verdict, .warm.test.answer, (.flags | index("compile-time-regression") != null)]' "$BATS_TEST_TMPDIR/d.ndjson"
	assert_output '["regression","regressed","improvement","improved",true]'
	# numba (and what it imports) only the new version imports: not what the kernel ran with changed
	run -0 jq -c 'select(.kind == "notebook-diff") | [.kernel_changes, (.kernel_imports.head | map(test("^numba [0-9]")) | any), .kernel_imports.base]' "$BATS_TEST_TMPDIR/d.ndjson"
	assert_output '[[],true,[]]'
	run -0 --separate-stderr qe-comment "$BATS_TEST_TMPDIR/d.ndjson"
	assert_equal "$stderr" ""
	# the decision first (qe-comment(1), DECISION), then the headline
	assert_line --index 2 --regexp '^\*\*Decision for '
	assert_line --index 3 --regexp '^🔴 \*\*[0-9] cells? slower\*\*, 0 faster, [0-9] unchanged in 1 re-executed lecture; \*\*1 compile-time regression\*\* \(slower as used, faster warm\) \(replicate runs: 4 \+ 4\)$'
	assert_line --regexp "^\| 🔴 slower \| loops \| run \| .* \| compile-time regression, slower as used: ${D}${TO}${D} \(×[0-9.]+, p = 0\.029, 4 \+ 4 runs, spread ×[0-9.]+–×[0-9.]+\); faster warm: ${D}${TO}${D} \(×[0-9.<]+\); compile ~${D}; earlier cell changed \|\$"
	refute_output --partial "What the kernel ran with changed"
	assert_line --regexp '^> - What each version.s kernel imported: loops: the new version imports .*`numba [0-9.]+`.* \(the change itself, not the environment\)\.$'
}

@test "--warm: a later cell that redefines a function with other parameters makes the warm pass raise: a note, every cold timing kept" {
	assert_equal "$(cat "$BATS_FILE_TMPDIR/R.status")" 0
	validate "$BATS_FILE_TMPDIR/R.ndjson"
	# every run stands: ok, each cell's cold time there
	run -0 recs R 'select(.kind == "notebook") | [.status, .warm_seconds, .warm_error]'
	assert_equal "${#lines[@]}" 4
	assert_equal "$(printf '%s\n' "${lines[@]}" | sort -u)" \
		"[\"ok\",null,\"TypeError: plot() missing 1 required positional argument: 'cycle_num'\"]"
	assert_equal "$(recs R 'select(.kind == "cell" and .duration_s != null and .status == "ok")' | wc -l)" 20
	run -0 recs R 'select(.kind == "cell" and .replicate == 1 and .version == "base") | [.label, .warm_note]'
	assert_output $'["imports","definition"]\n["plot-def","definition"]\n["plot-call","raised"]\n["solution","not-run"]\n["report","not-run"]'
	assert_equal "$(grep -c "the warm pass raised TypeError" "$BATS_FILE_TMPDIR/R.err")" 4
	diff_of R > "$BATS_TEST_TMPDIR/d.ndjson"
	validate "$BATS_TEST_TMPDIR/d.ndjson"
	run -0 jq -c 'select(.kind == "cell-diff" and .label == "plot-call") | [.verdict, .test.n_base, .warm.verdict, .warm.error]' "$BATS_TEST_TMPDIR/d.ndjson"
	assert_output "[\"unchanged\",2,\"no-timing\",\"TypeError: plot() missing 1 required positional argument: 'cycle_num'\"]"
	run -0 jq -c 'select(.kind == "notebook-diff") | [.verdict, .warm.verdict]' "$BATS_TEST_TMPDIR/d.ndjson"
	assert_output --regexp '^\["(unchanged|inconclusive)","no-timing"\]$'
	run -0 --separate-stderr qe-comment "$BATS_TEST_TMPDIR/d.ndjson"
	refute_output --partial "failing"
	assert_line --regexp '^> - Warm unavailable in redefine: warm pass raised `TypeError: plot\(\) missing 1 required positional argument: .cycle_num.` .*The as-used timings of every run stand\.$'
	# the cell's row (the job summary lists every cell) says why it has no warm time
	run -0 --separate-stderr qe-comment -s "$BATS_TEST_TMPDIR/d.ndjson"
	assert_line --regexp '^\| redefine \| plot-call \| unchanged \| .* warm unavailable: warm pass raised `TypeError'
}

@test "memory on its own: a cell that allocates 300 MiB, its time unmoved, is in the headline and the top table, peak and resident" {
	# touching 300 MiB takes 50 ms to 0.6 s by the machine's load: both
	# sides' time set to 50 ms (the lecture's total then the sum of its
	# cells), the memory as measured
	jq -c 'if .kind == "cell" and .label == "alloc" then .duration_s = 0.05 elif .kind == "notebook" then .cells_seconds = null else . end' \
		"$BATS_FILE_TMPDIR/M.ndjson" > "$BATS_TEST_TMPDIR/same.ndjson"
	qe-cell-diff "$BATS_TEST_TMPDIR/same.ndjson" "$BATS_TEST_TMPDIR/same.ndjson" > "$BATS_TEST_TMPDIR/d.ndjson"
	validate "$BATS_TEST_TMPDIR/d.ndjson"
	run -0 jq -c 'select(.kind == "cell-diff" and .label == "alloc") | [.verdict, (.rss_growth_delta_bytes | . >= 0.9 * 314572800 and . <= 1.1 * 314572800), .rss_head_bytes > .rss_base_bytes]' "$BATS_TEST_TMPDIR/d.ndjson"
	assert_output '["unchanged",true,true]'
	# the block stays allocated: the later cell's resident set is as high, not counted again
	run -0 jq -c 'select(.kind == "cell-diff" and .label == "after") | [.flags, .rss_growth_delta_bytes < 50e6]' "$BATS_TEST_TMPDIR/d.ndjson"
	assert_output '[["upstream-changed"],true]'
	run -0 --separate-stderr qe-comment "$BATS_TEST_TMPDIR/d.ndjson"
	assert_line --index 2 --regexp '^🟡 No cell moved|^🟡 0 cells slower, 0 faster, [0-9]+ unchanged in 1 re-executed lecture; \*\*1 cell needs more memory\*\*$'
	local nbsp=$'\xc2\xa0'
	assert_line --regexp "^\| 🟠 more memory \| lecture \| alloc \| .* \| needs \+(2[89][0-9]|3[0-4][0-9])${nbsp}MB more \(peak\), resident \+(2[89][0-9]|3[0-4][0-9])${nbsp}MB, source changed \|\$"
	# the threshold is stated: 128 MiB, so +260 MB of resident growth is seen
	assert_line --regexp "Needs more memory means a peak growth \+134${nbsp}MB and ×1\.50 above base's, or a resident set grown \+134${nbsp}MB more"
}

@test "memory relative to the runner: a peak growth of --mem-share percent of the provenance's memory is memory-growth whatever the ratio, stated; without provenance the rule is off, said once" {
	# the real records stamped: this machine's MemTotal in the provenance
	qe-stamp "$BATS_FILE_TMPDIR/M.ndjson" > "$BATS_TEST_TMPDIR/s.ndjson"
	local mem nbsp=$'\xc2\xa0'
	mem=$(jq -s 'map(select(.kind == "cell"))[0].provenance.hardware.memory_bytes' "$BATS_TEST_TMPDIR/s.ndjson")
	[ "$mem" -gt 1000000000 ]
	# --mem-abs above the +300 MiB: only the share rule can flag it; the
	# share set to 200 MB of this machine's memory, then to 500 MB
	local at200 at500
	at200=$(jq -n --argjson m "$mem" '100 * 200e6 / $m') at500=$(jq -n --argjson m "$mem" '100 * 500e6 / $m')
	qe-cell-diff --mem-abs 400e6 --mem-share "$at200" "$BATS_TEST_TMPDIR/s.ndjson" "$BATS_TEST_TMPDIR/s.ndjson" > "$BATS_TEST_TMPDIR/d.ndjson"
	validate "$BATS_TEST_TMPDIR/d.ndjson"
	run -0 jq -c 'select(.kind == "cell-diff" and .label == "alloc") | .flags' "$BATS_TEST_TMPDIR/d.ndjson"
	assert_output '["source-changed","memory-growth"]'
	run -0 jq -c --argjson m "$mem" 'select(.kind == "diff-summary") | .thresholds | [.memory_share_pct > 0, .runner_memory_bytes == $m]' "$BATS_TEST_TMPDIR/d.ndjson"
	assert_output '[true,true]'
	run -0 jq -c 'select(.kind == "cell-diff" and .label == "alloc") | .flags' <(qe-cell-diff --mem-abs 400e6 --mem-share "$at500" "$BATS_TEST_TMPDIR/s.ndjson" "$BATS_TEST_TMPDIR/s.ndjson")
	assert_output '["source-changed"]'
	# the row says what share of the runner it needs, the footer the rule
	local gb pct
	gb=$(jq -rn --argjson m "$mem" '$m / 1e9 * 10 | round / 10 | tostring | if test("\\.") then . else . + ".0" end')
	run -0 --separate-stderr qe-comment "$BATS_TEST_TMPDIR/d.ndjson"
	assert_output --regexp "needs \+(2[89][0-9]|3[0-4][0-9])${nbsp}MB more \(peak\), (<1|[0-9]+)% of the runner's ${gb}${nbsp}GB, resident"
	assert_output --partial "or a peak growth of "
	assert_output --regexp "or a peak growth of [0-9.]+% of the runner's ${gb}${nbsp}GB \(\+200${nbsp}MB\) whatever the ratio\. "
	# the default, 10%: stated with the runner's memory
	run -0 --separate-stderr qe-comment <(qe-cell-diff "$BATS_TEST_TMPDIR/s.ndjson" "$BATS_TEST_TMPDIR/s.ndjson")
	assert_output --regexp "or a peak growth of 10% of the runner's ${gb}${nbsp}GB \(\+[0-9.]+${nbsp}(MB|GB)\) whatever the ratio\. "
	# records without provenance: the rule is off, flags as before, said once in the footer
	run -0 jq -c 'select(.kind == "cell-diff" and .label == "alloc") | .flags' <(qe-cell-diff --mem-abs 400e6 --mem-share "$at200" "$BATS_FILE_TMPDIR/M.ndjson" "$BATS_FILE_TMPDIR/M.ndjson")
	assert_output '["source-changed"]'
	qe-cell-diff --mem-share 0.5 "$BATS_FILE_TMPDIR/M.ndjson" "$BATS_FILE_TMPDIR/M.ndjson" > "$BATS_TEST_TMPDIR/n.ndjson"
	validate "$BATS_TEST_TMPDIR/n.ndjson"
	run -0 jq -c 'select(.kind == "diff-summary") | .thresholds | [.memory_share_pct, .runner_memory_bytes]' "$BATS_TEST_TMPDIR/n.ndjson"
	assert_output '[0.5,null]'
	run -0 --separate-stderr qe-comment "$BATS_TEST_TMPDIR/n.ndjson"
	assert_equal "$(grep -c "the runner's memory is not in the provenance: the rule of 0.5% of it is off" <<< "$output")" 1
	refute_output --partial "of the runner's"
	# --mem-share 0: no share rule, nothing said of it
	run -0 --separate-stderr qe-comment <(qe-cell-diff --mem-share 0 "$BATS_FILE_TMPDIR/M.ndjson" "$BATS_FILE_TMPDIR/M.ndjson")
	refute_output --partial "runner's memory"
	run -2 --separate-stderr qe-cell-diff --mem-share 101 "$BATS_FILE_TMPDIR/M.ndjson" "$BATS_FILE_TMPDIR/M.ndjson"
	assert_equal "${stderr_lines[0]}" "qe-cell-diff: --mem-share: invalid value '101'"
}

@test "QE_PYTHON: qe-replicate runs itself with the Python the lectures build with; one that is not there is trouble" {
	printf '#!/bin/sh\necho "ran by the lectures Python: $*"\n' > "$BATS_TEST_TMPDIR/lecpy"
	chmod +x "$BATS_TEST_TMPDIR/lecpy"
	run -0 --separate-stderr env QE_PYTHON="$BATS_TEST_TMPDIR/lecpy" "$PY" "$(command -v qe-replicate)" -k 1 a.ipynb b.ipynb
	assert_output "ran by the lectures Python: $(realpath "$(command -v qe-replicate)") -k 1 a.ipynb b.ipynb"
	# the same Python as runs it: no second start
	run -2 --separate-stderr env QE_PYTHON="$PY" "$PY" "$(command -v qe-replicate)" -k 1 a.ipynb b.ipynb
	assert_equal "$stderr" "qe-replicate: a.ipynb: not a notebook file"
	run -2 --separate-stderr env QE_PYTHON=no-such-python "$PY" "$(command -v qe-replicate)" -k 1 a.ipynb b.ipynb
	assert_equal "$stderr" "qe-replicate: QE_PYTHON: 'no-such-python' is not a program here"
}

@test "qe-replicate: run folders, from which qe-cache-extract makes every record; the stream validates, numbers in the one form" {
	local w="$BATS_FILE_TMPDIR" r
	# one folder a run, in run order; the run line, the notebook, the hook log with the warm mark
	run -0 ls "$w/J.runs"
	assert_output "$(printf '%s\n' 0001-base-1 0002-head-1 0003-head-2 0004-base-2 0005-head-3 0006-base-3 0007-base-4 0008-head-4)"
	run -0 cat "$w/J.runs/0002-head-1/run"
	assert_line --index 0 $'document\tlecture'
	assert_line $'version\thead'
	assert_line $'replicate\t1'
	assert_line $'order\t2'
	assert_line $'pass\twarm'
	assert_line --regexp $'^wall\t[0-9]+\\.[0-9]{6}$'
	assert_equal "$(grep -c '^{"qe_hook":1,"event":"mark","mark":"warm"}$' "$w/J.runs/0002-head-1/hook.log")" 1
	test -s "$w/J.runs/0002-head-1/notebook.ipynb"
	test -s "$w/J.runs/0002-head-1/warm.ipynb"
	# the folders alone make the stream qe-replicate wrote, byte for byte
	qe-cache-extract --runs "$w/J.runs" > "$BATS_TEST_TMPDIR/again.ndjson"
	cmp "$BATS_TEST_TMPDIR/again.ndjson" "$w/J.ndjson"
	qe-cache-extract "$w/J.runs/0002-head-1" > "$BATS_TEST_TMPDIR/one.ndjson"
	assert_equal "$(jq -r 'select(.kind == "notebook") | "\(.version) \(.run_order)"' "$BATS_TEST_TMPDIR/one.ndjson")" "head 2"
	# every stream validates against schema/ (jsonschema), and its numbers are the C
	# writer's: a whole number is written 1, never 1.0 (Python's form)
	for r in J S F1 R N B; do
		validate "$w/$r.ndjson"
		/usr/bin/python3 -c '
import json, re, sys
bad = []
for line in open(sys.argv[1], encoding="utf-8"):
    json.loads(line, parse_float=lambda t: bad.append(t) if re.fullmatch(r"-?[0-9]+\.0+", t) else float(t))
sys.exit("Python number form: %s" % bad[:3] if bad else 0)' "$w/$r.ndjson"
	done
	assert_equal "$(jq -c 'select(.kind == "notebook" and .replicate == 1 and .version == "base") | [.execution_seconds > 0, (.warm_seconds | type)]' "$w/J.ndjson")" '[true,"number"]'
}
