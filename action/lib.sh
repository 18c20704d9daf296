# shellcheck shell=bash
# Sourced by every step script of the qe-telemetry action.  Values reach the
# scripts through the environment only (the step's env: in action.yml).
set -euo pipefail

# State shared by the steps of one job: the hook log, the baseline snapshot,
# the report and the artifact folder.
QE_STATE=${RUNNER_TEMP:?RUNNER_TEMP is not set}/qe-telemetry
# shellcheck disable=SC2034 # used by the scripts that source this file
QE_ARTIFACT=$QE_STATE/artifact

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

# is_bool NAME VALUE: true or false, else a usage error
is_bool() {
	case $2 in
	true|false) ;;
	*) error "input $1: expected true or false, got '$2'"; exit 2 ;;
	esac
}

# cache_dir: the jupyter-cache folder from the inputs
cache_dir() {
	if [ -n "${QE_CACHE_DIR:-}" ]; then
		in_workspace "$QE_CACHE_DIR"
	else
		in_workspace "${QE_BUILD_DIR:-_build}/.jupyter_cache"
	fi
}
