#!/usr/bin/env bash
# mode: after, step 2 (before the summary), and mode: history.  The history
# store: a data branch of the repository (input history-branch, default
# qe-telemetry-data; empty turns the store off) holding one gzip-compressed
# stamped report per weekly build under reports/YYYY/MM/.
#
#   - Only where the caller says so, never because a build runs on main:
#     mode: history (a small job of its own that needs: the build, with
#     permissions: contents: write, given the build's report artifact in
#     artifact-dir; the build job itself stays contents: read with
#     persist-credentials: false), or mode: after with history-store: true
#     (the one-job way; the whole build then runs with push rights).  A
#     pull-request event never stores: previews do not mix into the weekly
#     history.  The report is appended as a commit on the data branch made
#     with git's plumbing in the workspace repository (the working tree, HEAD
#     and the index are never touched; the branch is fetched into
#     refs/qe-telemetry/data), pushed with the credentials actions/checkout
#     left.  When another job
#     pushed to the branch in between, the commit is made again on the new
#     tip and pushed again (up to four times); a push that still fails is a
#     warning, never a red build.
#   - Every mode: after build (pull requests too: they only read) then rebuilds the
#     history database from the branch's reports with `qe-history add`, and
#     writes the per-cell noise fences (`qe-history fences`) that summary.sh
#     gives qe-cell-diff, when the history has any.
#
# Outputs: db (the database), fences (the fences file, when not empty),
# stored (true when this build's report reached the branch).
# shellcheck source=action/lib.sh
. "$GITHUB_ACTION_PATH/action/lib.sh"

branch=${QE_HISTORY_BRANCH-qe-telemetry-data}
report=$QE_STATE/report.ndjson
mode=${QE_MODE:-after}
hist=$QE_STATE/history
db=$QE_STATE/history.db
ref=refs/qe-telemetry/data
ws=${GITHUB_WORKSPACE:-$PWD}
output stored false

[ -n "$branch" ] || exit 0
if [ "$mode" = history ]; then
	# the build job's report artifact: a regular file, not a link, not too large
	report=${QE_ARTIFACT_DIR:-}/report.ndjson
	if [ -z "${QE_ARTIFACT_DIR:-}" ] || [ ! -f "$report" ] || [ -L "$report" ] ||
	    [ "$(stat -c %s "$report")" -gt $((256 * 1024 * 1024)) ]; then
		warn "mode: history: no report.ndjson in artifact-dir '${QE_ARTIFACT_DIR:-}' (download the build job's report artifact there): nothing stored"
		exit 0
	fi
fi
if [ "${QE_BUILD_OUTCOME:-}" = cancelled ] || [ -e "$QE_STATE/cancelled" ]; then
	exit 0
fi
if ! git check-ref-format "refs/heads/$branch" 2> /dev/null; then
	warn "input history-branch: not a branch name: '$branch'; no history"
	exit 0
fi
# mode: history has no tool (it holds the write token; tools.sh installs
# nothing there): it only gzips and pushes
if [ "$mode" != history ] && { [ -z "${QE_BIN:-}" ] || [ ! -x "$QE_BIN/qe-history" ]; }; then
	notice "these tools have no qe-history (an older release?): no history"
	exit 0
fi
if ! git -C "$ws" rev-parse -q --git-dir > /dev/null 2>&1 ||
    ! git -C "$ws" remote get-url origin > /dev/null 2>&1; then
	notice "the workspace is not a git checkout with a remote 'origin': no history (the store is the branch '$branch' of the repository)"
	exit 0
fi

# may_store: 0 when the caller asked for this build's report to be stored
# (mode: history, or history-store: true), and it is not a pull request's
may_store() {
	[ "$mode" = history ] || [ "${QE_HISTORY_STORE:-false}" = true ] || return 1
	case ${GITHUB_EVENT_NAME:-} in
	pull_request | pull_request_target)
		notice "a pull request's build never stores its report in the history (history-store is for the weekly build)"
		return 1 ;;
	esac
}

# fetch: the data branch's tip into $ref; 0 fetched, 1 no such branch yet,
# 2 the remote did not answer
fetch() {
	local rc=0
	timeout 120 git -C "$ws" ls-remote -q --exit-code origin "refs/heads/$branch" > /dev/null 2>&1 || rc=$?
	case $rc in
	0) ;;
	2) git -C "$ws" update-ref -d "$ref" 2> /dev/null || true; return 1 ;;
	*) return 2 ;;
	esac
	timeout 300 git -C "$ws" fetch -q --no-tags origin "+refs/heads/$branch:$ref" 2> /dev/null || return 2
}

# The run the stored report is of: this job's, or in a workflow_run
# workflow (workflow-run.yml's history job) the weekly build's own run, from
# the event (its id, attempt and commit), so names and messages say which
# weekly build each report is
run_id=${GITHUB_RUN_ID:-0} run_attempt=${GITHUB_RUN_ATTEMPT:-1} run_sha=${GITHUB_SHA:-unknown commit}
if [ "${GITHUB_EVENT_NAME:-}" = workflow_run ]; then
	[[ ${QE_WEEKLY_RUN_ID:-} =~ ^[1-9][0-9]{0,19}$ ]] && run_id=$QE_WEEKLY_RUN_ID
	[[ ${QE_WEEKLY_RUN_ATTEMPT:-} =~ ^[1-9][0-9]{0,4}$ ]] && run_attempt=$QE_WEEKLY_RUN_ATTEMPT
	[[ ${QE_WEEKLY_SHA:-} =~ ^[0-9a-f]{40}([0-9a-f]{24})?$ ]] && run_sha=$QE_WEEKLY_SHA
