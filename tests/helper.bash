# Loaded by every .bats file. Tools are found on PATH (make check puts the
# build directory first), so the same suite checks an installed copy.
bats_require_minimum_version 1.5.0
bats_load_library bats-support
bats_load_library bats-assert

TESTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# A copy of ../shared/fixtures (real caches, notebooks and archives made by
# the real tools) lives in tests/fixtures/shared, so a checkout tests alone.
SHARED_FIXTURES="$TESTS_DIR/fixtures/shared"
export PYDEVD_DISABLE_FILE_VALIDATION=1

# fixture NAME: a path under tests/fixtures/
fixture() {
	printf '%s\n' "$TESTS_DIR/fixtures/$1"
}

# shared NAME: a path under the copy of ../shared/fixtures/ (never written)
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
