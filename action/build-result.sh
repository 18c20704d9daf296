#!/usr/bin/env bash
# mode: build, the action's last step, when the build (build.sh) failed:
# fail with the build's own exit status (QE_BUILD_STATUS), after the report,
# so a failed build stays a failed step and job.  The action's own trouble
# never gets here: build.sh's status is the caller's commands'.
printf '::error::the build (the run input of qe-telemetry) failed with exit status %s\n' "${QE_BUILD_STATUS:-?}"
case ${QE_BUILD_STATUS:-1} in
'' | *[!0-9]* | 0) exit 1 ;;
*) exit "$QE_BUILD_STATUS" ;;
esac
