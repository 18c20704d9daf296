#!/usr/bin/env bats
# The action on a mystmd lecture build (issue 38), run the way a runner runs
# it (tests/action/run-action.py over action.yml's own steps, the simulated
# jobs of tests/action/jobs.bash), with the real mystmd from npm
# (tests/.node, tools/deps test) and Debian's python3-jupyter-server: a
# lecture repository whose lectures/ holds a myst.yml (no _config.yml or
# _toc.yml: the builder is detected), two documents, slow.md with a designed
# slow cell.  Two real builds, in setup_file (shared by the tests):
#   weekly  the action's one-step form around the repository's own command
#           (cd lectures; myst build ... --execute), cold: the baseline;
#           its lectures/_build kept as the cache (W/build-cache)
#   pr      that cache restored (times kept, as actions/cache's tar keeps
#           them), slow.md's sleep made slower, the same step
# Offline, `myst build --site --execute` executes and writes the pages, then
# exits 1 fetching the site theme; the command tolerates that failure only
# (a lecture repository's `myst build --html --execute` fetches it).  Every
# build's Jupyter server and kernels are ended by their token
# (tests/mystmd.bash, myst_end).

load helper
load mystmd
load action/jobs

A="$TESTS_DIR/action"
REPO="$(cd "$TESTS_DIR/.." && pwd)"
PR_EVENT="$A/events/pull_request.json"

# The caller's build step: lecture-python-programming's (cd lectures, myst
# build --execute), `--site` offline; PATH again after bash -l's profile
# (Debian's resets it): myst and the `python` the Jupyter server runs
BUILD='export PATH="$QE_TEST_MYST_BIN:$PATH"
cd lectures
myst build --site --execute > myst.log 2>&1 || grep -q "templates/site/myst/book-theme failed" myst.log'

