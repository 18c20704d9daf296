#!/usr/bin/env bash
# mode: comment, in a workflow_run workflow (base repository's code), after
# the report artifact of a pull-request run was downloaded.  This step parses
# the untrusted artifact and runs WITHOUT the token (it is not in its
# environment; the comment step, which only sees checked values, is the one
# that calls the API).  Nothing of the pull request is checked out or run.
#
# One writer per push: a pull request from this repository (not opened by
# Dependabot) got its comment from its own job, so nothing is done here; a
# fork's or Dependabot's gets it from here.  Who opened it is the pull
# request's author, which only the API says (the comment step asks it): the
# run's actor is whoever pushed or re-ran.  So a same-repository run is
# rendered here too and the comment step leaves it alone unless its author
# is Dependabot.  Only pr.json's first two
# members, in the exact form report.sh writes them, diff.ndjson and (when
# the run made replicate runs) replicate-diff.ndjson and its evaluation,
# replicate-eval.ndjson (qe-sweep's records), are read; the number
# must belong to a pull request whose head is the
# triggering run's head SHA (the comment step asks the API; the SHA comes
# from the event, not the artifact), and the comment is rendered here by
# qe-comment, which escapes every string, with the marker built from the
# event's run number and SHA.  Whatever is wrong with the artifact is a
# warning and no comment.
# shellcheck source=action/lib.sh
. "$GITHUB_ACTION_PATH/action/lib.sh"
unset GH_TOKEN GITHUB_TOKEN

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
if [ "${QE_MODE:-comment}" = comment ] && [ "${QE_HAVE_TOKEN:-false}" != true ]; then
	warn "no token: cannot post the comment"
	exit 0
fi
if ! [[ ${QE_RUN_HEAD_SHA:-} =~ ^[0-9a-f]{40}([0-9a-f]{24})?$ ]]; then
	warn "the event carries no head SHA: not posting"
	exit 0
fi
case ${QE_RUN_NUMBER:-} in
*[!0-9]* | '') warn "the event carries no run number: not posting"; exit 0 ;;
esac
need_tools qe-comment || exit 0

