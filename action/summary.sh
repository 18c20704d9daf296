#!/usr/bin/env bash
# mode: after, step 2.  On a pull request with a baseline: qe-cell-diff of
# the baseline against this build's report (with the threshold inputs), the
# job summary (qe-comment -s), and the comment's Markdown (qe-comment) when
# this job is the pull request's one writer: a token, the comment input on,
# and a pull request from this repository not opened by Dependabot (a fork's
# or Dependabot's token is read-only: the workflow_run commenter posts from
# the artifact instead, and only then).  Otherwise the summary of this build
# alone (qe-comment -r: its slowest notebooks and cells, escaped as the
# comment is).  A cancelled build gets a line saying there is no report.
# With a history (the history step's database, from the history branch):
# qe-cell-diff judges each cell against its noise fence (--fences); a pull
# request's summary and comment gain the trend on main of the lectures it
# flagged (qe-history report --format md --diff), the default branch's
# summary the trends and the step changes on main.
# Outputs: diff, regression, changed, and comment/pr/head-sha/run-number for
# the comment step.
# shellcheck source=action/lib.sh
. "$GITHUB_ACTION_PATH/action/lib.sh"

report=$QE_STATE/report.ndjson
diff=$QE_ARTIFACT/diff.ndjson
summary=${GITHUB_STEP_SUMMARY:-/dev/null}
artifact=${QE_ARTIFACT_NAME:-qe-telemetry-report}
# summary_bytes: what this step wrote to its summary so far
summary_bytes() {
	if [ -f "$summary" ]; then wc -c < "$summary"; else echo 0; fi
}
output regression false

if [ "${QE_BUILD_OUTCOME:-}" = cancelled ] || [ -e "$QE_STATE/cancelled" ]; then
	printf '## Lecture execution times\n\nThe build was cancelled: no report and no comparison for this run.\n' >> "$summary"
	exit 0
fi
need_tools qe-cell-diff qe-comment || exit 0
if [ ! -f "$report" ]; then
	warn "no report from the extract step (see its messages): nothing to summarise"
	exit 0
fi

if [ "${QE_BUILD_OUTCOME:-}" = failure ]; then
	printf '> [!WARNING]\n> The build step failed. The records below are what its cache holds; see the build log.\n\n' >> "$summary"
fi
# armed, yet not one cell logged while notebooks were executed
if [ -e "$QE_STATE/armed" ] && [ ! -s "$QE_STATE/cells.log" ] &&
    grep -q '"kind":"notebook".*"origin":"executed"' "$report"; then
	printf '> [!WARNING]\n> The capture hook was armed, but the kernels logged no cell: no per-cell times. The kernels did not start in the profile the before step armed (%s). Is IPYTHONDIR (or HOME) set only inside the build step? Set it for the whole job (env: at the job level) or not at all.\n\n' \
	    "${IPYTHONDIR:-\$HOME/.ipython}" >> "$summary"
	warn "the capture hook was armed but logged nothing: is IPYTHONDIR set only inside the build step? See the job summary"
fi

is_pr=false
if [ "${GITHUB_EVENT_NAME:-}" = pull_request ] || [ "${GITHUB_EVENT_NAME:-}" = pull_request_target ]; then
	[ -z "${QE_PR:-}" ] || is_pr=true
fi

