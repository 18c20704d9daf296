#!/usr/bin/env bash
# Step 1 of every mode: check the inputs (a bad one is a warning: a wrong
# mode turns the action off, a wrong true/false counts as false, as every
# step reads it, a wrong install is taken as release), then say where the
# tools live and whether they must be installed (not when an earlier use of
# the action in this job installed them already) and whether the tools
# cache is looked at first.
#
# The cache never hands out a program: it holds only the release bundle's
# archive (install: release), which install.sh checks against the digest in
# action/release.txt after every restore, before anything of it runs; any
# job of the default branch (the weekly build, with its hundred notebooks
# and their pip installs) can write an entry under this predictable key.
# Source-built tools have no committed digest to check a restore against,
# so they are never cached.  mode: history (the job that holds contents:
# write) and mode: post need no tool: nothing is restored or installed
# there.  The key names the runner's OS, architecture and distribution, the
# action's ref and a digest of the sources and of action/release.txt.
# install: path:DIR uses DIR as the prefix, uncached.

# First, whatever happens next (not Linux, a wrong mode): the path of the
# Sphinx extension qe_telemetry.sphinx (PYTHONPATH: ${{ env.QE_TELEMETRY_PYTHON }}
# in the build step), so a build whose conf.py loads it still builds with
# -W; without its tools it shows placeholders with an info line.
printf 'QE_TELEMETRY_PYTHON=%s\n' "$GITHUB_ACTION_PATH/python" >> "${GITHUB_ENV:-/dev/null}"

# Linux only (lib.sh's GNU sed -u, date +%N, stat -c, the bundles' glibc):
# checked before lib.sh is read, with one notice; every later step stays off
# (they test this step's mode output)
if [ "${RUNNER_OS:-Linux}" != Linux ] || [ "$(uname -s 2> /dev/null)" != Linux ]; then
	printf '::notice::qe-telemetry: runs on Linux runners only (this one is %s): the action does nothing here; the build is not affected\n' \
	    "${RUNNER_OS:-$(uname -s 2> /dev/null)}" | tr -d '%'
	printf 'mode=off\nneed=false\ncache=false\n' >> "${GITHUB_OUTPUT:-/dev/null}"
	exit 0
fi
# shellcheck source=action/lib.sh
. "$GITHUB_ACTION_PATH/action/lib.sh"

# the input run given: mode build (the default then; the build step runs
# the commands whatever the mode says, so a wrong mode stops only us)
mode=${QE_MODE:-}
if [ "${QE_RUN_GIVEN:-false}" = true ] && [ -z "$mode" ]; then
	mode=build
fi
case $mode in
build)
	if [ "${QE_RUN_GIVEN:-false}" != true ]; then
		warn "input mode: build needs the input run (the build's commands): the action does nothing"
		output mode off
		output need false
		exit 0
	fi
	;;
before|after|comment|render|post|history)
	if [ "${QE_RUN_GIVEN:-false}" = true ]; then
		warn "input run is the build of mode: build (give no mode), not of mode: $mode: the build runs, the action does nothing else"
		output mode off
		output need false
		exit 0
	fi
	;;
*)
	also=
	[ "${QE_RUN_GIVEN:-false}" != true ] || also=" (the build given in run still runs)"
	warn "input mode: expected build (or none, with run), before, after, comment, render, post or history, got '$mode': the action does nothing$also"
	output mode off
	output need false
	exit 0
	;;
esac
output mode "$mode"
is_bool comment "$QE_COMMENT"
is_bool fail-on-regression "$QE_FAIL_ON_REGRESSION"
is_bool install-packages "$QE_INSTALL_PACKAGES"
is_bool history-store "${QE_HISTORY_STORE:-false}"
is_bool comment-recreate "${QE_COMMENT_RECREATE:-false}"
# the report artifact's name: with a comment key of its own, that key (in
# the characters an artifact name may hold) after the artifact-name input;
# in a matrix job without one, the digest of the default key (which names
# the job's matrix values), so matrix jobs never overwrite each other's
artifact_name=${QE_ARTIFACT_NAME:-qe-telemetry-report}
if [ -n "${QE_COMMENT_KEY:-}" ]; then
	artifact_name=$artifact_name-$(printf '%s' "$QE_COMMENT_KEY" | LC_ALL=C tr -c 'A-Za-z0-9._-' '_' | cut -c1-64)
elif in_matrix; then
	artifact_name=$artifact_name-$(comment_key_digest)
fi
output artifact-name "$artifact_name"
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
key="qe-telemetry-tools-${RUNNER_OS:-Linux}-${RUNNER_ARCH:-X64}-$distro-$method-archive-$ref-$src"

need=true
cache=true
# only the digest-checked release archive is ever cached
[ "$method" = release ] || cache=false
if [ "$mode" = post ] || [ "$mode" = history ]; then
	need=false   # posting a rendered file, storing a report: no tool
	cache=false
elif [ "$method" = path ]; then
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
output archive-dir "$QE_STATE/tools-archive"
output bin "$prefix/bin"
output need "$need"
output cache "$cache"
