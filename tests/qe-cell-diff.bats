#!/usr/bin/env bats
# qe-cell-diff on qe-cache-extract outputs of the shared fixture caches, on two
# real nbclient runs of the same notebooks (A/A), and on synthetic replicates.
# Inputs: tests/fixtures/qe-cell-diff/ (see make-aa.sh [--load], make-replicates.py).

load helper

setup() {
	T="$BATS_TEST_TMPDIR"
	D="$(fixture qe-cell-diff)"
	cd "$D"
}

# sel FILE JQ: compact jq over a diff output
sel() { jq -c "$2" "$1"; }

# cellv OUTPUT LABEL: [verdict, flags, base_s, head_s, base_index, head_index]
cellv() {
	jq -c --arg l "$2" 'select(.kind == "cell-diff" and .label == $l) | [.verdict, .flags, .base_s, .head_s, .base_index, .head_index]' "$1"
}

@test "qe-cell-diff: -h, --version, bad option, wrong operand count" {
	run -0 --separate-stderr qe-cell-diff -h
	assert_line -n 0 --partial "usage: qe-cell-diff [-Aeh] [--version]"
	assert_equal "$stderr" ""
	run -0 --separate-stderr qe-cell-diff --version
	assert_output "qe-cell-diff 0.1.0"
	run -2 --separate-stderr qe-cell-diff -z a b
	assert_output ""
	assert_equal "${stderr_lines[0]}" "qe-cell-diff: invalid option -- 'z'"
	assert_equal "${stderr_lines[1]}" "usage: qe-cell-diff [-Aeh] [--version] [-a seconds] [-d expr] [-f expr] [-i doc[#label]]"
	run -2 --separate-stderr qe-cell-diff timed-base.ndjson
	assert_equal "${stderr_lines[0]}" "usage: qe-cell-diff [-Aeh] [--version] [-a seconds] [-d expr] [-f expr] [-i doc[#label]]"
	run -2 --separate-stderr qe-cell-diff - -
	assert_equal "${stderr_lines[0]}" "qe-cell-diff: only one of base and head may be '-'"
	run -2 --separate-stderr qe-cell-diff -r 0.9 timed-base.ndjson timed-head.ndjson
	assert_equal "${stderr_lines[0]}" "qe-cell-diff: -r: invalid value '0.9'"
}

@test "timed pair: exactly the expected records, all valid" {
	run -0 --separate-stderr qe-cell-diff timed-base.ndjson timed-head.ndjson
	assert_equal "$stderr" ""
	assert_output - < timed.expected
	printf '%s\n' "$output" > "$T/out"
	run -0 validate "$T/out"
}

@test "timed pair: slow-sleep regressed (0.3 -> 0.9 s), source unchanged, upstream changed" {
	qe-cell-diff timed-base.ndjson timed-head.ndjson > "$T/out"
	run -0 cellv "$T/out" slow-sleep
	assert_output '["regression",["upstream-changed","output-changed"],0.30444,0.90397,2,2]'
	run -0 sel "$T/out" 'select(.label == "slow-sleep") | [.ratio, .delta_s, .share_base, .share_head, .first_line, .timing_source_head]'
	assert_output '[2.9693,0.59953,0.5164,0.7705,"time.sleep(SLEEP)","nbclient"]'
	# the cell that caused it: params, whose source changed
	run -0 cellv "$T/out" params
	assert_output '["unchanged",["source-changed"],0.003189,0.004908,1,1]'
	# the only regressed cell
	run -0 sel "$T/out" 'select(.kind == "cell-diff" and .verdict == "regression") | .label'
	assert_output '"slow-sleep"'
}

@test "timed pair: markov-check new at head index 1, markov-simulate source-changed, later cells still matched" {
	qe-cell-diff timed-base.ndjson timed-head.ndjson > "$T/out"
	run -0 sel "$T/out" 'select(.kind == "cell-diff" and .document == "dynamics/markov") | [.label, .verdict, .flags, .base_index, .head_index]'
	assert_output - <<-'EOF'
	["markov-setup","unchanged",[],0,0]
	["markov-check","new",[],null,1]
	["markov-simulate","unchanged",["source-changed","upstream-changed","output-changed"],1,2]
	["markov-stationary","unchanged",["upstream-changed"],2,3]
	EOF
}

@test "timed pair: notebook totals are the sums of cell times; a lecture holding a regressed cell is a regression" {
	qe-cell-diff timed-base.ndjson timed-head.ndjson > "$T/out"
	run -0 sel "$T/out" 'select(.kind == "notebook-diff") | [.document, .verdict, .verdict_rule, .measure, .base_s, .head_s, .cells.regression]'
	# intro's sum moved 0.59 -> 1.17 s (x1.99 but +0.58 s, under the 1.0 s
	# floor): its slow-sleep cell went x3, so the cell route decides
	assert_output - <<-'EOF'
	["broken","failed",null,null,null,null,0]
	["dynamics/markov","unchanged","sum","cells_seconds",0.335005,0.403222,0]
	["errors_allowed","unchanged","sum","cells_seconds",0.354624,0.36968,0]
	["images","unchanged","sum","cells_seconds",0.121378,0.093748,0]
	["intro","regression","cells","cells_seconds",0.58952,1.173201,1]
	["numba_demo","unchanged","sum","cells_seconds",0.870252,0.729474,0]
	["stale_timing","unchanged","sum","cells_seconds",0.272625,0.26853,0]
	EOF
	# the totals are exactly the extractor's cells_seconds
	run -0 jq -c 'select(.kind == "notebook" and .document == "intro") | .cells_seconds' timed-head.ndjson
	assert_output 1.173201
	run -0 sel "$T/out" 'select(.kind == "diff-summary") | [.regression, .cells.regression, .cells.new, .notebooks.regression, .notebooks.failed]'
	assert_output '[true,1,1,1,1]'
}

@test "-e: exit 1 on the timed pair's regression, 0 on A/A" {
	run -1 --separate-stderr qe-cell-diff -e timed-base.ndjson timed-head.ndjson
	assert_equal "$stderr" ""
	assert_equal "${#lines[@]}" 33
	run -0 --separate-stderr qe-cell-diff -e aa-run1.ndjson aa-run2.ndjson
	assert_equal "$stderr" ""
}

@test "incremental build: inherited notebooks cached, intro and markov compared on execution_seconds" {
	run -0 --separate-stderr qe-cell-diff stock-base.ndjson stock-head-incremental.ndjson
	assert_equal "$stderr" ""
	assert_output - < stock-incremental.expected
	printf '%s\n' "$output" > "$T/out"
	run -0 sel "$T/out" 'select(.kind == "notebook-diff") | [.document, .verdict, .head_origin, .origin_from, .measure, .base_s, .head_s]'
	assert_output - <<-'EOF'
	["broken","failed","executed","origin",null,null,null]
	["dynamics/markov","unchanged","executed","origin","execution_seconds",1.62675,1.999581]
	["errors_allowed","cached","inherited","origin",null,null,null]
	["images","cached","inherited","origin",null,null,null]
	["intro","unchanged","executed","origin","execution_seconds",1.816136,2.873951]
	["numba_demo","cached","inherited","origin",null,null,null]
	["stale_timing","cached","inherited","origin",null,null,null]
	EOF
	# no cell records for cached notebooks; stock caches have no cell timings
	run -0 sel "$T/out" 'select(.kind == "cell-diff") | .document' 
	refute_output --partial numba_demo
	run -0 cellv "$T/out" markov-check
	assert_output '["new",[],null,null,null,1]'
	run -0 cellv "$T/out" markov-simulate
	assert_output '["no-timing",["source-changed","upstream-changed","output-changed"],null,null,1,2]'
	run -0 validate "$T/out"
}

@test "no origin information: same cache key means cached, another key means re-executed" {
	run -0 --separate-stderr qe-cell-diff stock-base.ndjson stock-head.ndjson
	assert_output - < stock-head.expected
	printf '%s\n' "$output" > "$T/out"
	run -0 sel "$T/out" 'select(.kind == "notebook-diff") | [.document, .verdict, .origin_from]'
	assert_output - <<-'EOF'
	["broken","failed","cache-key"]
	["dynamics/markov","unchanged","cache-key"]
	["errors_allowed","cached","cache-key"]
	["images","cached","cache-key"]
	["intro","unchanged","cache-key"]
	["numba_demo","cached","cache-key"]
	["stale_timing","cached","cache-key"]
	EOF
}

@test "A/A: two real nbclient runs of the same notebooks give no regression" {
	run -0 --separate-stderr qe-cell-diff aa-run1.ndjson aa-run2.ndjson
	assert_equal "$stderr" ""
	printf '%s\n' "$output" > "$T/out"
	run -0 sel "$T/out" 'select(.kind == "diff-summary") | [.regression, .notebooks, .cells, .cell_flags."source-changed"]'
	assert_output '[false,{"regression":0,"improvement":0,"unchanged":6,"inconclusive":0,"new":0,"removed":0,"no-timing":0,"not-comparable":0,"cached":0,"failed":0,"newly-failed":0},{"regression":0,"improvement":0,"unchanged":23,"inconclusive":0,"new":0,"removed":0,"no-timing":1,"not-comparable":0},0]'
	run -0 validate "$T/out"
}

@test "A/A with slow-sleep made 3x slower: caught; 1.2x: not" {
	jq -c 'if .kind == "cell" and .label == "slow-sleep" then .duration_s *= 3 else . end' aa-run2.ndjson > "$T/x3"
	run -1 --separate-stderr qe-cell-diff -e aa-run1.ndjson "$T/x3"
	assert_equal "$stderr" ""
	printf '%s\n' "$output" > "$T/out"
	run -0 sel "$T/out" 'select(.kind == "cell-diff" and .verdict == "regression") | [.label, .flags, .ratio]'
	assert_output '["slow-sleep",[],3.1064]'
	jq -c 'if .kind == "cell" and .label == "slow-sleep" then .duration_s *= 1.2 else . end' aa-run2.ndjson > "$T/x12"
	run -0 --separate-stderr qe-cell-diff -e aa-run1.ndjson "$T/x12"
	printf '%s\n' "$output" > "$T/out"
	run -0 cellv "$T/out" slow-sleep
	assert_output '["unchanged",[],0.303885,0.377594,2,2]'
}