# thresholds: the inputs that are set, as qe-cell-diff's options
thresholds=()
threshold() {
	if diff_option "$1" "$2" "$3"; then thresholds+=("$1=$2"); fi
}
threshold --ratio "${QE_CELL_RATIO:-}" cell-ratio
threshold --abs "${QE_CELL_ABS:-}" cell-abs
threshold --nb-ratio "${QE_NOTEBOOK_RATIO:-}" notebook-ratio
threshold --nb-abs "${QE_NOTEBOOK_ABS:-}" notebook-abs
threshold --exec-abs "${QE_EXECUTION_ABS:-}" execution-abs
threshold --alpha "${QE_ALPHA:-}" alpha
# book_timeout: the book's per-cell limit in whole seconds, or nothing:
# Jupyter Book's _config.yml (execute: then an indented timeout: N) or
# MyST-NB's conf.py (nb_execution_timeout = N), in the source folder or its
# parent.  Only digits leave it: the files are the pull request's.
book_timeout() {
	local dir f v
	dir=$(in_workspace "${QE_SOURCE_DIR:-.}")
	for f in "$dir/_config.yml" "$dir/../_config.yml"; do
		[ -f "$f" ] || continue
		v=$(awk '/^execute:/ { e = 1; next } /^[^ \t#]/ { e = 0 }
		    e && /^[ \t]+timeout:[ \t]*[0-9]+[ \t]*(#.*)?$/ { sub(/^[ \t]+timeout:[ \t]*/, ""); sub(/[ \t#].*/, ""); print; exit }' "$f" 2> /dev/null)
		[[ $v =~ ^[0-9]{1,9}$ ]] && { echo "$v"; return; }
	done
	for f in "$dir/conf.py" "$dir/../conf.py"; do
		[ -f "$f" ] || continue
		v=$(sed -n 's/^nb_execution_timeout[ \t]*=[ \t]*\([0-9]\{1,9\}\)[ \t]*\(#.*\)\{0,1\}$/\1/p' "$f" 2> /dev/null | head -n 1)
		[[ $v =~ ^[0-9]{1,9}$ ]] && { echo "$v"; return; }
	done
	return 0
}
cell_timeout=${QE_CELL_TIMEOUT:-}
[ -n "$cell_timeout" ] || cell_timeout=$(book_timeout)
[ "$cell_timeout" != 0 ] || cell_timeout=
threshold --cell-timeout "$cell_timeout" cell-timeout
if [ -n "${QE_FENCES:-}" ] && [ -s "$QE_FENCES" ]; then
	thresholds+=(--fences "$QE_FENCES")
fi
history=
[ -z "${QE_HISTORY_DB:-}" ] || [ ! -f "$QE_HISTORY_DB" ] || [ ! -x "$QE_BIN/qe-history" ] || history=$QE_HISTORY_DB

# scope: what the pull request changed (--changed) and what the user
# silenced (--ignore-file), as qe-cell-diff's options.  The changed-files
# input is "auto" (git's list for this checkout, below), "none", or a file in
# the workspace holding one path a line.  A re-executed lecture the pull
# request did not touch changed on main since the baseline: qe-cell-diff
# reports it apart, out of the headline and the gate.
scope=()
# pr_changes FILE: the paths this pull request changed, one a line, from git.
# actions/checkout checks a pull request out as GitHub's merge commit, whose
# first parent is the base branch it was merged into: its diff against that
# parent is the pull request's own change (fetched when the checkout was
# too shallow to hold the parent).  A checkout of the head itself is diffed
# against its merge base with the base SHA of the event.
pr_changes() {
	local ws=${GITHUB_WORKSPACE:-$PWD} head base
	head=$(git -C "$ws" rev-parse -q --verify 'HEAD^{commit}' 2> /dev/null) || return 1
	if [ -z "$(git -C "$ws" rev-parse -q --verify HEAD^2 2> /dev/null)" ] &&
	    [ -z "$(git -C "$ws" rev-parse -q --verify "${QE_BASE_SHA:-none}^{commit}" 2> /dev/null)" ]; then
		timeout 60 git -C "$ws" fetch -q --no-tags --depth=2 origin "$head" > /dev/null 2>&1 || true
	fi
	if [ -n "$(git -C "$ws" rev-parse -q --verify HEAD^2 2> /dev/null)" ]; then
		git -C "$ws" diff --name-only --no-renames HEAD^1 HEAD > "$1" 2> /dev/null
	else
		[ -n "${QE_BASE_SHA:-}" ] || return 1
		base=$(git -C "$ws" merge-base "$QE_BASE_SHA" HEAD 2> /dev/null) || return 1
		git -C "$ws" diff --name-only --no-renames "$base" HEAD > "$1" 2> /dev/null
	fi
}
case ${QE_CHANGED_FILES:-auto} in
none) ;;
auto)
	if ! $is_pr; then
		:
	elif pr_changes "$QE_STATE/changed.txt"; then
		scope+=(--changed "$QE_STATE/changed.txt")
	else
		notice "could not tell from git which files pull request #${QE_PR:-} changed (a shallow checkout? use actions/checkout with fetch-depth: 2, or the changed-files input): every re-executed lecture counts as its own"
	fi ;;
*)
	changed=$(in_workspace "$QE_CHANGED_FILES")
	if [ -f "$changed" ] && [ -r "$changed" ]; then
		scope+=(--changed "$changed")
	else
		warn "input changed-files: no readable file '$QE_CHANGED_FILES'; every re-executed lecture counts as the pull request's own"
	fi ;;
