#!/usr/bin/env bats
# The evaluation harness with real kernels (Debian's /usr/bin/python3,
# python3-nbclient, python3-ipykernel, python3-numba): qe-replicate --sweep
# and --profile on the notebooks of tests/replicate/sweep.py, qe-sweep's
# curves, crossovers and hotspots, qe-comment's report.
#
# The kernel runs happen once, in setup_file (about 46 kernel starts, two to
# three minutes on a loaded 2-core machine); the tests read the records.
# Designed effects are beyond what a loaded machine moves:
#   S  scale vs scale-jit, n = 1e3..1e6, K=2: exponent 0.5 designed, the
#      head loses x4.9 at 1e3 and wins x4 at 1e6, crossing at 2.8e4 (the
#      head's fixed 0.75 s keeps its exponent near 0.1 however slow a
#      loaded machine makes touching 80 MB at 1e6: sweep.py)
#   A  ar1 vs ar1-numba, T = 1e4..1e7, K=2: a real numba conversion (a
#      Python loop over T on NumPy arrays against njit); --profile-cell
#      simulate: the jitted function's first call, compiling, under cProfile
#   P  prof vs prof, K=1, --profile-cell work: 90% of "work" in hot()
#   F  scale vs scale-jit at the lecture's n = 3000, K=4, --profile: the
#      flagged cell (work, 0.27 s -> 0.78 s) is the one profiled
load helper

load replicate
NBSP=$'\xc2\xa0'

setup_file() {
	local w="$BATS_FILE_TMPDIR"
	mkdir -p "$w/lec"
	"$PY" "$TESTS_DIR/replicate/sweep.py" "$w/lec"
	export IPYTHONDIR="$w/ipython"
	(
		cd "$w/lec" || exit
		replicate_into "$w" S -k 2 --sweep n=1e3,1e4,1e5,1e6 -n scale scale.ipynb scale-jit.ipynb
		replicate_into "$w" A -k 2 --sweep T=1e4,1e5,1e6,1e7 --profile-cell simulate -n ar1 ar1.ipynb ar1-numba.ipynb
		replicate_into "$w" P -k 1 --profile-cell work prof.ipynb prof.ipynb
		replicate_into "$w" F -k 4 --profile -n scale scale.ipynb scale-jit.ipynb
	)
	for r in S A P F; do
		qe-sweep "$w/$r.ndjson" > "$w/$r.sweep" 2> "$w/$r.sweep.err"
	done
}

# sw RUN FILTER: jq -c over qe-sweep's records of a run
sw() {
	jq -c "$2" "$BATS_FILE_TMPDIR/$1.sweep"
}

# within X LO HI: LO <= X <= HI
within() {
	awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x >= lo && x <= hi) }' || fail "$1 is not within [$2, $3]"
}

@test "qe-replicate --sweep: papermill's injected cell after the parameters cell; every run tagged; records validate" {
	local w="$BATS_FILE_TMPDIR"
	assert_equal "$(cat "$w"/{S,A,P,F}.status | tr '\n' ' ')" "0 0 0 0 "
	for r in S A P F; do
		validate "$w/$r.ndjson"
		validate "$w/$r.sweep"
	done
	# the injected cell: tagged, right after the cell tagged parameters (code cell 1), the value as an int
	run -0 jq -r 'select(.kind == "cell" and (.tags | index("injected-parameters"))) | "\(.index) \(.name) \(.sweep.n)"' "$w/S.ndjson"
	assert_equal "${#lines[@]}" 16
	assert_equal "$(printf '%s\n' "${lines[@]}" | sort -u | tr '\n' ',')" "2 n = 1000 1000,2 n = 10000 10000,2 n = 100000 100000,2 n = 1000000 1000000,"
	# each size's runs: K of each version, interleaved, run_order running on
	run -0 jq -r 'select(.kind == "notebook") | "\(.sweep.n) \(.version) \(.replicate) \(.run_order)"' "$w/S.ndjson"
	assert_equal "${lines[0]}" "1000 base 1 1"
	assert_equal "${lines[3]}" "1000 base 2 4"
	assert_equal "${lines[15]}" "1000000 base 2 16"
	# the lecture's own size, read from its parameters cell; the path is the notebook's, not the copy run
	assert_equal "$(jq -c 'select(.kind == "notebook") | [.lecture_parameters, (.path == "scale.ipynb" or .path == "scale-jit.ipynb")]' "$w/S.ndjson" | sort -u)" '[{"n":3000},true]'
	# the work cell really ran at the size set: its sleep grows with n
	assert_equal "$(cat "$w/S.sweep.err")" ""
}

