# The replicate tests' common ground (qe-replicate.bats, fidelity.bats,
# fidelity-labelled.bats, qe-sweep.bats): Debian's Python runs qe-replicate,
# the kernels its nbclient starts; setup_file runs each case once into files
# the tests then read.

PY=/usr/bin/python3
command -v qe-replicate > /dev/null 2>&1 || PATH="$TESTS_DIR/../hook:$PATH"

rep() {
	"$PY" "$(command -v qe-replicate)" -q "$@"
}

# replicate_into W NAME ARGS...: qe-replicate ARGS with its records in
# W/NAME.ndjson, its messages in W/NAME.err and its exit status in
# W/NAME.status (a failing case is a result to test, not a setup failure).
replicate_into() {
	local w=$1 name=$2 rc=0
	shift 2
	rep "$@" > "$w/$name.ndjson" 2> "$w/$name.err" || rc=$?
	echo "$rc" > "$w/$name.status"
}