esac
if [ -n "${QE_IGNORE:-}" ]; then
	printf '%s\n' "$QE_IGNORE" > "$QE_STATE/ignore.txt"
	scope+=(--ignore-file "$QE_STATE/ignore.txt")
fi

if $is_pr && [ -s "$QE_STATE/baseline.ndjson" ]; then
	if ! "$QE_BIN/qe-cell-diff" "${thresholds[@]}" "${scope[@]}" "$QE_STATE/baseline.ndjson" "$report" > "$diff"; then
		warn "qe-cell-diff reported trouble (see above); the comparison may be partial"
	fi
	regression=$(diff_regression "$diff")
	changed=$(diff_changed "$diff")
	marker=(-S "$QE_HEAD_SHA" -N "${GITHUB_RUN_NUMBER:-}" -I "${GITHUB_RUN_ID:-}"
		-u "${GITHUB_SERVER_URL:-https://github.com}/${GITHUB_REPOSITORY:-}")
	: > "$QE_STATE/trend.md"
	if [ -n "$history" ] && ! "$QE_BIN/qe-history" report -d "$history" --format md --diff "$diff" > "$QE_STATE/trend.md"; then
		warn "qe-history reported trouble (see above): no trend lines"
	fi
	# GitHub refuses a step summary over 1 MiB: the comparison gets what the
	# warnings above and the trend lines after it leave
	budget=$((1048576 - 2048 - $(summary_bytes) - $(wc -c < "$QE_STATE/trend.md")))
	if [ "$budget" -lt 16384 ]; then
		: > "$QE_STATE/trend.md"
		budget=$((1048576 - 2048 - $(summary_bytes)))
	fi
	if ! "$QE_BIN/qe-comment" -s -l "$budget" "${marker[@]}" "$diff" >> "$summary"; then
		warn "qe-comment reported trouble (see above)"
	fi
	cat "$QE_STATE/trend.md" >> "$summary"
	output diff "$diff"
	output regression "$regression"
	output changed "$changed"

	# the replicate step adds at most 12000 bytes of its own
	limit=64000
	case ${QE_REPLICATES:-0} in 0 | '') ;; *) limit=52000 ;; esac
	why=
	if [ "$QE_COMMENT" != true ]; then
		why="the comment input is false"
	elif [ "$QE_HAVE_TOKEN" != true ]; then
		why="no token"
	elif [ "${QE_HEAD_REPO:-}" != "${GITHUB_REPOSITORY:-}" ]; then
		why="a pull request from a fork gets a read-only token; the workflow_run commenter posts it"
	elif [ "${QE_PR_AUTHOR:-}" = "dependabot[bot]" ]; then
		why="Dependabot's token is read-only; the workflow_run commenter posts it"
	fi
	if [ -n "$why" ]; then
		notice "no comment from this job ($why): the job summary and the '$artifact' artifact carry it"
	elif "$QE_BIN/qe-comment" -l $((limit - $(wc -c < "$QE_STATE/trend.md"))) "${marker[@]}" "$diff" > "$QE_STATE/comment.md" ||
	    [ -s "$QE_STATE/comment.md" ]; then
		cat "$QE_STATE/trend.md" >> "$QE_STATE/comment.md"
		output comment "$QE_STATE/comment.md"
		output pr "$QE_PR"
		output head-sha "$QE_HEAD_SHA"
		output run-number "${GITHUB_RUN_NUMBER:-}"
		output run-id "${GITHUB_RUN_ID:-}"
	fi
else
	if $is_pr; then
		printf '> [!NOTE]\n> No baseline: the build folder held neither a qe-telemetry report nor a cache. This build is reported, not compared.\n\n' >> "$summary"
	fi
	if ! "$QE_BIN/qe-comment" -r "$report" >> "$summary"; then
		warn "qe-comment reported trouble (see above); the summary may be partial"
	fi
	if [ -n "$history" ] && ! $is_pr; then
		"$QE_BIN/qe-history" report -d "$history" --format md >> "$summary" ||
			warn "qe-history report reported trouble (see above): the trends may be partial"
		printf '### Step changes on main\n\n' >> "$summary"
		"$QE_BIN/qe-history" changes -d "$history" --format md >> "$summary" ||
			warn "qe-history changes reported trouble (see above): the step changes may be partial"
		printf '\n' >> "$summary"
	fi
fi
