#!/usr/bin/env bats
# qe-replicate --compare-labelled with real kernels (Debian's /usr/bin/python3,
# python3-nbclient, python3-ipykernel, python3-numpy): the value of each
# labelled cell's last expression, captured in the kernel right after the
# cell ran (IPython's own result of it: the cell is not run again), named
# by the cell's display name, compared by qe-cell-diff's fidelity rule as
# --compare's variables are. The notebooks are tests/replicate/labelled.py's;
# the kernel runs happen once, in setup_file (6 kernel starts, about 15 s):
#   L  lab-base, lab-near, lab-f32 as three arms, K=2, --compare y --compare-labelled
load helper

load replicate

setup_file() {
	local w="$BATS_FILE_TMPDIR"
	mkdir -p "$w/lec"
	"$PY" "$TESTS_DIR/replicate/labelled.py" "$w/lec"
	export IPYTHONDIR="$w/ipython"
	(
		cd "$w/lec" || exit
		replicate_into "$w" L -k 2 -n lab --compare y --compare-labelled --arm base=lab-base.ipynb --arm near=lab-near.ipynb \
			--arm f32=lab-f32.ipynb
	)
}

# pair BASE HEAD: qe-cell-diff of two arms of the run
pair() {
	qe-cell-diff --arms "$1,$2" "$BATS_FILE_TMPDIR/L.ndjson" "$BATS_FILE_TMPDIR/L.ndjson"
}

@test "--compare-labelled: the labelled cells' last expressions, by display name, taken as each cell ran; no unlabelled cell" {
	assert_equal "$(cat "$BATS_FILE_TMPDIR/L.status")" 0
	validate "$BATS_FILE_TMPDIR/L.ndjson"
	# --compare's variable first, then the cells in order, each with its code-cell ordinal;
	# not the unlabelled x[:3] * K nor the solution block's x.max() (their last lines expressions
	# too), nor assign, report, imports
	run -0 jq -c 'select(.kind == "notebook") | .values | map([.name, .cell, .kind, .dtype, .shape])' "$BATS_FILE_TMPDIR/L.ndjson"
	assert_equal "${#lines[@]}" 6
	assert_equal "$(printf '%s\n' "${lines[@]}" | sed 's/float32/float64/g' | sort -u)" \
		'[["y",null,"array","float64",[1000]],["grid",1,"array","float64",[1000]],["total",2,"scalar","float64",[]],["slow",7,"array","float64",[3]],["after",8,"scalar","int64",[]]]'
	run -0 jq -r 'select(.kind == "notebook" and .arm == "f32") | .values | map(.dtype) | join(" ")' "$BATS_FILE_TMPDIR/L.ndjson"
	assert_output $'float32 float32 float32 float64 int64\nfloat32 float32 float32 float64 int64'
	# grid's value as the cell left it: a later cell zeroes x in place (after the run it is all 0)
	run -0 jq -c 'select(.kind == "notebook" and .arm == "base") | .values[1] | [.values[0], .values[999], (.values | add > 2000)]' "$BATS_FILE_TMPDIR/L.ndjson"
	assert_output $'[1,4,true]\n[1,4,true]'
	# the cell's name is the label the comment shows; the unlabelled cell keeps its own
	run -0 jq -r 'select(.kind == "cell" and .arm == "base" and .replicate == 1) | [.index, .label // "-", .name] | @tsv' "$BATS_FILE_TMPDIR/L.ndjson"
	assert_line --index 1 $'1\tgrid\tgrid'
	assert_line --index 3 $'3\t-\tx[:3] * 3'
	# total's label is its figure's name; the cell in the solution block is named by its block, not labelled
	assert_line --index 2 $'2\ttotal\ttotal'
	assert_line --index 10 $'10\t-\tsolution ex1: x.max()'
	# the captures leave no hook line and no name behind: eleven cell records a run, as many cells
	assert_equal "$(jq -c 'select(.kind == "cell" and .arm == "near" and .replicate == 2)' "$BATS_FILE_TMPDIR/L.ndjson" | wc -l)" 11
}

@test "--compare-labelled: a labelled cell with nothing to capture (an assignment, a taken name, None) is said once, not per run nor per arm; a definition not at all" {
	run -0 cat "$BATS_FILE_TMPDIR/L.err"
	assert_equal "${#lines[@]}" 3
	assert_line --index 0 "qe-replicate: lab: cell 'assign' (base): its last statement is an assignment, not an expression (name the variable with --compare): nothing captured"
	assert_line --index 1 "qe-replicate: lab: cell 'y' (base): its name is taken (by --compare or an earlier labelled cell): nothing captured"
	assert_line --index 2 "qe-replicate: lab: cell 'report' (base): its last expression's value is None: nothing captured"
}