@test "a 3x slowdown of a 5 ms cell stays under the absolute floor" {
	jq -c 'if .kind == "cell" and .label == "params" then .duration_s *= 3 else . end' aa-run2.ndjson > "$T/x3"
	run -0 --separate-stderr qe-cell-diff -e aa-run1.ndjson "$T/x3"
	printf '%s\n' "$output" > "$T/out"
	run -0 sel "$T/out" 'select(.label == "params") | [.verdict, .ratio]'
	assert_output '["unchanged",5.6537]'
	# ...unless the floor is lowered
	run -1 --separate-stderr qe-cell-diff -e -a 0.01 aa-run1.ndjson "$T/x3"
}

@test "runner factor: only cells that measure compute count; 5 of them are too few to speak for the machine (verdicts as measured); -A removes it and a verdict it would change is unclear" {
	# issue 40: this test removed a x2.27 factor of 11 cells (import and
	# first cells among them) by default; now import cells, first cells and
	# cells under 0.1 s take no part, which leaves 5 cells in 5 lectures
	jq -c 'if .kind == "cell" and .duration_s != null then .duration_s *= (if .label == "slow-sleep" then 6 else 2 end) else . end' aa-run2.ndjson > "$T/slow"
	qe-cell-diff aa-run1.ndjson "$T/slow" > "$T/auto"
	run -0 sel "$T/auto" 'select(.kind == "diff-summary") | [.runner_factor, .runner_factor_cells, .runner_factor_lectures, .speed, .adjusted, .cells.regression, .regression]'
	assert_output '[1.9878,5,5,"few",false,2,true]'
	run -0 sel "$T/auto" 'select(.kind == "cell-diff" and .adjusted_ratio != null)'
	assert_output ''
	run -0 sel "$T/auto" 'select(.kind == "diff-summary") | .thresholds | [.factor_min_s, .factor_band, .factor_min_cells, .factor_min_lectures, .factor_spread]'
	assert_output '[0.1,1.25,8,2,1.25]'
	# --no-adjust: the same
	diff <(qe-cell-diff --no-adjust aa-run1.ndjson "$T/slow") "$T/auto"
	# the import cell's +1.16 s is inside the import rule's 2 s: not a regression
	run -0 sel "$T/auto" 'select(.kind == "cell-diff" and .label == "numba-import") | [.first_line, .verdict, .delta_s > 1]'
	assert_output '["import numpy as np","unchanged",true]'
	run -0 sel <(qe-cell-diff --import-abs 0.5 aa-run1.ndjson "$T/slow") 'select(.kind == "cell-diff" and .label == "numba-import") | .verdict'
	assert_output '"regression"'
	# -A removes any factor; the ratio stays as measured, the adjusted one
	# beside it; slow-sleep is slower both ways, njit-first-call only as
	# measured (x3.78, adjusted x1.90 and +0.40 s): machine speed decides
	# nothing by itself, so it is unclear, and so is its lecture
	qe-cell-diff -A aa-run1.ndjson "$T/slow" > "$T/adj"
	run -0 sel "$T/adj" 'select(.kind == "diff-summary") | [.runner_factor, .adjusted, .cells.regression, .cells.inconclusive, .cell_flags["machine-speed"]]'
	assert_output '[1.9878,true,1,1,1]'
	run -0 sel "$T/adj" 'select(.kind == "cell-diff" and (.verdict == "regression" or .verdict == "inconclusive")) | [.label, .verdict, .flags, .reason, .ratio, .adjusted_ratio]'
	assert_output - <<-'EOF'
	["slow-sleep","regression",[],null,6.2128,3.1255]
	["njit-first-call","inconclusive",["machine-speed"],"machine speed differs",3.7762,1.8997]
	EOF
	run -0 sel "$T/adj" 'select(.kind == "notebook-diff" and .verdict != "unchanged") | [.document, .verdict, .verdict_rule, .flags, .ratio, .adjusted_ratio]'
	assert_output - <<-'EOF'
	["intro","regression","cells",[],1.3347,0.6715]
	["numba_demo","inconclusive","sum",["machine-speed"],2.1274,1.0702]
	EOF
	run -0 validate "$T/adj"
}

@test "replicates: Mann-Whitney answers regressed, same, inconclusive, improved" {
	run -0 --separate-stderr qe-cell-diff rep-base.ndjson rep-head.ndjson
	assert_equal "$stderr" ""
	printf '%s\n' "$output" > "$T/out"
	run -0 sel "$T/out" 'select(.kind == "cell-diff") | [.document, .label, .verdict, .test.answer, .test.p, .n_base, .n_head, .base_s, .head_s]'
	assert_output - <<-'EOF'
	["pair","big","inconclusive","inconclusive",0.333333,2,2,1.005,3.05]
	["rep","clear","regression","regressed",0.007937,5,5,1,2]
	["rep","same","unchanged","same",1,5,5,1,1.02]
	["rep","noisy","inconclusive","inconclusive",0.444444,5,5,1.1,2.9]
	["rep","faster","improvement","improved",0.007937,5,5,2,1]
	EOF
	run -0 validate "$T/out"
}

@test "replicates disagreeing on a cell's source are rejected" {
	jq -c 'if .kind == "cell" and .label == "clear" and .duration_s == 1.02 then .source_sha256 = ("0" * 64) else . end' rep-base.ndjson > "$T/bad"
	run -2 --separate-stderr qe-cell-diff "$T/bad" rep-head.ndjson
	assert_equal "$stderr" "qe-cell-diff: $T/bad:7: document 'rep' cell 0: replicate has another source
qe-cell-diff: 1 line rejected"
}

@test "cross-machine: different fingerprints make every verdict not-comparable and name the facts" {
	run -0 --separate-stderr qe-cell-diff -e stamped-base.ndjson stamped-head-other.ndjson
	assert_equal "$stderr" ""
	printf '%s\n' "$output" > "$T/out"
	run -0 sel "$T/out" 'select(.kind == "diff-summary") | [.machines, .differing_facts, .regression, .cells.regression]'
	assert_output '["different",[{"fact":"runner_class","base":"ubuntu-latest","head":"runs-on-4cpu"}],false,1]'
	run -0 jq -s '[.[] | select(.kind != "diff-summary" and .verdict != "cached") | select(.flags | index("not-comparable") | not)] | length' "$T/out"
	assert_output 0
	run -0 cellv "$T/out" slow-sleep
	assert_output '["regression",["upstream-changed","output-changed","not-comparable"],0.30444,0.90397,2,2]'
	run -0 validate "$T/out"
}

@test "same machine class: machines same, verdicts as unstamped" {
	run -1 --separate-stderr qe-cell-diff -e stamped-base.ndjson stamped-head-same.ndjson
	printf '%s\n' "$output" > "$T/out"
	run -0 sel "$T/out" 'select(.kind == "diff-summary") | [.machines, .fingerprints_base, .fingerprints_head, .differing_facts]'
	assert_output '["same",["c47824f9c49e38be"],["c47824f9c49e38be"],[]]'
	diff <(grep -v diff-summary "$T/out" | jq -c 'del(.fingerprint_base, .fingerprint_head)') \
	     <(grep -v diff-summary timed.expected | jq -c 'del(.fingerprint_base, .fingerprint_head)')
}

@test "package series alone keep the verdicts; with another machine fact they are named one level down" {
	jq -c '.provenance.fingerprint = "0000000000000001" | .provenance.fingerprint_facts.packages = {"numpy": "1.26"}' stamped-base.ndjson > "$T/b"
	jq -c '.provenance.fingerprint = "0000000000000002" | .provenance.fingerprint_facts.packages = {"numpy": "2.0"}' stamped-base.ndjson > "$T/h"
	run -0 --separate-stderr qe-cell-diff "$T/b" "$T/h"
	run -0 jq -c 'select(.kind == "diff-summary") | [.machines, .differing_facts, .cell_flags["not-comparable"]]' <<< "$output"
	assert_output '["same",[],0]'
	jq -c '.provenance.fingerprint = "0000000000000003" | .provenance.fingerprint_facts.packages = {"numpy": "2.0"} | .provenance.fingerprint_facts.runner_class = "gpu"' stamped-base.ndjson > "$T/h2"
	run -0 --separate-stderr qe-cell-diff "$T/b" "$T/h2"
	run -0 jq -c 'select(.kind == "diff-summary") | [.machines, .differing_facts]' <<< "$output"
	assert_output '["different",[{"fact":"packages.numpy","base":"1.26","head":"2.0"},{"fact":"runner_class","base":"ubuntu-latest","head":"gpu"}]]'
}