@test "qe-sweep: designed curves: exponent 0.5 within 0.2, the head loses at small n, the crossover between 1e4 and 1e5" {
	local e c
	e=$(sw S 'select(.cell == "work") | .fit.base.exponent')
	within "$e" 0.3 0.7
	# the head's curve is flat (a fixed compile cost): far below the base's
	within "$(sw S 'select(.cell == "work") | .fit.head.exponent')" -0.2 0.3
	run -0 sw S 'select(.cell == "work") | .points | map(.clear)'
	assert_output --regexp '^\["head-slower",.*,"head-faster"\]$'
	c=$(sw S 'select(.cell == "work") | .crossover')
	assert_equal "$(jq -r .state <<< "$c")" head-wins-above
	within "$(jq .at <<< "$c")" 10000 100000
	# the bracket holds the crossing and lies within the sizes swept
	within "$(jq .low <<< "$c")" 1000 10000
	within "$(jq .high <<< "$c")" 100000 1000000
	# the lecture's total crosses there too; its own n = 3000 is slower in the head
	assert_equal "$(sw S 'select(.cell == null) | [.crossover.state, .lecture_value, .speedup_at_lecture < 0.8]')" '["head-wins-above",3000,true]'
	run -0 sw S 'select(.cell == null) | .recommendation'
	assert_output --regexp '^"As used at this lecture.s size \(n = 3000\) the new version is ×[0-9.]+ slower; it wins above n ≈ [0-9.]+e4 \(between 1e[34] and 1e[56]\)\. Keep the old version for this lecture, unless it is to run above n = [0-9.]+e4\."$'
}

@test "qe-sweep: memory against n: the work cell's peak growth follows the 80 n bytes it touches" {
	run -0 sw S 'select(.cell == "work") | .points[] | [.value, .base.peak_growth_bytes, .head.peak_growth_bytes]'
	assert_equal "${#lines[@]}" 4
	local big small
	big=$(jq '.[1]' <<< "${lines[3]}")
	small=$(jq '.[1]' <<< "${lines[0]}")
	within "$big" 60000000 120000000
	within "$small" 0 5000000
	# the cells that take no time are marked negligible, the others not
	assert_equal "$(sw S 'select(.negligible | not) | .cell' | tr '\n' ' ')" 'null "work" '
}

@test "qe-sweep: a real numba conversion loses at small T and wins at large T" {
	local c
	c=$(sw A 'select(.cell == "simulate")')
	assert_equal "$(jq -c '[.points[0].clear, .points[-1].clear, .crossover.state]' <<< "$c")" '["head-slower","head-faster","head-wins-above"]'
	within "$(jq .crossover.at <<< "$c")" 1000000 10000000
	# a Python loop over T: time grows about linearly; the jitted loop's curve is flat at these sizes (compiling dominates)
	within "$(jq .fit.base.exponent <<< "$c")" 0.6 1.3
	# at the lecture's own T = 1e5 the conversion is slower, and the sentence says so
	assert_equal "$(jq -c '[.lecture_value, .speedup_at_lecture < 0.5]' <<< "$c")" '[100000,true]'
	run -0 jq -r .recommendation <<< "$c"
	assert_output --partial "slower; it wins above T ≈ "
}

@test "qe-replicate --profile: a numba function compiled by its first call in the profiled cell: its compiling one row, its run a function of its own" {
	local w="$BATS_FILE_TMPDIR"
	refute grep -F 'failed' "$w/A.err"
	assert_equal "$(jq -r 'select(.kind == "profile") | "\(.version) \(.name)"' "$w/A.ndjson" | tr '\n' ',')" "base simulate,head simulate,"
	# the compiled code's time is the dispatcher's own function in "<numba jitted>", not the lecture's loop
	run -0 jq -c 'select(.kind == "profile" and .version == "head") | .functions[] | select(.file == "<numba jitted>") | .function' "$w/A.ndjson"
	assert_output '"simulate_py"'
	run -0 sw A 'select(.kind == "hotspot" and .version == "head") | .functions[0].function'
	assert_output '"(JIT compilation)"'
	# the old version's loop is the function to optimise: its share of what cProfile saw, and a ceiling over the same
	run -0 sw A 'select(.kind == "hotspot" and .version == "base") | .amdahl | [.function, .share > 0.5, (.limit == null or (.limit - 1 / (1 - .share) | fabs < 0.01))]'
	assert_output '["simulate_py",true,true]'
}

