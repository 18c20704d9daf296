#!/usr/bin/env bats
# The evaluation harness with real kernels (Debian's /usr/bin/python3,
# python3-nbclient, python3-ipykernel, python3-numba): qe-replicate --arm
# (more than two arms, environment settings), --compare (the values, in
# each kernel), qe-cell-diff's fidelity rule (--rtol, --atol, precision
# loss) and the hook's recompile audit, on the notebooks of
# tests/replicate/fidelity.py. The kernel runs happen once, in setup_file
# (20 kernel starts, about a minute on a loaded 2-core machine):
#   F  fid-base, fid-near, fid-f32, fid-bug as four arms, K=2, --compare x,s
#   R  jit-once vs jit-again, K=2, --compare wall,sigs: numba compiled 4x
#   X  jaxfid three times with the stand-in JAX (tests/fixtures/jaxstub):
#      x64 (env:JAX_ENABLE_X64=1), x32 (env:JAX_ENABLE_X64=0), plain (no
#      setting), K=1, --compare y,z
load helper

load replicate
NBSP=$'\xc2\xa0'

setup_file() {
	local w="$BATS_FILE_TMPDIR"
	mkdir -p "$w/lec"
	"$PY" "$TESTS_DIR/replicate/fidelity.py" "$w/lec"
	export IPYTHONDIR="$w/ipython"
	(
		cd "$w/lec" || exit
		replicate_into "$w" F -k 2 -n fid --compare x,s --arm base=fid-base.ipynb --arm near=fid-near.ipynb \
			--arm f32=fid-f32.ipynb --arm bug=fid-bug.ipynb
		replicate_into "$w" R -k 2 -n jit --compare wall,sigs jit-once.ipynb jit-again.ipynb
		env -u JAX_ENABLE_X64 PYTHONPATH="$TESTS_DIR/fixtures/jaxstub" "$PY" "$(command -v qe-replicate)" -k 1 -n jaxfid \
			--compare y,z --arm x64=jaxfid.ipynb,env:JAX_ENABLE_X64=1 --arm x32=jaxfid.ipynb,env:JAX_ENABLE_X64=0 \
			--arm plain=jaxfid.ipynb > "$w/X.ndjson" 2> "$w/X.err"; echo $? > "$w/X.status"
		# the hook on its own (a profile armed by qe-hook): its log, as written
		IPYTHONDIR="$w/armed" qe-hook arm > /dev/null &&
		env -u JAX_ENABLE_X64 IPYTHONDIR="$w/armed" QE_TELEMETRY_LOG="$w/jit.log" PYTHONPATH="$TESTS_DIR/fixtures/jaxstub" \
			"$PY" "$TESTS_DIR/hook/hooktool.py" run "$w/H" jit-again.ipynb jaxfid.ipynb > /dev/null 2> "$w/H.err"
		echo $? > "$w/H.status"
	)
}

# pair RUN BASE HEAD: qe-cell-diff of two arms of a run
pair() {
	qe-cell-diff --arms "$2,$3" "$BATS_FILE_TMPDIR/$1.ndjson" "$BATS_FILE_TMPDIR/$1.ndjson"
}

