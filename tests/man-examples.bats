#!/usr/bin/env bats
# Every man page's EXAMPLES, run: a documented example cannot silently rot.
#
# tests/tools/man-examples.sh reads a page's EXAMPLES section (the
# convention is in its header: `$ ` commands, the output lines after them
# compared exactly, `...` and `…` eliding, `.\" not run: REASON` before a
# block that needs a real build, the network, GitHub or a CI run).  Each
# page's commands run in order in one shell (variables and files carry from
# one to the next), from a fresh copy of a folder laid out as a lecture
# repository's job would have it, made from the fixtures (the "world"):
#   base/_build/.jupyter_cache   the baseline's cache (jupyter-cache-timed/base)
#   _build/.jupyter_cache        the pull request's (jupyter-cache-timed/head)
#   {base/,}_build/jupyter_execute  MyST-NB's notebooks (mystnb-build/{base,head})
#   base.ndjson, pr.ndjson       their records; start: when the build began
#   build-cache.zip              the baseline's cache as an artifact archive
#   _build/qe-telemetry/report.ndjson   the action's report (pr.ndjson stamped)
#   lectures/                    the book's sources (notebooks/head/lectures)
#   environment.yml, conda.json, pip.json   a lecture environment (fixtures/qe-stamp)
# world-hook, for qe(7) and qe-exec-status(1): the same, but _build/ holds a
# cache and cells.log the capture hook's log of the same kernels
# (fixtures/hook/cache), pr.ndjson their records; world-history, for
# qe-history(1) and qe-stamp(1): the same as world, plus history.db (a year
# of builds, tests/tools/gen_history.py), report.ndjson.gz (the next week's) and
# history.ndjson (every build's records).  HOME, IPYTHONDIR, TMPDIR and
# GITHUB_STEP_SUMMARY point inside the copy; HEAD_SHA, GITHUB_SERVER_URL,
# GITHUB_REPOSITORY, RUNNER_LABEL are a job's; python3 is /usr/bin/python3
# (the Python with nbclient, as the lectures build with).
# A command must exit 0 unless the next command is `echo $?` (which then
# shows its status), and write nothing on standard error.
load helper

REPO="$(cd "$TESTS_DIR/.." && pwd)"
EXTRACT="$TESTS_DIR/tools/man-examples.sh"

setup_file() {
	local w="$BATS_FILE_TMPDIR/world" h="$BATS_FILE_TMPDIR/world-hook" s="$BATS_FILE_TMPDIR/world-history"
	mkdir -p "$w/base/_build" "$w/_build/qe-telemetry"
	cp -R "$(shared jupyter-cache-timed/base/.jupyter_cache)" "$w/base/_build/"
	cp -R "$(shared jupyter-cache-timed/head/.jupyter_cache)" "$w/_build/"
	# MyST-NB's notebooks with their markdown, beside each cache as a build leaves them
	cp -R "$(shared mystnb-build/base/jupyter_execute)" "$w/base/_build/"
	cp -R "$(shared mystnb-build/head/jupyter_execute)" "$w/_build/"
	cp -R "$(shared notebooks/head/lectures)" "$w/lectures"
	cp -R "$(fixture mystmd/ipynb-form)" "$w/book"
	cp "$(shared archives/base-artifact.zip)" "$w/build-cache.zip"
	cp "$(fixture qe-stamp/environment.yml)" "$w/environment.yml"
	cp "$(fixture qe-stamp/conda-list.json)" "$w/conda.json"
	cp "$(fixture qe-stamp/pip-list.json)" "$w/pip.json"
	cp "$(fixture sweep/scale.ndjson)" "$w/sweep.ndjson"
	cp "$(fixture sweep/triage.ndjson)" "$(fixture sweep/evidence-runs.ndjson)" "$(fixture sweep/evidence-diff.ndjson)" "$w/"
	chmod -R u+w "$w"
	qe-cache-extract "$w/base/_build/.jupyter_cache" > "$w/base.ndjson"
	qe-cache-extract "$w/_build/.jupyter_cache" > "$w/pr.ndjson"
	qe-stamp -r ubuntu-24.04 "$w/pr.ndjson" > "$w/_build/qe-telemetry/report.ndjson"
	# the hook's: a cache and the log of the same kernels
	cp -R "$w" "$h"
	rm -rf "$h/_build/.jupyter_cache"
	cp -R "$(fixture hook/cache/.jupyter_cache)" "$h/_build/"
	cp "$(fixture hook/cache/hook.log)" "$h/cells.log"
	chmod -R u+w "$h"
	qe-cache-extract -t "$h/cells.log" --since 2026-11-29T15:45:30Z "$h/_build/.jupyter_cache" > "$h/pr.ndjson"
	qe-stamp -r ubuntu-24.04 "$h/pr.ndjson" > "$h/_build/qe-telemetry/report.ndjson"
	# the history's: 51 weekly builds stored, the next week's report
	cp -R "$w" "$s"
	/usr/bin/python3 "$TESTS_DIR/tools/gen_history.py" "$w/base.ndjson" "$w/pr.ndjson" "$BATS_FILE_TMPDIR/reports" > /dev/null
	local reports=("$BATS_FILE_TMPDIR"/reports/main-*.ndjson.gz)
	qe-history add -d "$s/history.db" "${reports[@]:0:${#reports[@]}-1}" > /dev/null
	cp "${reports[-1]}" "$s/report.ndjson.gz"
	gzip -dc "${reports[@]}" > "$s/history.ndjson"
}