# book SLEEP: the lecture repository's sources in the workspace: lectures/
# with myst.yml and two documents; slow.md's second cell sleeps SLEEP s
book() {
	mkdir -p "$WS/lectures"
	printf '%s\n' 'version: 1' 'project:' '  id: qe-telemetry-action-mystmd' \
		'  title: qe-telemetry action test book' '  toc:' '    - file: intro.md' \
		'    - file: slow.md' 'site:' '  template: book-theme' > "$WS/lectures/myst.yml"
	local front='---
kernelspec:
  name: python3
  display_name: Python 3
---'
	cat > "$WS/lectures/intro.md" <<-EOF
	$front
	# Introduction

	\`\`\`{code-cell} python3
	x = 1 + 1
	\`\`\`

	\`\`\`{code-cell} python3
	#| label: intro-print
	print(x)
	\`\`\`
	EOF
	cat > "$WS/lectures/slow.md" <<-EOF
	$front
	# A slow lecture

	\`\`\`{code-cell} python3
	import time
	SLEEP = $1
	\`\`\`

	\`\`\`{code-cell} python3
	#| label: slow-sleep
	time.sleep(SLEEP)
	\`\`\`

	\`\`\`{code-cell} python3
	#| label: after-sleep
	time.sleep(0.1)
	\`\`\`
	EOF
	printf 'name: demo\ndependencies:\n  - python=3.11\n' > "$WS/environment.yml"
}

# myst_job NAME: the action as the build step, the build's processes
# carrying a token of their own (ended afterwards); output in W/NAME.out,
# W/NAME.err, the step's status in W/NAME.rc
myst_job() {
	local name=$1 rc=0
	shift
	myst_env "$W/env-$name"
	echo "$MYST_TOKEN" >> "$W/tokens"
	QE_MYST_BUILD=$MYST_TOKEN act_build "$BUILD" "$@" > "$W/$name.out" 2> "$W/$name.err" || rc=$?
	echo "$rc" > "$W/$name.rc"
	myst_end "$MYST_TOKEN"
}

setup_file() {
	myst_skip || return 0
	W="$BATS_FILE_TMPDIR"
	export W GH_STATE="$W/gh" GH_LOG="$W/gh.log"
	mkdir -p "$GH_STATE/pulls" "$W/myst-bin"
	: > "$GH_LOG"
	: > "$W/tokens"
	ln -s /usr/bin/python3 "$W/myst-bin/python"
	ln -s "$MYST" "$W/myst-bin/myst"
	export QE_TEST_MYST_BIN="$W/myst-bin"
	runner_tools
	# the weekly build on main
	job weekly schedule 5
	rm -rf "$WS"
	book 0.3
	ws_commit "Initial lectures" > /dev/null
	myst_job weekly
	cp -a "$WS/lectures/_build" "$W/build-cache"
	cp -a "$JOB" "$W/weekly-job"
	# the pull request: the weekly _build restored, slow.md's sleep slower
	job pr pull_request 7
	rm -rf "$WS"
	book 0.3
	ws_commit "Initial lectures" > /dev/null
	cp -a "$W/build-cache" "$WS/lectures/_build"
	sed -i 's/^SLEEP = 0.3$/SLEEP = 1.5/' "$WS/lectures/slow.md"
	HEAD_SHA=$(ws_commit "slow: sleep 1.5")
	export GITHUB_SHA=$HEAD_SHA
	echo "$HEAD_SHA" > "$W/head-sha"
	pr_event 42 "$HEAD_SHA" QuantEcon/lecture-demo
	myst_job pr
}

setup() {
	myst_skip
	W="$BATS_FILE_TMPDIR"
	export GH_STATE="$W/gh" GH_LOG="$W/gh.log"
}

@test "action, mystmd weekly: the builder detected from lectures/myst.yml; every executed cell timed by the hook in the Jupyter server's kernels; the report kept in mystmd's own _build" {
	[ "$(cat "$W/weekly.rc")" = 0 ] || fail "weekly: status $(cat "$W/weekly.rc"): $(cat "$W/weekly.out")"
	run -0 cat "$W/weekly.out"
	refute_output --partial '::warning::'
	assert_output --partial '::notice::qe-telemetry: no baseline in lectures/_build: this build will be reported, not compared'
	local report="$W/build-cache/qe-telemetry/report.ndjson"
	run -0 validate "$report"
	run -0 jq -r 'select(.kind == "notebook") | "\(.document) \(.input) \(.engine) \(.status) \(.origin)"' "$report"
	assert_output "intro mystmd mystmd ok executed
slow mystmd mystmd ok executed"
	# every code cell timed by the hook, the designed sleep at least its 0.3 s
	run -0 jq -r 'select(.kind == "cell") | "\(.document) \(.label) \(.timing_source) \(.duration_s != null)"' "$report"
	assert_output "intro null hook true
intro intro-print hook true
slow null hook true
slow slow-sleep hook true
slow after-sleep hook true"
	run -0 jq -r 'select(.label == "slow-sleep") | .duration_s >= 0.3 and .duration_s < 0.5' "$report"
	assert_output true
	# the artifact: the same report, the status file, the hook's log
	cmp "$report" "$W/weekly-job/state/artifacts/qe-telemetry-report/report.ndjson"
	run -0 jq -r '.documents | length' "$W/weekly-job/state/artifacts/qe-telemetry-report/execution_status.json"
	[ -s "$W/weekly-job/state/artifacts/qe-telemetry-report/cells.log.gz" ]
	run -0 cat "$W/weekly-job/state/summary.md"
	assert_output --partial 'slow-sleep'
}

@test "action, mystmd pull request: the baseline from the restored _build; only the edited lecture re-executes; the comment names the slower cell and no other" {
	[ "$(cat "$W/pr.rc")" = 0 ] || fail "pr: status $(cat "$W/pr.rc"): $(cat "$W/pr.out")"
	run -0 cat "$W/pr.out"
	refute_output --partial '::warning::'
	assert_output --partial '::notice::qe-telemetry: baseline: the report in lectures/_build/qe-telemetry'
	assert_output --partial '::notice::qe-telemetry: comment created on #42'
	local report="$W/work/lecture-demo/lectures/_build/qe-telemetry/report.ndjson"
	run -0 jq -r 'select(.kind == "notebook") | "\(.document) \(.origin)"' "$report"
	assert_output "intro inherited
slow executed"
	run -0 jq -r 'select(.label == "slow-sleep") | .duration_s >= 1.5' "$report"
	assert_output true
	# the comparison: slow-sleep regressed, nothing else did
	local diff="$W/jobs/pr/state/artifacts/qe-telemetry-report/diff.ndjson"
	run -0 validate "$diff"
	run -0 jq -r 'select(.kind == "cell-diff" and (.verdict == "regression" or .verdict == "slower")) | "\(.document) \(.name)"' "$diff"
	assert_output "slow slow-sleep"
	# the comment: one cell slower, named by its label; in the table of all
	# cells every other one unchanged; the inherited lecture named as such
	run -0 jq -r '.[0].body' "$GH_STATE/comments.json"
	assert_line '🔴 **1 cell slower**, 0 faster, 2 unchanged in 1 re-executed lecture'
	assert_line '1 lecture was not re-executed (cache reused): intro.'
	run -0 jq -r '.[0].body | split("\n")[] | select(test("^\\| [^|]*(slower|faster) \\|")) | split(" | ")[2]' "$GH_STATE/comments.json"
	assert_output slow-sleep
	run -0 jq -r '.[0].body | split("\n")[] | select(startswith("| slow | ") and (split(" | ") | length) == 9) | split(" | ")[1:3] | join(" ")' "$GH_STATE/comments.json"
	assert_output "code cell 1 \`import time\` unchanged
slow-sleep 🔴 slower
after-sleep unchanged"
	run -0 jq -r '.[0].body | split("\n")[0]' "$GH_STATE/comments.json"
	assert_output --partial "\"head_sha\":\"$(cat "$W/head-sha")\""
	run -0 cat "$W/jobs/pr/state/summary.md"
	assert_output --partial 'slow-sleep'
	run -0 "$A/run-action.py" "$W/jobs/pr/state" conclusion
	assert_output success
}

@test "action, mystmd: our trouble only warns: a builder qe-cache-extract refuses, or the wrong one forced, is a warning and the build runs, green" {
	local b
	for b in sphinx jupyter-book; do
		job "bad-$b" schedule 9
		rm -rf "$WS"
		book 0.3
		cp -a "$W/build-cache" "$WS/lectures/_build"
		run -0 --separate-stderr act_build 'echo the-build-ran' --with builder="$b"
		assert_output --partial the-build-ran
		assert_output --partial '::warning::qe-telemetry: '
		case $b in
		sphinx) assert_output --partial "::warning::qe-telemetry: input builder 'sphinx': qe-cache-extract --builder refused it" ;;
		*) assert_output --partial '::warning::qe-telemetry: nothing to read of a jupyter-book build in _build' ;;
		esac
		run -0 conclusion
		assert_output success
	done
}

@test "action, mystmd: builder: mystmd given names the same project as detection does" {
	run -0 qe-cache-extract --builder mystmd "$W/work/lecture-demo/lectures" "$W/work/lecture-demo/_build"
	assert_output "builder=mystmd
build=$W/work/lecture-demo/lectures/_build
read=$W/work/lecture-demo/lectures"
	run -0 qe-cache-extract --builder auto "$W/work/lecture-demo/lectures" "$W/work/lecture-demo/_build"
	assert_line builder=mystmd
	# a Jupyter Book 1 folder beside it (its _config.yml) is not taken for mystmd
	touch "$BATS_TEST_TMPDIR/myst.yml" "$BATS_TEST_TMPDIR/_toc.yml"
	run -0 qe-cache-extract --builder auto "$BATS_TEST_TMPDIR" "$BATS_TEST_TMPDIR/_build"
	assert_line builder=jupyter-book
}

@test "action, mystmd: no Jupyter server or kernel of these builds is left running" {
	[ "$(wc -l < "$W/tokens")" -eq 2 ]
	while read -r t; do
		run -0 myst_pids "$t"
		assert_output ""
	done < "$W/tokens"
}