@test "qe-replicate --arm, --compare: usage errors exit 2" {
	run -2 --separate-stderr rep --arm base=a.ipynb
	assert_equal "$stderr" "qe-replicate: --arm: give two or more arms (the first is the base)"
	run -2 --separate-stderr rep --arm base=a.ipynb --arm base=b.ipynb
	assert_equal "$stderr" "qe-replicate: option '--arm': arm 'base' given twice"
	run -2 --separate-stderr rep --arm 'b a=a.ipynb' --arm h=b.ipynb
	assert_equal "$stderr" "qe-replicate: option '--arm': 'b a=a.ipynb' is not NAME=NOTEBOOK[,env:VAR=VALUE]..."
	run -2 --separate-stderr rep --arm b=a.ipynb,x64 --arm h=b.ipynb
	assert_equal "$stderr" "qe-replicate: option '--arm': 'x64' in arm 'b' is not env:VAR=VALUE"
	run -2 --separate-stderr rep --compare 'x[0]' a.ipynb b.ipynb
	assert_equal "$stderr" "qe-replicate: option '--compare': 'x[0]' is not a variable name"
	run -2 --separate-stderr rep --arm b=a.ipynb --arm h=b.ipynb extra.ipynb
	assert_equal "${stderr_lines[0]}" "qe-replicate: usage: qe-replicate [-h] [--version] [-k runs] [-t seconds] [--warm] [-n name]"
	# the order of four arms over four blocks: each block every arm once, rotated every two, every
	# other mirrored; for two arms the same rule is ABBA BAAB (the one order, written once)
	run -0 "$PY" -c 'import sys; from importlib.machinery import SourceFileLoader as L; r = L("r", sys.argv[1]).load_module(); print(" ".join(r.order_of(list("ABCD"), 4))); print(r.order_of(["base", "head"], 8) == "base head head base head base base head base head head base head base base head".split())' "$(command -v qe-replicate)"
	assert_output $'A B C D D C B A B C D A A D C B\nTrue'
	run -2 --separate-stderr qe-cell-diff --arms base "$BATS_FILE_TMPDIR/F.ndjson" "$BATS_FILE_TMPDIR/F.ndjson"
	assert_equal "${stderr_lines[0]}" "qe-cell-diff: option '--arms': 'base' is not BASE,HEAD (two arm names)"
}

@test "four arms: balanced order, each record names its arm, only the first two a version; the values in each kernel" {
	assert_equal "$(cat "$BATS_FILE_TMPDIR/F.status")" 0
	validate "$BATS_FILE_TMPDIR/F.ndjson"
	# every arm once per block, the block rotated, every other one mirrored
	run -0 jq -r 'select(.kind == "notebook") | .arm' "$BATS_FILE_TMPDIR/F.ndjson"
	assert_equal "$(echo $output)" "base near f32 bug bug f32 near base"
	run -0 jq -c 'select(.kind == "notebook") | [.arm, .version, .replicate, .run_order, .arm_env]' "$BATS_FILE_TMPDIR/F.ndjson"
	assert_line --index 0 '["base","base",1,1,{}]'
	assert_line --index 1 '["near","head",1,2,{}]'
	assert_line --index 2 '["f32",null,1,3,{}]'
	assert_equal "$(jq -c 'select(.arm == "bug") | has("version")' "$BATS_FILE_TMPDIR/F.ndjson" | sort -u)" false
	# the values themselves, in the kernel: x float64 of 1000, s a scalar
	run -0 jq -c 'select(.kind == "notebook" and .arm == "base" and .replicate == 1) | .values | map([.name, .kind, .dtype, .shape, (.values | length)])' "$BATS_FILE_TMPDIR/F.ndjson"
	assert_output '[["x","array","float64",[1000],1000],["s","scalar","float64",[],1]]'
	run -0 jq -c 'select(.kind == "notebook" and .arm == "f32" and .replicate == 1) | .values[0] | [.dtype, .values[0], .values[999]]' "$BATS_FILE_TMPDIR/F.ndjson"
	assert_output '["float32",1,4]'
	# the exact float64, not a printout: x[1] = (1 + 1/999) ** 2
	run -0 jq -r 'select(.kind == "notebook" and .arm == "base" and .replicate == 1) | .values[0].values[1]' "$BATS_FILE_TMPDIR/F.ndjson"
	assert_output "$("$PY" -c 'import numpy as np; print(repr(float(np.linspace(1, 2, 1000)[1] ** 2)))')"
	# the capture leaves no name behind and no hook line: the cells' records are the notebook's
	assert_equal "$(jq -c 'select(.kind == "cell" and .arm == "base" and .replicate == 1)' "$BATS_FILE_TMPDIR/F.ndjson" | wc -l)" 3
}