# examples PAGE [WORLD]: run PAGE's examples in a copy of WORLD (world,
# world-hook, world-history); fails on the first command that does not do
# what the page shows
examples() {
	local page=$1 world=${2:-world} d="$BATS_TEST_TMPDIR/ex" w="$BATS_TEST_TMPDIR/run" f
	"$EXTRACT" "$REPO/$page" "$d"
	cp -R "$BATS_FILE_TMPDIR/$world" "$w"
	while IFS= read -r f; do
		echo "# ${f#"$REPO/"}" >&3
	done < "$d/notrun"
	# one shell for the page: each command's output, error and status to files
	(
		set +e # a command's status is checked below, not here
		cd "$w" || exit 1
		export HOME="$w/home" IPYTHONDIR="$w/home/.ipython" TMPDIR="$w/tmp" GITHUB_STEP_SUMMARY="$w/summary.md"
		export HEAD_SHA=32160afea3fee5a6a5434aa75b70f9c44666bf0b GITHUB_SERVER_URL=https://github.com
		export GITHUB_REPOSITORY=QuantEcon/lecture-demo RUNNER_LABEL=ubuntu-24.04 start=2026-11-29T14:32:10Z
		[ "$world" != world-hook ] || start=2026-11-29T15:45:30Z
		mkdir -p "$HOME" "$TMPDIR" "$w/.bin"
		ln -s /usr/bin/python3 "$w/.bin/python3"
		PATH="$w/.bin:$PATH"
		last=0
		for f in "$d"/*.cmd; do
			cmd=$(cat "$f")
			(exit "$last") # $? for the command: the status of the one before
			eval "$cmd" > "${f%.cmd}.got" 2> "${f%.cmd}.err" < /dev/null
			last=$?
			echo "$last" > "${f%.cmd}.status"
		done
	)
	local n=0
	for f in "$d"/*.cmd; do
		n=$((n + 1))
		check_one "${f%.cmd}"
	done
	[ "$n" -gt 0 ] || [ -s "$d/notrun" ] || fail "$page: no examples"
}

# check_one BASE: BASE.cmd did what the page shows
check_one() {
	local b=$1 next where
	where=$(cat "$b.where")
	where=${where#"$REPO/"}
	next=$(printf '%s/%03d.cmd' "${b%/*}" $((10#${b##*/} + 1)))
	if [ "$(cat "$b.status")" != 0 ] && ! { [ -f "$next" ] && [ "$(cat "$next")" = 'echo $?' ]; }; then
		fail "$where: \$ $(cat "$b.cmd")"$'\n'"exit status $(cat "$b.status") (not shown by a following \`echo \$?\`); stderr:"$'\n'"$(cat "$b.err")"
	fi
	if [ -s "$b.err" ]; then
		fail "$where: \$ $(cat "$b.cmd")"$'\n'"wrote on standard error:"$'\n'"$(cat "$b.err")"
	fi
	if [ -f "$b.out" ] && ! /usr/bin/python3 "$TESTS_DIR/tools/man-examples-match.py" "$b.out" "$b.got"; then
		fail "$where: \$ $(cat "$b.cmd")"$'\n'"the output is not the page's; the page shows:"$'\n'"$(cat "$b.out")"$'\n'"the command wrote:"$'\n'"$(cat "$b.got")"
	fi
}

