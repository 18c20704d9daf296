#!/usr/bin/env bats
# The table-driven unit tests of lib/ (tests/unit/MODULE.test, run by the
# driver build/unit/MODULE that make builds from tests/unit/MODULE.c), and the vocabulary of lib/qe_record.c
# against the enums of schema/, the field table of lib/qe_record.c against its properties.

load helper

UNIT_DIR=$TESTS_DIR/../build/unit

@test "every unit case file passes its driver" {
	local t u failed=0
	for t in "$TESTS_DIR"/unit/*.test; do
		u=$UNIT_DIR/$(basename "${t%.test}")
		[ -x "$u" ] || { echo "$u: not built (make check builds it)"; failed=1; continue; }
		run "$u" "$t"
		echo "$(basename "$u"): $output"
		[ "$status" -eq 0 ] || failed=1
	done
	[ "$failed" -eq 0 ]
}

@test "a failing case is reported with its file, line, input and both outputs" {
	printf 'parse\n2026-11-29T14:30:11Z\nwrong\n' > "$BATS_TEST_TMPDIR/bad.test"
	run -1 --separate-stderr "$UNIT_DIR/time" "$BATS_TEST_TMPDIR/bad.test"
	assert_output "0 passed, 1 failed"
	assert_equal "${stderr_lines[0]}" "$BATS_TEST_TMPDIR/bad.test:1: parse: input '2026-11-29T14:30:11Z'"
	assert_equal "${stderr_lines[1]}" "  expected 'wrong'"
}

@test "the vocabulary is the schema's: verdicts, flags, statuses, timing sources, methods, notes, origins, answers, verdict rules, history words, speeds" {
	S="$TESTS_DIR/../schema"
	words() { jq -r "$1 | map(select(. != null)) | join(\" \")" "$2"; }
	run -0 "$UNIT_DIR/vocab" --dump
	assert_line "verdict: $(words '."$defs".verdict.enum' "$S/diff.json")"
	assert_line "flag: $(words '."$defs".flags.items.enum' "$S/diff.json")"
	assert_line "cell status: $(words '.properties.status.enum' "$S/cell.json")"
	assert_line "notebook status: $(words '.properties.status.enum' "$S/notebook.json")"
	assert_line "timing source: $(words '."$defs"."cell-diff".properties.timing_source_base.enum' "$S/diff.json")"
	assert_line "timing method: $(words '.properties.timing_method.enum' "$S/cell.json")"
	assert_line "timing note: $(words '.properties.timing_note.enum' "$S/cell.json")"
	assert_line "origin: $(words '."$defs".origin.enum' "$S/common.json")"
	assert_line "times from: $(words '.properties.documents.items.properties.times.properties.from.enum' "$S/execution-status.json")"
	assert_line "answer: $(words '."$defs".test.oneOf[1].properties.answer.enum' "$S/diff.json")"
	assert_line "verdict rule: $(words '."$defs"."notebook-diff".properties.verdict_rule.enum' "$S/diff.json")"
	assert_line "series: $(words '."$defs".series.enum' "$S/history.json")"
	assert_line "level: $(words '."$defs".level.enum' "$S/history.json")"
	assert_line "add result: $(words '."$defs".add.properties.result.enum' "$S/history.json")"
	assert_line "provenance change: $(words '."$defs".provenance_change.properties.what.enum' "$S/history.json")"
	assert_line "compare by: $(words '."$defs".compare.properties.by.enum' "$S/history.json")"
	assert_line "moved: $(words '."$defs".compare.properties.moved.enum' "$S/history.json")"
	assert_line "version: $(words '."$defs".version.enum' "$S/common.json")"
	assert_line "machines: $(words '."$defs".summary.properties.machines.enum' "$S/diff.json")"
	assert_line "speed: $(words '."$defs".summary.properties.speed.enum' "$S/diff.json")"
	assert_line "fidelity verdict: $(words '."$defs"."notebook-diff".properties.fidelity.properties.values.items.properties.verdict.enum' "$S/diff.json")"
	assert_line "fidelity answer: $(words '."$defs"."notebook-diff".properties.fidelity.properties.answer.enum' "$S/diff.json")"
	assert_line "crossover: $(words '."$defs".sweep.properties.crossover.properties.state.enum' "$S/sweep.json")"
	assert_line "sweep clear: $(words '[."$defs".sweep.properties.points.items.properties.clear.enum[] | strings]' "$S/sweep.json")"
	assert_line "time kind: $(words '."$defs".time_kinds.required' "$S/sweep.json")"
	assert_line "triage: $(words '."$defs".triage.properties.decision.enum' "$S/sweep.json")"
	assert_line "triage binding: $(words '."$defs".triage.properties.binding.enum' "$S/sweep.json")"
	assert_line "engine: $(words '."$defs".engine.enum' "$S/diff.json")"
}

@test "the record model is the schema's: each field of lib/qe_record.c's table is a property of its kind's schema with a type the schema allows" {
	run -0 "$UNIT_DIR/record" --dump
	# the table is not empty and holds both kinds
	assert_line "notebook execution_seconds number"
	assert_line "cell label string"
	"$UNIT_DIR/record" --dump > "$BATS_TEST_TMPDIR/fields"
	run -0 "$TESTS_DIR/tools/record_fields_check.py" "$TESTS_DIR/../schema" < "$BATS_TEST_TMPDIR/fields"
	assert_output ''
	# and the check fails on a field the schema does not have or types otherwise
	printf 'cell label number\nnotebook no_such_field string\n' > "$BATS_TEST_TMPDIR/bad"
	run -1 "$TESTS_DIR/tools/record_fields_check.py" "$TESTS_DIR/../schema" < "$BATS_TEST_TMPDIR/bad"
	assert_line "cell label: number in lib/qe_record.c, ['null', 'string'] in schema/cell.json"
	assert_line "notebook no_such_field: no such property in schema/notebook.json"
}

@test "the code stays readable: no function of cmd/ or lib/ over 80 lines, no fuzz target includes a tool's main" {
	run -0 "$TESTS_DIR/tools/funclen.sh" 80
	assert_output ""
	run -1 grep -l '#include.*cmd/' "$TESTS_DIR"/../fuzz/*.c
}

@test "funclen.sh finds a long function" {
	f="$BATS_TEST_TMPDIR/long.c"
	{ printf 'static int\nlong_one(void)\n{\n'; for i in $(seq 81); do printf '\tx++;\n'; done; printf '}\n'; } > "$f"
	run -1 "$TESTS_DIR/tools/funclen.sh" 80 "$f"
	assert_output "$f:2: long_one: 81 lines"
}
