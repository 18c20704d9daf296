#!/usr/bin/env bats
# qe-sweep --triage on designed records (tests/fixtures/sweep/triage.ndjson):
# a lecture dominated by SciPy's quad with numba compiling (wald), one of plain
# Python loops (loops), one of 0.035 s (ge_arrow). The rules' unit cases are
# tests/unit/triage.test; real kernels come with qe-replicate --triage.
load helper

setup() {
	F="$(fixture sweep/triage.ndjson)"
}

@test "triage: each lecture's decision with its binding rule, records that validate" {
	run -0 --separate-stderr qe-sweep --triage "$F"
	printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/t.ndjson"
	validate "$BATS_TEST_TMPDIR/t.ndjson"
	assert_equal "$(jq -c '[.document, .decision, .binding]' "$BATS_TEST_TMPDIR/t.ndjson" | tr '\n' ' ')" \
		'["wald","no-conversion","ceiling"] ["loops","worth-a-candidate","addressable"] ["ge_arrow","no-conversion","floor"] '
	assert_line --index 0 --partial '"line":"no-conversion: 4% of the 5.55 s as used is addressable (×1.04 at best)"'
	assert_line --index 1 --partial '"line":"worth a candidate: 73% addressable (×3.67 at most), in `simulate`"'
	assert_line --index 2 --partial '"line":"no-conversion: 0.035 s as used, under the 1 s floor"'
}

@test "triage: the quad lecture's time by kind: compile from the hook, QUADPACK as library, the lecture's own code as python" {
	run -0 qe-sweep --triage "$F"
	local w
	w=$(jq -c 'select(.document == "wald")' <<< "$output")
	# solve: 5.25 s as used, 1.4 s compiling; the other 3.85 s by own time over the 3.95 s cProfile saw less the
	# compiler's: QUADPACK 2.7, the cell's <module>, driver and integrand 0.23
	assert_equal "$(jq -c '.cells[1].time | [.compile, (.library * 100 | round), (.python * 1000 | round)]' <<< "$w")" '[1.4,263,224]'
	# library: 2.7 / 3.95 of the rest, about 47% of the lecture as wald_friedman's hand decomposition had it
	awk -v x="$(jq '.time.library / ([.time[]] | add)' <<< "$w")" 'BEGIN { exit !(x > 0.42 && x < 0.52) }' || fail "library share"
	# the imports cell has no profile: its time is other
	assert_equal "$(jq -c '.cells[0] | [.profiled, .time.other]' <<< "$w")" '[false,0.3]'
	assert_equal "$(jq -c '[.runs, .as_used_s, .min_s, .max_s, .addressable.function]' <<< "$w")" '[2,5.55,5.5,5.6,"integrand"]'
}

@test "triage: the rules are overridable, and the record says which held" {
	run -0 qe-sweep --triage --floor 0.01 --ceiling 1.01 --addressable python,library "$F"
	assert_equal "$(jq -c '[.document, .decision, .rules.addressable]' <<< "$output" | tr '\n' ' ')" \
		'["wald","worth-a-candidate",["library","python"]] ["loops","worth-a-candidate",["library","python"]] ["ge_arrow","no-conversion",["library","python"]] '
	# the defaults, as qe-sweep(1) states them
	run -0 qe-sweep --triage "$F"
	assert_equal "$(jq -c '.rules' <<< "${lines[0]}")" '{"floor_s":1,"ceiling":1.3,"addressable":["python"]}'
	grep -q '^.Pq Fl \\-floor , default 1 s, QuantEcon.s NO_CONVERSION_BASELINE_S :$' "$TESTS_DIR/../man/qe-sweep.1" || fail "the floor"
	grep -q '^.Pq default \\(mu1.3, QuantEcon.s Dq net positive efficiency band :$' "$TESTS_DIR/../man/qe-sweep.1" || fail "the ceiling"
	grep -q '^The triage floor (default 1).$' "$TESTS_DIR/../man/qe-sweep.1" || fail "--floor"
	grep -q '^The Amdahl ceiling a rewrite must be able to reach (default 1.3).$' "$TESTS_DIR/../man/qe-sweep.1" || fail "--ceiling"
}

@test "triage: usage errors, a bad profile record said and the others kept" {
	run -2 --separate-stderr qe-sweep --triage --addressable cuda "$F"
	assert_equal "${stderr_lines[0]}" "qe-sweep: --addressable: invalid value 'cuda' (kinds: compile, library, python, jitted, other)"
	run -2 --separate-stderr qe-sweep --triage --ceiling 0.5 "$F"
	assert_equal "${stderr_lines[0]}" "qe-sweep: --ceiling: invalid value '0.5'"
	run -2 --separate-stderr qe-sweep --triage --evidence x "$F"
	assert_equal "${stderr_lines[0]}" "qe-sweep: --triage and --evidence: one at a time"
	{ cat "$F"; echo '{"kind":"profile","document":"loops","index":0,"profile_s":0,"functions":[]}'; echo 'not json'; } > "$BATS_TEST_TMPDIR/bad.ndjson"
	run -2 --separate-stderr qe-sweep --triage "$BATS_TEST_TMPDIR/bad.ndjson"
	assert_equal "${stderr_lines[0]}" "qe-sweep: $BATS_TEST_TMPDIR/bad.ndjson:13: profile record without functions, an index or a positive profile_s"
	assert_equal "${stderr_lines[1]}" "qe-sweep: $BATS_TEST_TMPDIR/bad.ndjson:14: invalid JSON at column 1"
	assert_equal "${#lines[@]}" 3
}
