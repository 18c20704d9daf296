#!/usr/bin/env bats
# Each default is stated once, in C, and the pages that repeat it are tested
# against it: qe-cell-diff, qe-sweep and qe-history --defaults print the
# tools' own (checked here against what the tools do), and
# tests/tools/defaults-check.py finds every restatement in README.md,
# docs/, the man pages, action.yml, schema/diff.json and qe_diff.h's
# comments.  The action's inputs table (docs/action.md) is checked against
# action.yml the same way (tests/tools/action-inputs-check.py).
load helper

REPO="$(cd "$TESTS_DIR/.." && pwd)"
CHECK="$TESTS_DIR/tools/defaults-check.py"

setup() {
	T="$BATS_TEST_TMPDIR"
	qe-cell-diff --defaults > "$T/diff.json"
	qe-sweep --defaults > "$T/sweep.json"
	qe-history --defaults > "$T/history.json"
	DEFAULTS=("$T/diff.json" "$T/sweep.json" "$T/history.json")
}

# scratch: a copy of the files the check reads, in $T/root
scratch() {
	local f
	for f in README.md docs man action.yml schema/diff.json lib/diff/qe_diff.h; do
		mkdir -p "$T/root/$(dirname "$f")"
		cp -R "$REPO/$f" "$T/root/$f"
	done
}

