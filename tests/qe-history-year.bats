#!/usr/bin/env bats
# qe-history over a generated year that looks like the real ones (issue 30):
# tests/tools/gen_history.py --year writes 52 weekly main builds and 20
# pull-request builds of 30 lectures from real qe-cache-extract records: the
# first 20 weeks stamped before run.build_id existed, 11 weeks rebuilding the
# week before's commit, a x1.5 step on a quiet 0.08 s cell, a cell edited with
# a step, a kernel backend change, an upgrade (numpy, jax, jaxlib) adding 20%
# to a tenth of the lectures, package drift that moves nothing, five one-build
# spikes and a runner change. tests/tools/history_truth.py checks qe-history's
# answers against the generator's truth; the counts over 20 seeds of 150
# lectures are in bench/RESULTS.md.

load helper

setup_file() {
	H="$BATS_FILE_TMPDIR"
	qe-cache-extract "$(shared jupyter-cache-timed/base)" > "$H/base.ndjson" 2> /dev/null || true
	qe-cache-extract "$(shared jupyter-cache-timed/head)" > "$H/head.ndjson" 2> /dev/null || true
	/usr/bin/python3 "$TESTS_DIR/tools/gen_history.py" --year --seed 1 --lectures 30 --prs 20 \
		"$H/base.ndjson" "$H/head.ndjson" "$H/reports"
	qe-history add -d "$H/h.db" "$H"/reports/main-*.ndjson.gz "$H"/reports/pr-*.ndjson.gz > "$H/add.ndjson"
}

setup() {
	H="$BATS_FILE_TMPDIR"
	T="$BATS_TEST_TMPDIR"
	DB="$H/h.db"
}

truth() {
	jq -r "$1" "$H/reports/truth.json"
}

@test "year: every report is stored, those without build_id and the weeks that rebuilt a commit too" {
	run -0 jq -s -c '[length, (map(.result) | unique), (map(.build) | unique | length)]' "$H/add.ndjson"
	assert_output '[72,["added"],72]'
	# the reports really are old-style and repeat commits
	run -0 bash -c "zcat '$H'/reports/main-0*.ndjson.gz | jq -r 'select(.kind == \"notebook\") | .provenance.run.build_id // \"none\"' | sort -u"
	assert_output none
	# 52 weeks, 41 commits
	run -0 bash -c "for f in '$H'/reports/main-*.ndjson.gz; do zcat \"\$f\" | head -n1 | jq -r .provenance.source.commit; done | sort -u | wc -l"
	assert_output 41
	# the same reports again: present, nothing changed
	run -0 qe-history add -d "$DB" "$H"/reports/main-0[1-5].ndjson.gz
	assert_equal "$(jq -r .result <<< "$output" | sort -u)" present
}

@test "year: the x1.5 step on the quiet 0.08 s cell is found at its build; fences say the smallest step it could find" {
	run -0 bash -c "qe-history changes -d '$DB' | jq -c 'select(.document == \"images\" and .label == \"text-table\") | [.change, .run_number, (.before_median_s * 1000 | round), (.after_median_s * 1000 | round), .cause]'"
	assert_output "[\"step\",$((200 + $(truth .small_step_build))),85,128,\"unexplained\"]"
	# its noise is a few ms: the smallest step this history can see there is well below x1.5
	run -0 bash -c "qe-history fences -d '$DB' | jq -r 'select(.document == \"images\" and .label == \"text-table\") | (.min_step_ratio < 1.3)'"
	assert_output true
}

@test "year: a step one or two builds before a package bump stays at its own build, unexplained, the bump only in its note; a x1.5 step on a 0.08 s cell of 10% noise is found" {
	qe-history changes -d "$DB" > "$T/c.ndjson"
	validate "$T/c.ndjson"
	# before issue 40 these were moved onto the bumps (208, 218) and blamed
	# on them ("environment: python 3.12.7 → 3.12.8"), and the noisy step
	# (2.2 floors, under the 2.5 asked of a step nothing explains) was lost
	for w in before-nbclient before-python noisy-small; do
		doc=$(truth ".planted[] | select(.what == \"$w\") | .document")
		run -0 jq -c --arg d "$doc" 'select(.change == "step" and .document == $d) | [.run_number, .level, .label, (.before_median_s * 1000 | round), (.after_median_s * 1000 | round), .cause, .explanation, .note]' "$T/c.ndjson"
		case $w in
		before-nbclient) assert_output '[207,"cell","ea-after",494,250,"unexplained",null,"a provenance change 1 build later: nbclient 0.10.0 → 0.10.1"]' ;;
		before-python) assert_output '[216,"cell","markov-stationary",291,618,"unexplained",null,"a provenance change 2 builds later: python 3.12.7 → 3.12.8"]' ;;
		noisy-small) assert_output '[224,"cell","text-table",80,121,"unexplained",null,null]' ;;
		esac
	done
	# nothing at all is reported at the bumps
	run -0 jq -c 'select(.run_number == 208 or .run_number == 218)' "$T/c.ndjson"
	assert_output ''
	# compare by each bumped package: the bump moved nothing (its sides stop
	# at the steps the data put before it); by numpy: only the upgraded lectures
	for pkg in nbclient python; do
		run -0 bash -c "qe-history compare -d '$DB' --by $pkg | jq -r '[.level, .moved] | join(\" \")'"
		assert_output 'build nothing'
	done
	run -0 bash -c "qe-history compare -d '$DB' --by numpy | jq -r 'select(.level == \"lecture\") | .document' | sort"
	assert_output "$(truth '.upgrade_docs[]' | sort)"
	# the Markdown table carries the note
	run -0 bash -c "qe-history changes -d '$DB' --format md | sed 's/\xc2\xa0/ /g' | grep -F 'ea-after' | grep -F '#207'"
	assert_output --partial '| unexplained | — | a provenance change 1 build later: nbclient 0.10.0 → 0.10.1 |'
}

