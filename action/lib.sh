# shellcheck shell=bash
# Sourced by every step script of the qe-telemetry action.  Values reach the
# scripts through the environment only (the step's env: in action.yml).
#
# No step of ours turns the caller's job red for its own trouble: whatever
# makes a script stop (a command that fails under set -e, a missing tool, an
# explicit exit 2) ends the step green with a ::warning:: that says what went
# wrong.  Only gate.sh (fail-on-regression: true on a real regression) sets
# QE_MAY_FAIL=1 and may exit non-zero.  No step needs the jq program.
set -euo pipefail

# State shared by the steps of one job: the hook log, the baseline snapshot,
# the report and the artifact folder.
QE_STATE=${RUNNER_TEMP:?RUNNER_TEMP is not set}/qe-telemetry
# shellcheck disable=SC2034 # used by the scripts that source this file
QE_ARTIFACT=$QE_STATE/artifact

# The tools' messages (stderr) name files, cells and labels that come from a
# pull request. A name holding a newline would start a line of its own in the
# job log, and the runner reads any line that starts, blanks aside, with "::"
# as a workflow command (::error::, ::add-mask::, ::stop-commands::...), where
# blanks are Unicode's (.NET's TrimStart). So a step's stderr goes through
# this guard: a line that does not start with a printable ASCII character
# other than ':' (a tool's own lines start with its name) has every "::"
# written ": :". Our own commands (ghcmd below) go to stdout.
exec 2> >(LC_ALL=C sed -u '/^[!-9;-~]/!s/::/: :/g' >&2)
# fd 9: the step's standard output, for a warning from inside $()
exec 9>&1
QE_GUARD_PID=$!

# At the end the step closes its stderr and lets the guard write what it
# still holds (a reader that stops when the step's shell exits would lose
# the last lines), waiting at most 5 s: a child left running in the
# background may keep the pipe open, and it must not hold the step.
# shellcheck disable=SC2317 # called from the EXIT trap
guard_drain() {
	exec 2>&-
	local waited=0
	while [ "$waited" -lt 100 ] && kill -0 "$QE_GUARD_PID" 2> /dev/null; do
		sleep 0.05
		waited=$((waited + 1))
	done
}