fi

# commit_report NAME: a commit of the data branch's tip (or a first, root
# commit) plus the compressed report as NAME; prints its id
commit_report() {
	local idx=$QE_STATE/history.index parent=() blob tree
	rm -f "$idx"
	if git -C "$ws" rev-parse -q --verify "$ref^{commit}" > /dev/null; then
		GIT_INDEX_FILE=$idx git -C "$ws" read-tree "$ref"
		parent=(-p "$ref")
	else
		GIT_INDEX_FILE=$idx git -C "$ws" read-tree --empty
	fi
	blob=$(git -C "$ws" hash-object -w "$QE_STATE/report.ndjson.gz")
	GIT_INDEX_FILE=$idx git -C "$ws" update-index --add --cacheinfo "100644,$blob,$1"
	tree=$(GIT_INDEX_FILE=$idx git -C "$ws" write-tree)
	rm -f "$idx"
	GIT_AUTHOR_NAME='github-actions[bot]' GIT_COMMITTER_NAME='github-actions[bot]' \
	GIT_AUTHOR_EMAIL='41898282+github-actions[bot]@users.noreply.github.com' \
	GIT_COMMITTER_EMAIL='41898282+github-actions[bot]@users.noreply.github.com' \
		git -C "$ws" commit-tree "$tree" "${parent[@]}" \
		-m "qe-telemetry: report of run $run_id.$run_attempt ($run_sha)"
}

# store: append this build's report to the branch; sets commit to the
# commit whose tree holds every report (pushed or not), empty when none
store() {
	local name tries=0 rc before
	name=reports/$(date -u +%Y/%m/%Y%m%dT%H%M%SZ)-$run_id.$run_attempt.ndjson.gz
	mkdir -p "$QE_STATE"
	gzip -n -c "$report" > "$QE_STATE/report.ndjson.gz"
	while :; do
		tries=$((tries + 1))
		rc=0
		fetch || rc=$?
		if [ "$rc" = 2 ]; then
			warn "could not fetch the history branch '$branch' from origin: this build's report is not stored (the artifact still has it)"
			commit=
			return 0
		fi
		before=$(git -C "$ws" rev-parse -q --verify "$ref" 2> /dev/null) || before=
		commit=$(commit_report "$name")
		if timeout 120 git -C "$ws" push -q origin "$commit:refs/heads/$branch" 2> "$QE_STATE/push.err"; then
			output stored true
			notice "report stored as $name on the branch '$branch'"
			return 0
		fi
		# retried only when the branch moved (another build pushed first)
		rc=0
		fetch || rc=$?
		if [ "$rc" = 2 ] || [ "$tries" -ge 4 ] ||
		    [ "$(git -C "$ws" rev-parse -q --verify "$ref" 2> /dev/null || true)" = "$before" ]; then
			warn "could not push this build's report to the history branch '$branch' ($(tr '\n' ' ' < "$QE_STATE/push.err")): it is not stored; does the job have permissions: contents: write, and did actions/checkout keep its credentials (persist-credentials)?"
			return 0
		fi
		sleep "$tries"
	done
}

commit=
if [ -s "$report" ] && may_store; then
	store
elif [ "$mode" = history ]; then
	exit 0
else
	rc=0
	fetch || rc=$?
	case $rc in
	0) commit=$(git -C "$ws" rev-parse "$ref") ;;
	1) notice "no history branch '$branch' yet: the default branch's builds start it" ;;
	*) warn "could not fetch the history branch '$branch' from origin: no history for this build" ;;
	esac
fi
[ -n "$commit" ] && [ "$mode" != history ] || exit 0

rm -rf "$hist" "$db"
mkdir -p "$hist"
if ! git -C "$ws" archive --format=tar "$commit" -- reports 2> /dev/null | tar -x -C "$hist"; then
	warn "could not read the reports of the history branch '$branch'"
	exit 0
fi
find "$hist" -type f -name '*.ndjson.gz' -print0 | sort -z > "$QE_STATE/history.list"
n=$(tr -cd '\0' < "$QE_STATE/history.list" | wc -c)
if ! xargs -0 -r "$QE_BIN/qe-history" add -d "$db" < "$QE_STATE/history.list" > "$QE_STATE/history-add.ndjson"; then
	warn "qe-history add reported trouble with the stored reports (see above); the history holds the reports it could read"
fi
[ -f "$db" ] || exit 0
output db "$db"
output reports "$n"
if "$QE_BIN/qe-history" fences -d "$db" -o "$QE_STATE/fences.ndjson" > /dev/null && [ -s "$QE_STATE/fences.ndjson" ]; then
	output fences "$QE_STATE/fences.ndjson"
fi
