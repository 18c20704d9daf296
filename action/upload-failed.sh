#!/usr/bin/env bash
# mode: after, when the artifact upload failed (it runs with
# continue-on-error): say so, and what still carries the results.
# shellcheck source=action/lib.sh
. "$GITHUB_ACTION_PATH/action/lib.sh"

warn "the '${QE_ARTIFACT_NAME:-qe-telemetry-report}' artifact could not be uploaded (see the upload step): the job summary still has the results; a fork's pull request gets no comment from the workflow_run commenter this time. Re-run the job to try again"