@test "a package-only environment change (real qe-stamp): verdicts kept, the change named with the lectures importing it" {
	V="$(fixture verdicts)"
	qe-stamp -r ubuntu-latest -p "$V/pip-base.json" timed-base.ndjson > "$T/b"
	qe-stamp -r ubuntu-latest -p "$V/pip-head.json" timed-head.ndjson > "$T/h"
	# numpy's series moved (1.26 -> 2.0): the fingerprints differ
	run -0 sh -c "jq -r '.provenance.fingerprint' '$T/b' '$T/h' | sort -u | wc -l"
	assert_output 2
	run -1 --separate-stderr qe-cell-diff -e "$T/b" "$T/h"
	printf '%s\n' "$output" > "$T/out"
	run -0 sel "$T/out" 'select(.kind == "diff-summary") | [.regression, .machines, .differing_facts, .cell_flags["not-comparable"], .notebooks.regression]'
	assert_output '[true,"same",[],0,1]'
	run -0 sel "$T/out" 'select(.kind == "diff-summary") | .environment_changes[]'
	assert_output - <<-'EOF'
	{"package":"jax","base":"0.4.30","head":"0.4.31","lectures":[]}
	{"package":"jaxlib","base":"0.4.30","head":"0.4.31","lectures":[]}
	{"package":"numpy","base":"1.26.4","head":"2.0.0","lectures":["numba_demo"]}
	EOF
	run -0 cellv "$T/out" slow-sleep
	assert_output '["regression",["upstream-changed","output-changed"],0.30444,0.90397,2,2]'
	run -0 validate "$T/out"
	# unstamped: no environment known, nothing listed
	run -0 sel timed.expected 'select(.kind == "diff-summary") | .environment_changes'
	assert_output '[]'
}

@test "timing sources that cannot be compared give not-comparable with a reason" {
	jq -c 'if .kind == "cell" and .label == "slow-sleep" then .timing_source = "papermill" else . end' timed-head.ndjson > "$T/h"
	run -0 --separate-stderr qe-cell-diff timed-base.ndjson "$T/h"
	printf '%s\n' "$output" > "$T/out"
	run -0 sel "$T/out" 'select(.label == "slow-sleep") | [.verdict, .flags, .reason, .timing_source_base, .timing_source_head]'
	assert_output '["not-comparable",["upstream-changed","output-changed","not-comparable"],"timing sources differ","nbclient","papermill"]'
	# the notebook falls back to execution_seconds
	run -0 sel "$T/out" 'select(.kind == "notebook-diff" and .document == "intro") | [.measure, .reason]'
	assert_output '["execution_seconds","cell timing sources differ; compared execution_seconds"]'
}

@test "records in any order give the same bytes; gzip and stdin work" {
	tac timed-head.ndjson > "$T/rev"
	run -0 --separate-stderr qe-cell-diff timed-base.ndjson "$T/rev"
	diff <(printf '%s\n' "$output" | grep -v diff-summary) <(grep -v diff-summary timed.expected)
	gzip -c timed-base.ndjson > "$T/base.gz"
	run -0 --separate-stderr qe-cell-diff "$T/base.gz" - < timed-head.ndjson
	assert_equal "$stderr" ""
	diff <(printf '%s\n' "$output" | grep -v diff-summary) <(grep -v diff-summary timed.expected)
	run -0 jq -r 'select(.kind == "diff-summary") | .head' <<< "$output"
	assert_output "<stdin>"
}

@test "-k: a jq key (labels) aligns cells; changed sources are still flagged" {
	run -0 --separate-stderr qe-cell-diff -k .label timed-base.ndjson timed-head.ndjson
	printf '%s\n' "$output" > "$T/out"
	run -0 sel "$T/out" 'select(.kind == "cell-diff" and .document == "dynamics/markov") | [.label, .verdict, .flags]'
	assert_output - <<-'EOF'
	["markov-setup","unchanged",[]]
	["markov-check","new",[]]
	["markov-simulate","unchanged",["source-changed","upstream-changed","output-changed"]]
	["markov-stationary","unchanged",["upstream-changed"]]
	EOF
}

@test "-f filters records, -d maps document names" {
	run -0 --separate-stderr qe-cell-diff -f '.document != "intro"' timed-base.ndjson timed-head.ndjson
	refute_output --partial '"document":"intro"'
	run -0 --separate-stderr qe-cell-diff -d '.document | ltrimstr("dynamics/")' timed-base.ndjson timed-head.ndjson
	run -0 jq -r 'select(.kind == "notebook-diff") | .document' <<< "$output"
	assert_line -n 4 markov
}

@test "-k that does not compile, or fails at run time, is reported" {
	run -2 --separate-stderr qe-cell-diff -k '.[' timed-base.ndjson timed-head.ndjson
	assert_output ""
	# libjq's own words: jq 1.6 (Debian 12) says "unexpected $end", jq 1.7 (Ubuntu 24.04) "unexpected end of file"
	assert_regex "$stderr" "^qe-cell-diff: -k: cannot compile '\\.\\[': jq: error: syntax error, unexpected (\\\$end|end of file) \\(Unix shell quoting issues\\?\\) at <top-level>, line 1:$"
	run -2 --separate-stderr qe-cell-diff -f 'error("boom")' timed-base.ndjson timed-head.ndjson
	assert_equal "${stderr_lines[0]}" "qe-cell-diff: timed-base.ndjson:1: 'error(\"boom\")': boom"
	assert_equal "${stderr_lines[-1]}" "qe-cell-diff: timed-base.ndjson: no baseline records"
}

@test "bad lines are reported and counted, good records still compared, exit 2" {
	{ head -3 timed-head.ndjson; echo '{"kind":'; echo '[1]'; tail -n +4 timed-head.ndjson; } > "$T/h"
	run -2 --separate-stderr qe-cell-diff timed-base.ndjson "$T/h"
	assert_equal "$stderr" "qe-cell-diff: $T/h:4: invalid JSON at column 8
qe-cell-diff: $T/h:5: not a JSON object
qe-cell-diff: 2 lines rejected"
	diff <(printf '%s\n' "$output" | grep -v diff-summary) <(grep -v diff-summary timed.expected)
}

@test "no baseline records, or an unreadable base, is trouble (exit 2), head still reported" {
	run -2 --separate-stderr qe-cell-diff /dev/null timed-head.ndjson
	assert_equal "$stderr" "qe-cell-diff: /dev/null: no baseline records"
	run -0 jq -c 'select(.kind == "notebook-diff" and .document == "intro") | .verdict' <<< "$output"
	assert_output '"new"'
	run -2 --separate-stderr qe-cell-diff nonexistent.ndjson timed-head.ndjson
	assert_equal "$stderr" "qe-cell-diff: nonexistent.ndjson: No such file or directory
qe-cell-diff: nonexistent.ndjson: no baseline records"
}

@test "removed cells sit at their base position; upstream-changed follows them" {
	# drop intro's cell 1 (params) from head, renumber the rest
	# (and give intro another cache key, so that HEAD counts as having re-executed it)
	jq -c 'if .document == "intro" then .cache_key = "changed" else . end | if .kind == "cell" and .document == "intro" then (if .index == 1 then empty elif .index > 1 then .index -= 1 else . end) else . end' timed-base.ndjson > "$T/h"
	run -0 --separate-stderr qe-cell-diff timed-base.ndjson "$T/h"
	printf '%s\n' "$output" > "$T/out"
	run -0 sel "$T/out" 'select(.kind == "cell-diff" and .document == "intro") | [.label, .verdict, .flags, .base_index, .head_index]'
	assert_output - <<-'EOF'
	["imports","unchanged",[],0,0]
	["params","removed",[],1,null]
	["slow-sleep","unchanged",["upstream-changed"],2,1]
	["numpy-eig","unchanged",["upstream-changed"],3,2]
	["résumé-λ","unchanged",["upstream-changed"],4,3]
	[null,"unchanged",["upstream-changed"],5,4]
	[null,"no-timing",["upstream-changed"],6,5]
	EOF
}

@test "man page example: extract both caches, diff, gate with -e" {
	S="$(shared jupyter-cache-timed)"
	qe-cache-extract "$S/base/.jupyter_cache" > "$T/base.ndjson"
	qe-cache-extract "$S/head/.jupyter_cache" > "$T/head.ndjson"
	run -1 --separate-stderr qe-cell-diff -e "$T/base.ndjson" "$T/head.ndjson"
	run -0 jq -r 'select(.kind == "cell-diff" and .verdict == "regression") | "\(.document) \(.label) \(.base_s) -> \(.head_s)"' <<< "$output"
	assert_output "intro slow-sleep 0.30444 -> 0.90397"
}

@test "man page example: incremental build through qe-stamp on stdin" {
	qe-cache-extract "$(shared jupyter-cache/base)/.jupyter_cache" > "$T/base.ndjson"
	run -0 --separate-stderr bash -c 'qe-cache-extract --since "2026-11-29T14:32:10Z" "$1" | qe-stamp -r test | qe-cell-diff "$2" -' _ \
		"$(shared jupyter-cache/head-incremental)/.jupyter_cache" "$T/base.ndjson"
	assert_equal "$stderr" ""
	run -0 jq -c 'select(.kind == "diff-summary") | [.notebooks.cached, .notebooks.unchanged, .cells.new, .machines, .head]' <<< "$output"
	assert_output '[4,2,1,"unknown","<stdin>"]'
}

@test "man page example: concatenated runs are replicates" {
	cat aa-run1.ndjson aa-run2.ndjson > "$T/base.ndjson"
	cat aa-run2.ndjson aa-run1.ndjson > "$T/head.ndjson"
	run -0 --separate-stderr qe-cell-diff -e "$T/base.ndjson" "$T/head.ndjson"
	printf '%s\n' "$output" > "$T/out"
	run -0 jq -c 'select(.kind == "diff-summary") | [.cells.unchanged, .cells."no-timing", .notebooks.unchanged]' "$T/out"
	assert_output '[23,1,6]'
	run -0 jq -c 'select(.label == "slow-sleep") | .test' "$T/out"
	assert_output '{"method":"mann-whitney","answer":"same","p":1,"n_base":2,"n_head":2,"spread":[0.9658,1.0355]}'
}

