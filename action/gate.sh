#!/usr/bin/env bash
# mode: after, with fail-on-regression: true.  The only step of the action
# that fails a green build on purpose.
# shellcheck source=action/lib.sh
. "$GITHUB_ACTION_PATH/action/lib.sh"

if [ "${QE_REGRESSION:-}" = true ]; then
	error "a cell or notebook regressed on comparable machines (fail-on-regression is true); see the job summary"
	exit 1
fi