@test "fidelity: a relative 1e-12 is the same within the tolerance; beyond it results differ although the rounded printouts agree" {
	pair F base near > "$BATS_TEST_TMPDIR/near.ndjson"
	validate "$BATS_TEST_TMPDIR/near.ndjson"
	run -0 jq -c 'select(.kind == "notebook-diff") | [.fidelity.answer, (.flags | index("output-changed")), (.fidelity.values | map([.name, .verdict, .compared, .max_rel < 2e-12, .max_rel > 5e-13, .precision_loss]))]' "$BATS_TEST_TMPDIR/near.ndjson"
	assert_output '["same",null,[["x","same","values",true,true,false],["s","same","values",true,true,false]]]'
	# the relative tolerance alone holds it (x reaches 4: 4e-12 apart)
	run -0 jq -c 'select(.kind == "notebook-diff") | .fidelity.answer' <(qe-cell-diff --atol 0 --arms base,near "$BATS_FILE_TMPDIR/F.ndjson" "$BATS_FILE_TMPDIR/F.ndjson")
	assert_output '"same"'
	# a tighter rtol than the difference: it differs (the rule, not the digest, says so)
	run -0 jq -c 'select(.kind == "notebook-diff") | [.fidelity.answer, .fidelity.rtol, (.flags | index("output-changed") != null)]' <(qe-cell-diff --rtol 1e-13 --atol 0 --arms base,near "$BATS_FILE_TMPDIR/F.ndjson" "$BATS_FILE_TMPDIR/F.ndjson")
	assert_output '["differ",1e-13,true]'
	# the bug: x 0.1% larger; "report" prints mean 2.3 on both sides (the digest says same)
	pair F base bug > "$BATS_TEST_TMPDIR/bug.ndjson"
	run -0 jq -c 'select(.kind == "cell-diff" and .label == "report") | .flags' "$BATS_TEST_TMPDIR/bug.ndjson"
	assert_output '["upstream-changed"]'
	run -0 jq -c 'select(.kind == "notebook-diff") | [.fidelity.answer, (.flags | index("output-changed") != null), (.fidelity.values[0] | [.verdict, .max_rel > 9e-4, .max_rel < 1.1e-3])]' "$BATS_TEST_TMPDIR/bug.ndjson"
	assert_output '["differ",true,["differ",true,true]]'
	# the report opens with its decision: correctness gates it, never "use the new version"
	run -0 --separate-stderr qe-comment "$BATS_TEST_TMPDIR/bug.ndjson"
	assert_line --index 2 --regexp '^\*\*Decision for fid: keep the old version\.\*\* Correctness binds: results differ \(`x` max abs diff 0\.004, beyond rtol 1e-05, atol 1e-08\): fix the new version until its values agree, then measure its speed\.'
	assert_line --index 3 --regexp '^⚠️ \*\*Results differ\*\* in fid \(the values compared differ beyond rtol 1e-05, atol 1e-08\): `x`, \*\*differs\*\*, max abs diff 0\.004, max rel 0\.001; `s`, \*\*differs\*\*, max abs diff 2\.[0-9]+, max rel 0\.001\.$'
	run -0 --separate-stderr qe-comment "$BATS_TEST_TMPDIR/near.ndjson"
	assert_line --index 2 --regexp '^\*\*Decision for fid: (keep the old version|run more, [0-9]+ more runs? of each version)\.\*\* '
	assert_line --index 3 --regexp '^✅ \*\*Same results\*\* in fid \(the values compared agree within rtol 1e-05, atol 1e-08\): `x`, max abs diff [0-9.]+e-12, max rel 1e-12; `s`, max abs diff [0-9.]+e-09, max rel 1e-12\.$'
}