# Workflow commands: the message is data, so %, CR and LF are escaped as the
# runner expects (a message can never start a command of its own).
ghcmd() {
	local kind=$1 msg=$2
	msg=${msg//'%'/'%25'}
	msg=${msg//$'\r'/'%0D'}
	msg=${msg//$'\n'/'%0A'}
	printf '::%s::qe-telemetry: %s\n' "$kind" "$msg"
}
warn() { ghcmd warning "$*"; }
# read_nul VAR: one field ended by a NUL byte into VAR, byte for byte. In a
# UTF-8 locale bash's read takes a byte that is not UTF-8 and the NUL after
# it as one broken character and runs on into the next field; in C it cannot.
read_nul() {
	local LC_ALL=C
	IFS= read -r -d '' "$1"
}
# shellcheck disable=SC2317 # called from the EXIT trap
green_exit() {
	local rc=$?
	if [ "$rc" -ne 0 ] && [ "${QE_MAY_FAIL:-0}" != 1 ]; then
		warn "step '${0##*/}' stopped with status $rc (see the messages above); the build is not affected. Please report it at https://github.com/QuantEcon/qe-telemetry/issues if it persists"
		rc=0
	fi
	guard_drain
	exit "$rc"
}
trap green_exit EXIT
notice() { ghcmd notice "$*"; }
error() { ghcmd error "$*"; }

# output NAME VALUE: a step output (single line values only)
output() {
	case $2 in
	*$'\n'*) error "output $1: value has a newline"; return 2 ;;
	esac
	printf '%s=%s\n' "$1" "$2" >> "$GITHUB_OUTPUT"
}

# in_workspace PATH: PATH made absolute against GITHUB_WORKSPACE
in_workspace() {
	case $1 in
	/*) printf '%s\n' "$1" ;;
	*) printf '%s/%s\n' "${GITHUB_WORKSPACE:-$PWD}" "$1" ;;
	esac
}

# is_bool NAME VALUE: true or false, else a warning (the steps take
# anything but true as false)
is_bool() {
	case $2 in
	true|false) ;;
	*) warn "input $1: expected true or false, got '$2'; taken as false" ;;
	esac
}

# in_matrix: 0 when this job is one of a matrix (QE_MATRIX: the step's
# toJSON(matrix), "null" or empty outside a matrix)
in_matrix() {
	case ${QE_MATRIX:-null} in null | '' | '{}') return 1 ;; esac
}

# comment_key_digest: the first 12 hex digits of the SHA-256 of the comment
# key (input comment-key; default the workflow's name and the job's id, and
# in a matrix job its matrix values, so each matrix job has its own comment),
# for the comment's marker and the fork artifact's pr.json
comment_key_digest() {
	local key=${GITHUB_WORKFLOW:-}/${GITHUB_JOB:-}
	! in_matrix || key=$key/$QE_MATRIX
	printf '%s' "${QE_COMMENT_KEY:-$key}" | sha256sum | cut -c1-12
}

# cache_dir: the jupyter-cache folder from the inputs
cache_dir() {
	if [ -n "${QE_CACHE_DIR:-}" ]; then
		in_workspace "$QE_CACHE_DIR"
	else
		in_workspace "${QE_BUILD_DIR:-_build}/.jupyter_cache"
	fi
}

# locate: which builder made the build (the input builder; auto: the lecture
# folder's myst.yml says mystmd), its build folder and what to extract, as
# qe-cache-extract --builder decides, into BUILDER, BUILD and READ (empty:
# nothing to read). A builder it refuses, or tools without --builder (a
# bundle older than the scripts): a warning, and Jupyter Book's folders
# from the inputs.
locate() {
	local out line args
	args=("$(in_workspace "${QE_SOURCE_DIR:-lectures}")" "$(in_workspace "${QE_BUILD_DIR:-_build}")")
	[ -z "${QE_CACHE_DIR:-}" ] || args+=("$(in_workspace "$QE_CACHE_DIR")")
	BUILDER=jupyter-book
	BUILD=${args[1]}
	READ=$(cache_dir)
	[ -f "$READ/global.db" ] || READ=
	if ! out=$("$QE_BIN/qe-cache-extract" --builder "${QE_BUILDER:-auto}" "${args[@]}"); then
		warn "input builder '${QE_BUILDER:-auto}': qe-cache-extract --builder refused it (see above; or tools of another version than the action's scripts): the build is read as Jupyter Book's"
		return 0
	fi
	# shellcheck disable=SC2034 # BUILDER and BUILD: read by the caller
	while IFS= read -r line; do
		case $line in
		builder=*) BUILDER=${line#builder=} ;;
		build=*) BUILD=${line#build=} ;;
		read=*) READ=${line#read=} ;;
		esac
	done <<< "$out"
}

# need_tools TOOL...: 0 when every tool is in QE_BIN and runs, else a warning
# naming the missing ones (the step then does nothing)
need_tools() {
	local t missing=
	for t in "$@"; do
		[ -n "${QE_BIN:-}" ] && [ -x "$QE_BIN/$t" ] || missing="$missing $t"
	done
	[ -z "$missing" ] && return 0
	warn "the tools are not installed (missing:$missing): ${0##*/} skipped; see the install step's warning"
	return 1
}

# diff_option OPTION VALUE INPUT: 0 when VALUE is set and qe-cell-diff takes
# OPTION=VALUE (its own rule decides what a number is: the tool reads its
# options in order, so "OPTION=VALUE -h" is a usage error, status 2, exactly
# when the value is refused, and help otherwise), else 1, after the input's
# warning when it was set.  Without the tool the value is kept: the step
# stops at need_tools.
diff_option() {
	[ -n "$2" ] || return 1
	[ -n "${QE_BIN:-}" ] && [ -x "$QE_BIN/qe-cell-diff" ] || return 0
	"$QE_BIN/qe-cell-diff" "$1=$2" -h > /dev/null 2>&1 && return 0
	warn "input $3: not a number: '$2'; qe-cell-diff's default is used"
	return 1
}

# json_str VALUE: VALUE as a JSON string (for values of known, plain forms:
# quotes, backslashes and control characters are escaped or dropped)
json_str() {
	local v=${1//\\/\\\\}
	v=${v//\"/\\\"}
	v=$(printf '%s' "$v" | tr -d '\000-\037')
	printf '"%s"' "$v"
}

# diff_fact FILE KEY: true or false, as qe-comment --facts answers KEY for
# qe-cell-diff's records in FILE (false when it cannot tell: no summary)
# qe-comment that cannot answer (tools older than these scripts: an unknown
# option) is a warning on the step's own output (fd 9: this runs inside $()),
# never a quiet false; records without a summary are false, quietly
diff_fact() {
	local line facts
	mkdir -p "$QE_STATE"
	if ! facts=$("$QE_BIN/qe-comment" --facts "$1" 2> "$QE_STATE/facts.err") &&
	    ! grep -q 'no diff-summary record' "$QE_STATE/facts.err"; then
		warn "qe-comment --facts failed on $1 (tools of another version than the action's scripts?): '$2' is unknown and taken as false; see the install step" >&9
	fi
	while IFS= read -r line; do
		if [ "$line" = "$2=true" ]; then
			echo true
			return
		fi
	done <<< "$facts"
	echo false
}

# diff_regression FILE: true when the diff-summary says regression, else false
diff_regression() { diff_fact "$1" regression; }

# diff_changed FILE: true when a notebook or cell of the comparison has a
# verdict other than unchanged or cached, else false
diff_changed() { diff_fact "$1" changed; }
