#!/usr/bin/env bats
# qe-sweep --evidence: QuantEcon's evidence.json (the quantitative slots their
# unmodified score.py reads) and env.json (a superset of their env_stamp.py)
# from real qe-replicate runs (tests/fixtures/sweep/make-evidence.sh: fid-base
# against fid-f32, K=3, --compare x,s, stamped; the x64 arms' diff), one test
# per slot of the mapping in qe-sweep(1), EVIDENCE.
load helper

setup() {
	RUNS="$(fixture sweep/evidence-runs.ndjson)"
	DIFF="$(fixture sweep/evidence-diff.ndjson)"
	X64="$(fixture sweep/evidence-x64.ndjson)"
	OUT="$BATS_TEST_TMPDIR/ev"
}

# ev [OPTIONS] FILE...: qe-sweep --evidence into $OUT, status 0, nothing on stdout
ev() {
	run -0 --separate-stderr qe-sweep --evidence "$OUT" "$@"
	assert_output ""
	assert_equal "$stderr" ""
}

# slot PATH: a member of fid's evidence.json
slot() {
	jq -c "$1" "$OUT/fid/evidence.json"
}

@test "evidence: the files where score.py and env_stamp.py put them, JSON objects with the template's dimensions" {
	ev --x64 "$X64" "$RUNS" "$DIFF"
	assert_equal "$(cd "$OUT" && find . -type f | sort | tr '\n' ' ')" "./fid/evidence.json ./fid/results/env.json "
	assert_equal "$(slot '[.lecture, (.quantitative | keys), (.structural | keys)]')" \
		'["fid",["correctness","efficiency","ergonomics","readability"],["logic_design","maintainability","style_idiom"]]'
	# what is not ours says so, in its source
	assert_equal "$(slot '[.quantitative.readability.source, .structural.logic_design.source] | map(startswith("not measured by qe-telemetry")) | all')" true
}

@test "evidence: correctness.builds: every run of the new version finished" {
	ev "$RUNS" "$DIFF"
	assert_equal "$(slot .quantitative.correctness.builds)" true
	ev <(jq -c 'if .kind == "notebook" and .version == "head" and .replicate == 2 then .status = "failed" else . end' "$RUNS") "$DIFF"
	assert_equal "$(slot .quantitative.correctness.builds)" false
	# a failed run of the old version is no failure to build
	ev <(jq -c 'if .kind == "notebook" and .version == "base" and .replicate == 2 then .status = "failed" else . end' "$RUNS") "$DIFF"
	assert_equal "$(slot .quantitative.correctness.builds)" true
}

@test "evidence: correctness.max_delta_shipped: the largest max_abs of the values compared" {
	ev "$RUNS" "$DIFF"
	assert_equal "$(slot .quantitative.correctness.max_delta_shipped)" \
		"$(jq -c 'select(.kind == "notebook-diff") | [.fidelity.values[].max_abs] | max' "$DIFF")"
	# x float32 within rtol 1e-5: the largest is s's (the sum of 1000 values), above x's
	within() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x >= lo && x <= hi) }'; }
	within "$(slot .quantitative.correctness.max_delta_shipped)" 1e-6 1e-3 || fail "not a float32 drift"
	# no values compared: null, which score.py refuses rather than scores
	ev "$RUNS" <(jq -c 'del(.fidelity)' "$DIFF")
	assert_equal "$(slot .quantitative.correctness.max_delta_shipped)" null
}

@test "evidence: correctness.matches_under_x64: the x64 arms' fidelity, else the shipped one's" {
	ev --x64 "$X64" "$RUNS" "$DIFF"
	assert_equal "$(slot .quantitative.correctness.matches_under_x64)" true
	run -0 slot .quantitative.correctness.source
	assert_output --partial "from the x64 arms' fidelity"
	ev --x64 <(jq -c 'if .kind == "notebook-diff" then .fidelity.answer = "differ" else . end' "$X64") "$RUNS" "$DIFF"
	assert_equal "$(slot .quantitative.correctness.matches_under_x64)" false
	# no x64 arm: precision loss as shipped still matches; results that differ do not
	ev "$RUNS" "$DIFF"
	assert_equal "$(slot .quantitative.correctness.matches_under_x64)" true
	run -0 slot .quantitative.correctness.source
	assert_output --partial "no x64 arm ran"
	ev "$RUNS" <(jq -c 'if .kind == "notebook-diff" then .fidelity.answer = "differ" else . end' "$DIFF")
	assert_equal "$(slot .quantitative.correctness.matches_under_x64)" false
}