@test "qe-replicate --profile: a cell with 90% of its time in one function; Amdahl's bound" {
	local w="$BATS_FILE_TMPDIR"
	# the profile is a run of its own: one profile record per version, no extra timed records
	assert_equal "$(jq -r 'select(.kind == "profile") | "\(.version) \(.name)"' "$w/P.ndjson" | tr '\n' ',')" "base work,head work,"
	assert_equal "$(jq -c 'select(.kind == "notebook")' "$w/P.ndjson" | wc -l)" 2
	run -0 sw P 'select(.kind == "hotspot") | [.version, .amdahl.function, .amdahl.share, .amdahl.overall, .cell_from, .functions[0].function]'
	assert_equal "${#lines[@]}" 2
	local l share
	for l in "${lines[@]}"; do
		assert_equal "$(jq -c '[.[1], .[4]]' <<< "$l")" '["hot","timed-runs"]'
		share=$(jq '.[2]' <<< "$l")
		within "$share" 0.8 1.0
		# 10x faster in hot(): 1 / ((1 - share) + share / 10)
		within "$(jq '.[3]' <<< "$l")" "$(awk -v f="$share" 'BEGIN { print 1 / ((1 - f) + f / 10) - 0.01 }')" \
			"$(awk -v f="$share" 'BEGIN { print 1 / ((1 - f) + f / 10) + 0.01 }')"
	done
	# by own time the builtin sleep is all of it: one row covers 90%; the Python function is the one to optimise
	refute_output --partial '<module>'
	run -0 sw P 'select(.kind == "hotspot") | [(.functions | map(.function)), .covered >= 0.9]'
	assert_output $'[["<built-in method time.sleep>"],true]\n[["<built-in method time.sleep>"],true]'
	# the hot function's file is the notebook's own cell
	assert_equal "$(jq -r 'select(.kind == "profile") | .functions[] | select(.function == "hot") | .file' "$w/P.ndjson" | sort -u)" cell
}

@test "qe-replicate --profile: without names, the cells qe-cell-diff flags" {
	local w="$BATS_FILE_TMPDIR"
	# work: 0.27 s -> 0.78 s at n = 3000, flagged; nothing else is
	assert_equal "$(jq -r 'select(.kind == "profile") | "\(.version) \(.name)"' "$w/F.ndjson" | tr '\n' ',')" "base work,head work,"
	# the cell is one call, work(n): never the hotspot by its cumulative time (issue 40); its time is in sleep
	assert_equal "$(sw F 'select(.kind == "hotspot" and .version == "head") | [.amdahl.function, .cell_from, .timed_runs]')" '["<built-in method time.sleep>","timed-runs",4]'
}

@test "qe-replicate --sweep, --profile: usage errors and a notebook without a parameters cell exit 2" {
	local w="$BATS_FILE_TMPDIR"
	cd "$w/lec"
	run -2 --separate-stderr rep --sweep n prof.ipynb prof.ipynb
	assert_equal "$stderr" "qe-replicate: option '--sweep': 'n' is not name=value,value,..."
	run -2 --separate-stderr rep --sweep n=1,2 --sweep m=1 prof.ipynb prof.ipynb
	assert_equal "$stderr" "qe-replicate: option '--sweep': parameters swept together need as many values each"
	run -2 --separate-stderr rep --sweep 'n=1,x y' prof.ipynb prof.ipynb
	assert_equal "$stderr" "qe-replicate: option '--sweep': 'x y' is not a Python literal (a value of n)"
	run -2 --separate-stderr rep --sweep n=1,2 prof.ipynb prof.ipynb
	assert_equal "$stderr" "qe-replicate: prof.ipynb: no cell tagged 'parameters' (papermill's convention) to set n in"
	run -2 --separate-stderr rep --sweep n=1,2 --profile scale.ipynb scale-jit.ipynb
	assert_equal "$stderr" "qe-replicate: --profile with --sweep: name the cells to profile (--profile-cell)"
	assert_output ""
}