@test "--compare-labelled: a relative 1e-12 in a cell's value is the same within the tolerance; the unlabelled cell's other printout decides nothing" {
	pair base near > "$BATS_TEST_TMPDIR/d.ndjson"
	validate "$BATS_TEST_TMPDIR/d.ndjson"
	run -0 jq -c 'select(.kind == "notebook-diff") | [.fidelity.answer, (.flags | index("output-changed")), (.fidelity.values | map([.name, .verdict, .compared, .max_rel < 2e-12, .max_rel > 5e-13]))]' "$BATS_TEST_TMPDIR/d.ndjson"
	assert_output '["same",null,[["y","same","values",true,true],["grid","same","values",true,true],["total","same","values",true,true],["slow","same","values",true,false],["after","same","values",true,false]]]'
	# a tighter rtol than the difference: the cells' values differ
	run -0 jq -c 'select(.kind == "notebook-diff") | [.fidelity.answer, (.fidelity.values | map(select(.verdict == "differ") | .name))]' <(qe-cell-diff --rtol 1e-13 --atol 0 --arms base,near "$BATS_FILE_TMPDIR/L.ndjson" "$BATS_FILE_TMPDIR/L.ndjson")
	assert_output '["differ",["y","grid","total"]]'
	run -0 --separate-stderr qe-comment "$BATS_TEST_TMPDIR/d.ndjson"
	assert_line --index 2 --regexp '^\*\*Decision for lab: '
	assert_line --index 3 --regexp '^✅ \*\*Same results\*\* in lab \(the values compared agree within rtol 1e-05, atol 1e-08\): `y`, max abs diff [0-9.]+e-12, max rel 1e-12; `grid`, max abs diff [0-9.]+e-12, max rel 1e-12; `total`, max abs diff [0-9.]+e-09, max rel 1e-12; `slow`, identical; `after`, identical\.$'
}

@test "--compare-labelled: a cell returning float32 within the tolerance is a precision loss" {
	pair base f32 > "$BATS_TEST_TMPDIR/d.ndjson"
	validate "$BATS_TEST_TMPDIR/d.ndjson"
	run -0 jq -c 'select(.kind == "notebook-diff") | [.fidelity.answer, (.flags | index("precision-loss") != null), (.fidelity.values[1:3] | map([.name, .verdict, .dtype_base, .dtype_head, .precision_loss, .max_rel < 1e-7]))]' "$BATS_TEST_TMPDIR/d.ndjson"
	assert_output '["precision-loss",true,[["grid","same","float64","float32",true,true],["total","same","float64","float32",true,true]]]'
	# the cells alone say it (without --compare y)
	jq -c 'if .kind == "notebook" then .values |= map(select(.cell != null)) else . end' "$BATS_FILE_TMPDIR/L.ndjson" > "$BATS_TEST_TMPDIR/cells.ndjson"
	run -0 jq -c 'select(.kind == "notebook-diff") | [.fidelity.answer, (.fidelity.values | map(.name))]' <(qe-cell-diff --arms base,f32 "$BATS_TEST_TMPDIR/cells.ndjson" "$BATS_TEST_TMPDIR/cells.ndjson")
	assert_output '["precision-loss",["grid","total","slow","after"]]'
	run -0 --separate-stderr qe-comment "$BATS_TEST_TMPDIR/d.ndjson"
	# the decision first: keep float64; the first value to fix named, the cells' values that moved as much after it
	assert_line --index 2 --regexp '^\*\*Decision for lab: keep the old version\.\*\* Precision binds: keep float64, .* The new version computes `y` in `float32` \(max rel [0-9.e-]+: within rtol 1e-05, yet narrowed\); `grid`, `total` moved by as much: make it compute in `float64`\.'
	assert_line --index 3 --partial '`grid` `float64` → `float32` (**precision loss**), max abs diff '
}

@test "--compare-labelled: the capture is in no cell's timing (a value NumPy takes 0.5 s to read)" {
	# capturing slow's value costs 0.5 s: between slow and after, in neither
	run -0 jq -c 'select(.kind == "notebook") | .capture_seconds >= 0.5' "$BATS_FILE_TMPDIR/L.ndjson"
	assert_equal "$(printf '%s\n' "${lines[@]}" | sort -u)" true
	run -0 jq -c 'select(.kind == "cell" and (.label == "slow" or .label == "after")) | .duration_s < 0.4' "$BATS_FILE_TMPDIR/L.ndjson"
	assert_equal "${#lines[@]}" 12
	assert_equal "$(printf '%s\n' "${lines[@]}" | sort -u)" true
}

@test "--compare-labelled: in the usage" {
	run -0 rep -h
	assert_line --index 1 --partial '[--compare name] [--compare-labelled]'
}
