#!/usr/bin/env bash
# Create or update the one comment of qe-telemetry on a pull request for
# this comment key: the only step that sees the token, and the only API
# caller of the action.  Its inputs are checked values (a number, a SHA, a
# key digest, a file qe-comment rendered).
#
# Ours is a comment by comment-author whose body starts with qe-comment's
# hidden marker <!-- qe-telemetry: {"head_sha":...,"run_number":N,...,
# "key":K} -->, K the first 12 hex digits of the SHA-256 of the comment key
# (input comment-key; default the workflow's name and the job's id), so
# that two workflows, or two matrix jobs given their own keys, each keep a
# comment.  A marker without a key (an earlier version's) is taken as ours.
# Run numbers are compared within a key only.  The rule:
#  1. the pull request's head must still be this run's head SHA (else a newer
#     push exists, whose run will comment: nothing is written);
#  2. a comment of ours from a newer run (higher run number) is left alone;
#  3. otherwise our comment is edited in place (a push e-mails nobody), after
#     a last look that no newer run wrote it meanwhile; there being none, one
#     is created.  With comment-recreate: true an older run's comment is
#     replaced by a new one instead (moved to the end of the conversation);
#  4. then the comments are read again and every one of ours but the best
#     (highest run number, then oldest) is deleted: two runs that created
#     one each at once end with the newer run's.
# The issue-comments API has no compare-and-swap: edited in place, a run
# whose last look and edit straddle a newer run's whole write could leave
# its older body (the example workflows cancel a pull request's older run,
# so two seldom overlap); comment-recreate: true never loses the newer body.
# API trouble is a warning: the summary and the artifact still carry the
# comment, and the build's status is not ours to change.  gh's own --jq
# reads the answers (no jq program needed).
# shellcheck source=action/lib.sh
. "$GITHUB_ACTION_PATH/action/lib.sh"

repo=${GITHUB_REPOSITORY:?GITHUB_REPOSITORY is not set}
case ${QE_PR:-} in
'' | *[!0-9]*) warn "not a pull-request number: '${QE_PR:-}'; not commenting"; exit 0 ;;
esac
run_number=${QE_RUN_NUMBER:-0}
case $run_number in
'' | *[!0-9]*) run_number=0 ;;
esac
if ! [[ ${QE_HEAD_SHA:-} =~ ^[0-9a-f]{40}([0-9a-f]{24})?$ ]]; then
	warn "no head SHA for the comment; not commenting"
	exit 0
fi
key=${QE_COMMENT_KEY_DIGEST:-}
[[ $key =~ ^[0-9a-f]{12}$ ]] || key=$(comment_key_digest)
author=${QE_COMMENT_AUTHOR:-github-actions[bot]}
if ! [[ $author =~ ^[A-Za-z0-9][A-Za-z0-9-]*(\[bot\])?$ ]]; then
	warn "input comment-author: not a GitHub login: '$author'; not commenting"
	exit 0
fi
if ! command -v gh > /dev/null 2>&1; then
	warn "the GitHub CLI (gh) is not on this runner: no comment (the job summary and the report artifact carry it)"
	exit 0
fi

# the pull request's head: still ours, from the expected repository?
if ! pull=$(gh api "repos/$repo/pulls/$QE_PR" --jq '[.head.sha, (.head.repo.full_name // "-"), (.state // "-"), (.user.login // "-")] | @tsv'); then
	warn "could not read pull request #$QE_PR; not commenting"
	exit 0
fi
IFS=$'\t' read -r head head_repo _ pr_author <<< "$pull"
if [ "$head" != "$QE_HEAD_SHA" ]; then
	notice "pull request #$QE_PR has moved on since this run (its head is now another commit): the newer run comments; nothing written"
	exit 0
fi
if [ -n "${QE_EXPECT_HEAD_REPO:-}" ] && [ "$head_repo" != "$QE_EXPECT_HEAD_REPO" ]; then
	warn "pull request #$QE_PR comes from another repository than the triggering run; not commenting"
	exit 0
fi
# mode: comment, one writer per push: a pull request of this repository not
# opened by Dependabot (its author, not the run's actor) got its comment
# from its own job, which had a write token
if [ -n "${QE_EXPECT_HEAD_REPO:-}" ] && [ "$head_repo" = "$repo" ] && [ "$pr_author" != "dependabot[bot]" ]; then
	notice "a pull request from this repository: its own job posts the comment; nothing to do here"
	exit 0
fi

