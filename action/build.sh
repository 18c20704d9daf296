#!/usr/bin/env bash
# mode: build (the input run given, no mode): the caller's own build, run by
# the action between its before and after steps, so that one step of the
# caller's workflow arms the hook, builds and reports.
#
# QE_RUN (the caller's commands, from its own workflow file) runs in a
# login shell in the workspace, as the lecture builds' `shell: bash -l {0}`
# (so setup-miniconda's activation applies), with -e and pipefail set for
# the commands as GitHub's `shell: bash` sets them.  This step never
# fails itself: the build's exit status and outcome are its outputs (the
# after steps run on a failed build, as `if: !cancelled()` does for mode:
# after) and build-result.sh, the action's last step, fails with that
# status.  The output python is the input python (python3 by default)
# resolved in that shell: the build environment's.
#
# Not lib.sh: the build's output is the caller's, as in a step of its own
# (no stderr guard, no set -u for its commands).
set -o pipefail

script=${RUNNER_TEMP:?RUNNER_TEMP is not set}/qe-telemetry-build.sh
# -e and pipefail for the commands only: the login shell's profile (conda's
# activation among it) runs as under shell: bash -l {0}
printf 'set -eo pipefail\n%s\n' "${QE_RUN:-}" > "$script"
status=0
bash -l "$script" || status=$?
if [ "$status" = 0 ]; then outcome=success; else outcome=failure; fi
python=$(bash -l -c 'command -v -- "$1"' qe-telemetry "${QE_PYTHON:-python3}" 2> /dev/null | tail -n 1) || python=
printf 'status=%s\noutcome=%s\n' "$status" "$outcome" >> "$GITHUB_OUTPUT"
case $python in
/*) printf 'python=%s\n' "$python" >> "$GITHUB_OUTPUT" ;;
esac
exit 0