@test "year: each change explained: the cell edit by its commit, the upgrade by its packages, the kernel by its backend, the runner as a machine" {
	qe-history changes -d "$DB" > "$T/c.ndjson"
	validate "$T/c.ndjson"
	run -0 jq -r 'select(.change == "step" and .document == "errors_allowed" and .label == "ea-after") | [.run_number, .cause, .explanation] | join(" | ")' "$T/c.ndjson"
	assert_output "236 | edit | cell edited in $(printf main-36 | sha1sum | cut -c1-7)"
	run -0 jq -r --arg d "$(truth .kernel_doc)" 'select(.change == "step" and .document == $d and .level == "lecture") | [.run_number, .cause, .explanation] | join(" | ")' "$T/c.ndjson"
	assert_output "228 | kernel | jax backend gpu → cpu"
	run -0 jq -r 'select(.change == "step" and .run_number == 240 and .level == "lecture") | .explanation' "$T/c.ndjson"
	assert_line --index 0 "jax 0.4.30 → 0.4.35, jaxlib 0.4.30 → 0.4.35, numpy 2.0.2 → 2.1.3, environment.yml changed"
	run -0 jq -r 'select(.level == "build") | [.run_number, .cause] | join(" ")' "$T/c.ndjson"
	assert_output "245 runner"
}

@test "year: compare without --by finds the upgrade with exactly the lectures it slowed, nothing at the drift, the runner change one machine row" {
	qe-history compare -d "$DB" > "$T/cmp.ndjson"
	validate "$T/cmp.ndjson"
	run -0 jq -r 'select(.level == "lecture" and .run_number == 240) | .document' "$T/cmp.ndjson"
	assert_equal "$(sort <<< "$output")" "$(truth '.upgrade_docs[]' | sort)"
	run -0 jq -r 'select(.level == "build") | [.run_number, .moved, (.changes | map(.name // .what) | join(","))] | join(" ")' "$T/cmp.ndjson"
	assert_output '208 nothing nbclient
212 nothing ipykernel
218 nothing python
240 moved jax,jaxlib,numpy,environment.yml
245 machine runner-class
248 nothing scipy'
	run -0 jq -c 'select(.run_number == 245 and .level != "build")' "$T/cmp.ndjson"
	assert_output ''
	# the upgrade's after side runs on across the runner change (its factor
	# taken out) and the scipy drift (nothing moved there) to the end: 13
	# builds, not the 5 before the runner change
	run -0 jq -c 'select(.level == "build") | [.run_number, .n_before, .n_after]' "$T/cmp.ndjson"
	assert_output '[208,7,20]
[212,10,20]
[218,10,20]
[240,10,13]
[245,5,8]
[248,8,5]'
}

@test "year: against the generator's truth on five seeds: nothing missed, no spike taken for a step, no false step" {
	# before issue 30's second round (the runner factor in compare, the rule
	# for steps nothing explains) seeds 1-5 had two steps placed off their
	# cause; since issue 40 a step stays where the data put it: seed 1's
	# kernel lecture's short cell "text-table" (21% noise) steps at 29, a
	# build after the backend change, noted, not moved (misplaced 1)
	run -0 /usr/bin/python3 "$TESTS_DIR/tools/history_truth.py" --seeds 5 --first 1 --lectures 30
	assert_line --index 5 '{"seeds": 5, "missed": 0, "spikes": 0, "false": 0, "misplaced": 1, "outliers": 25, "kernel_noted": 0, "noisy_noted": 0}'
}

@test "year: compare lists exactly the upgrade's lectures and nothing at the drift on the seeds that missed (150 lectures)" {
	# before the change's family rule (Benjamini-Hochberg over its series)
	# seed 3 listed a cell x0.77 at the scipy drift, seed 20 a first cell at
	# the ipykernel drift, and seed 16 a cell at the scipy drift, which then
	# cut the upgrade's after side and lost two upgraded lectures
	for s in 3 16 20; do
		run -0 /usr/bin/python3 "$TESTS_DIR/tools/history_truth.py" --seeds 1 --first "$s" --lectures 150
		assert_line --index 0 --regexp "^seed $s: missed none, spikes 0, false 0 \[\], .* compare off \[\]\$"
	done
}