@test "cached notebooks are not judged by their stamps; re-executed ones are" {
	jq -c '.provenance = {"fingerprint": "000000000000000a", "fingerprint_facts": {"runner_class": "a"}}' stock-base.ndjson > "$T/b"
	jq -c '.provenance = {"fingerprint": "000000000000000b", "fingerprint_facts": {"runner_class": "b"}}' stock-head-incremental.ndjson > "$T/h"
	run -0 --separate-stderr qe-cell-diff "$T/b" "$T/h"
	printf '%s\n' "$output" > "$T/out"
	run -0 sel "$T/out" 'select(.kind == "notebook-diff") | [.document, .verdict, .flags, .reason]'
	assert_output - <<-'EOF2'
	["broken","failed",["not-comparable"],"failed in base and head"]
	["dynamics/markov","unchanged",["source-changed","output-changed","not-comparable"],"provenance fingerprints differ"]
	["errors_allowed","cached",[],"head did not re-execute this document"]
	["images","cached",[],"head did not re-execute this document"]
	["intro","unchanged",["source-changed","output-changed","not-comparable"],"provenance fingerprints differ"]
	["numba_demo","cached",[],"head did not re-execute this document"]
	["stale_timing","cached",[],"head did not re-execute this document"]
	EOF2
	run -0 sel "$T/out" 'select(.kind == "diff-summary") | [.machines, .differing_facts]'
	assert_output '["different",[{"fact":"runner_class","base":"a","head":"b"}]]'
}

@test "a huge cell index costs one cell, not an array that long; indexes above 2^24 print exactly (fuzz-cell-diff)" {
	S=$(printf '%064d' 0)
	{
		echo '{"kind":"notebook","document":"d","status":"ok"}'
		for i in 99999999 16777217 3; do
			printf '{"kind":"cell","document":"d","index":%s,"source_sha256":"%s","duration_s":1}\n' "$i" "$S"
		done
	} > "$T/big.ndjson"
	# 99999999 cells of 72 bytes were 7 GB; 200 MB is plenty for three
	if [ -z "${QE_VALGRIND:-}" ]; then	# valgrind's own RSS is not the tool's
		rss=$("$TESTS_DIR/tools/maxrss.py" qe-cell-diff "$T/big.ndjson" "$T/big.ndjson")
		[ "$rss" -lt 200000 ]
	fi
	run -0 --separate-stderr qe-cell-diff "$T/big.ndjson" "$T/big.ndjson"
	assert_equal "$stderr" ""
	run -0 jq -c 'select(.kind == "cell-diff") | [.base_index, .head_index, .verdict]' <<< "$output"
	assert_output $'[3,3,"unchanged"]\n[16777217,16777217,"unchanged"]\n[99999999,99999999,"unchanged"]'
}

@test "an unknown cell status is a rejected record, not read as not-run; null and the four words are taken" {
	S=$(printf '%064d' 0)
	{
		echo '{"kind":"notebook","document":"d","status":"ok"}'
		printf '{"kind":"cell","document":"d","index":0,"source_sha256":"%s","status":"bogus","duration_s":1}\n' "$S"
		i=1
		for st in '"ok"' '"error"' '"skipped"' '"not-run"' null; do
			printf '{"kind":"cell","document":"d","index":%s,"source_sha256":"%s","status":%s,"duration_s":1}\n' "$i" "$S" "$st"
			i=$((i + 1))
		done
	} > "$T/status.ndjson"
	run -2 --separate-stderr qe-cell-diff "$T/status.ndjson" "$T/status.ndjson"
	assert_equal "$stderr" "qe-cell-diff: $T/status.ndjson:2: cell record with an invalid 'status' (not ok, error, skipped or not-run)
qe-cell-diff: 1 line rejected
qe-cell-diff: $T/status.ndjson:2: cell record with an invalid 'status' (not ok, error, skipped or not-run)
qe-cell-diff: 1 line rejected"
	run -0 jq -c 'select(.kind == "cell-diff") | [.base_index, .status_base]' <<< "$output"
	assert_output $'[1,"ok"]\n[2,"error"]\n[3,"skipped"]\n[4,"not-run"]\n[5,null]'
	# a notebook's status is passed through as written
	printf '{"kind":"notebook","document":"d","status":"weird"}\n' > "$T/nb.ndjson"
	run -0 --separate-stderr qe-cell-diff "$T/nb.ndjson" "$T/nb.ndjson"
	run -0 jq -c 'select(.kind == "notebook-diff") | [.status_base, .status_head]' <<< "$output"
	assert_output '["weird","weird"]'
}

# ---- tests/fixtures/verdicts: real caches of a small book (make-verdicts.py) ----

# vx NAME: extract the verdicts fixture's build NAME (aa1, aa2, head) with its
# hook log; aa2 and head against aa1 as their baseline
vx() {
	local V b=()
	V="$(fixture verdicts)"
	[ "$1" = aa1 ] || b=(-b "$V/aa1/.jupyter_cache")
	qe-cache-extract "${b[@]}" -t "$V/$1/hook.log" "$V/$1/.jupyter_cache" > "$T/$1.ndjson"
}

@test "verdicts A/A: two fresh builds of one book, zero regressions and improvements at every level" {
	vx aa1
	vx aa2
	# a fresh rebuild has the baseline's keys but new records: executed, not inherited
	run -0 jq -c 'select(.kind == "notebook") | .origin' "$T/aa2.ndjson"
	refute_output --partial inherited
	run -0 --separate-stderr qe-cell-diff -e "$T/aa1.ndjson" "$T/aa2.ndjson"
	printf '%s\n' "$output" > "$T/out"
	run -0 sel "$T/out" 'select(.kind == "diff-summary") | [.regression, .notebooks.regression, .notebooks.improvement, .cells.regression, .cells.improvement, .cells.inconclusive]'
	assert_output '[false,0,0,0,0,0]'
	run -0 sel "$T/out" 'select(.kind == "notebook-diff") | [.document, .verdict, .verdict_rule, .flags, .reason]'
	assert_output - <<-'EOF'
	["errors_allowed","unchanged","sum",[],null]
	["fails_both","failed",null,[],"failed in base and head"]
	["long","unchanged","sum",[],null]
	["main_only","unchanged","sum",[],null]
	["newly_fails","unchanged","sum",[],null]
	["prose","unchanged","sum",[],"no code cells; compared execution_seconds"]
	["steady","unchanged","sum",[],null]
	EOF
	# print(object()) shows another address each run: not an output change
	run -0 sel "$T/out" 'select(.kind == "cell-diff" and (.flags | length) > 0)'
	assert_output ""
	run -0 validate "$T/out"
}

@test "verdicts PR: a x3 cell inside a long lecture makes the lecture a regression though its sum stays under the floor" {
	vx aa1
	vx head
	run -1 --separate-stderr qe-cell-diff -e --changed "$(fixture verdicts)/changed.txt" "$T/aa1.ndjson" "$T/head.ndjson"
	assert_equal "$stderr" ""
	printf '%s\n' "$output" > "$T/out"
	run -0 cellv "$T/out" long-hot
	assert_output '["regression",["source-changed"],0.301362,0.90072,6,6]'
	# sum 1.83 -> 2.41 s: x1.32 and +0.59 s, under both lecture thresholds
	run -0 sel "$T/out" 'select(.kind == "notebook-diff" and .document == "long") | [.verdict, .verdict_rule, .base_s, .head_s, .cells.regression, .cells.unchanged]'
	assert_output '["regression","cells",1.826484,2.413994,1,8]'
	# without the cell route the sum alone would say unchanged
	run -0 qe-cell-diff --nb-ratio 1.5 "$T/aa1.ndjson" "$T/head.ndjson"
	run -0 jq -c 'select(.kind == "notebook-diff" and .document == "long") | .ratio < 1.5 and .delta_s < 1' <<< "$output"
	assert_output true
	run -0 validate "$T/out"
}

@test "verdicts PR: failing on both sides is failed, newly failing is newly-failed, each with its exception line and the timeout cell" {
	vx aa1
	vx head
	run -0 jq -c 'select(.kind == "notebook" and .status == "failed") | [.document, .error, .timeout_cell.seq]' "$T/head.ndjson"
	assert_output - <<-'EOF'
	["fails_both","ValueError: broken on main and in the pull request",null]
	["newly_fails","nbclient.exceptions.CellTimeoutError: A cell timed out while it was being executed, after 3 seconds.",3]
	EOF
	# the timeout cell is the pull request's third code cell: its digest
	run -0 jq -r 'select(.kind == "notebook" and .document == "newly_fails") | .timeout_cell.source_sha256' "$T/head.ndjson"
	assert_output "$(printf 'import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\ntime.sleep(30)  # past the timeout' | sha256sum | cut -d' ' -f1)"
	qe-cell-diff "$T/aa1.ndjson" "$T/head.ndjson" > "$T/out"
	run -0 sel "$T/out" 'select(.kind == "notebook-diff" and (.verdict | test("failed"))) | [.document, .verdict, .reason, .flags, .error_base, .error_head, .timeout_cell.seq]'
	assert_output - <<-'EOF'
	["fails_both","failed","failed in base and head",[],"ValueError: broken on main and in the pull request","ValueError: broken on main and in the pull request",null]
	["newly_fails","newly-failed","head failed",["status-changed"],null,"nbclient.exceptions.CellTimeoutError: A cell timed out while it was being executed, after 3 seconds.",3]
	EOF
	run -0 sel "$T/out" 'select(.kind == "diff-summary") | [.notebooks.failed, .notebooks["newly-failed"], .notebooks.cached, .regression]'
	assert_output '[1,1,2,true]'
	# the hook log's run that never ended is not reported as unmatched
	run -0 --separate-stderr qe-cache-extract -t "$(fixture verdicts)/head/hook.log" "$(fixture verdicts)/head/.jupyter_cache"
	assert_equal "$stderr" ""
}