# the body: the rendered comment, then links to the run and the artifact
body=$QE_STATE/comment-body.md
mkdir -p "$QE_STATE"
# the key into qe-comment's marker (its first line ends with "} -->")
sed '1s/} -->$/,"key":"'"$key"'"} -->/' "$QE_COMMENT_FILE" > "$body"
server=${GITHUB_SERVER_URL:-https://github.com}
if [[ ${QE_RUN_ID:-} =~ ^[1-9][0-9]{0,19}$ ]] && [[ $server =~ ^https://[A-Za-z0-9.-]+(:[0-9]+)?$ ]] &&
    [[ $repo =~ ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$ ]]; then
	run_url="$server/$repo/actions/runs/$QE_RUN_ID"
	links="[Job summary and logs]($run_url)"
	if [[ ${QE_ARTIFACT_ID:-} =~ ^[1-9][0-9]{0,19}$ ]]; then
		links="$links · [report artifact \`${QE_ARTIFACT_NAME:-qe-telemetry-report}\`]($run_url/artifacts/$QE_ARTIFACT_ID)"
	else
		links="$links · report artifact \`${QE_ARTIFACT_NAME:-qe-telemetry-report}\` on the run's page"
	fi
	case ${QE_ARTIFACT_NAME:-qe-telemetry-report} in
	*[!A-Za-z0-9._-]*) links="[Job summary, logs and report artifact]($run_url)" ;;
	esac
	printf '\n%s\n' "$links" >> "$body"
fi

# ours: "id run_number head_sha" lines of our comments for this key, best first
ours() {
	local lines id first n sha k
	lines=$(gh api --paginate "repos/$repo/issues/$QE_PR/comments?per_page=100" --jq \
	    ".[] | select(.user.login == \"$author\" and (.body | type) == \"string\"
	      and (.body | startswith(\"<!-- qe-telemetry: {\"))) | [.id, (.body | split(\"\n\")[0])] | @tsv") ||
		return 1
	while IFS=$'\t' read -r id first; do
		[[ $id =~ ^[0-9]+$ ]] || continue
		n=0 k=$key sha=
		[[ $first =~ \"key\":\"([0-9a-f]{12})\" ]] && k=${BASH_REMATCH[1]}
		[ "$k" = "$key" ] || continue
		[[ $first =~ \"run_number\":([0-9]{1,12})[,}] ]] && n=${BASH_REMATCH[1]}
		[[ $first =~ \"head_sha\":\"([0-9a-f]{7,64})\" ]] && sha=${BASH_REMATCH[1]}
		printf '%s %s %s\n' "$id" "$n" "${sha:--}"
	done <<< "$lines" | sort -k2,2nr -k1,1n
}

write() {	# write METHOD ENDPOINT DONE: POST or PATCH the body
	if gh api -X "$1" "$2" -F "body=@$body" > /dev/null; then
		notice "comment $3 on #$QE_PR"
		return 0
	fi
	warn "could not write the comment on #$QE_PR ($1 failed, see above)"
	return 1
}

if ! list=$(ours); then
	warn "could not list the pull request's comments; not commenting"
	exit 0
fi
read -r best n _ <<< "$list"
mine=$(while read -r id m _; do [ "$m" != "$run_number" ] || echo "$id"; done <<< "$list" | head -n 1)
recreate=${QE_COMMENT_RECREATE:-false}
if [ -n "$list" ] && [ "$n" -gt "$run_number" ]; then
	notice "the comment on #$QE_PR is from a newer run (#$n); left alone"
	exit 0
elif [ -n "$mine" ]; then
	write PATCH "repos/$repo/issues/comments/$mine" updated || exit 0
elif [ -n "$list" ] && [ "$recreate" != true ]; then
	# a last look: a newer run may have written it since the listing
	list=$(ours) || { warn "could not list the pull request's comments; not commenting"; exit 0; }
	read -r best n _ <<< "$list"
	if [ -n "$list" ] && [ "$n" -gt "$run_number" ]; then
		notice "the comment on #$QE_PR is from a newer run (#$n); left alone"
		exit 0
	elif [ -n "$list" ]; then
		write PATCH "repos/$repo/issues/comments/$best" updated || exit 0
	else
		write POST "repos/$repo/issues/$QE_PR/comments" created || exit 0
	fi
elif [ -z "$list" ] && [ "${QE_COMMENT_ON:-always}" = change ] && [ "${QE_CHANGED:-true}" = false ]; then
	notice "nothing changed (comment-on: change): no comment on #$QE_PR"
	exit 0
else
	write POST "repos/$repo/issues/$QE_PR/comments" created || exit 0
fi

# read back: keep the best, delete every other one of ours
list=$(ours) || { warn "could not read the comments back on #$QE_PR; an older one may remain"; exit 0; }
read -r best _ <<< "$list"
while read -r id _; do
	if [ -z "$id" ] || [ "$id" = "$best" ]; then
		continue
	fi
	if answer=$(gh api -X DELETE "repos/$repo/issues/comments/$id" 2>&1); then
		notice "older comment $id deleted on #$QE_PR"
	elif [[ $answer == *"(HTTP 404)"* ]]; then
		notice "older comment $id was deleted already (by an overlapping run)"
	else
		warn "could not delete the older comment $id on #$QE_PR: $answer"
	fi
done <<< "$list"