@test "qe-comment: the evaluation report opens with what to do, then the findings, the scaling table and the hotspots" {
	local w="$BATS_FILE_TMPDIR"
	qe-cell-diff "$w/F.ndjson" "$w/F.ndjson" > "$w/F.diff"
	cat "$w/F.sweep" "$w/S.sweep" > "$w/eval.ndjson"
	run -0 --separate-stderr qe-comment -s -t "Evaluation" "$w/F.diff" "$w/eval.ndjson"
	assert_equal "$stderr" ""
	printf '%s\n' "$output" > "$w/report.md"
	# correctness, the headline, then what to do; the findings and tables after the cells
	local head todo find table hot
	head=$(grep -n '^🔴\|^🟢\|^⚪\|cells\? slower' "$w/report.md" | head -1 | cut -d: -f1)
	todo=$(grep -n '^\*\*What to do about `scale`:\*\* As used at this lecture' "$w/report.md" | cut -d: -f1)
	find=$(grep -n '^#### Findings$' "$w/report.md" | cut -d: -f1)
	table=$(grep -n '^| \*\*3000 (this lecture)\*\* | | | ×0\.[0-9]* (interpolated) |$' "$w/report.md" | cut -d: -f1)
	hot=$(grep -n '^| Hotspot | `scale` `work` (new): ' "$w/report.md" | cut -d: -f1)
	[ -n "$head" ] && [ -n "$todo" ] && [ -n "$find" ] && [ -n "$table" ] && [ -n "$hot" ] || fail "a part is missing: $output"
	[ "$head" -lt "$todo" ] && [ "$todo" -lt "$find" ] && [ "$find" -lt "$table" ] || fail "out of order: $head $todo $find $table"
	# the decision first, right under the title: 4 + 4 runs at the lecture's size, the total's crossover the one input that would flip it
	sed -n 3p "$w/report.md" | grep -Eq '^\*\*Decision for scale: keep the old version\.\*\* Speed as used binds: the new version is slower \(×[0-9.]+ slower as used, p = 0\.029, 4 \+ 4 runs\)\. Sensitivity: the size; the new version wins above n ≈ [0-9.]+e4 \(the lecture total.s crossover\)\.$' ||
		fail "no decision first: $(sed -n 3p "$w/report.md")"
	# one crossover decides: the work cell's code is the same in both versions, so it has none of its own
	grep -q '^| `work` | n^0\.[0-9][0-9] ± 0\.[0-9][0-9] | n^.* | same code in both versions |' "$w/report.md" || fail "the work cell has a crossover"
	run -1 grep -q '^| Scaling | `scale` `work`' "$w/report.md"
	grep -q '^| Scaling | `scale` (lecture): old n^0\.[0-9][0-9] ± 0\.[0-9][0-9], new n^' "$w/report.md" || fail "no scaling row"
	# GitHub's renderer reads it as tables
	run -0 cmark-gfm -e table "$w/report.md"
	assert_output --partial '<strong>3000 (this lecture)</strong></td>'
	assert_output --partial '<th>Finding</th>'
}

@test "qe-sweep: curves from two machines are kept apart, and the report says the machines differ" {
	local w="$BATS_FILE_TMPDIR" f
	f="$(fixture sweep/scale.ndjson)"
	# the same runs as if from another machine: another runner class, another fingerprint
	qe-stamp -R -r github/ubuntu-24.04/4cpu "$f" > "$w/other.ndjson"
	run -0 --separate-stderr qe-sweep "$f" "$w/other.ndjson"
	assert_equal "$(jq -c 'select(.cell == null) | .machine.runner_class' <<< "$output" | tr '\n' ' ')" '"local/debian-12/2cpu" "github/ubuntu-24.04/4cpu" '
	run -0 --separate-stderr qe-comment -s <(echo "$output")
	assert_output --partial '> These sweeps ran on different machines: local/debian-12/2cpu'
	assert_output --partial 'times are not comparable across machines.'
	# each machine's recommendation says which machine, each machine's table holds its own cells only
	assert_output --partial '**What to do about `scale` on github/ubuntu-24.04/4cpu:** As used'
	assert_equal "$(grep -c '^| `work` |' <<< "$output")" 2
}

