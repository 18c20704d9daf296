#!/usr/bin/env bats
# The tool-level cases kept as data: tests/cases/*.cases, each a command,
# its input and the output, messages and exit status it must give
# (tests/tools/cases.py says the format). One test per file, and the runner's
# own behaviour on cases made to fail.

load helper

CASES=$TESTS_DIR/tools/cases.py

@test "every case file passes (tests/cases/*.cases)" {
	local f failed=0
	for f in "$TESTS_DIR"/cases/*.cases; do
		run python3 "$CASES" "$f"
		echo "${f#"$TESTS_DIR"/}: $output"
		[ "$status" -eq 0 ] || failed=1
	done
	[ "$failed" -eq 0 ]
}

@test "cases.py: a case that fails names its file, line and name, and shows each stream that differs" {
	cat > "$BATS_TEST_TMPDIR/bad.cases" <<-'CASE'
	# a comment
	## echo says hello
	$ echo hello; echo oops >&2; exit 3
	> goodbye
	? 0
	## this one passes
	$ cat
	< same
	> same
	CASE
	run -1 --separate-stderr python3 "$CASES" "$BATS_TEST_TMPDIR/bad.cases"
	assert_output "1 passed, 1 failed"
	assert_equal "${stderr_lines[0]}" "$BATS_TEST_TMPDIR/bad.cases:2: echo says hello"
	assert_equal "${stderr_lines[1]}" "  $ echo hello; echo oops >&2; exit 3"
	assert_equal "${stderr_lines[2]}" "  stdout:"
	assert_equal "${stderr_lines[3]}" "   ! want 'goodbye'"
	assert_equal "${stderr_lines[4]}" "   ! got  'hello'"
	assert_equal "${stderr_lines[5]}" "  stderr:"
	assert_equal "${stderr_lines[6]}" "   ! got  'oops'"
	assert_equal "${stderr_lines[7]}" "  status: want 0, got 3"
}

@test "cases.py: bytes that are not UTF-8 are compared as bytes; no LANG reaches a case; each case has its own empty folder" {
	cat > "$BATS_TEST_TMPDIR/bytes.cases" <<-'CASE'
	## bytes through cat
	$ cat
	<b \xff\xfe ok
	>b \xff\xfe ok
	## the environment
	$ echo "${LANG-unset} ${LC_ALL-unset} $TZ $(ls | wc -l)"; touch left-behind
	> unset unset UTC 0
	## the next case's folder is empty again
	$ ls | wc -l
	> 0
	CASE
	LANG=C.UTF-8 LC_ALL=C.UTF-8 run -0 python3 "$CASES" "$BATS_TEST_TMPDIR/bytes.cases"
	assert_output "3 passed, 0 failed"
}

@test "cases.py: a malformed case file is status 2 and says where" {
	printf '$ echo orphan\n## no command here\n> x\n## ok\n$ true\n? x\n' > "$BATS_TEST_TMPDIR/m.cases"
	run -2 --separate-stderr python3 "$CASES" "$BATS_TEST_TMPDIR/m.cases"
	assert_equal "${stderr_lines[0]}" "$BATS_TEST_TMPDIR/m.cases:1: a line before the first '## ' case"
	assert_equal "${stderr_lines[1]}" "$BATS_TEST_TMPDIR/m.cases:6: '? x': the status is a number"
	assert_equal "${stderr_lines[2]}" "$BATS_TEST_TMPDIR/m.cases:2: case 'no command here' has no command"
}