@test "verdicts PR: --changed keeps lectures changed only on main out of -e and says which the pull request touched" {
	vx aa1
	vx head
	qe-cell-diff --changed "$(fixture verdicts)/changed.txt" "$T/aa1.ndjson" "$T/head.ndjson" > "$T/out"
	run -0 sel "$T/out" 'select(.kind == "notebook-diff") | [.document, .verdict, .pr_touched, .head_origin, (.flags | index("changed-on-main") != null)]'
	assert_output - <<-'EOF'
	["errors_allowed","unchanged",true,"executed",false]
	["fails_both","failed",false,"executed",false]
	["long","regression",true,"executed",false]
	["main_only","unchanged",false,"executed",true]
	["newly_fails","newly-failed",true,"executed",false]
	["prose","cached",false,"inherited",false]
	["steady","cached",false,"inherited",false]
	EOF
	# every cell of a lecture changed on main carries the flag
	run -0 sel "$T/out" 'select(.kind == "cell-diff" and .document == "main_only") | [.label, .flags]'
	assert_output - <<-'EOF'
	["mo-import",["changed-on-main"]]
	["mo-value",["source-changed","changed-on-main"]]
	EOF
	# fails_both re-executed (a failure is never cached) but its code is main's
	# and the baseline's: not changed on main
	run -0 sel "$T/out" 'select(.kind == "diff-summary") | [.notebook_flags["changed-on-main"], .cell_flags["changed-on-main"]]'
	assert_output '[1,2]'
	# the regression is in a lecture the pull request touched: -e still fails;
	# said changed only on main, the same regression no longer gates
	printf 'lectures/newly_fails.ipynb\n' > "$T/changed"
	run -0 --separate-stderr qe-cell-diff -e --changed "$T/changed" "$T/aa1.ndjson" "$T/head.ndjson"
	run -0 jq -c 'select(.kind == "notebook-diff" and .document == "long") | [.verdict, .pr_touched, .flags]' <<< "$output"
	assert_output '["regression",false,["source-changed","changed-on-main"]]'
	# without --changed nothing is known: null, no flag
	run -0 qe-cell-diff "$T/aa1.ndjson" "$T/head.ndjson"
	run -0 jq -c 'select(.kind == "notebook-diff") | .pr_touched' <<< "$output"
	refute_output --partial true
	refute_output --partial false
	run -2 --separate-stderr qe-cell-diff --changed "$T/nonexistent" "$T/aa1.ndjson" "$T/head.ndjson"
	assert_equal "${stderr_lines[0]}" "qe-cell-diff: $T/nonexistent: No such file or directory"
}

@test "verdicts PR: -i silences a cell or a lecture; ignored rows are still written, flagged, and gate nothing" {
	vx aa1
	vx head
	run -0 --separate-stderr qe-cell-diff -e -i 'long#long-hot' "$T/aa1.ndjson" "$T/head.ndjson"
	printf '%s\n' "$output" > "$T/out"
	run -0 cellv "$T/out" long-hot
	assert_output '["regression",["source-changed","ignored"],0.301362,0.90072,6,6]'
	# the lecture rule leaves the ignored cell out: the sum decides
	run -0 sel "$T/out" 'select(.kind == "notebook-diff" and .document == "long") | [.verdict, .verdict_rule, .flags]'
	assert_output '["unchanged","sum",["source-changed"]]'
	run -0 sel "$T/out" 'select(.kind == "diff-summary") | [.regression, .cells.regression, .cell_flags.ignored]'
	assert_output '[false,1,1]'
	# a whole lecture, from a file with comments
	printf '# known slow\n\nlectures/long.ipynb\n' > "$T/ignore"
	run -0 --separate-stderr qe-cell-diff -e --ignore-file "$T/ignore" "$T/aa1.ndjson" "$T/head.ndjson"
	printf '%s\n' "$output" > "$T/out2"
	run -0 sel "$T/out2" 'select(.document == "long") | .flags | index("ignored") != null'
	refute_output --partial false
	assert_line true
	run -0 sel "$T/out2" 'select(.kind == "notebook-diff" and .document == "long") | .verdict'
	assert_output '"regression"'
	run -2 --separate-stderr qe-cell-diff -i '#long-hot' "$T/aa1.ndjson" "$T/head.ndjson"
	assert_equal "${stderr_lines[0]}" "qe-cell-diff: ignore '#long-hot': no document before '#'"
}

@test "verdicts PR: an allowed-error cell below an inserted cell keeps its output digest" {
	vx aa1
	vx head
	qe-cell-diff "$T/aa1.ndjson" "$T/head.ndjson" > "$T/out"
	run -0 sel "$T/out" 'select(.kind == "cell-diff" and .document == "errors_allowed") | [.label, .verdict, .flags, .status_head, .error_head]'
	assert_output - <<-'EOF'
	["ea-setup","unchanged",[],"ok",null]
	["ea-inserted","new",[],"ok",null]
	["ea-raise","unchanged",["upstream-changed"],"error","ZeroDivisionError: division by zero"]
	["ea-after","unchanged",["upstream-changed"],"ok",null]
	["ea-address","unchanged",["upstream-changed"],"ok",null]
	EOF
	# the stored tracebacks do differ: "In [2]" in base, "In [3]" in head
	V="$(fixture verdicts)"
	run -0 sh -c "grep -l 'ea-raise' '$V'/aa1/.jupyter_cache/executed/*/base.ipynb | xargs grep -c 'In \[2\]'"
	run -0 sh -c "grep -l 'ea-inserted' '$V'/head/.jupyter_cache/executed/*/base.ipynb | xargs grep -c 'In \[3\]'"
}

# odd NAME: stamped-base.ndjson with its cell records rewritten, line by line,
# into the edges of the one record reader (lib/qe_recscan.c): what it reads,
# what it refuses and what its checks reject
odd() {
	python3 - stamped-base.ndjson "$T/$1" <<'PY'
import sys
src, dst = sys.argv[1], sys.argv[2]
out, c = [], 0
for l in open(src).read().splitlines():
    if '"kind":"cell"' in l:
        k, c = c % 12, c + 1
        if k == 0: l = l.replace('"kind"', '"kin\\u0064"', 1)            # an escaped key: the same member
        if k == 1: l = l.replace('"label":', '"label":"first","label":', 1)  # repeated: cJSON reads the first
        if k == 2: l = l.replace('"schema_version":1', '"schema_version":01', 1)  # a leading zero: no JSON (cJSON took it)
        if k == 3: l = l[:-1] + ',"z":1}'                                 # provenance not last
        if k == 4: l = l.replace('"fingerprint":"', '"fingerprint":"f', 1)  # another provenance, then back
        if k == 5: l = l.replace('"first_line":"', '"first_line":"caf\\u00e9 \\ud83d\\ude00 ', 1)
        if k == 6: l = l.replace('"kind":', '"kind":\x0b', 1)            # VT is no JSON blank (cJSON took it)
        if k == 7: l = l + '\r\r'                                         # trailing data
        if k == 8: l = l.replace('"label":', '"label":"a\\u0000b","x":', 1)
        if k == 9: l = l.replace('"status":"ok"', '"status":"fine"', 1)
        if k == 10: l = l.replace('"current":true', '"current":false', 1)
        if k == 11: l = l.replace('"index":', '"index":1e0,"i":', 1)     # an exponent
    out.append(l)
open(dst, 'w').write('\n'.join(out) + '\n')
PY
}

@test "pull reader: every line reads from its bytes as from its tree (-f true reads trees): records, words, status" {
	odd b
	for h in stamped-head-other.ndjson stamped-head-same.ndjson "$T/b"; do
		run -2 --separate-stderr qe-cell-diff "$T/b" "$h"
		local out="$output" err="$stderr"
		run -2 --separate-stderr qe-cell-diff -f true "$T/b" "$h"
		assert_equal "$output" "$out"
		assert_equal "$stderr" "$err"
	done
	# every refusal said (b as HEAD: its texts are the ones written); a leading zero and a VT
	# are no JSON: refused at their byte, as qe_js_check() says it (tests/unit/jscan.test)
	run -2 --separate-stderr qe-cell-diff stamped-head-same.ndjson "$T/b"
	assert_equal "$(printf '%s\n' "${stderr_lines[@]}" | grep -c 'trailing data after JSON value')" 2
	assert_equal "$(printf '%s\n' "${stderr_lines[@]}" | grep -c 'NUL (\\u0000) in a string')" 2
	assert_equal "$(printf '%s\n' "${stderr_lines[@]}" | grep -c "cell record with an invalid 'status'")" 2
	assert_equal "$(printf '%s\n' "${stderr_lines[@]}" | grep -c ': invalid JSON at column 34$')" 2
	assert_equal "$(printf '%s\n' "${stderr_lines[@]}" | grep -c ': invalid JSON at column 9$')" 2
	assert_equal "${stderr_lines[-1]}" "qe-cell-diff: 10 lines rejected"
	out="$output"
	# the escaped first line decoded; the repeated label read first
	run -0 jq -r 'select(.kind == "cell-diff") | .first_line' <<< "$out"
	assert_line --partial "café 😀 "
	run -0 jq -r 'select(.kind == "cell-diff" and .label == "first") | .label' <<< "$out"
	assert_output "$(printf "first\nfirst")"
}

@test "pull reader: a repeated member reads as its first, and every occurrence's type is checked in the record's order, from the line and the tree alike" {
	local l
	l=$(grep -m1 '"kind":"cell"' stamped-base.ndjson)
	{
		sed 's/^{/{"first_line":"x","error":"e","first_line":7,"label":5,/' <<< "$l"
		sed 's/^{/{"warm_s":null,"status":true,"warm_s":"slow",/' <<< "$l"
		sed 's/"label":/"label":"first","label":"second","label":/' <<< "$l"
	} > "$T/dup"
	for f in "" "-f true"; do
		run -2 --separate-stderr qe-cell-diff $f stamped-head-same.ndjson "$T/dup"
		assert_equal "${stderr_lines[0]}" "qe-cell-diff: $T/dup:1: cell record with an invalid 'first_line' (not a string)"
		assert_equal "${stderr_lines[1]}" "qe-cell-diff: $T/dup:2: cell record with an invalid 'status' (not a string)"
		assert_equal "${stderr_lines[2]}" "qe-cell-diff: 2 lines rejected"
		run -0 jq -r 'select(.kind == "cell-diff" and .label == "first") | .label' <<< "$output"
		assert_output "first"
	done
}

