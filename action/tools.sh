#!/usr/bin/env bash
# Step 1 of every mode: check the inputs (a bad one is a warning: a wrong
# mode turns the action off, a wrong true/false counts as false, as every
# step reads it, a wrong install is taken as release), then say where the
# tools live and whether they must be installed (not when an earlier use of
# the action in this job installed them already) and looked for in the
# tools cache first.  The cache key names the runner's OS, architecture and
# distribution, the install method, the action's ref and a digest of the
# sources built and of action/release.txt.  install: path:DIR uses DIR as
# the prefix, uncached.
# shellcheck source=action/lib.sh
. "$GITHUB_ACTION_PATH/action/lib.sh"

case ${QE_MODE:-} in
before|after|comment|history) ;;
*)
	warn "input mode: expected before, after, comment or history, got '${QE_MODE:-}': the action does nothing"
	output need false
	exit 0
	;;
esac
is_bool comment "$QE_COMMENT"
is_bool fail-on-regression "$QE_FAIL_ON_REGRESSION"
is_bool install-packages "$QE_INSTALL_PACKAGES"
is_bool history-store "${QE_HISTORY_STORE:-false}"
case ${QE_COMMENT_ON:-always} in
always|change) ;;
*) warn "input comment-on: expected always or change, got '$QE_COMMENT_ON'; taken as always" ;;
esac
case ${QE_INSTALL:-release} in
release|source) method=${QE_INSTALL:-release}; prefix=$QE_STATE/tools ;;
path:?*) method=path; prefix=$(in_workspace "${QE_INSTALL#path:}") ;;
*)
	warn "input install: expected release, source or path:DIR, got '$QE_INSTALL'; taken as release"
	method=release
	prefix=$QE_STATE/tools
	;;
esac
memo=$QE_STATE/tools.unavailable   # install.sh: no tools could be had in this job
distro=unknown
if [ -r /etc/os-release ]; then
	# shellcheck disable=SC1091
	distro=$(. /etc/os-release && printf '%s-%s' "${ID:-unknown}" "${VERSION_ID:-}")
fi
# shellcheck disable=SC2046 # one word per listed path
src=$(cd "$GITHUB_ACTION_PATH" && find $(grep -v '^#' tools/sources) action/release.txt -type f \
	! -name '*.o' ! -name '*.a' -print0 2>/dev/null | LC_ALL=C sort -z |
	xargs -0 sha256sum | sha256sum | cut -c1-16)
ref=$(printf '%s' "${QE_ACTION_REF:-local}" | tr -c 'A-Za-z0-9._-' '_')
key="qe-telemetry-tools-${RUNNER_OS:-Linux}-${RUNNER_ARCH:-X64}-$distro-$method-$ref-$src"

need=true
cache=true
if [ "$method" = path ]; then
	cache=false
elif [ -x "$prefix/bin/qe-cache-extract" ] && [ -f "$prefix/.key" ] &&
    [ "$(cat "$prefix/.key")" = "$key" ]; then
	need=false
	cache=false
elif [ -f "$memo" ] && [ "$(cat "$memo")" = "$key" ]; then
	cache=false   # an earlier step of this job could not install them
fi
output key "$key"
output prefix "$prefix"
output bin "$prefix/bin"
output need "$need"
output cache "$cache"