# unzip_members ZIP: the artifact still zipped (download-artifact's
# skip-decompress: true): only its four files are taken out, each written
# through a counter that stops at the size limit (a zip bomb stays packed
# whatever sizes its headers declare), and a file the zip holds twice is
# refused (which copy would be read?)
unzip_members() {
	local zip=$1 out=$QE_STATE/artifact-in f n rc
	if [ "$(stat -c %s "$zip")" -gt "$max_bytes" ]; then
		warn "the artifact is over $((max_bytes / 1024 / 1024)) MiB: not posting"
		return 1
	fi
	if ! command -v unzip > /dev/null 2>&1; then
		warn "the artifact is a zip file and this runner has no unzip: not posting"
		return 1
	fi
	rm -rf "$out"
	mkdir -p "$out"
	unzip -Z1 "$zip" > "$QE_STATE/artifact-entries" 2> /dev/null || true
	for f in pr.json diff.ndjson replicate-diff.ndjson replicate-eval.ndjson; do
		n=$(grep -cxF -- "$f" "$QE_STATE/artifact-entries") || n=0
		case $n in
		0) continue ;;
		1) ;;
		*) warn "the artifact holds $f $n times: not posting"; return 1 ;;
		esac
		# the bytes as unzip writes them, never more than the limit plus one
		rc=0
		{ unzip -p -- "$zip" "$f" 2> /dev/null || echo "$?" > "$QE_STATE/unzip.rc"; } |
			head -c "$((max_bytes + 1))" > "$out/$f" || rc=$?
		if [ "$(stat -c %s "$out/$f")" -gt "$max_bytes" ]; then
			rm -f "$out/$f"
			warn "the artifact's $f unpacks to over $((max_bytes / 1024 / 1024)) MiB: not posting"
			return 1
		fi
		if [ "$rc" != 0 ] || [ -s "$QE_STATE/unzip.rc" ]; then
			rm -f "$QE_STATE/unzip.rc"
			warn "the artifact's $f could not be unpacked (a damaged zip): not posting"
			return 1
		fi
	done
	dir=$out
}
zips=("$dir"/*.zip)
if [ -n "$dir" ] && [ ! -e "$dir/pr.json" ] && [ "${#zips[@]}" = 1 ] && [ -f "${zips[0]}" ] && [ ! -L "${zips[0]}" ]; then
	unzip_members "${zips[0]}" || exit 0
fi

# regular_file NAME: a regular file inside the artifact folder, not a link, not too large
regular_file() {
	local f=$dir/$1
	[ -n "$dir" ] && [ -f "$f" ] && [ ! -L "$f" ] && [ "$(stat -c %s "$f")" -le "$max_bytes" ]
}
if ! regular_file pr.json || ! regular_file diff.ndjson; then
	notice "the artifact holds no pr.json and diff.ndjson (no baseline, or not a pull request): nothing to post"
	exit 0
fi

line=$(head -c 4096 "$dir/pr.json" | head -n 1) || line=
if ! [[ $line =~ ^\{\"pr\":([1-9][0-9]{0,8}),\"head_sha\":\"([0-9a-f]{40}|[0-9a-f]{64})\"[,}] ]]; then
	warn "the artifact's pr.json does not start with a valid pull-request number and head SHA: not posting"
	exit 0
fi
pr=${BASH_REMATCH[1]}
sha=${BASH_REMATCH[2]}
# the pull-request job's comment key (report.sh): only its digest is taken
key=
[[ $line =~ ,\"key\":\"([0-9a-f]{12})\"[,}] ]] && key=${BASH_REMATCH[1]}
if [ "$sha" != "$QE_RUN_HEAD_SHA" ]; then
	warn "the artifact names another head SHA than the run that made it: not posting"
	exit 0
fi

comment=$QE_STATE/comment.md
mkdir -p "$QE_STATE"
# the run's replicate verdicts (input replicates), when it made any: at most
# 12000 bytes of their own after the screen's
limit=64000
regular_file replicate-diff.ndjson && limit=52000
if ! "$QE_BIN/qe-comment" -l "$limit" -S "$QE_RUN_HEAD_SHA" -N "$QE_RUN_NUMBER" -I "${QE_RUN_ID:-}" \
    -u "${GITHUB_SERVER_URL:-https://github.com}/$repo" "$dir/diff.ndjson" > "$comment"; then
	warn "qe-comment reported trouble with the artifact's records (see above)"
fi
if [ ! -s "$comment" ]; then
	exit 0
fi
if [ "$limit" != 64000 ]; then
	# the evaluation (hotspots, sweeps) of those runs, when the run made any
	evalargs=()
	! regular_file replicate-eval.ndjson || evalargs=("$dir/replicate-eval.ndjson")
	printf '\n' >> "$comment"
	"$QE_BIN/qe-comment" -s -l 12000 -n 10 -t "Replicate runs on the pull request's runner, as used and warm" \
	    "$dir/replicate-diff.ndjson" ${evalargs[@]+"${evalargs[@]}"} >> "$comment" ||
	    warn "qe-comment reported trouble with the artifact's replicate records (see above)"
fi
"$QE_BIN/qe-comment" -s -S "$QE_RUN_HEAD_SHA" -N "$QE_RUN_NUMBER" -I "${QE_RUN_ID:-}" \
    "$dir/diff.ndjson" >> "${GITHUB_STEP_SUMMARY:-/dev/null}" 2> /dev/null || true
output comment "$comment"
output pr "$pr"
output head-sha "$QE_RUN_HEAD_SHA"
output run-number "$QE_RUN_NUMBER"
output run-id "${QE_RUN_ID:-}"
output head-repo "${QE_RUN_HEAD_REPO:-}"
output key "$key"
# mode: render (a job without a write token): what the posting job needs,
# for the qe-telemetry-rendered artifact
if [ "${QE_MODE:-comment}" = render ]; then
	rendered=$QE_STATE/rendered
	rm -rf "$rendered"
	mkdir -p "$rendered"
	cp "$comment" "$rendered/comment.md"
	printf 'pr=%s\nchanged=%s\nkey=%s\n' "$pr" "$(diff_changed "$dir/diff.ndjson")" "$key" > "$rendered/facts"
	output rendered "$rendered"
fi
output changed "$(diff_changed "$dir/diff.ndjson")"