@test "pull reader: a notebook record's engine and concurrent (mystmd) read alike from the line and the tree; the diff carries them; a concurrent that is no array is refused" {
	# head: intro as a mystmd record that ran beside two documents, dynamics/markov beside none
	jq -c 'if .kind == "notebook" and .document == "intro" then . + {engine: "mystmd", concurrent: ["dynamics/markov", "a_b"]}
		elif .kind == "notebook" and .document == "dynamics/markov" then . + {engine: "mystmd", concurrent: []} else . end' \
		stamped-head-same.ndjson > "$T/head"
	for f in "" "-f true"; do
		run -0 qe-cell-diff $f stamped-base.ndjson "$T/head"
		printf '%s\n' "$output" > "$T/diff"
		run -0 validate "$T/diff"
		run -0 jq -c 'select(.kind == "diff-summary") | .engines' "$T/diff"
		assert_output '{"base":{"engine":"jupyter-cache","version":null},"head":{"engine":"jupyter-cache","version":null}}'
		run -0 jq -r 'select(.kind != "diff-summary") | "\(.kind) \(.document) \(.concurrent_head // "absent" | tostring)"' "$T/diff"
		assert_line 'notebook-diff intro ["dynamics/markov","a_b"]'
		assert_line 'cell-diff intro ["dynamics/markov","a_b"]'
		assert_line 'notebook-diff dynamics/markov []'
		assert_line 'notebook-diff broken absent'
		refute_line --regexp '^cell-diff (broken|images) \['
	done
	# the side's first notebook record names the engine: intro's first in the head is not the first record
	jq -c 'if .kind == "notebook" then . + {engine: "mystmd"} else . end' stamped-head-same.ndjson > "$T/head2"
	run -0 qe-cell-diff stamped-base.ndjson "$T/head2"
	run -0 jq -c 'select(.kind == "diff-summary") | [.engines.base.engine, .engines.head.engine]' <<< "$output"
	assert_output '["jupyter-cache","mystmd"]'
	# the comment: "ran beside" only on a flagged row, names escaped
	run -0 sh -c 'qe-cell-diff stamped-base.ndjson "$1" | qe-comment' sh "$T/head"
	assert_output --partial 'ran beside 2 other documents (dynamics/markov, a\_b)'
	refute_output --partial 'Engines differ'
	run -0 sh -c 'qe-cell-diff stamped-base.ndjson "$1" | qe-comment' sh "$T/head2"
	assert_output --partial '**Engines differ**: base executed by `jupyter-cache`, head by `mystmd`.'
	refute_output --partial 'ran beside'
	sed '0,/"kind":"notebook"/s/"kind":"notebook"/"concurrent":"x","kind":"notebook"/' stamped-head-same.ndjson > "$T/bad"
	for f in "" "-f true"; do
		run -2 --separate-stderr qe-cell-diff $f stamped-base.ndjson "$T/bad"
		assert_equal "${stderr_lines[0]}" "qe-cell-diff: $T/bad:1: notebook record with an invalid 'concurrent' (not an array)"
	done
}

@test "pull reader: qe-replicate's fields (version, warm_s, peak_growth_bytes, result_sha256, kernel_env) read as cJSON's trees read them" {
	# replicate-warm.ndjson: qe-replicate -k 2 --warm mem0.ipynb mem.ipynb (tests/replicate/make.py)
	python3 - replicate-warm.ndjson "$T/r" <<'PY'
import sys
src, dst = sys.argv[1], sys.argv[2]
out = []
for n, l in enumerate(open(src).read().splitlines(), 1):
    if n == 2: l = l.replace('"version":"base"', '"version":"middle"', 1)
    if n == 8: l = l.replace('"version":"head"', '"version":3', 1)
    if n == 3: l = l.replace('"warm_s":', '"warm_s":"x","w":', 1)
    if n == 7: l = l.replace('"kernel_env":{', '"kernel_env":[],"k":{', 1)
    if n == 5: l = l.replace('"peak_growth_bytes":', '"peak_growth_bytes":"big","p":', 1)
    if n == 10: l = l.replace('"result_sha256":', '"result_sha256":7,"r":', 1)
    if n == 9: l = l.replace('"warm_s":', '"warm_s":1e0,"warm_s":', 1)       # repeated: cJSON reads the first
    if n == 14: l = l.replace('"version":"head"', '"version":null', 1)        # read by both sides
    if n == 13: l = l.replace('"kernel_env":{', '"kernel_env":null,"k":{', 1)
    if n == 19: l = l.replace('"kernel_env":', '"kernel_\\u0065nv":', 1)   # an escaped key
    if n == 21: l = l.replace('"warm_s":', '"warm_s":2.5e-1,"w":', 1)
    out.append(l)
open(dst, 'w').write('\n'.join(out) + '\n')
PY
	for f in replicate-warm.ndjson "$T/r"; do
		run --separate-stderr qe-cell-diff "$f" "$f"
		local out="$output" err="$stderr" st="$status"
		run --separate-stderr qe-cell-diff -f true "$f" "$f"
		assert_equal "$status" "$st"
		assert_equal "$output" "$out"
		assert_equal "$stderr" "$err"
	done
	assert_equal "$status" 2
	assert_equal "${#stderr_lines[@]}" 14
	for i in 0 7; do
		assert_equal "${stderr_lines[i]}" "qe-cell-diff: $T/r:2: 'version' is not base or head"
		assert_equal "${stderr_lines[i + 1]}" "qe-cell-diff: $T/r:3: cell record with an invalid 'warm_s' (not a number)"
		assert_equal "${stderr_lines[i + 2]}" "qe-cell-diff: $T/r:5: cell record with an invalid 'peak_growth_bytes' (not a number)"
		assert_equal "${stderr_lines[i + 3]}" "qe-cell-diff: $T/r:7: notebook record with an invalid 'kernel_env' (not an object)"
		assert_equal "${stderr_lines[i + 4]}" "qe-cell-diff: $T/r:8: 'version' is not base or head"
		assert_equal "${stderr_lines[i + 5]}" "qe-cell-diff: $T/r:10: cell record with an invalid 'result_sha256' (not a string)"
		assert_equal "${stderr_lines[i + 6]}" "qe-cell-diff: 6 lines rejected"
	done
	# the stream as it was: warm verdicts beside as-used, the 300 MiB cell flagged
	run -0 qe-cell-diff replicate-warm.ndjson replicate-warm.ndjson
	run -0 jq -c 'select(.kind == "cell-diff") | [.label, .warm.verdict, .flags]' <<< "$output"
	assert_line --index 1 '["data","unchanged",[]]'
	assert_line --index 3 '["alloc","inconclusive",["source-changed","memory-growth"]]'
}

# long LABEL BASE_S HEAD_S: the timed pair with one unchanged cell's
# durations set (a long cell of a real build), into $T/lb and $T/lh
long() {
	jq -c --arg l "$1" --argjson s "$2" 'if .kind == "cell" and .label == $l then .duration_s = $s else . end' timed-base.ndjson > "$T/lb"
	jq -c --arg l "$1" --argjson s "$3" 'if .kind == "cell" and .label == $l then .duration_s = $s else . end' timed-head.ndjson > "$T/lh"
}

@test "long cells: 214.5 s -> 143.4 s is faster and +60 s on a 3-minute cell slower whatever the ratio (--time-abs, --cell-timeout)" {
	long stale-sleep 214.5 143.4
	qe-cell-diff "$T/lb" "$T/lh" > "$T/out"
	run -0 cellv "$T/out" stale-sleep
	assert_output '["improvement",[],214.5,143.4,1,1]'
	# the lecture total says faster too, by the cell route
	run -0 sel "$T/out" 'select(.kind == "notebook-diff" and .document == "stale_timing") | [.verdict, .verdict_rule]'
	assert_output '["improvement","cells"]'
	run -0 sel "$T/out" 'select(.kind == "diff-summary") | [.thresholds.cell_time_abs_s, .cell_timeout_s]'
	assert_output '[60,null]'
	run -0 validate "$T/out"
	long stale-sleep 180 240
	run -1 --separate-stderr qe-cell-diff -e "$T/lb" "$T/lh"
	run -0 cellv <(printf '%s\n' "$output") stale-sleep
	assert_output '["regression",[],180,240,1,1]'
	# +59 s is inside the bound, and without the bound +60 s (x1.33) is inside the ratio
	long stale-sleep 180 239
	run -0 cellv <(qe-cell-diff "$T/lb" "$T/lh") stale-sleep
	assert_output '["unchanged",[],180,239,1,1]'
	long stale-sleep 180 240
	run -0 cellv <(qe-cell-diff --time-abs 0 "$T/lb" "$T/lh") stale-sleep
	assert_output '["unchanged",[],180,240,1,1]'
	# --cell-timeout 1200: the bound is 1/40 of it, 30 s; --time-abs wins over it
	long stale-sleep 180 215
	qe-cell-diff --cell-timeout 1200 "$T/lb" "$T/lh" > "$T/out"
	run -0 cellv "$T/out" stale-sleep
	assert_output '["regression",[],180,215,1,1]'
	run -0 sel "$T/out" 'select(.kind == "diff-summary") | [.thresholds.cell_time_abs_s, .cell_timeout_s]'
	assert_output '[30,1200]'
	run -0 validate "$T/out"
	run -0 sel <(qe-cell-diff --cell-timeout 1200 --time-abs 60 "$T/lb" "$T/lh") 'select(.kind == "diff-summary") | .thresholds.cell_time_abs_s'
	assert_output '60'
	run -2 --separate-stderr qe-cell-diff --cell-timeout 0 "$T/lb" "$T/lh"
	assert_equal "${stderr_lines[0]}" "qe-cell-diff: --cell-timeout: invalid value '0'"
}

