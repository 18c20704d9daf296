#!/usr/bin/env bash
# check-report.sh REPORT: the action's report after the CI demo build (every
# notebook executed by this job, every executed code cell timed by the hook,
# stamped).  Used by .github/workflows/ci.yml.
set -euo pipefail
report=${1:?usage: check-report.sh REPORT}
jq -e -s '
	[.[] | select(.kind == "notebook")] as $nb
	| [.[] | select(.kind == "cell")] as $cells
	| ($nb | length) == 2
	and all($nb[]; .origin == "executed" and .status == "ok" and (.provenance | type) == "object")
	and ($cells | length) == 5
	and all($cells[]; .timing_source == "hook" and .duration_s >= 0)' "$report" > /dev/null ||
	{ echo "check-report: unexpected report:" >&2; cat "$report" >&2; exit 1; }
echo "check-report: $report: 2 notebooks, 5 cells timed by the hook"
