#!/usr/bin/env bash
# mode: after, step 1.  Disarm the hook, extract the cache's records with the
# hook's per-cell times, marking what this job executed (against the copy of
# global.db taken before the build, else the job's start time), stamp them
# with provenance, and write the report into the build folder (the weekly
# build's build-cache artifact carries it to the next pull request as its
# baseline) and into the artifact folder, each with the execution status
# document made from it (execution_status.json, qe-exec-status).  A pull request's artifact also
# gets pr.json (number, head SHA, run), for the workflow_run commenter.
#
# A cancelled build (build-outcome: cancelled) is no report: its cache is
# half-built, so nothing is extracted, stamped, written into the build
# folder (it would become the next baseline) or uploaded.
# shellcheck source=action/lib.sh
. "$GITHUB_ACTION_PATH/action/lib.sh"

mkdir -p "$QE_STATE" "$QE_ARTIFACT"
rm -f "$QE_STATE/report.ndjson" "$QE_STATE/cancelled"
if [ -n "${QE_BIN:-}" ] && [ -x "$QE_BIN/qe-hook" ]; then
	"$QE_BIN/qe-hook" disarm || warn "could not disarm the capture hook"
fi
if [ "${QE_BUILD_OUTCOME:-}" = cancelled ]; then
	: > "$QE_STATE/cancelled"
	notice "the build was cancelled: no report (its cache is half-built)"
	exit 0
fi
need_tools qe-cache-extract qe-stamp || exit 0

# packages: the build environment's package lists and Python version for
# qe-stamp (into the array stamp): `conda list --json` of the environment the
# python input lives in when it is a conda environment (complete, Python
# included), `pip list` (what pip installed on top), and always the Python
# version itself (pip never lists Python)
packages() {
	local py ver prefix conda
	if ! py=$(command -v "$QE_PYTHON" 2> /dev/null); then
		notice "the python input '$QE_PYTHON' is not a command: package versions not recorded"
		return 0
	fi
	ver=$(timeout 60 "$py" -c 'import platform; print(platform.python_version())' 2> /dev/null) || ver=
	if [[ $ver =~ ^[0-9]+\.[0-9]+[0-9A-Za-z.+-]*$ ]]; then
		stamp+=(-P "$ver")
	else
		notice "could not ask '$QE_PYTHON' for its version"
	fi
	prefix=$(dirname "$(dirname "$py")")
	if [ -d "$prefix/conda-meta" ]; then
		conda=${CONDA_EXE:-}
		[ -n "$conda" ] || [ -z "${CONDA:-}" ] || conda=$CONDA/bin/conda
		[ -x "$conda" ] || conda=$(command -v conda 2> /dev/null) || conda=
		if [ -n "$conda" ] && timeout 120 "$conda" list --json -p "$prefix" > "$QE_STATE/conda-list.json" 2> /dev/null; then
			stamp+=(-c "$QE_STATE/conda-list.json")
		else
			notice "'$py' is in a conda environment, but 'conda list --json -p $prefix' did not answer: pip's list only"
		fi
	fi
	if timeout 120 "$py" -m pip list --format=json > "$QE_STATE/pip-list.json" 2> /dev/null; then
		stamp+=(-p "$QE_STATE/pip-list.json")
	elif [ ! -s "$QE_STATE/conda-list.json" ]; then
		notice "no package list from '$QE_PYTHON -m pip list': versions not recorded"
	fi
}

# status_file: the execution status document of the report (the C tool
# qe-exec-status) into the artifact and beside the report in the build folder
status_file() {
	local args=()
	if [ ! -x "$QE_BIN/qe-exec-status" ]; then
		notice "these tools have no qe-exec-status (a bundle older than the tool): no execution_status.json"
		return 0
	fi
	[ ! -s "$QE_STATE/start" ] || args+=(--started "$(cat "$QE_STATE/start")")
	args+=(--finished "$(date -u +%Y-%m-%dT%H:%M:%S.%6NZ)")
	if "$QE_BIN/qe-exec-status" "${args[@]}" -o "$QE_ARTIFACT/execution_status.json" "$report"; then
		cp "$QE_ARTIFACT/execution_status.json" "$build/qe-telemetry/execution_status.json"
	else
		warn "qe-exec-status reported trouble (see above)"
	fi
}

# pr_json: the pull request's facts for the workflow_run commenter, one line,
# members in this order (verify.sh reads the first two by their exact form)
pr_json() {
	local f v name
	case $QE_PR in
	'' | *[!0-9]*) warn "not a pull-request number: '$QE_PR'; no pr.json"; return 0 ;;
	esac
	printf '{"pr":%s' "$QE_PR"
	for f in head_sha:QE_HEAD_SHA base_sha:QE_BASE_SHA repository:GITHUB_REPOSITORY \
	    run_id:GITHUB_RUN_ID run_number:GITHUB_RUN_NUMBER run_attempt:GITHUB_RUN_ATTEMPT \
	    build_outcome:QE_BUILD_OUTCOME; do
		name=${f#*:}
		v=${!name:-}
		printf ',"%s":%s' "${f%%:*}" "$(json_str "$v")"
	done
	printf ',"key":"%s"}\n' "$(comment_key_digest)"
}

locate
build=$BUILD
cache=$READ
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
if [ -n "$cache" ]; then
	"$QE_BIN/qe-cache-extract" "${args[@]}" "$cache" > "$records" ||
		warn "qe-cache-extract reported trouble (see above); the report holds the records it could read"
else
	warn "nothing to read of a $BUILDER build in ${build#"${GITHUB_WORKSPACE:-}/"} (jupyter-book: its .jupyter_cache; mystmd: execute/ or site/content/): nothing to report"
fi

stamp=()
[ -z "${QE_RUNNER_CLASS:-}" ] || stamp+=(-r "$QE_RUNNER_CLASS")
envfile=$(in_workspace "$QE_ENV_FILE")
[ ! -f "$envfile" ] || stamp+=(-f "$envfile")
packages
# what says which machine and environment, for the replicate runs on this
# runner (replicate.sh): the same arguments give the same fingerprint
: > "$QE_STATE/stamp.args"
[ "${#stamp[@]}" = 0 ] || printf '%s\0' "${stamp[@]}" > "$QE_STATE/stamp.args"
[ ! -s "$QE_STATE/start" ] || stamp+=(-t "$(cat "$QE_STATE/start")")
if ! "$QE_BIN/qe-stamp" "${stamp[@]}" -w "${GITHUB_WORKSPACE:-$PWD}" "$records" > "$report"; then
	warn "qe-stamp reported trouble (see above)"
fi

mkdir -p "$build/qe-telemetry"
cp "$report" "$build/qe-telemetry/report.ndjson"
cp "$report" "$QE_ARTIFACT/report.ndjson"
status_file
[ ! -s "$QE_STATE/cells.log" ] || gzip -c "$QE_STATE/cells.log" > "$QE_ARTIFACT/cells.log.gz"
printf '%s\n' "${QE_BUILD_OUTCOME:-}" > "$QE_STATE/build-outcome"
[ -z "${QE_PR:-}" ] || pr_json > "$QE_ARTIFACT/pr.json"
output report "$report"
output artifact "$QE_ARTIFACT"