@test "fidelity: float32 results within the tolerance and the same printout are a precision loss" {
	pair F base f32 > "$BATS_TEST_TMPDIR/d.ndjson"
	validate "$BATS_TEST_TMPDIR/d.ndjson"
	# the printout agrees: the digests alone see nothing
	run -0 jq -c 'select(.kind == "cell-diff" and .label == "report") | .flags' "$BATS_TEST_TMPDIR/d.ndjson"
	assert_output '["upstream-changed"]'
	run -0 jq -c 'select(.kind == "notebook-diff") | [.fidelity.answer, .flags, (.fidelity.values[0] | [.name, .verdict, .dtype_base, .dtype_head, .dtype_changed, .precision_loss, .max_rel < 1e-7, .max_rel > 0])]' "$BATS_TEST_TMPDIR/d.ndjson"
	assert_output '["precision-loss",["source-changed","precision-loss"],["x","same","float64","float32",true,true,true,true]]'
	# the decision first: keep float64 (float32 is no faster at 2 + 2 runs), what to fix, the other value that moved
	run -0 --separate-stderr qe-comment "$BATS_TEST_TMPDIR/d.ndjson"
	assert_line --index 2 --regexp '^\*\*Decision for fid: keep the old version\.\*\* Precision binds: keep float64, float32 is not measurably faster here \(×[0-9.]+ (faster|slower) as used, p = [0-9.]+, 2 \+ 2 runs\)\. The new version computes `x` in `float32` \(max rel [0-9.e-]+: within rtol 1e-05, yet narrowed\)(; `s` moved by as much)?: make it compute in `float64`\.'
	assert_line --index 3 --regexp '^⚠️ \*\*Precision loss\*\* in fid \(the values compared are within rtol 1e-05, atol 1e-08, but in a narrower dtype\): `x` `float64` → `float32` \(\*\*precision loss\*\*\), max abs diff [0-9.e-]+, max rel [0-9.e-]+\.$'
	assert_line --index 4 --regexp '^🟡 '
	# without --compare's values the rule is the digests' (older records): nothing flagged
	run -0 jq -c 'select(.kind == "notebook-diff") | [.fidelity, .flags]' <(qe-cell-diff --arms base,f32 <(jq -c 'del(.values)' "$BATS_FILE_TMPDIR/F.ndjson") <(jq -c 'del(.values)' "$BATS_FILE_TMPDIR/F.ndjson"))
	assert_output '[null,["source-changed"]]'
}

@test "recompile audit: a numba function compiled on every call is counted per cell, its seconds within 20% of the cell's own clock" {
	assert_equal "$(cat "$BATS_FILE_TMPDIR/R.status")" 0
	"$PY" -c 'import numba' || fail "numba is not installed (python3-numba)"
	validate "$BATS_FILE_TMPDIR/R.ndjson"
	# numba's own count (the dispatchers' signatures) is the hook's, run by run
	run -0 jq -c 'select(.kind == "cell" and .label == "calls") | [.version, .jit_compiles, .jit_functions]' "$BATS_FILE_TMPDIR/R.ndjson"
	assert_equal "$(printf '%s\n' "${lines[@]}" | sort -u)" $'["base",1,{"step":1}]\n["head",4,{"step":4}]'
	run -0 jq -c 'select(.kind == "notebook") | .values[1].values[0]' "$BATS_FILE_TMPDIR/R.ndjson"
	assert_equal "$(printf '%s\n' "${lines[@]}" | sort -u)" $'1\n4'
	# the compile seconds against the cell's own wall clock around the calls
	# (compiling is nearly all of it: four calls of a multiply)
	run -0 jq -s -c '[.[] | select(.version == "head")] | group_by(.replicate) | map([(.[] | select(.kind == "notebook") | .values[0].values[0]), (.[] | select(.label == "calls") | .jit_compile_s)] | (.[1] / .[0]) | (. > 0.8 and . <= 1.0))' "$BATS_FILE_TMPDIR/R.ndjson"
	assert_output '[true,true]'
	# cells before numba is imported, or that compile nothing: 0; the import cell itself is audited
	run -0 jq -c 'select(.kind == "cell" and .label != "calls" and .replicate == 1 and .version == "head") | [.label, .jit_compiles]' "$BATS_FILE_TMPDIR/R.ndjson"
	assert_output $'["imports",0]\n["define",0]\n["report",0]'
	qe-cell-diff "$BATS_FILE_TMPDIR/R.ndjson" "$BATS_FILE_TMPDIR/R.ndjson" > "$BATS_TEST_TMPDIR/d.ndjson"
	validate "$BATS_TEST_TMPDIR/d.ndjson"
	run -0 jq -c 'select(.kind == "cell-diff" and .label == "calls") | [(.flags | index("recompiles") != null), .jit_base.compiles, .jit_head.compiles, .jit_head.top, .jit_head.top_compiles]' "$BATS_TEST_TMPDIR/d.ndjson"
	assert_output '[true,1,4,"step",4]'
	run -0 --separate-stderr qe-comment "$BATS_TEST_TMPDIR/d.ndjson"
	assert_line --regexp "^🔁 \*\*Recompiles\*\*: calls \(jit\) compiles \`step\` 4× in one run \(4 compiles, [0-9.]+${NBSP}(ms|s) compiling; base 1×\): "
	# a notebook without numba or JAX: no audit, not zero
	run -0 jq -c 'select(.kind == "cell") | has("jit_compiles")' "$BATS_FILE_TMPDIR/F.ndjson"
	assert_equal "$(printf '%s\n' "${lines[@]}" | sort -u)" false
}

