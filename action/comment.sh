#!/usr/bin/env bash
# Create or update the one sticky comment on the pull request.  Ours is the
# comment by comment-author whose body starts with qe-comment's hidden marker
# <!-- qe-telemetry: {"head_sha":...,"run_number":N,"run_id":N} -->.  A comment
# from a newer run (higher run number), or from the same run number for
# another head SHA, is left alone: an older run never overwrites a newer one.
# API trouble is a warning: the summary and the artifact still carry the
# comment, and the build's status is not ours to change.
# shellcheck source=action/lib.sh
. "$GITHUB_ACTION_PATH/action/lib.sh"

repo=${GITHUB_REPOSITORY:?GITHUB_REPOSITORY is not set}
case $QE_PR in
'' | *[!0-9]*) error "not a pull-request number: '$QE_PR'"; exit 2 ;;
esac
run_number=${QE_RUN_NUMBER:-0}
case $run_number in
'' | *[!0-9]*) run_number=0 ;;
esac

if ! pages=$(gh api --paginate "repos/$repo/issues/$QE_PR/comments?per_page=100"); then
	warn "could not list the pull request's comments; not commenting"
	exit 0
fi
# the first (oldest) of our comments, with its marker parsed
ours=$(printf '%s\n' "$pages" | jq -s -c --arg author "$QE_COMMENT_AUTHOR" '
	[add // [] | .[] | select(.user.login == $author and (.body | type) == "string"
	    and (.body | startswith("<!-- qe-telemetry: {")))]
	| sort_by(.id) | first // empty
	| {id, marker: (try (.body | capture("^<!-- qe-telemetry: (?<m>\\{[^\n]*\\}) -->").m | fromjson) catch {})}')

body=$(jq -R -s '{body: .}' < "$QE_COMMENT_FILE")
if [ -z "$ours" ]; then
	if printf '%s' "$body" | gh api -X POST "repos/$repo/issues/$QE_PR/comments" --input - > /dev/null; then
		notice "comment created on #$QE_PR"
	else
		warn "could not create the comment on #$QE_PR"
	fi
	exit 0
fi

id=$(jq -r '.id' <<< "$ours")
theirs_number=$(jq -r '.marker.run_number // 0 | tostring' <<< "$ours")
theirs_sha=$(jq -r '.marker.head_sha // ""' <<< "$ours")
case $theirs_number in
*[!0-9]*) theirs_number=0 ;;
esac
if [ "$theirs_number" -gt "$run_number" ] ||
    { [ "$theirs_number" -eq "$run_number" ] && [ -n "$theirs_sha" ] && [ "$theirs_sha" != "$QE_HEAD_SHA" ]; }; then
	notice "the comment on #$QE_PR is from a newer run (#$theirs_number); left alone"
	exit 0
fi
if printf '%s' "$body" | gh api -X PATCH "repos/$repo/issues/comments/$id" --input - > /dev/null; then
	notice "comment updated on #$QE_PR"
else
	warn "could not update the comment on #$QE_PR"
fi