@test "qe-cell-diff --defaults: one JSON object, the thresholds a diff-summary names are its, --cell-timeout T gives T/cell_time_share" {
	run -0 jq -c 'type, (keys | length)' "$T/diff.json"
	assert_output $'"object"\n24'
	# a replicate pair with memory fields: every threshold the summary names
	qe-cell-diff "$(fixture qe-cell-diff/replicate-warm.ndjson)" "$(fixture qe-cell-diff/replicate-warm.ndjson)" |
		jq -c 'select(.kind == "diff-summary") | .thresholds | del(.runner_memory_bytes)' > "$T/summary.json"
	run -0 jq -n --slurpfile s "$T/summary.json" --slurpfile d "$T/diff.json" \
		'$s[0] | to_entries | map(select(.value != $d[0][.key])) | length, ($s[0] | length)'
	assert_output $'0\n20'
	qe-cell-diff --cell-timeout 600 "$(fixture qe-cell-diff/rep-base.ndjson)" "$(fixture qe-cell-diff/rep-head.ndjson)" |
		jq 'select(.kind == "diff-summary") | .thresholds.cell_time_abs_s' > "$T/bound"
	run -0 jq -n --slurpfile d "$T/diff.json" --slurpfile b "$T/bound" '$b[0] == 600 / $d[0].cell_time_share'
	assert_output true
	# every option set to what --defaults prints changes nothing
	local a=(-r cell_ratio -a cell_abs_s --nb-ratio notebook_ratio --nb-abs notebook_abs_s
		--exec-abs execution_abs_s --alpha alpha --time-abs cell_time_abs_s --import-abs import_abs_s
		--mem-abs memory_abs_bytes --mem-ratio memory_ratio --mem-share memory_share_pct
		--rep-ratio replicate_ratio --rep-abs replicate_abs_s --rtol rtol --atol atol) opts=() i
	for ((i = 0; i < ${#a[@]}; i += 2)); do
		opts+=("${a[i]}" "$(jq ".${a[i + 1]}" "$T/diff.json")")
	done
	qe-cell-diff "$(fixture qe-cell-diff/replicate-warm.ndjson)" "$(fixture qe-cell-diff/replicate-warm.ndjson)" > "$T/plain"
	qe-cell-diff "${opts[@]}" "$(fixture qe-cell-diff/replicate-warm.ndjson)" "$(fixture qe-cell-diff/replicate-warm.ndjson)" > "$T/given"
	run -0 cmp "$T/plain" "$T/given"
	# --defaults takes no operand
	run -2 qe-cell-diff --defaults "$T/plain"
}

@test "qe-sweep --defaults: ratio and min_seconds, what qe-sweep uses without -r and -m" {
	run -0 jq -c 'keys' "$T/sweep.json"
	assert_output '["min_seconds","ratio"]'
	local scale
	scale=$(fixture sweep/scale.ndjson)
	qe-sweep "$scale" > "$T/plain"
	qe-sweep -r "$(jq .ratio "$T/sweep.json")" -m "$(jq .min_seconds "$T/sweep.json")" "$scale" > "$T/given"
	run -0 cmp "$T/plain" "$T/given"
	# the fixture is sensitive to both: another value changes the records
	qe-sweep -r 1.3 "$scale" > "$T/other"
	run -1 cmp -s "$T/plain" "$T/other"
	qe-sweep -m 5 "$scale" > "$T/other"
	run -1 cmp -s "$T/plain" "$T/other"
	run -2 qe-sweep --defaults "$scale"
}

@test "qe-history --defaults: the options' defaults are what qe-history uses without them" {
	run -0 jq -c 'keys | length' "$T/history.json"
	assert_output 8
	# a history of 30 main builds (real records, tests/tools/gen_history.py)
	qe-cache-extract "$(shared jupyter-cache-timed/base)" > "$T/base.ndjson"
	qe-cache-extract "$(shared jupyter-cache-timed/head)" > "$T/head.ndjson"
	/usr/bin/python3 "$TESTS_DIR/tools/gen_history.py" --builds 30 "$T/base.ndjson" "$T/head.ndjson" "$T/reports" > /dev/null
	qe-history add -d "$T/h.db" "$T"/reports/*.ndjson* > /dev/null
	local sub opt key
	for sub in "slowest -n slowest_rows" "changes -m changes_min_segment" "changes --penalty changes_penalty" "fences -k fence_builds"; do
		read -r sub opt key <<< "$sub"
		qe-history "$sub" -d "$T/h.db" > "$T/plain"
		qe-history "$sub" -d "$T/h.db" "$opt" "$(jq ".$key" "$T/history.json")" > "$T/given"
		[ -s "$T/plain" ] || fail "qe-history $sub: no records"
		cmp "$T/plain" "$T/given" || fail "qe-history $sub $opt: not the default"
	done
	# the history is sensitive to them: fewer rows, a shorter fence window
	qe-history slowest -d "$T/h.db" > "$T/plain"
	qe-history slowest -d "$T/h.db" -n 3 > "$T/given"
	run -1 cmp -s "$T/plain" "$T/given"
	qe-history fences -d "$T/h.db" > "$T/plain"
	qe-history fences -d "$T/h.db" -k 6 > "$T/given"
	run -1 cmp -s "$T/plain" "$T/given"
	run -2 qe-history --defaults slowest
}

@test "defaults: every default README.md, docs/, the man pages, action.yml, schema/diff.json and qe_diff.h state is the tool's own" {
	run -0 /usr/bin/python3 "$CHECK" "$REPO" "${DEFAULTS[@]}"
	assert_output --regexp '^[0-9]+ statements of [0-9]+ defaults agree with the tools$'
	# not blind: over a hundred statements of over twenty defaults
	local n=${output%% *} k
	k=${output#* statements of } k=${k%% *}
	[ "$n" -ge 100 ] && [ "$k" -ge 20 ] || fail "only $n statements of $k defaults"
}

@test "defaults: one stated default changed in one place only fails the check, naming the file, line and default" {
	scratch
	# FILE, sed expression, the line the check must print
	local cases=(
		'action.yml|s/(empty: its default, 3.5)/(empty: its default, 3)/|^action.yml:[0-9]+: execution_abs_s: stated 3, the tool.s default is 3.5$'
		'docs/action.md|s/`--atol`: 1e-05, 1e-08/`--atol`: 1e-05, 1e-07/|^docs/action.md:[0-9]+: atol: stated 1e-07, the tool.s default is 1e-08$'
		'docs/screening.md|s#T/40)#T/30)#| cell_time_share: stated 30, the tool.s default is 40$'
		'docs/replicate.md|s/rose by 10% of the runner/rose by 20% of the runner/|^docs/replicate.md:[0-9]+: memory_share_pct: stated 20, the tool.s default is 10$'
		'man/qe-cell-diff.1|s/(default 60; 0 turns it off)/(default 90; 0 turns it off)/|^man/qe-cell-diff.1:[0-9]+: cell_time_abs_s: stated 90, the tool.s default is 60$'
		'man/qe-cell-diff.1|s/bytes (default 134217728, 128 MiB)/bytes (default 134217728, 256 MiB)/|^man/qe-cell-diff.1:[0-9]+: memory_abs_bytes: stated 256, the tool.s default is 128$'
		'man/qe-sweep.1|s/(default 1.2, the replicate/(default 1.25, the replicate/|^man/qe-sweep.1:[0-9]+: sweep.ratio: stated 1.25, the tool.s default is 1.2$'
		'man/qe-comment.1|s/outside 0.8 to 1.25/outside 0.75 to 1.25/|^man/qe-comment.1:[0-9]+: 1/factor_band: stated 0.75, the tool.s default is 0.8$'
		'man/qe-cell-diff.1|s/their spread is beyond \\(mu1.25/their spread is beyond \\(mu1.5/|^man/qe-cell-diff.1:[0-9]+: factor_spread: stated 1.5, the tool.s default is 1.25$'
		'man/qe-cell-diff.1|s/^0.1 s on both$/0.05 s on both/|^man/qe-cell-diff.1:[0-9]+: factor_min_s: stated 0.05, the tool.s default is 0.1$'
		'docs/screening.md|s/from fewer than 8 such cells or 2 lectures/from fewer than 6 such cells or 2 lectures/|^docs/screening.md:[0-9]+: factor_min_cells: stated 6, the tool.s default is 8$'
		'schema/diff.json|s/--rtol (default 1e-05)/--rtol (default 1e-04)/|^schema/diff.json:[0-9]+: rtol: stated 1e-04, the tool.s default is 1e-05$'
		'docs/history.md|s/learned from the last 20 main builds/learned from the last 30 main builds/|^docs/history.md:[0-9]+: history.fence_builds: stated 30, the tool.s default is 20$'
		'man/qe-history.1|s/the penalty factor (default 1.5)/the penalty factor (default 2)/|^man/qe-history.1:[0-9]+: history.changes_penalty: stated 2, the tool.s default is 1.5$'
		'lib/diff/qe_diff.h|s/The long-cell bound: 60 s/The long-cell bound: 90 s/|^lib/diff/qe_diff.h:[0-9]+: cell_time_abs_s: stated 90, the tool.s default is 60$'
	)
	local c f e want
	for c in "${cases[@]}"; do
		IFS='|' read -r f e want <<< "$c"
		cp "$REPO/$f" "$T/orig"
		sed -i "$e" "$T/root/$f"
		run cmp -s "$T/orig" "$T/root/$f"
		[ "$status" = 1 ] || fail "$f: $e changed nothing"
		run -1 /usr/bin/python3 "$CHECK" "$T/root" "${DEFAULTS[@]}"
		assert_line --regexp "$want"
		# only the place changed is named (a line may state a default twice)
		local l
		for l in "${lines[@]}"; do
			[[ $l == "$f:"* ]] || fail "$f: $e: another place named: $l"
		done
		cp "$T/orig" "$T/root/$f"
	done
	# a default restated in the README is checked too
	printf '\nSet `--exec-abs` (default 3) to taste.\n' >> "$T/root/README.md"
	run -1 /usr/bin/python3 "$CHECK" "$T/root" "${DEFAULTS[@]}"
	assert_output --regexp '^README.md:[0-9]+: execution_abs_s: stated 3, the tool.s default is 3.5$'
	cp "$REPO/README.md" "$T/root/README.md"
	# ... and a default changed in C alone fails in every place that states it
	jq -c '.import_abs_s = 3' "$T/diff.json" > "$T/diff3.json"
	run -1 /usr/bin/python3 "$CHECK" "$T/root" "$T/diff3.json" "$T/sweep.json" "$T/history.json"
	assert_line --regexp '^man/qe-cell-diff.1:[0-9]+: import_abs_s: stated 2, the tool.s default is 3$'
	assert_line --regexp '^docs/screening.md:[0-9]+: import_abs_s: stated 2, the tool.s default is 3$'
}

@test "defaults: a sentence reworded so that the check finds no default in it is an error, not a pass" {
	scratch
	sed -i 's/so its floor is 3.5 s\./so its floor is three and a half seconds./' "$T/root/man/qe-cell-diff.1"
	run -2 /usr/bin/python3 "$CHECK" "$T/root" "${DEFAULTS[@]}"
	assert_output --partial 'man/qe-cell-diff.1: nothing matches'
}

@test "action inputs: docs/action.md's table lists every input of action.yml once, with its default as action.yml states it, and nothing else" {
	local check="$TESTS_DIR/tools/action-inputs-check.py"
	run -0 /usr/bin/python3 "$check" "$REPO/action.yml" "$REPO/docs/action.md"
	assert_output --regexp '^[0-9]+ inputs, their defaults as action.yml states them$'
	# not blind: a default changed, an input dropped, an input added
	sed 's/^| `replicate-budget` | `20m` |/| `replicate-budget` | `30m` |/' "$REPO/docs/action.md" > "$T/a.md"
	run -1 /usr/bin/python3 "$check" "$REPO/action.yml" "$T/a.md"
	assert_output --regexp ':[0-9]+: replicate-budget: default `30m`, action.yml.s is `20m`$'
	grep -v '^| `history-store` |' "$REPO/docs/action.md" > "$T/a.md"
	run -1 /usr/bin/python3 "$check" "$REPO/action.yml" "$T/a.md"
	assert_output --regexp ': history-store: an input of action.yml, not in the table$'
	sed 's/^| `install` |/| `install`, `install-mode` |/' "$REPO/docs/action.md" > "$T/a.md"
	run -1 /usr/bin/python3 "$check" "$REPO/action.yml" "$T/a.md"
	assert_output --regexp ':[0-9]+: install-mode: in the table, not an input of action.yml$'
	sed 's/^| `alpha` | qe-cell-diff.s |/| `alpha` | `0.05` |/' "$REPO/docs/action.md" > "$T/a.md"
	run -1 /usr/bin/python3 "$check" "$REPO/action.yml" "$T/a.md"
	assert_output --regexp ':[0-9]+: alpha: default `0.05`, action.yml.s is empty$'
}