@test "precision as an environment variant: three arms of one notebook, JAX x64 on, off and unset (the stand-in JAX), and JAX's compile events" {
	assert_equal "$(cat "$BATS_FILE_TMPDIR/X.status")" 0
	validate "$BATS_FILE_TMPDIR/X.ndjson"
	run -0 jq -c 'select(.kind == "notebook") | [.arm, .arm_env, .kernel_env.jax.x64, .values[0].dtype]' "$BATS_FILE_TMPDIR/X.ndjson"
	assert_output $'["x64",{"JAX_ENABLE_X64":"1"},true,"float64"]\n["x32",{"JAX_ENABLE_X64":"0"},false,"float32"]\n["plain",{},false,"float32"]'
	# qe-cell-diff without --arms: the first two arms, x64 against x32
	qe-cell-diff "$BATS_FILE_TMPDIR/X.ndjson" "$BATS_FILE_TMPDIR/X.ndjson" > "$BATS_TEST_TMPDIR/d.ndjson"
	validate "$BATS_TEST_TMPDIR/d.ndjson"
	run -0 jq -c 'select(.kind == "notebook-diff") | [.fidelity.answer, .kernel_changes, (.fidelity.values | map([.name, .precision_loss]))]' "$BATS_TEST_TMPDIR/d.ndjson"
	assert_output '["precision-loss",["jax x64 true -> false"],[["y",true],["z",true]]]'
	run -0 --separate-stderr qe-comment "$BATS_TEST_TMPDIR/d.ndjson"
	# the decision first: keep float64; y to fix, z moved as much; both compile alike, so compiling is not the cost
	assert_line --index 2 --regexp '^\*\*Decision for jaxfid: keep the old version\.\*\* Precision binds: keep float64, float32 is not measurably faster here \(×[0-9.]+ (faster|slower) as used\)\. The new version computes `y` in `float32` \(max rel [0-9.e-]+: within rtol 1e-05, yet narrowed\); `z` moved by as much: make it compute in `float64`\.'
	refute_line --index 2 --partial 'Compiling is the cost'
	assert_line --index 3 --regexp '^⚠️ \*\*Precision loss\*\* in jaxfid .*`y` `float64` → `float32` \(\*\*precision loss\*\*\)'
	# both arms compile twice (two shapes): named, not flagged (head is no worse)
	assert_line --regexp "^🔁 \*\*Recompiles\*\*: compute \(jaxfid\) compiles \`<lambda>\` 2× in one run \(2 compiles, 0\.2[0-9]${NBSP}s compiling; base 2×\)"
	# the unset default is x32's: the same values, nothing changed
	run -0 jq -c 'select(.kind == "notebook-diff") | [.fidelity.answer, .kernel_changes, .flags]' <(pair X x32 plain)
	assert_output '["same",[],[]]'
	# JAX's compile events: two shapes, two compiles of 0.1 s (+ 0.01 s tracing each)
	run -0 jq -c 'select(.kind == "cell" and .label == "compute") | [.arm, .jit_compiles, .jit_functions, (.jit_compile_s | . >= 0.22 and . < 0.4)]' "$BATS_FILE_TMPDIR/X.ndjson"
	assert_line --index 0 '["x64",2,{"<lambda>":2},true]'
	run -0 jq -c 'select(.kind == "cell-diff" and .label == "compute") | [(.flags | index("recompiles") != null), .jit_base.top_compiles, .jit_head.top_compiles]' "$BATS_TEST_TMPDIR/d.ndjson"
	assert_output '[false,2,2]'
}

