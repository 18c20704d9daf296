#!/usr/bin/env bash
# mode: build (the input run given, no mode): the caller's own build, run by
# the action between its before and after steps, so that one step of the
# caller's workflow arms the hook, builds and reports.
#
#   build.sh          run QE_RUN (the caller's commands, from its own
#                     workflow file) with `bash -l -eo pipefail FILE` in the
#                     workspace: a login shell, as the lecture builds'
#                     `shell: bash -l {0}`, so setup-miniconda's activation
#                     applies, and -e/pipefail as GitHub's `shell: bash`.
#                     Never fails itself: the build's exit status and
#                     outcome are outputs (the after steps run on a failed
#                     build, as `if: !cancelled()` does for mode: after),
#                     and the Python the input python names, resolved in
#                     that shell (the build environment's), is the output
#                     python.
#   build.sh status   the action's last step: fail with the build's exit
#                     status (QE_BUILD_STATUS), so a failed build stays a
#                     failed job; the action itself adds no failure.
#
# Not lib.sh: the build's output is the caller's, as in a step of its own
# (no stderr guard, no set -u for its commands).
set -o pipefail

if [ "${1:-}" = status ]; then
	printf '::error::the build (the run input of qe-telemetry) failed with exit status %s\n' "${QE_BUILD_STATUS:-?}"
	case ${QE_BUILD_STATUS:-1} in
	'' | *[!0-9]* | 0) exit 1 ;;
	*) exit "$QE_BUILD_STATUS" ;;
	esac
fi

script=${RUNNER_TEMP:?RUNNER_TEMP is not set}/qe-telemetry-build.sh
printf '%s\n' "${QE_RUN:-}" > "$script"
status=0
bash -l -eo pipefail "$script" || status=$?
if [ "$status" = 0 ]; then outcome=success; else outcome=failure; fi
python=$(bash -l -c 'command -v -- "$1"' qe-telemetry "${QE_PYTHON:-python3}" 2> /dev/null | tail -n 1) || python=
printf 'status=%s\noutcome=%s\n' "$status" "$outcome" >> "$GITHUB_OUTPUT"
case $python in
/*) printf 'python=%s\n' "$python" >> "$GITHUB_OUTPUT" ;;
esac
exit 0
