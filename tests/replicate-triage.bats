#!/usr/bin/env bats
# qe-replicate --triage with real kernels (Debian's /usr/bin/python3,
# python3-nbclient, python3-ipykernel, python3-numba, python3-scipy) on the
# lectures of tests/fixtures/triage (its README says what each is designed
# to show): K fresh runs, a profile run, the records through qe-cache-extract
# --runs into qe-sweep --triage, the decision first. The rules are qe-sweep's
# (tests/triage.bats); these tests check what the runner measures.
#
# The kernel runs happen once, in setup_file (13 kernel starts, one to three
# minutes on a loaded 2-core machine). A designed share is the share of the
# lecture's as-used time of the cell built to hold that kind (the quad loop,
# the Python loops), as the same runs measured it: imports and numba's
# compiling take what a loaded machine makes them take, so no share is fixed.
load helper

load replicate

setup_file() {
	local w="$BATS_FILE_TMPDIR"
	cp "$TESTS_DIR"/fixtures/triage/*.ipynb "$w/"
	export IPYTHONDIR="$w/ipython"
	(
		cd "$w" || exit
		replicate_into "$w" Q --triage -k 2 quad.ipynb
		replicate_into "$w" L --triage -k 2 loops.ipynb
		replicate_into "$w" T --triage -k 2 tiny.ipynb
		# progress on (no -q); the default bound: 10 times the first run's time, at least 60 s
		"$PY" "$(command -v qe-replicate)" --triage -k 3 hang.ipynb > "$w/H.ndjson" 2> "$w/H.err"
		echo $? > "$w/H.status"
	)
}

# triage NAME FILTER: jq over the triage record, the first line of NAME's output
triage() {
	head -n 1 "$BATS_FILE_TMPDIR/$1.ndjson" | jq -c "$2"
}

# within X Y POINTS: |X - Y| under POINTS hundredths
within() {
	awk -v x="$1" -v y="$2" -v p="$3" 'BEGIN { d = x - y; if (d < 0) d = -d; exit !(d < p / 100) }' ||
		fail "$1 and $2 differ by $3 points or more"
}

@test "triage: the decision first, then every run's records; all validate; exit 0, quiet with -q" {
	local n
	for n in Q L T H; do
		assert_equal "$(cat "$BATS_FILE_TMPDIR/$n.status")" 0
		assert_equal "$(head -n 1 "$BATS_FILE_TMPDIR/$n.ndjson" | jq -r .kind)" triage
		assert_equal "$(jq -r 'select(.kind == "triage") | .kind' "$BATS_FILE_TMPDIR/$n.ndjson" | wc -l)" 1
		validate "$BATS_FILE_TMPDIR/$n.ndjson"
	done
	# K timed runs, then the profile run: a profile record for every code cell
	assert_equal "$(jq -c 'select(.kind == "notebook") | .replicate' "$BATS_FILE_TMPDIR/Q.ndjson" | tr '\n' ' ')" '1 2 '
	assert_equal "$(jq -c 'select(.kind == "profile") | .index' "$BATS_FILE_TMPDIR/Q.ndjson" | tr '\n' ' ')" '0 1 2 3 '
	assert_equal "$(triage Q '[.runs, .version]')" '[2,null]'
	# -q: nothing on stderr when all went well
	assert_equal "$(cat "$BATS_FILE_TMPDIR/Q.err" "$BATS_FILE_TMPDIR/L.err" "$BATS_FILE_TMPDIR/T.err")" ""
}

@test "triage: SciPy's quad loop is library time, numba's compiling compile, its calls jitted: no-conversion" {
	assert_equal "$(triage Q '[.decision, .binding]')" '["no-conversion","ceiling"]'
	assert_equal "$(triage Q .line | cut -c1-16)" '"no-conversion: '
	# library: within 10 points of the solve cell's share of the lecture (QUADPACK calls math.sin from C)
	within "$(triage Q '.time.library / ([.time[]] | add)')" \
		"$(triage Q '(.cells[] | select(.name == "total = 0.0") | .as_used_s) / ([.cells[].as_used_s] | add)')" 10
	# the lecture's own Python is a few percent, so no rewrite of it pays
	awk -v x="$(triage Q '.addressable.share')" 'BEGIN { exit !(x < 0.1) }' || fail "python share"
	# the kernel's compiling is the hook's, in its cell; its calls from Python are visible to cProfile as jitted
	assert_equal "$(triage Q '[.cells[] | .time.compile > 0] | index(true)')" 1
	assert_equal "$(triage Q '.cells[2].time.jitted > 0')" true
	run -0 jq -c 'select(.kind == "profile" and .index == 2) | .functions[] | select(.function == "kernel") | .file' \
		"$BATS_FILE_TMPDIR/Q.ndjson"
	assert_output '"<numba jitted>"'
}

@test "triage: plain Python loops over arrays are addressable: worth a candidate, in simulate" {
	assert_equal "$(triage L '[.decision, .binding, .addressable.function]')" '["worth-a-candidate","addressable","simulate"]'
	run -0 triage L .line
	assert_output --regexp '^"worth a candidate: [0-9]+% addressable \(×[0-9.]+ at most\), in `simulate`"$'
	# addressable: within 10 points of the loop cell's share of the lecture
	within "$(triage L '.addressable.share')" \
		"$(triage L '(.cells[] | select(.name | startswith("rng")) | .as_used_s) / ([.cells[].as_used_s] | add)')" 10
}

@test "triage: a 0.05 s lecture is no-conversion by the 1 s floor" {
	assert_equal "$(triage T '[.decision, .binding, .as_used_s < 1, .as_used_s >= 0.05]')" '["no-conversion","floor",true,true]'
	run -0 triage T .line
	assert_output --regexp '^"no-conversion: 0\.[0-9]+ s as used, under the 1 s floor"$'
}

@test "triage: a run that hangs is killed at 10 times the first run's time (at least 60 s), recorded as timed out, the others kept; progress on stderr" {
	local w="$BATS_FILE_TMPDIR" first bound
	run -0 jq -c 'select(.kind == "notebook") | [.replicate, .status]' "$w/H.ndjson"
	assert_output $'[1,"ok"]\n[2,"failed"]\n[3,"ok"]'
	first=$(jq 'select(.kind == "notebook" and .replicate == 1) | .execution_seconds' "$w/H.ndjson")
	run -0 jq -r 'select(.kind == "notebook" and .status == "failed") | .error' "$w/H.ndjson"
	assert_output --regexp '^timed out after [0-9.]+ s$'
	bound=$(sed 's/^timed out after \([0-9.]*\) s$/\1/' <<< "$output")
	within "$bound" "$(awk -v f="$first" 'BEGIN { print (10 * f > 60 ? 10 * f : 60) }')" 1
	# the timed-out run took its bound, no more than the kernel's shutdown after it
	awk -v b="$bound" -v s="$(jq 'select(.kind == "notebook" and .status == "failed") | .execution_seconds' "$w/H.ndjson")" \
		'BEGIN { exit !(s >= b && s < b + 30) }' || fail "the timed-out run's time"
	# the triage keeps the two runs that finished
	assert_equal "$(triage H '[.runs, .decision, .binding]')" '[2,"no-conversion","floor"]'
	# progress: each run as it starts (run i of N, elapsed, its bound), the timeout, the whole
	run -0 cat "$w/H.err"
	assert_line --index 0 --regexp '^qe-replicate: hang: run 1 of 4: lecture 1 \([0-9.]+ s elapsed, bound 600 s\)$'
	assert_line --index 1 --regexp '^qe-replicate: hang: run 2 of 4: lecture 2 \([0-9.]+ s elapsed, bound [0-9.]+ s\)$'
	assert_line --index 2 --regexp '^qe-replicate: hang: lecture run 2 \(run 2\) timed out: its kernel was shut down at [0-9.]+ s$'
	assert_line --index 3 --regexp '^qe-replicate: hang: run 3 of 4: lecture 3 '
	assert_line --index 4 --regexp '^qe-replicate: hang: run 4 of 4: lecture profile 1 '
	assert_line --index 5 --regexp '^qe-replicate: hang: 4 runs in [0-9.]+ s$'
}

@test "triage: one version only; the runner runs kernels and decides nothing" {
	run -2 --separate-stderr rep --triage "$(fixture triage/tiny.ipynb)" "$(fixture triage/quad.ipynb)"
	assert_output ""
	assert_equal "${stderr_lines[0]}" "qe-replicate: --triage runs one version (lecture.ipynb, or -d document cache) as used, with none of --arm, --sweep, --profile, --compare, --compare-labelled, --warm"
	run -2 --separate-stderr rep --triage --warm "$(fixture triage/tiny.ipynb)"
	assert_equal "${stderr_lines[0]}" "qe-replicate: --triage runs one version (lecture.ipynb, or -d document cache) as used, with none of --arm, --sweep, --profile, --compare, --compare-labelled, --warm"
	# the runner: at most 450 lines, no record read or written, no rule's word
	local r="$TESTS_DIR/../hook/qe-replicate"
	[ "$(wc -l < "$r")" -le 450 ] || fail "hook/qe-replicate has $(wc -l < "$r") lines"
	run -1 grep -nE 'json\.(dumps|loads)|schema_version|no-conversion|worth-a-candidate|regression|improvement|inconclusive' "$r"
}