@test "hostile values and audit fields: a wrong type is a rejected line, odd elements are not compared, names stay code" {
	local f="$TESTS_DIR/fixtures/fidelity/hostile.ndjson"
	run -2 --separate-stderr qe-cell-diff "$f" "$f"
	assert_equal "${stderr_lines[0]}" "qe-cell-diff: $f:3: notebook record with an invalid 'values' (not an array)"
	assert_equal "${stderr_lines[1]}" "qe-cell-diff: $f:5: cell record with an invalid 'jit_compiles' (not a number)"
	printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/d.ndjson"
	validate "$BATS_TEST_TMPDIR/d.ndjson"
	# "bogus" is no number: not compared, no difference claimed; a shape of 1e300 reads -1
	run -0 jq -c 'select(.kind == "notebook-diff") | .fidelity | [.answer, (.values | map([.name, .verdict, .max_abs, .shape_head, .precision_loss]))]' "$BATS_TEST_TMPDIR/d.ndjson"
	assert_output '["differ",[["a","differ",3,"[2]",true],["b","not-compared",null,"[-1, -1]",false],["c","not-compared",null,"[1]",true],["`@x|<b>","missing",null,null,false]]]'
	# a negative compile time reads 0; a count of 1e300 is no count
	run -0 jq -c 'select(.kind == "cell-diff") | [.jit_base, .jit_head]' "$BATS_TEST_TMPDIR/d.ndjson"
	assert_output '[null,{"compiles":3,"compile_s":0,"top":"f`|@me","top_compiles":5}]'
	run -0 --separate-stderr qe-comment "$BATS_TEST_TMPDIR/d.ndjson"
	assert_line --partial '`` `@x|<b> `` missing in base'
	assert_line --partial 'compiles ``f`|@me`` 5×'
}

@test "the hook's log: the audit fields on end lines validate against schema/hook-log.json, from the first cell numba or JAX is imported in" {
	assert_equal "$(cat "$BATS_FILE_TMPDIR/H.status")" 0
	run -0 --separate-stderr "$PY" "$TESTS_DIR/hook/hooktool.py" validate "$BATS_FILE_TMPDIR/jit.log"
	assert_output ""
	# per kernel: imports, define, calls or compute, report; start lines carry none
	run -0 jq -c 'select(.event == "end") | [.seq, .jit_compiles, (.jit_functions | keys)]' "$BATS_FILE_TMPDIR/jit.log"
	assert_output $'[1,0,[]]\n[2,0,[]]\n[3,4,["step"]]\n[4,0,[]]\n[1,0,[]]\n[2,0,[]]\n[3,2,["<lambda>"]]\n[4,0,[]]'
	assert_equal "$(jq -c 'select(.event == "start" and has("jit_compiles"))' "$BATS_FILE_TMPDIR/jit.log")" ""
}