@test "long cells in the comment: the slowest cell's share of the per-cell timeout, warned of from half of it" {
	long stale-sleep 1500 1500.4
	qe-cell-diff --cell-timeout 2400 "$T/lb" "$T/lh" > "$T/out"
	run -0 --separate-stderr qe-comment "$T/out"
	assert_output --partial "Slowest cell: stale\\_timing, stale-sleep: 25m"$'\xc2\xa0'"00s, 63% of the 40m"$'\xc2\xa0'"00s per-cell timeout."
	assert_line "> - **Close to the per-cell timeout**: stale\\_timing, stale-sleep: 25m"$'\xc2\xa0'"00s, 63% of the 40m"$'\xc2\xa0'"00s per-cell timeout."
	assert_output --partial "(or by 1m"$'\xc2\xa0'"00s whatever the ratio; 2.00"$'\xc2\xa0'"s for an import or first cell whose code did not change)"
	# a quarter of it: in the footer only
	long stale-sleep 600 600.4
	run -0 --separate-stderr qe-comment <(qe-cell-diff --cell-timeout 2400 "$T/lb" "$T/lh")
	assert_output --partial "Slowest cell: stale\\_timing, stale-sleep: 10m"$'\xc2\xa0'"00s, 25% of the 40m"$'\xc2\xa0'"00s per-cell timeout."
	refute_output --partial "Close to the per-cell timeout"
	# no timeout known: neither
	run -0 --separate-stderr qe-comment <(qe-cell-diff "$T/lb" "$T/lh")
	refute_output --partial "per-cell timeout"
}

@test "A/A at different load (aa-load: the second build beside two CPU hogs): no slower or faster cell, the unseeded draw's output change told quietly" {
	qe-cell-diff -e aa-load-run1.ndjson aa-load-run2.ndjson > "$T/out"
	run -0 sel "$T/out" 'select(.kind == "diff-summary") | [.cells.regression, .cells.improvement, .notebooks.regression, .notebooks.improvement, .cell_flags["output-changed"]]'
	assert_output '[0,0,0,0,1]'
	# the flag stays in the record: the draw did change
	run -0 sel "$T/out" 'select(.kind == "cell-diff" and (.flags | index("output-changed"))) | [.document, .first_line, .verdict, .flags]'
	assert_output '["noise","x = np.random.default_rng().standard_normal(3)  # unseeded","unchanged",["output-changed"]]'
	run -0 --separate-stderr qe-comment -s "$T/out"
	assert_line "> - 1 cell's output differs though its code and the cells before it did not change (an unseeded random draw, a clock): not a timing matter."
	# a row whose output change no code explains carries no note, in the top table and the list of
	# all cells alike (issue 40): the note above counts it, once
	jq -c 'if .kind == "cell" and .document == "noise" and .index == 2 then .duration_s += 1.5 else . end' aa-load-run2.ndjson > "$T/slow"
	qe-cell-diff aa-load-run1.ndjson "$T/slow" > "$T/out"
	run -0 --separate-stderr qe-comment -s "$T/out"
	assert_line --regexp '^\| 🔴 slower \| noise \| code cell 3 `x = np.random.default_rng\(\).standard_normal\(3\)  # unseeded` \| .* \|  \|$'
	assert_line --regexp '^\| noise \| code cell 3 `x = np.random.default_rng\(\).standard_normal\(3\)  # unseeded` \| 🔴 slower \| .* \|  \|$'
	assert_line "> - 1 cell's output differs though its code and the cells before it did not change (an unseeded random draw, a clock): not a timing matter."
	refute_output --partial 'output changed'
	# where an earlier cell changed, it stays beside the verdict, first, as
	# results that differ (the same code computed something else)
	run -0 --separate-stderr qe-comment <(qe-cell-diff timed-base.ndjson timed-head.ndjson)
	assert_line --regexp '^\| 🔴 slower \| intro \| slow-sleep \| .* \| \*\*results differ\*\*, earlier cell changed \|$'
	assert_line --index 2 '⚠️ **Results differ** in slow-sleep (intro): the timings below compare different computations.'
}

@test "the import rule covers a lecture's first cell (the kernel's warm-up), unchanged only" {
	# the unseeded draw 1.2 s slower: third in its lecture, a regression
	jq -c 'if .kind == "cell" and .document == "noise" and .index == 2 then .duration_s += 1.2 else . end' aa-load-run2.ndjson > "$T/h"
	run -0 sel <(qe-cell-diff aa-load-run1.ndjson "$T/h") 'select(.kind == "cell-diff" and .document == "noise" and .head_index == 2) | .verdict'
	assert_output '"regression"'
	# with the two import cells above it gone from both builds it is the first cell: inside 2 s
	jq -c 'select(.kind != "cell" or .document != "noise" or .index >= 2)' aa-load-run1.ndjson > "$T/b1"
	jq -c 'select(.kind != "cell" or .document != "noise" or .index >= 2)' "$T/h" > "$T/h1"
	run -0 sel <(qe-cell-diff "$T/b1" "$T/h1") 'select(.kind == "cell-diff" and .document == "noise" and .head_index == 2) | [.verdict, .delta_s > 1.1]'
	assert_output '["unchanged",true]'
	run -0 sel <(qe-cell-diff --import-abs 0.5 "$T/b1" "$T/h1") 'select(.kind == "cell-diff" and .document == "noise" and .head_index == 2) | .verdict'
	assert_output '"regression"'
	# a first cell the pull request changed keeps -a
	jq -c 'if .kind == "cell" and .document == "noise" and .index == 2 then .source_sha256 = ("0" * 64) else . end' "$T/h1" > "$T/h2"
	run -0 sel <(qe-cell-diff "$T/b1" "$T/h2") 'select(.kind == "cell-diff" and .document == "noise" and .head_index == 2) | [.verdict, .flags]'
	assert_output '["regression",["source-changed","output-changed"]]'
}

@test "Two builds in two absolute folders (real caches): matched by their relative layout, one folder a side, warned once, named relatively; an ambiguous layout is said and not matched" {
	local a="$T/A/home/runner/work/lectures/lectures" b="$T/B/tmp/x" c="$T/C/tmp/y"
	build_book_at "$a" "$T/checkout/book"
	build_book_at "$b" "$T/checkout/book"
	run -0 jq -r 'select(.kind == "notebook") | .document' "$a.ndjson" "$b.ndjson"
	assert_output - <<-EOF
	$a/lectures/dynamics/markov
	$a/lectures/intro
	$b/lectures/dynamics/markov
	$b/lectures/intro
	EOF
	run -0 --separate-stderr qe-cell-diff "$a.ndjson" "$b.ndjson"
	assert_equal "$stderr" "qe-cell-diff: base and head were built in different folders: 2 documents matched by their relative layout, base's $a/lectures/ with head's $b/lectures/"
	printf '%s\n' "$output" > "$T/diff"
	run -0 sel "$T/diff" 'select(.kind == "notebook-diff") | [.document, .verdict]'
	assert_output - <<-'EOF'
	["dynamics/markov","unchanged"]
	["intro","unchanged"]
	EOF
	run -0 sel "$T/diff" 'select(.kind == "diff-summary") | [.notebooks.removed, .notebooks.new, .cells.removed, .cells.new]'
	assert_output '[0,0,0,0]'
	validate "$T/diff"
	# the comment names them relatively
	run -0 --separate-stderr qe-comment "$T/diff"
	assert_line --regexp '^\| dynamics/markov \| unchanged \| .* \(whole notebook\) \|'
	assert_line --regexp '^\| intro \| unchanged \| .* \(whole notebook\) \|'
	refute_output --partial "$T"
	refute_output --partial "removed"

	# markov in another folder of the head's book: two pairings fit as well
	build_book_at "$c" "$T/checkout/book" other
	run -0 --separate-stderr qe-cell-diff "$a.ndjson" "$c.ndjson"
	assert_equal "${stderr_lines[0]}" "qe-cell-diff: documents named by absolute path on both sides (built in two folders?) match by their relative layout in more than one way (base's $a/lectures/ with head's $c/lectures/, or base's $a/lectures/dynamics/ with head's $c/lectures/other/): not matched"
	assert_equal "${stderr_lines[1]}" "qe-cell-diff: base: 2 documents named by absolute path match none of head's"
	assert_equal "${stderr_lines[2]}" "qe-cell-diff: head: 2 documents named by absolute path match none of base's"
	run -0 sel <(printf '%s\n' "$output") 'select(.kind == "diff-summary") | [.notebooks.removed, .notebooks.new]'
	assert_output '[2,2]'
}

@test "A build in a folder of another name: documents named by absolute path are warned of and joined by their relative layout, never removed; a failing lecture listed once" {
	jq -c 'if .origin == "inherited" or .document == "broken" then .document = "/home/me/rebuild/lectures/" + .document else . end' \
		stock-head-incremental.ndjson > "$T/abs"
	jq -c 'select(.document == "broken")' stock-head-incremental.ndjson >> "$T/abs"
	run -0 --separate-stderr qe-cell-diff stock-base.ndjson "$T/abs"
	assert_equal "$stderr" "qe-cell-diff: head: 5 documents named by absolute path (built in another folder?), matched to base's by their relative layout (1 of them also read by name, listed once): e.g. /home/me/rebuild/lectures/broken"
	# the same verdicts as the build named right
	diff <(printf '%s\n' "$output" | jq -c 'select(.kind == "notebook-diff") | [.document, .verdict]') \
	     <(qe-cell-diff stock-base.ndjson stock-head-incremental.ndjson | jq -c 'select(.kind == "notebook-diff") | [.document, .verdict]')
	run -0 sel <(printf '%s\n' "$output") 'select(.kind == "diff-summary") | [.notebooks.removed, .notebooks.cached, .notebooks.failed, .notebooks["newly-failed"]]'
	assert_output '[0,4,1,0]'
	# one that matches nothing is kept as it is, and said
	jq -c 'if .document == "images" then .document = "/elsewhere/pictures" else . end' stock-head-incremental.ndjson > "$T/lone"
	run -0 --separate-stderr qe-cell-diff stock-base.ndjson "$T/lone"
	assert_equal "$stderr" "qe-cell-diff: head: 1 document named by absolute path matches none of base's"
	run -0 sel <(printf '%s\n' "$output") 'select(.kind == "notebook-diff" and (.document | test("images|pictures"))) | [.document, .verdict]'
	assert_output - <<-'EOF'
	["/elsewhere/pictures","cached"]
	["images","removed"]
	EOF
}

