# shellcheck shell=bash
# The simulated jobs of the action's tests (tests/action.bats,
# tests/action-round3.bats, tests/action-mystmd.bats): a job's environment, the lecture repository at
# the runner's workspace path, the action's steps run as the runner runs
# them (tests/action/run-action.py), the caller's own build step.  The
# loading file sets A, REPO and PR_EVENT, and W (its BATS_FILE_TMPDIR) in
# setup_file and setup.

# runner_and_weekly_build (setup_file): W/nojq, the runner's programs
# without jq (every step of the action runs with this PATH: act, so a step
# that called the jq program would fail); W/seed, the tools "installed" as
# make install lays them out; the weekly build on main (a fresh checkout, a
# full build) and its build-cache artifact, W/build-cache
runner_and_weekly_build() {
	runner_tools
	job weekly schedule
	checkout
	ws_commit "Initial lectures"
	act before
	runjob /usr/bin/python3 "$A/build.py" lectures _build
	act after
	cp -a "$WS/_build" "$W/build-cache"
}

# runner_tools (setup_file): W/nojq and W/seed, as above
runner_tools() {
	mkdir -p "$W/nojq"
	local f t
	for f in /usr/local/bin/* /usr/bin/* /bin/*; do
		case ${f##*/} in jq) continue ;; esac
		[ -e "$W/nojq/${f##*/}" ] || ln -s "$f" "$W/nojq/${f##*/}"
	done
	mkdir -p "$W/seed/bin" "$W/seed/share/qe-telemetry"
	for t in qe-cache-extract qe-stamp qe-cell-diff qe-comment qe-history qe-exec-status qe-sweep; do
		ln -s "$(command -v "$t")" "$W/seed/bin/$t"
	done
	ln -s "$REPO/hook/qe-hook" "$W/seed/bin/qe-hook"
	ln -s "$REPO/hook/qe-replicate" "$W/seed/bin/qe-replicate"
	cp "$REPO/hook/qe_telemetry_startup.py" "$REPO"/hook/qe_replicate_*.py "$W/seed/share/qe-telemetry/"
}

# gh_state (setup): the stand-in GitHub API's state and log, empty, per test
gh_state() {
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

# act MODE [--with k=v]...: the action as a caller's step, on a runner
# without the jq program (and with the programs of $EXTRA_BIN first, when set)
act() {
	local mode=$1
	shift
	PATH="${EXTRA_BIN:+$EXTRA_BIN:}$A:$W/nojq" "$A/run-action.py" "$JOB/state" action "$REPO" --with mode="$mode" \
		--with python=/usr/bin/python3 --with install="path:$W/seed" "$@"
}

# act_build COMMANDS [--with k=v]...: the action as the build step itself
# (the input run, no mode, the default python: the build shell's python3)
act_build() {
	local cmds=$1
	shift
	PATH="${EXTRA_BIN:+$EXTRA_BIN:}$A:$W/nojq" "$A/run-action.py" "$JOB/state" action "$REPO" --with run="$cmds" \
		--with install="path:$W/seed" "$@"
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

# pr_job NAME NUMBER RUN_NUMBER HEAD_REPO SLEEP: a pull-request job up to its
# build: the weekly artifact in _build, intro's SLEEP changed and committed
pr_job() {
	pr_job_at "$W/work/lecture-demo" "$@"
}

# pr_job_at WORKSPACE NAME NUMBER RUN_NUMBER HEAD_REPO SLEEP: pr_job with the
# workspace at another absolute path
pr_job_at() {
	local ws=$1
	shift
	job "$1" pull_request "$3"
	WS=$ws
	export GITHUB_WORKSPACE="$WS"
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

# act_in ACTION_DIR MODE [--with k=v]...: the action from ACTION_DIR, no seed
act_in() {
	local dir=$1 mode=$2
	shift 2
	"$A/run-action.py" "$JOB/state" action "$dir" --with mode="$mode" --with python=/usr/bin/python3 "$@"
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
