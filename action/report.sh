#!/usr/bin/env bash
# mode: after, step 1.  Disarm the hook, extract the cache's records with the
# hook's per-cell times, marking what this job executed (against the copy of
# global.db taken before the build, else the job's start time), stamp them
# with provenance, and write the report into the build folder (the weekly
# build's build-cache artifact carries it to the next pull request as its
# baseline) and into the artifact folder.  A pull request's artifact also
# gets pr.json (number, head SHA, run), for the workflow_run commenter.
# shellcheck source=action/lib.sh
. "$GITHUB_ACTION_PATH/action/lib.sh"

mkdir -p "$QE_STATE" "$QE_ARTIFACT"
"$QE_BIN/qe-hook" disarm || warn "could not disarm the capture hook"

build=$(in_workspace "$QE_BUILD_DIR")
cache=$(cache_dir)
root=$(in_workspace "$QE_SOURCE_DIR")
records=$QE_STATE/records.ndjson
report=$QE_STATE/report.ndjson

args=(-r "$root")
if [ -s "$QE_STATE/cells.log" ]; then
	args+=(-t "$QE_STATE/cells.log")
fi
if [ -f "$QE_STATE/baseline-cache/global.db" ]; then
	args+=(-b "$QE_STATE/baseline-cache/global.db")
elif [ -s "$QE_STATE/start" ]; then
	args+=(-s "$(cat "$QE_STATE/start")")
else
	warn "the before step did not run in this job: records are not marked executed or inherited"
fi
: > "$records"
if [ -f "$cache/global.db" ]; then
	"$QE_BIN/qe-cache-extract" "${args[@]}" "$cache" > "$records" ||
		warn "qe-cache-extract reported trouble (see above); the report holds the records it could read"
else
	warn "no jupyter-cache at ${cache#"${GITHUB_WORKSPACE:-}/"}: nothing to report"
fi

stamp=()
[ -z "${QE_RUNNER_CLASS:-}" ] || stamp+=(-r "$QE_RUNNER_CLASS")
envfile=$(in_workspace "$QE_ENV_FILE")
[ ! -f "$envfile" ] || stamp+=(-f "$envfile")
if command -v "$QE_PYTHON" > /dev/null 2>&1 &&
    timeout 120 "$QE_PYTHON" -m pip list --format=json > "$QE_STATE/pip-list.json" 2> /dev/null; then
	stamp+=(-p "$QE_STATE/pip-list.json")
else
	notice "no package list from '$QE_PYTHON -m pip list': versions not recorded"
fi
if ! "$QE_BIN/qe-stamp" "${stamp[@]}" -w "${GITHUB_WORKSPACE:-$PWD}" "$records" > "$report"; then
	warn "qe-stamp reported trouble (see above)"
fi

mkdir -p "$build/qe-telemetry"
cp "$report" "$build/qe-telemetry/report.ndjson"
cp "$report" "$QE_ARTIFACT/report.ndjson"
[ ! -s "$QE_STATE/cells.log" ] || gzip -c "$QE_STATE/cells.log" > "$QE_ARTIFACT/cells.log.gz"
printf '%s\n' "${QE_BUILD_OUTCOME:-}" > "$QE_STATE/build-outcome"

if [ -n "${QE_PR:-}" ]; then
	jq -n --arg pr "$QE_PR" --arg head "${QE_HEAD_SHA:-}" --arg base "${QE_BASE_SHA:-}" \
	    --arg repo "${GITHUB_REPOSITORY:-}" --arg id "${GITHUB_RUN_ID:-}" \
	    --arg number "${GITHUB_RUN_NUMBER:-}" --arg attempt "${GITHUB_RUN_ATTEMPT:-}" \
	    --arg outcome "${QE_BUILD_OUTCOME:-}" \
	    '{pr: ($pr | tonumber), head_sha: $head, base_sha: $base, repository: $repo,
	      run_id: $id, run_number: $number, run_attempt: $attempt, build_outcome: $outcome}' \
	    > "$QE_ARTIFACT/pr.json"
fi
output report "$report"
output artifact "$QE_ARTIFACT"