# factor_cells OUTPUT: how many cell-diffs the runner factor's rule admits,
# written out again here: unchanged (but for their output), ok, timed, at
# least 0.1 s on both sides, not a lecture's first cell, not an import
factor_cells() {
	jq -s '[.[] | select(.kind == "cell-diff" and (.flags - ["output-changed"]) == [] and .status_base == "ok" and .status_head == "ok"
		and .base_s >= 0.1 and .head_s >= 0.1 and .base_index > 0 and .head_index > 0
		and (.first_line | test("^\\s*(import |from \\S+ import )") | not))] | length' "$1"
}

@test "runner factor (issue 40): real A/A pairs, one at one load and one at different load, each first build cold, give no slower or faster cell and no slower lecture; import and first cells take no part" {
	for pair in "factor-same-run1 factor-same-run2" "factor-load-run1 factor-load-run2"; do
		set -- $pair
		run -0 --separate-stderr qe-cell-diff -e "$1.ndjson" "$2.ndjson"
		assert_equal "$stderr" ""
		printf '%s\n' "$output" > "$T/out"
		run -0 sel "$T/out" 'select(.kind == "diff-summary") | [.cells.regression, .cells.improvement, .notebooks.regression, .notebooks.improvement, .regression]'
		assert_output '[0,0,0,0,false]'
		run -0 sel "$T/out" 'select(.kind == "diff-summary") | .runner_factor_cells'
		assert_output "$(factor_cells "$T/out")"
		run -0 validate "$T/out"
	done
}

# book N CELLS SCALE: N lectures of CELLS timed cells each, cell i taking
# (0.2 + 0.1 * (i % 7)) * SCALE seconds (nbclient's timing)
book() {
	awk -v n="$1" -v m="$2" -v k="$3" 'BEGIN {
		for (d = 0; d < n; d++) {
			printf "{\"kind\":\"notebook\",\"schema_version\":1,\"document\":\"lecture%03d\",\"input\":\"ipynb\",\"status\":\"ok\",\"error\":null,\"execution_seconds\":null,\"cells_seconds\":null,\"created\":null,\"code_cells\":%d,\"timed_cells\":%d}\n", d, m, m
			for (i = 0; i < m; i++)
				printf "{\"kind\":\"cell\",\"schema_version\":1,\"document\":\"lecture%03d\",\"input\":\"ipynb\",\"index\":%d,\"label\":null,\"source_sha256\":\"%032d%032d\",\"output_sha256\":\"%064d\",\"first_line\":\"step(%d)\",\"status\":\"ok\",\"duration_s\":%.3f,\"timing_source\":\"nbclient\"}\n", d, i, d, i, 0, i, (0.2 + 0.1 * (i % 7)) * k
		}
	}'
}

@test "broad slowdown (issue 40): 10,000 re-executed cells in 100 lectures all 3x slower on one runner class and CPU are reported, never removed, and -e exits 1; unstamped, they are unclear, never unchanged" {
	book 100 100 1 | qe-stamp -r ubuntu-latest > "$T/base"
	book 100 100 3 | qe-stamp -r ubuntu-latest > "$T/head"
	run -1 --separate-stderr qe-cell-diff -e "$T/base" "$T/head"
	assert_equal "$stderr" ""
	printf '%s\n' "$output" > "$T/out"
	# every cell but each lecture's first (the kernel's warm-up) counts
	run -0 sel "$T/out" 'select(.kind == "diff-summary") | [.machines, .speed, .runner_factor, .runner_factor_cells, .runner_factor_lectures, .runner_factor_moved_cells, .runner_factor_moved_lectures, .adjusted, .regression]'
	assert_output '["same","broad-slowdown",3,9900,100,9900,100,false,true]'
	# the verdicts are as measured: 0.2 s -> 0.6 s is +0.4 s, under the floor
	run -0 sel "$T/out" 'select(.kind == "diff-summary") | [.cells.regression, .cells.unchanged, .cells.inconclusive, .notebooks.regression]'
	assert_output '[8500,1500,0,100]'
	run -0 validate "$T/out"
	# a machine 3x slower cannot be told from it without stamps: every
	# verdict the factor would change is unclear, and -e cannot fail on it
	book 100 100 1 > "$T/ubase"
	book 100 100 3 > "$T/uhead"
	run -0 --separate-stderr qe-cell-diff -e "$T/ubase" "$T/uhead"
	printf '%s\n' "$output" > "$T/out"
	run -0 sel "$T/out" 'select(.kind == "diff-summary") | [.machines, .speed, .adjusted, .cells.regression, .cells.unchanged, .cells.inconclusive, .cell_flags["machine-speed"], .notebooks.inconclusive, .regression]'
	assert_output '["unknown","machine-differs",true,0,1500,8500,8500,100,false]'
}

@test "broad slowdown (issue 40): a real build whose shared module does 3x the work, stamped on one runner, is a broad slowdown and -e exits 1" {
	run -1 --separate-stderr qe-cell-diff -e factor-broad-base.ndjson factor-broad-head.ndjson
	assert_equal "$stderr" ""
	printf '%s\n' "$output" > "$T/out"
	run -0 sel "$T/out" 'select(.kind == "diff-summary") | [.machines, .speed, .runner_factor > 2.5, .runner_factor_cells, .runner_factor_lectures, .runner_factor_moved_lectures, .regression]'
	assert_output '["same","broad-slowdown",true,12,2,2,true]'
	# no cell got faster, none is unclear: nothing was removed
	run -0 sel "$T/out" 'select(.kind == "diff-summary") | [.adjusted, .cells.improvement, .cells.inconclusive]'
	assert_output '[false,0,0]'
	run -0 validate "$T/out"
}

@test "a pull request built at lower load than its base (issue 40): its changed cells got faster as measured and are never slower" {
	# the real pair: base cold and loaded (factor-load-run1), head warm; the
	# download waits 0.8 s instead of 1.0 s, a loop does 850k steps, not 1M
	run -0 --separate-stderr qe-cell-diff -e factor-load-run1.ndjson factor-pr-head.ndjson
	printf '%s\n' "$output" > "$T/out"
	run -0 sel "$T/out" 'select(.kind == "cell-diff" and (.flags | index("source-changed"))) | [.first_line, .ratio < 1, .verdict]'
	assert_output - <<-'EOF2'
	["total = lw.loops(850_000)",true,"unchanged"]
	["waited = lw.fetch(0.8)  # the data download",true,"unchanged"]
	EOF2
	run -0 sel "$T/out" 'select(.kind == "diff-summary") | [.cells.regression, .notebooks.regression, .regression]'
	assert_output '[0,0,false]'
	# PR #741's shape on these records: head's unchanged cells twice as fast
	# (a machine at lower load), the changed wait as measured; removing x0.5
	# makes 1.00 s -> 0.80 s read x1.60 and +0.80 s: unclear, never slower
	jq -c 'if .kind == "cell" and .duration_s != null and (.first_line | test("^(total = lw.loops\\(850_000\\)|waited = lw.fetch\\(0.8\\))") | not)
		then .duration_s *= 0.5 else . end' factor-pr-head.ndjson > "$T/fast"
	run -0 --separate-stderr qe-cell-diff -e factor-load-run1.ndjson "$T/fast"
	printf '%s\n' "$output" > "$T/out"
	run -0 sel "$T/out" 'select(.kind == "diff-summary") | [.speed, .adjusted, .runner_factor < 0.55, .cells.regression, .notebooks.regression, .regression]'
	assert_output '["machine-differs",true,true,0,0,false]'
	run -0 sel "$T/out" 'select(.kind == "cell-diff" and (.flags | index("source-changed"))) | [.first_line, .ratio < 1, .adjusted_ratio > 1.5, .verdict, .reason]'
	assert_output - <<-'EOF2'
	["total = lw.loops(850_000)",true,true,"unchanged",null]
	["waited = lw.fetch(0.8)  # the data download",true,true,"inconclusive","machine speed differs"]
	EOF2
	run -0 validate "$T/out"
}

@test "qe-cell-diff(1) states the runner factor's rule with the numbers qe-cell-diff applies (issue 40)" {
	man="$TESTS_DIR/../man/qe-cell-diff.1"
	t=$(qe-cell-diff aa-run1.ndjson aa-run2.ndjson | jq -c 'select(.kind == "diff-summary") | .thresholds')
	band=$(jq -r '.factor_band' <<< "$t")
	run -0 grep -c -x -F -e "inside \\(mu$(jq -rn "1 / $band * 100 | round / 100") .. \\(mu$band" -e "from fewer than $(jq -r .factor_min_cells <<< "$t") cells" \
		-e "or fewer than $(jq -r .factor_min_lectures <<< "$t") lectures" -e "the cells disagree: their spread is beyond \\(mu$(jq -r .factor_spread <<< "$t")" \
		-e "$(jq -r .factor_min_s <<< "$t") s on both" "$man"
	assert_output 5
}
