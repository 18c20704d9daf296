# Loaded by every .bats file. Tools are found on PATH (make check puts the
# build directory first), so the same suite checks an installed copy.
bats_require_minimum_version 1.5.0
bats_load_library bats-support
bats_load_library bats-assert

TESTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# The shared fixtures sit beside the checkout; QE_SHARED overrides.
SHARED="${QE_SHARED:-$(cd "$TESTS_DIR/../../shared" 2>/dev/null && pwd)}"
SHARED_FIXTURES="$SHARED/fixtures"
export PYDEVD_DISABLE_FILE_VALIDATION=1

# fixture NAME: a path under tests/fixtures/
fixture() {
	printf '%s\n' "$TESTS_DIR/fixtures/$1"
}

# shared NAME: a path under ../shared/fixtures/ (read-only in CI)
shared() {
	printf '%s\n' "$SHARED_FIXTURES/$1"
}

# validate FILE...: every record validates against schema/record.json
validate() {
	/usr/bin/python3 "$TESTS_DIR/validate.py" "$@"
}

# jqr FILTER FILE: compact jq over NDJSON
jqr() {
	jq -c "$@"
}
