#!/usr/bin/env bash
# mode: before.  Arm the capture hook for the build's kernels, note the job's
# start, and snapshot the baseline before the build adds to the cache: the
# stamped report the weekly build left in the build folder, else the records
# of the inherited cache itself, plus a copy of a jupyter-cache's global.db
# (so the after step can tell the records this job created from inherited
# ones; a mystmd build's are told by the job's start).  Which builder and
# which folders: qe-cache-extract --builder (lib.sh, locate).  Nothing
# here fails the build: without a hook there are no per-cell times, without
# a baseline no comparison.
# shellcheck source=action/lib.sh
. "$GITHUB_ACTION_PATH/action/lib.sh"

# First, before anything that can stop this step: what the Sphinx extension
# qe_telemetry.sphinx in the build's conf.py needs, the package (PYTHONPATH:
# ${{ env.QE_TELEMETRY_PYTHON }} in the build step; it is in the action's own
# folder, so it is there whatever else fails) and where its tools are (when
# they are missing the extension logs an info line and shows placeholders).
printf 'QE_TELEMETRY_PYTHON=%s\nQE_TELEMETRY_BIN=%s\n' "$GITHUB_ACTION_PATH/python" "${QE_BIN:-}" >> "$GITHUB_ENV"

mkdir -p "$QE_STATE" "$QE_ARTIFACT"
rm -rf "$QE_STATE"/baseline.ndjson "$QE_STATE"/baseline-cache "$QE_STATE"/cells.log "$QE_STATE"/armed
date -u +%Y-%m-%dT%H:%M:%S.%6NZ > "$QE_STATE/start"
need_tools qe-hook qe-cache-extract || exit 0

if "$QE_BIN/qe-hook" arm; then
	printf 'QE_TELEMETRY_LOG=%s\n' "$QE_STATE/cells.log" >> "$GITHUB_ENV"
	: > "$QE_STATE/armed"
else
	warn "could not arm the capture hook: no per-cell times in this build"
fi

locate
build=$BUILD
cache=$READ
shown=${build#"${GITHUB_WORKSPACE:-}/"}
root=$(in_workspace "$QE_SOURCE_DIR")
source=none
if [ -f "$build/qe-telemetry/report.ndjson" ] && [ ! -L "$build/qe-telemetry/report.ndjson" ]; then
	cp "$build/qe-telemetry/report.ndjson" "$QE_STATE/baseline.ndjson"
	source="the report in $shown/qe-telemetry"
elif [ -n "$cache" ]; then
	if ! "$QE_BIN/qe-cache-extract" -r "$root" "$cache" > "$QE_STATE/baseline.ndjson"; then
		warn "the inherited cache was read with trouble (see above); the baseline may be partial"
	fi
	source="the records of the inherited cache (no report in $shown/qe-telemetry)"
fi
# jupyter-cache's records are told apart by a copy of its database; a
# mystmd build's by the job's start (its cache entries keep their times)
if [ -n "$cache" ] && [ -f "$cache/global.db" ]; then
	mkdir -p "$QE_STATE/baseline-cache"
	cp "$cache/global.db" "$QE_STATE/baseline-cache/global.db"
fi
printf '%s\n' "$source" > "$QE_STATE/baseline-source"
if [ "$source" = none ]; then
	notice "no baseline in $shown: this build will be reported, not compared"
else
	notice "baseline: $source"
fi