@test "qe-sweep: hotspots by own time, as many as cover 90%, the JIT compiler's frames in one row" {
	local f
	f="$(fixture sweep/profile.ndjson)"
	run -0 --separate-stderr qe-sweep "$f"
	printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/h.ndjson"
	validate "$BATS_TEST_TMPDIR/h.ndjson"
	# simulate's own 47% first (it was under five rows of np.sort wrappers and compile frames by cumulative time);
	# numba's _compile_for_args, compile and run_pass are one row timed by the outermost; three rows reach 91%
	assert_equal "$(jq -c '[(.functions | map([.function, .file, .share])), .covered]' <<< "$output")" \
		'[[["simulate","cell",0.47],["(JIT compilation)","(compiler)",0.25],["<method '"'"'sort'"'"' of '"'"'numpy.ndarray'"'"' objects>",null,0.193]],0.913]'
	run -0 --separate-stderr qe-comment -s <(qe-sweep "$f")
	assert_line "| \`lec\` | \`solve\` | new | \`(JIT compilation)\` | \`(compiler)\` | 2 | 0.25${NBSP}s | 0.25${NBSP}s | 25% |"
	refute_output --partial '_compile_for_args'
	refute_output --partial '_wrapfunc'
	# a cell cProfile saw under 3% of is left out of the table and the findings, and said
	run -0 --separate-stderr qe-comment -s <(jq -c '.cell_s = 100' "$f" | qe-sweep)
	assert_line '1 cell left out: cProfile saw under 3% of its time (C code or imports it does not see).'
	refute_output --partial '`simulate`'
}

@test "qe-sweep: a size that is no positive number, a line that is no JSON: said, and the other records flow" {
	local w="$BATS_FILE_TMPDIR" f
	f="$(fixture sweep/scale.ndjson)"
	{ head -5 "$f"; echo '{"kind":"cell","schema_version":1,"document":"scale","version":"base","sweep":{"n":"big"},"status":"ok","duration_s":1}'; echo 'not json'; tail -n +6 "$f"; } > "$w/bad.ndjson"
	run -2 --separate-stderr qe-sweep "$w/bad.ndjson"
	assert_equal "${stderr_lines[0]}" "qe-sweep: $w/bad.ndjson:6: the size swept ('n') is not a positive number"
	assert_equal "${stderr_lines[1]}" "qe-sweep: $w/bad.ndjson:7: invalid JSON at column 1"
	assert_equal "$(qe-sweep "$f" | jq -c 'select(.cell == null) | .crossover')" "$(jq -c 'select(.cell == null) | .crossover' <<< "$output")"
	run -0 qe-sweep --version
	assert_output --regexp '^qe-sweep [0-9.]+$'
	run -2 --separate-stderr qe-sweep -r 1 "$f"
	assert_equal "${stderr_lines[0]}" "qe-sweep: --ratio: invalid value '1'"
}

@test "qe-comment: a sweep or hotspot record's strings are inert in the report; a bad profile record is said" {
	local w="$BATS_FILE_TMPDIR"
	printf '%s\n' '{"kind":"sweep","schema_version":1,"document":"d <b>x</b>","cell":null,"parameter":"n","points":[{"value":1}],"machine":{"cpu_model":"@mona #12 www.x.org"},"recommendation":"<script>alert(1)</script> @team"}' \
		'{"kind":"hotspot","schema_version":1,"document":"d","name":null,"version":"head","amdahl":{"function":"a|b","share":0.5,"seconds":1,"overall":1.8,"limit":2},"functions":[{"function":"a|b","calls":1e300}]}' > "$w/hostile.ndjson"
	run -0 --separate-stderr qe-comment -s "$w/hostile.ndjson"
	refute_output --partial '<script>'
	refute_output --partial '@team'
	# a name is a code span: inert, its HTML shown
	assert_output --partial '**What to do about `d <b>x</b>`:**'
	refute_output --partial '#12'
	assert_output --partial '&lt;script&gt;'
	# a table row stays one row: its | are escaped; an absurd count is a dash
	assert_output --partial '`a\|b`'
	assert_output --partial '| builtin | — |'
	run -2 --separate-stderr qe-sweep <<< '{"kind":"profile","schema_version":1,"document":"d","functions":[]}'
	assert_equal "$stderr" $'qe-sweep: <stdin>:1: profile record without a document, functions or a positive profile_s\nqe-sweep: 1 line rejected'
}
