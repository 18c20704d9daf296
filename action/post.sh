#!/usr/bin/env bash
# mode: post, the second job of the fork-safe commenter (.github/workflows/
# comment.yml): it only posts what the render job (mode: render, no write
# token, the one that parsed the pull request's artifact) rendered.  It
# reads the qe-telemetry-rendered artifact in artifact-dir: comment.md (the
# body, qe-comment's marker first) and facts (pr=, changed=, key=), checks
# their form, and hands them with the event's head SHA, run number and id
# to the comment step, which asks the API that the pull request's head is
# the run's.  Nothing here runs a tool or reads the pull request's files.
# shellcheck source=action/lib.sh
. "$GITHUB_ACTION_PATH/action/lib.sh"

dir=${QE_ARTIFACT_DIR:-}
if [ "${QE_RUN_EVENT:-}" != pull_request ] || [ "$QE_COMMENT" != true ]; then
	notice "not a pull request's run, or the comment input is false: nothing to post"
	exit 0
fi
if [ -z "$dir" ] || [ ! -f "$dir/comment.md" ] || [ -L "$dir/comment.md" ] || [ ! -f "$dir/facts" ] || [ -L "$dir/facts" ]; then
	notice "no rendered comment in '$dir' (the render job found nothing to post): nothing to do"
	exit 0
fi
if [ "$(stat -c %s "$dir/comment.md")" -gt 70000 ] || [ "$(stat -c %s "$dir/facts")" -gt 200 ]; then
	warn "the rendered comment is larger than a comment can be: not posting"
	exit 0
fi
if ! [[ ${QE_RUN_HEAD_SHA:-} =~ ^[0-9a-f]{40}([0-9a-f]{24})?$ ]] || [[ ${QE_RUN_NUMBER:-} == *[!0-9]* ]] || [ -z "${QE_RUN_NUMBER:-}" ]; then
	warn "the event carries no head SHA or run number: not posting"
	exit 0
fi
facts=$(tr '\n' ' ' < "$dir/facts")
re='^pr=([1-9][0-9]{0,8}) changed=(true|false) key=([0-9a-f]{12})? $'
if ! [[ $facts =~ $re ]]; then
	warn "the rendered artifact's facts are not in the form the render job writes: not posting"
	exit 0
fi
pr=${BASH_REMATCH[1]} changed=${BASH_REMATCH[2]} key=${BASH_REMATCH[3]}
first=$(head -n 1 "$dir/comment.md")
want="<!-- qe-telemetry: {\"head_sha\":\"$QE_RUN_HEAD_SHA\",\"run_number\":$QE_RUN_NUMBER"
if [[ $first != "$want,"* ]] && [[ $first != "$want}"* ]]; then
	warn "the rendered comment's marker does not name the triggering run: not posting"
	exit 0
fi
mkdir -p "$QE_STATE"
cp "$dir/comment.md" "$QE_STATE/comment.md"
output comment "$QE_STATE/comment.md"
output pr "$pr"
output head-sha "$QE_RUN_HEAD_SHA"
output run-number "$QE_RUN_NUMBER"
output run-id "${QE_RUN_ID:-}"
output head-repo "${QE_RUN_HEAD_REPO:-}"
output changed "$changed"
output key "$key"
