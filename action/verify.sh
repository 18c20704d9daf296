#!/usr/bin/env bash
# mode: comment, in a workflow_run workflow (base repository's code, write
# token), after the report artifact of a pull-request run was downloaded.
# Nothing of the pull request is checked out or run.  The artifact is
# untrusted: only pr.json's number and diff.ndjson are read; the number must
# belong to a pull request of this repository whose head is the triggering
# run's head SHA (asked of the API; the SHA comes from the event, not the
# artifact), and the comment is rendered here by qe-comment, which escapes
# every string, with the marker built from the event's run number and SHA.
# shellcheck source=action/lib.sh
. "$GITHUB_ACTION_PATH/action/lib.sh"

max_bytes=$((32 * 1024 * 1024))
repo=${GITHUB_REPOSITORY:?GITHUB_REPOSITORY is not set}
dir=${QE_ARTIFACT_DIR:-}

if [ "${QE_RUN_EVENT:-}" != pull_request ]; then
	notice "the triggering run was not for a pull request (${QE_RUN_EVENT:-none}): nothing to post"
	exit 0
fi
if [ "$QE_COMMENT" != true ]; then
	notice "the comment input is false: nothing to post"
	exit 0
fi
if [ -z "${GH_TOKEN:-}" ]; then
	warn "no token: cannot post the comment"
	exit 0
fi
case ${QE_RUN_HEAD_SHA:-} in
*[!0-9a-f]* | '') error "the event carries no head SHA"; exit 2 ;;
esac
case ${QE_RUN_NUMBER:-} in
*[!0-9]* | '') error "the event carries no run number"; exit 2 ;;
esac

# regular_file NAME: a regular file inside the artifact folder, not a link, not too large
regular_file() {
	local f=$dir/$1
	[ -n "$dir" ] && [ -f "$f" ] && [ ! -L "$f" ] && [ "$(stat -c %s "$f")" -le "$max_bytes" ]
}
if ! regular_file pr.json || ! regular_file diff.ndjson; then
	notice "the artifact holds no pr.json and diff.ndjson (no baseline, or not a pull request): nothing to post"
	exit 0
fi

pr=$(jq -r 'if (.pr | type) == "number" and .pr >= 1 and .pr < 1e9 and .pr == (.pr | floor)
	then .pr else empty end' "$dir/pr.json" 2> /dev/null | head -n 1) || pr=
if [ -z "$pr" ]; then
	error "the artifact's pr.json has no valid pull-request number"
	exit 1
fi
claimed=$(jq -r '.head_sha | strings' "$dir/pr.json" 2> /dev/null | head -n 1) || claimed=
if [ "$claimed" != "$QE_RUN_HEAD_SHA" ]; then
	error "the artifact names another head SHA than the run that made it; not posting"
	exit 1
fi

if ! pull=$(gh api "repos/$repo/pulls/$pr"); then
	warn "could not read pull request #$pr; not posting"
	exit 0
fi
head=$(jq -r '.head.sha // ""' <<< "$pull")
head_repo=$(jq -r '.head.repo.full_name // ""' <<< "$pull")
if [ "$head" != "$QE_RUN_HEAD_SHA" ]; then
	notice "pull request #$pr has moved on since this run (head is now another commit); not posting"
	exit 0
fi
if [ -n "${QE_RUN_HEAD_REPO:-}" ] && [ "$head_repo" != "$QE_RUN_HEAD_REPO" ]; then
	error "pull request #$pr comes from another repository than the triggering run; not posting"
	exit 1
fi

comment=$QE_STATE/comment.md
mkdir -p "$QE_STATE"
if ! "$QE_BIN/qe-comment" -S "$QE_RUN_HEAD_SHA" -N "$QE_RUN_NUMBER" -I "${QE_RUN_ID:-}" \
    -u "${GITHUB_SERVER_URL:-https://github.com}/$repo" "$dir/diff.ndjson" > "$comment"; then
	warn "qe-comment reported trouble with the artifact's records (see above)"
fi
if [ ! -s "$comment" ]; then
	exit 0
fi
"$QE_BIN/qe-comment" -s -S "$QE_RUN_HEAD_SHA" -N "$QE_RUN_NUMBER" -I "${QE_RUN_ID:-}" \
    "$dir/diff.ndjson" >> "${GITHUB_STEP_SUMMARY:-/dev/null}" 2> /dev/null || true
output comment "$comment"
output pr "$pr"
output head-sha "$QE_RUN_HEAD_SHA"
output run-number "$QE_RUN_NUMBER"
