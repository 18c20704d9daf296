#!/usr/bin/env bats
# mystmd builds, for real: mystmd 1.8.3 from npm (tools/deps test, under
# tests/.node), Debian's python3-jupyter-server and ipykernel, offline
# `myst build --site --execute` of the book in tests/fixtures/mystmd/book
# (documents in folders, known sleeps, a failing document, a
# raises-exception cell, {eval}, labels of each kind, a figure, a parameters
# cell), with the capture hook armed (qe-hook arm in a private IPYTHONDIR,
# which the server's kernels inherit) and the {exec-time} plugin
# (mystmd/exec-time.mjs) listed in its myst.yml.  Two builds, in setup_file:
#   1  --execute, the tools on PATH, QE_TELEMETRY_LOG set, a stored report
#      (QE_EXEC_TIME_REPORT: the records qe-cache-extract makes of
#      tests/fixtures/hook/cache, the cache tests/sphinx.bats renders too),
#      the forms in 3 digits and the en style (QE_EXEC_TIME_DIGITS, _STYLE)
#   2  the same book again without --execute and without our tools on PATH
# Offline, myst exits 1 after writing _build/site/content (it cannot fetch
# the site theme): the tests read that content.  Both builds' Jupyter
# servers and kernels are ended afterwards (tests/mystmd.bash).
load helper
load mystmd

NB=$'\xc2\xa0'	# the no-break space between number and unit (no LANG needed)

setup_file() {
	myst_skip || return 0
	local w=$BATS_FILE_TMPDIR hook=$TESTS_DIR/fixtures/hook/cache
	cp -R "$TESTS_DIR/fixtures/mystmd/book" "$w/book"
	ln -s "$TESTS_DIR/../mystmd/exec-time.mjs" "$w/book/exec-time.mjs"
	IPYTHONDIR="$w/ipython" qe-hook arm
	qe-cache-extract -r /tmp/qe-hook-demo --timings "$hook/hook.log" "$hook/.jupyter_cache" > "$w/report.ndjson"
	myst_env "$w/env"
	echo "$MYST_TOKEN" > "$w/tokens"
	(
		export IPYTHONDIR="$w/ipython" QE_TELEMETRY_LOG="$w/hook.log" QE_EXEC_TIME_REPORT="$w/report.ndjson"
		export QE_EXEC_TIME_DIGITS=3 QE_EXEC_TIME_STYLE=en
		rc=0
		myst_build "$w/book" --execute > "$w/build1.out" || rc=$?
		echo "$rc" > "$w/build1.status"
	)
	cp -R "$w/book/_build/site/content" "$w/content1"
	myst_env "$w/env"
	echo "$MYST_TOKEN" >> "$w/tokens"
	(
		PATH="$w/env/shim:$(dirname "$(command -v node)"):/usr/bin:/bin"
		unset QE_TELEMETRY_BIN
		export QE_TELEMETRY_LOG="$w/hook.log" QE_EXEC_TIME_REPORT="$w/report.ndjson"
		rc=0
		myst_build "$w/book" > "$w/build2.out" || rc=$?
		echo "$rc" > "$w/build2.status"
	)
	cp -R "$w/book/_build/site/content" "$w/content2"
}

setup() {
	myst_skip
}

# roles CONTENT: "location<TAB>class<TAB>text" of every {exec-time} span of
# the build's site content, in page and document order
roles() {
	jq -r '.location as $l | .. | objects | select(.type == "span" and ((.class // "") | startswith("qe-exec-time")))
		| [$l, .class, ([.children[]?.value] | join(""))] | @tsv' "$BATS_FILE_TMPDIR/$1"/*.json
}