@test "evidence: efficiency.as_used_runs: base run i / head run i, by replicate number" {
	ev "$RUNS" "$DIFF"
	assert_equal "$(slot '.quantitative.efficiency.as_used_runs | length')" 3
	assert_equal "$(slot '.quantitative.efficiency.as_used_runs')" "$(jq -sc 'map(select(.kind == "notebook")) |
		[group_by(.replicate)[] | (map(select(.version == "base"))[0].cells_seconds / map(select(.version == "head"))[0].cells_seconds * 1e6 | round / 1e6)]' "$RUNS")"
	# a sweep's runs and a third arm's are no as-used runs
	ev <(cat "$RUNS"; jq -c 'select(.kind == "notebook") | .sweep = {"n": 10} | .replicate += 10' "$RUNS"; jq -c 'select(.kind == "notebook") | del(.version) | .arm = "c" | .replicate += 20' "$RUNS") "$DIFF"
	assert_equal "$(slot '.quantitative.efficiency.as_used_runs | length')" 3
}

@test "evidence: efficiency.as_used_speedup and baseline_as_used_seconds: the medians of the runs" {
	ev "$RUNS" "$DIFF"
	med() { jq -s "map(select(.kind == \"notebook\" and .version == \"$1\") | .cells_seconds) | sort | .[1]" "$RUNS"; }
	assert_equal "$(slot .quantitative.efficiency.baseline_as_used_seconds)" "$(med base)"
	assert_equal "$(slot .quantitative.efficiency.as_used_speedup | cut -c1-8)" "$(jq -n "$(med base) / $(med head)" | cut -c1-8)"
}

@test "evidence: efficiency.correct_or_fixable: the values compared do not differ" {
	ev "$RUNS" "$DIFF"
	assert_equal "$(slot .quantitative.efficiency.correct_or_fixable)" true
	ev "$RUNS" <(jq -c 'if .kind == "notebook-diff" then .fidelity.answer = "differ" else . end' "$DIFF")
	assert_equal "$(slot .quantitative.efficiency.correct_or_fixable)" false
}

@test "env.json: env_stamp.py's fields (python, platform, machine, numpy) and ours (threads, the machine, steps_failed)" {
	ev "$RUNS" "$DIFF"
	local env="$OUT/fid/results/env.json" nb
	nb=$(jq -c 'select(.kind == "notebook" and .version == "head")' "$RUNS" | head -1)
	assert_equal "$(jq -r .python "$env")" "$(jq -r .language_version <<< "$nb")"
	assert_equal "$(jq -r .machine "$env")" "$(jq -r .provenance.runner.arch <<< "$nb")"
	assert_equal "$(jq -r .platform "$env")" "$(jq -r '.provenance.runner | "\(.os)-\(.kernel)-\(.arch)-with-\(.distro)"' <<< "$nb")"
	assert_equal "$(jq -r .numpy "$env")" "$(jq -r .kernel_env.modules.numpy <<< "$nb")"
	assert_equal "$(jq -c '[.threads, .runner_class, .logical_cpus > 0, (.fingerprint | length)]' "$env")" \
		"$(jq -c '[.kernel_env.threads, .provenance.runner.class, true, 16]' <<< "$nb")"
	assert_equal "$(jq -c 'has("steps_failed")' "$env")" false
	ev <(jq -c 'if .kind == "notebook" and .version == "head" and .replicate == 2 then .status = "failed" else . end' "$RUNS") "$DIFF"
	assert_equal "$(jq -c .steps_failed "$env")" '["head run 2 failed"]'
}

@test "evidence: usage, a folder that cannot be made, a lecture named with a slash" {
	run -2 --separate-stderr qe-sweep --x64 "$X64" "$RUNS"
	assert_equal "${stderr_lines[0]}" "qe-sweep: --x64 goes with --evidence"
	run -2 --separate-stderr qe-sweep --evidence /dev/null/x "$RUNS"
	assert_equal "$stderr" "qe-sweep: /dev/null/x: Not a directory"
	ev <(jq -c '.document = "dynamics/ar1"' "$RUNS")
	[ -f "$OUT/dynamics_ar1/evidence.json" ] || fail "no dynamics_ar1"
	assert_equal "$(jq -r .lecture "$OUT/dynamics_ar1/evidence.json")" dynamics/ar1
}