@test "man-examples.sh: every EXAMPLES block is run or says why not; the text is what mandoc renders" {
	local p d n T="$BATS_TEST_TMPDIR"
	for p in "$REPO"/man/*.[17]; do
		d="$BATS_TEST_TMPDIR/${p##*/}"
		run -0 --separate-stderr "$EXTRACT" "$p" "$d"
		# every line as man(1) shows it: mandoc puts a literal display 11
		# columns in, past the 5 of the section's text
		mandoc -T utf8 "$p" | LC_ALL=C.UTF-8 col -bx | sed -n '/^EXAMPLES$/,/^[A-Z]/p' | sed -n 's/^           //p' > "$T/rendered"
		grep -v '^$' "$d/all.lines" > "$T/read" || true
		diff -u "$T/rendered" "$T/read" || fail "${p##*/}: the examples read are not the text mandoc renders"
		n=$(( $(find "$d" -name '*.cmd' | wc -l) + $(grep -c '^\$ ' "$d/notrun.lines" || true) ))
		[ "$(grep -c '^\$ ' "$T/rendered")" -eq "$n" ] || fail "${p##*/}: $n commands read, not the rendered \$ lines"
	done
	# a block neither run nor marked, an unknown escape: refused
	printf '.Sh EXAMPLES\n.Bd -literal\nqe-stamp x\n.Ed\n.Bd -literal\n$ echo \\(zz\n.Ed\n' > "$BATS_TEST_TMPDIR/bad.1"
	run -2 --separate-stderr "$EXTRACT" "$BATS_TEST_TMPDIR/bad.1" "$BATS_TEST_TMPDIR/bad"
	assert_equal "${stderr_lines[0]}" "man-examples.sh: $BATS_TEST_TMPDIR/bad.1:3: an example block neither starts with a \`\$ \` command nor is marked \`.\\\" not run: REASON\`"
	assert_equal "${stderr_lines[1]}" "man-examples.sh: $BATS_TEST_TMPDIR/bad.1:6: unknown escape \\(zz"
}

@test "the matcher: exact lines, ... for any lines, … for any text" {
	local m="$TESTS_DIR/tools/man-examples-match.py" t="$BATS_TEST_TMPDIR"
	printf 'a\nb\n' > "$t/got"
	printf 'a\nb\n' > "$t/want" && run -0 /usr/bin/python3 "$m" "$t/want" "$t/got"
	printf 'a\n' > "$t/want" && run -1 /usr/bin/python3 "$m" "$t/want" "$t/got"
	printf 'a\nc\n' > "$t/want" && run -1 /usr/bin/python3 "$m" "$t/want" "$t/got"
	printf '...\nb\n' > "$t/want" && run -0 /usr/bin/python3 "$m" "$t/want" "$t/got"
	printf 'a\n...\n' > "$t/want" && run -0 /usr/bin/python3 "$m" "$t/want" "$t/got"
	printf 'a\n...\nb\n' > "$t/want" && run -0 /usr/bin/python3 "$m" "$t/want" "$t/got"
	printf '…\nb\n' > "$t/want" && run -0 /usr/bin/python3 "$m" "$t/want" "$t/got"
	printf 'x…\nb\n' > "$t/want" && run -1 /usr/bin/python3 "$m" "$t/want" "$t/got"
	printf 'a\nb\nc\n' > "$t/want" && run -1 /usr/bin/python3 "$m" "$t/want" "$t/got"
}

@test "qe-cache-extract(1) EXAMPLES" {
	examples man/qe-cache-extract.1
}

@test "qe-cell-diff(1) EXAMPLES" {
	examples man/qe-cell-diff.1
}

@test "qe-comment(1) EXAMPLES" {
	examples man/qe-comment.1
}

@test "qe-exec-status(1) EXAMPLES" {
	examples man/qe-exec-status.1 world-hook
}

@test "qe-history(1) EXAMPLES" {
	examples man/qe-history.1 world-history
}

@test "qe-hook(1) EXAMPLES" {
	examples man/qe-hook.1
}

@test "qe-replicate(1) EXAMPLES" {
	examples man/qe-replicate.1
}

@test "qe-sweep(1) EXAMPLES" {
	examples man/qe-sweep.1
}

@test "qe-stamp(1) EXAMPLES" {
	examples man/qe-stamp.1 world-history
}

@test "qe-mystmd(7) EXAMPLES" {
	examples man/qe-mystmd.7 world-hook
}

@test "qe(7) EXAMPLES" {
	examples man/qe.7 world-hook
}