@test "mystmd: the book is built and executed: every page written, the {eval} evaluated, the failing document's error shown; myst's only failure is the theme it cannot fetch offline" {
	local w=$BATS_FILE_TMPDIR
	assert_equal "$(cat "$w/build1.status")" 1
	run -0 jq -r .location "$w"/content1/*.json
	assert_equal "$(printf '%s\n' "${lines[@]}" | sort | tr '\n' ' ')" \
		"/dynamics/growth.md /dynamics/markov.md /dynamics/solow.md /errors/markov.md /intro.md /tools/params.md "
	run -0 jq -c '[.. | objects | select(.type == "inlineExpression") | .result.data["text/plain"]]' "$w/content1/index.json"
	assert_output '["42"]'
	run -0 jq -r '[.. | objects | select(.output_type? == "error") | .ename] | join(" ")' "$w/content1/markov-1.json"
	assert_output ValueError
	run -0 grep -c 'Built 6 pages' "$w/build1.out"
	run grep -F '⛔' "$w/build1.out"
	refute_output --partial qe-telemetry
	run -0 grep -F 'request to https://api.mystmd.org/templates/site/myst/book-theme failed' "$w/build1.out"
}

@test "mystmd: the hook names each executed document (JPY_SESSION_NAME, relative to the project under jupyter_server 1.x) in every line; the known sleeps are timed" {
	local w=$BATS_FILE_TMPDIR
	run -0 jq -r '[.document, .event] | @tsv' "$w/hook.log"
	assert_equal "$(printf '%s\n' "${lines[@]}" | cut -f1 | sort -u | tr '\n' ' ')" \
		"dynamics/growth.md dynamics/markov.md dynamics/solow.md errors/markov.md intro.md tools/params.md "
	# one kernel per document
	assert_equal "$(jq -r '[.document, .run] | @tsv' "$w/hook.log" | sort -u | wc -l)" 6
	# time.sleep(S): S <= duration_s <= S + 0.1 (hook.bats's tolerance), by
	# document and the digest of what the kernel ran (#| lines stripped)
	local doc src s d
	while IFS='|' read -r doc src s; do
		d=$(jq -r --arg doc "$doc" --arg h "$(printf '%b' "$src" | sha256sum | cut -c1-64)" \
			'select(.event == "end" and .document == $doc and .source_sha256 == $h) | .duration_s' "$w/hook.log")
		[ -n "$d" ] || fail "$doc: no end line for '$src'"
		awk -v d="$d" -v s="$s" 'BEGIN { exit !(d >= s && d <= s + 0.1) }' || fail "$doc '$src': $d s"
	done <<-'EOF'
	intro.md|time.sleep(0.3)|0.3
	dynamics/markov.md|time.sleep(0.5)|0.5
	dynamics/solow.md|time.sleep(0.8)|0.8
	dynamics/growth.md|import time\ntime.sleep(0.4)|0.4
	dynamics/growth.md|time.sleep(0.2)\nprint("still running")|0.2
	tools/params.md|import time\nfor _ in range(n):\n    time.sleep(delay / n)|0.25
	EOF
	# the raises-exception cell failed and execution went on; the failing document stopped
	run -0 jq -r 'select(.event == "end" and .success == false) | [.document, .error] | @tsv' "$w/hook.log"
	assert_equal "$(printf '%s\n' "${lines[@]}" | sort | tr '\n' ';')" \
		"dynamics/growth.md	ZeroDivisionError;errors/markov.md	ValueError;"
	assert_equal "$(jq -c 'select(.event == "end" and .document == "errors/markov.md")' "$w/hook.log" | wc -l)" 2
}

@test "exec-time: the stored report's times in the Sphinx extension's forms (no-break spaces), the same values tests/sphinx.bats renders from those records; QE_EXEC_TIME_DIGITS and _STYLE reach qe-exec-status" {
	run -0 roles content1
	assert_line "/intro.md	qe-exec-time	0.21${NB}s"
	assert_line "/intro.md	qe-exec-time	74%"
	assert_line "/intro.md	qe-exec-time	0.5${NB}s"
	assert_line "/intro.md	qe-exec-time	0.302${NB}s"
	assert_line "/intro.md	qe-exec-time	2.12${NB}s"
	# exactly the strings qe-exec-status --times prints for those records with
	# --digits 3 --style en: the plugin formats nothing itself
	run -0 sh -c 'qe-exec-status --times --digits 3 --style en "$1" | jq -r ".documents[\"lectures/dynamics/markov\"].cells[\"markov-simulate\"].text.human,
		.documents[\"lectures/dynamics/markov\"].cells[\"markov-simulate\"].text.share, .documents[\"lectures/numba_demo\"].cells[\"numba-import\"].text.rounded,
		.documents[\"lectures/intro\"].cells[\"slow-sleep\"].text.seconds, .documents[\"lectures/intro\"].text.human"' _ "$BATS_FILE_TMPDIR/report.ndjson"
	assert_output $'0.21\xc2\xa0s\n74%\n0.5\xc2\xa0s\n0.302\xc2\xa0s\n2.12\xc2\xa0s'
}

@test "exec-time: a target no source knows warns through mystmd's own channel at the role's line and shows the placeholder; the build goes on" {
	local w=$BATS_FILE_TMPDIR
	run -0 grep -F 'qe-telemetry: exec-time:' "$w/build1.out"
	assert_line --regexp "^⚠️  intro\\.md:52:[0-9]+ qe-telemetry: exec-time: unknown label 'no-such-cell' in document 'lectures/intro'\$"
	assert_line --regexp "^⚠️  intro\\.md:47:[0-9]+ qe-telemetry: exec-time: .*'no-such-label' in document 'intro'"
	run -0 roles content1
	assert_line "/intro.md	qe-exec-time qe-exec-time-missing	—"
	# the pages after it were written too
	run -0 jq -r '.. | objects | select(.type == "span" and .class? != null) | .class' "$w/content1/params.json"
	assert_output --partial qe-exec-time
}

@test "exec-time: this build's times (the hook log joined by qe-cache-extract over the pages as the transforms see them, first build): the known sleeps; the failing cell's own time; an unknown label warns" {
	local w=$BATS_FILE_TMPDIR
	run -0 jq -r '.. | objects | select(.type == "span" and .class == "qe-exec-time") | .children[0].value' "$w/content1/index.json"
	# slow-sleep in four forms (human, seconds, rounded, share), directive-label,
	# fig-svg, markov-sleep, then the stored report's; printed to 0.01 s
	awk -v v="${lines[0]%%${NB}*}" 'BEGIN { exit !(v >= 0.30 && v <= 0.40) }' || fail "slow-sleep: ${lines[0]}"
	awk -v v="${lines[1]%%${NB}*}" 'BEGIN { exit !(v >= 0.30 && v <= 0.40) }' || fail "slow-sleep -s: ${lines[1]}"
	assert_equal "${lines[2]}" "0.3${NB}s"
	awk -v v="${lines[4]%%${NB}*}" 'BEGIN { exit !(v >= 0.10 && v <= 0.20) }' || fail "directive-label: ${lines[4]}"
	awk -v v="${lines[6]%%${NB}*}" 'BEGIN { exit !(v >= 0.50 && v <= 0.60) }' || fail "markov-sleep: ${lines[6]}"
	# the failing cell ran up to its exception and the hook timed it: its role
	# shows that time (the Sphinx extension's rule), the very text the tools
	# give for the pages mystmd wrote afterwards (content1, read with --pages:
	# build 2 rewrote _build/site/content) and the same log
	local fails=${lines[7]}
	run -0 sh -c 'qe-cache-extract -r "$1/book" -t "$1/hook.log" --pages "$1/content1" "$1/book/_build" 2> /dev/null |
		qe-exec-status --times --digits 3 --style en - | jq -r ".documents[\"errors/markov\"].cells[\"fails-here\"].text.human"' _ "$w"
	assert_regex "$output" "^[0-9.]+${NB}(ms|s)\$"
	assert_equal "$fails" "$output"
	run -0 grep -F 'qe-telemetry: exec-time:' "$w/build1.out"
	refute_line --partial "'fails-here'"
	assert_line --regexp "intro\\.md:47:[0-9]+ qe-telemetry: exec-time: unknown label 'no-such-label' in document 'intro'\$"
}

@test "exec-time: with our tools missing, every role shows the placeholder, one info line says why, no warning; the site is written" {
	local w=$BATS_FILE_TMPDIR
	assert_equal "$(cat "$w/build2.status")" 1
	run -0 grep -F 'qe-telemetry' "$w/build2.out"
	assert_line --index 0 "🔌 qe-telemetry {exec-time} (exec-time.mjs) loaded: 0 directives, 4 roles, 2 transforms"
	assert_line --index 1 "ℹ️  intro.md qe-telemetry: qe-exec-status not found (install qe-telemetry, or set QE_TELEMETRY_BIN): no times are read, placeholders shown"
	assert_equal "${#lines[@]}" 2
	run -0 roles content2
	assert_equal "${#lines[@]}" 16
	run -0 sh -c 'cut -f2- | sort -u' <<< "$output"
	assert_output "qe-exec-time qe-exec-time-missing	—"
	assert_equal "$(ls "$w/content2" | wc -l)" 6
}

@test "mystmd: no Jupyter server or kernel of the builds is left running" {
	local t
	while read -r t; do
		run -0 myst_pids "$t"
		assert_output ""
	done < "$BATS_FILE_TMPDIR/tokens"
	# and the server's own record of itself was removed (a clean stop)
	run -0 find "$BATS_FILE_TMPDIR/env/runtime" -name 'jpserver-*.json'
	assert_output ""
}
