#!/usr/bin/env bash
# mode: after, step 2.  On a pull request with a baseline: qe-cell-diff of
# the baseline against this build's report, the job summary (qe-comment -s),
# and the comment's Markdown (qe-comment) when this job may post it: a token,
# the comment input on, and a pull request from this repository (a fork's or
# Dependabot's token is read-only: the workflow_run commenter posts from the
# artifact instead).  Otherwise the summary of this build alone (qe-comment
# -r: its slowest notebooks and cells, escaped as the comment is).  Outputs:
# diff, regression, and comment/pr/head-sha/run-number for the comment step.
# shellcheck source=action/lib.sh
. "$GITHUB_ACTION_PATH/action/lib.sh"

report=$QE_STATE/report.ndjson
diff=$QE_ARTIFACT/diff.ndjson
summary=${GITHUB_STEP_SUMMARY:-/dev/null}
regression=false
[ -f "$report" ] || : > "$report"

if [ "${QE_BUILD_OUTCOME:-}" = failure ]; then
	printf '> [!WARNING]\n> The build step failed. The records below are what its cache holds; see the build log.\n\n' >> "$summary"
fi

is_pr=false
if [ "${GITHUB_EVENT_NAME:-}" = pull_request ] && [ -n "${QE_PR:-}" ]; then
	is_pr=true
fi

if $is_pr && [ -s "$QE_STATE/baseline.ndjson" ]; then
	if ! "$QE_BIN/qe-cell-diff" "$QE_STATE/baseline.ndjson" "$report" > "$diff"; then
		warn "qe-cell-diff reported trouble (see above); the comparison may be partial"
	fi
	regression=$(jq -r 'select(.kind == "diff-summary") | .regression' "$diff" | tail -n 1)
	[ "$regression" = true ] || regression=false
	marker=(-S "$QE_HEAD_SHA" -N "${GITHUB_RUN_NUMBER:-}" -I "${GITHUB_RUN_ID:-}"
		-u "${GITHUB_SERVER_URL:-https://github.com}/${GITHUB_REPOSITORY:-}")
	if ! "$QE_BIN/qe-comment" -s "${marker[@]}" "$diff" >> "$summary"; then
		warn "qe-comment reported trouble (see above)"
	fi
	output diff "$diff"

	why=
	if [ "$QE_COMMENT" != true ]; then
		why="the comment input is false"
	elif [ "$QE_HAVE_TOKEN" != true ]; then
		why="no token"
	elif [ "${QE_HEAD_REPO:-}" != "${GITHUB_REPOSITORY:-}" ]; then
		why="a pull request from a fork gets a read-only token"
	elif [ "${QE_ACTOR:-}" = "dependabot[bot]" ]; then
		why="Dependabot's token is read-only"
	fi
	if [ -n "$why" ]; then
		notice "no comment from this job ($why): the job summary and the '${QE_ARTIFACT##*/}' folder of the report artifact carry it; a workflow_run commenter can post it"
	elif "$QE_BIN/qe-comment" "${marker[@]}" "$diff" > "$QE_STATE/comment.md" ||
	    [ -s "$QE_STATE/comment.md" ]; then
		output comment "$QE_STATE/comment.md"
		output pr "$QE_PR"
		output head-sha "$QE_HEAD_SHA"
		output run-number "${GITHUB_RUN_NUMBER:-}"
	fi
else
	if $is_pr; then
		printf '> [!NOTE]\n> No baseline: the build folder held neither a qe-telemetry report nor a cache. This build is reported, not compared.\n\n' >> "$summary"
	fi
	if ! "$QE_BIN/qe-comment" -r "$report" >> "$summary"; then
		warn "qe-comment reported trouble (see above); the summary may be partial"
	fi
fi
output regression "$regression"
