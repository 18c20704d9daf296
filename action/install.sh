#!/usr/bin/env bash
# Make the tools available under the prefix, by the input install:
#   release   the prebuilt, relocatable bundle of the version in
#             action/release.txt (make dist, attached to the GitHub release),
#             checked against the SHA-256 digest committed there; a failed
#             download, a wrong digest, a bundle of another version than
#             these scripts (lib/qe.h's QE_VERSION: an untagged commit after
#             a version bump) or tools that do not run here are refused with
#             a warning, and the sources are built instead
#   source    the bundle's folder (tools/dist.sh --unpacked, make dist
#             without the archive) built from the sources shipped with the
#             action (the files tools/sources lists), with the distribution's
#             packages (tools/deps build: apt-get as root or through
#             passwordless sudo), as the prefix
#   path:DIR  tools already installed under DIR (make install PREFIX=DIR,
#             or an unpacked bundle); another version is a warning
# The tools cache (tools.sh) holds only the release bundle's archive, in
# QE_ARCHIVE_DIR: a restored one (QE_CACHE_HIT) is checked against the
# digest like a download before it is unpacked, and nothing else the
# restore brought is ever run; a wrong one is refused and downloaded afresh.
#
# This step never fails the job: when the tools cannot be had, it warns with
# what is missing and what to do, and sets the output available=false, so
# the action's later steps skip (they test steps.install.outputs.available
# != 'false'; the output is empty when the tools were installed earlier in
# the job and this step was skipped).  Outputs: available (true/false),
# built (true: installed afresh in this job; with method release the
# archive is saved to the tools cache), method (cache, release, source or
# path).
# shellcheck source=action/lib.sh
. "$GITHUB_ACTION_PATH/action/lib.sh"

tools="qe-cache-extract qe-stamp qe-cell-diff qe-comment qe-hook"
memo=$QE_STATE/tools.unavailable
archives=${QE_ARCHIVE_DIR:-$QE_STATE/tools-archive}
mkdir -p "$QE_STATE"
# the version of these scripts: the one of the sources shipped beside them
scripts_version=$(sed -n 's/^#define QE_VERSION "\(.*\)"$/\1/p' "$GITHUB_ACTION_PATH/lib/qe.h" 2> /dev/null) || scripts_version=

works() {
	local t
	for t in $tools; do
		"$QE_PREFIX/bin/$t" --version > /dev/null 2>&1 || return 1
	done
}

# tools_version: the version the installed tools say they are
tools_version() {
	"$QE_PREFIX/bin/qe-comment" --version 2> /dev/null | sed -n '1s/^qe-comment //p'
}

installed() {
	printf '%s\n' "$QE_KEY" > "$QE_PREFIX/.key"
	rm -f "$memo"
	output available true
	output built "$1"
	output method "$2"
	exit 0
}

# unavailable MESSAGE: the job goes on without the tools
unavailable() {
	warn "$1 This build goes on without execution-time telemetry."
	printf '%s\n' "$QE_KEY" > "$memo"
	output available false
	output built false
	exit 0
}

# release_value NAME: a NAME=VALUE line of action/release.txt
release_value() {
	sed -n "s/^$1=//p" "$GITHUB_ACTION_PATH/action/release.txt" | head -n 1
}

# fetch URL FILE: an http(s):// or file:// URL, or a local path
fetch() {
	case $1 in
	/*) cp -- "$1" "$2" ;;
	*://*)
		if command -v curl > /dev/null 2>&1; then
			curl -fsSL --retry 2 --connect-timeout 10 --max-time 120 -o "$2" -- "$1"
		elif command -v wget > /dev/null 2>&1; then
			wget -q -T 60 -O "$2" -- "$1"
		else
			echo "neither curl nor wget is installed" >&2
			return 1
		fi ;;
	*) echo "not a URL or an absolute path: $1" >&2; return 1 ;;
	esac
}

# unpack BUNDLE: the bundle's one top folder becomes the prefix
unpack() {
	local tmp=$QE_STATE/unpack top
	rm -rf "$tmp" "$QE_PREFIX"
	mkdir -p "$tmp" "$(dirname "$QE_PREFIX")"
	tar -xzf "$1" -C "$tmp" || return 1
	top=$(find "$tmp" -mindepth 1 -maxdepth 1)
	case $top in
	"$tmp"/qe-telemetry-*) [ -d "$top/bin" ] || return 1 ;;
	*) echo "the archive does not hold one qe-telemetry-* folder" >&2; return 1 ;;
	esac
	mv "$top" "$QE_PREFIX" && rm -rf "$tmp"
}

# release_install: 0 when the bundle is installed and runs (sets how: cache
# when the archive came from the tools cache, release when downloaded);
# else says why (a warning, or a notice where this version of the action
# has no bundle).  Only an archive whose digest is the committed one is
# unpacked, whether it was downloaded or restored.
release_install() {
	local version platform digest base name file got
	version=$(release_value version)
	platform=linux-$(uname -m)
	digest=$(release_value "sha256-$platform")
	if [ -z "$version" ] || [ -z "$digest" ]; then
		notice "this version of the action records no release bundle for $platform (action/release.txt); building the tools from source"
		return 1
	fi
	if [ "$version" != "$scripts_version" ]; then
		warn "action/release.txt names the bundle of version $version, but these scripts are version ${scripts_version:-unknown} (a commit between releases?): building the tools from source, so that tools and scripts match"
		return 1
	fi
	name=qe-telemetry-$version-$platform.tar.gz
	file=$archives/$name
	if [ "${QE_CACHE_HIT:-}" = true ] && [ -f "$file" ] && [ ! -L "$file" ]; then
		got=$(sha256sum "$file" | cut -d' ' -f1)
		if [ "$got" = "$digest" ] && unpack "$file" && works && [ "$(tools_version)" = "$version" ]; then
			how=cache
			return 0
		fi
		warn "refused the cached $name: its SHA-256 is $got, action/release.txt says $digest (or its tools do not run here); downloading it afresh"
	elif [ "${QE_CACHE_HIT:-}" = true ]; then
		notice "the restored tools cache holds no $name; downloading it"
	fi
	# nothing else a restore brought stays
	rm -rf "$archives"
	mkdir -p "$archives"
	base=${QE_RELEASE_URL:-}
	if [ -z "$base" ] && [ -n "${QE_ACTION_REPOSITORY:-}" ]; then
		# the action's release on the server the runner's actions come from
		base=${GITHUB_SERVER_URL:-https://github.com}/$QE_ACTION_REPOSITORY/releases/download/v$version
	fi
	if [ -z "$base" ]; then
		notice "no release URL (input release-url, or the action's repository): building the tools from source"
		return 1
	fi
	if ! fetch "${base%/}/$name" "$file"; then
		rm -f "$file"
		warn "could not download ${base%/}/$name; building the tools from source instead"
		return 1
	fi
	got=$(sha256sum "$file" | cut -d' ' -f1)
	if [ "$got" != "$digest" ]; then
		rm -f "$file"
		warn "refused ${base%/}/$name: its SHA-256 is $got, action/release.txt says $digest; building the tools from source instead"
		return 1
	fi
	if ! unpack "$file" || ! works; then
		rm -f "$file"
		warn "the tools of $name do not run on this runner (a glibc older than the build machine's?); building them from source instead"
		return 1
	fi
	if [ "$(tools_version)" != "$version" ]; then
		rm -f "$file"
		warn "the tools of $name say they are version '$(tools_version)', not $version: building them from source instead"
		return 1
	fi
	how=release
	notice "installed the release bundle $name"
}

# source_install: 0 when the sources were built, bundled and installed;
# else prints why on standard output
source_install() {
	local deps=$GITHUB_ACTION_PATH/tools/deps missing status=0 log=$QE_STATE/build.log why
	missing=$("$deps" --missing build 2> /dev/null) || missing=
	if [ -n "$missing" ]; then
		if [ "$QE_INSTALL_PACKAGES" != true ]; then
			echo "building the tools needs the packages: $missing (install-packages is false): install them before this step (apt-get install $missing), or use install: release or install: path:DIR."
			return 1
		fi
		"$deps" build > "$log" 2>&1 || status=$?
		if [ "$status" -ne 0 ]; then
			cat "$log" >&2
			why=$(sed -n 's/^tools\/deps: cannot install them here (\(.*\)); .*/\1/p' "$log" | head -n 1)
			echo "building the tools needs the packages: $missing, which could not be installed here (${why:-apt-get failed, see the log}). Install them before this step (as root: apt-get install $missing), or use install: release or install: path:DIR."
			return 1
		fi
	fi
	rm -rf "$QE_PREFIX"
	if ! sh "$GITHUB_ACTION_PATH/tools/dist.sh" --unpacked "$QE_PREFIX" > /dev/null 2> "$log"; then
		cat "$log" >&2
		echo "building the tools from source failed (the compiler's messages are above); use install: release or install: path:DIR."
		return 1
	fi
	if ! works; then
		echo "the tools were built but do not run (see above)."
		return 1
	fi
}

if [ -f "$memo" ] && [ "$(cat "$memo")" = "$QE_KEY" ]; then
	notice "no tools in this job (see the warning of the earlier qe-telemetry step); skipping"
	output available false
	output built false
	exit 0
fi

case ${QE_INSTALL:-release} in
path:?*)
	if works; then
		[ "$(tools_version)" = "$scripts_version" ] ||
			warn "install: ${QE_INSTALL}: the tools there are version '$(tools_version)', these scripts $scripts_version: an option they lack is a warning later"
		installed false path
	fi
	unavailable "install: ${QE_INSTALL}: the tools under $QE_PREFIX/bin do not run (or are not there): install them there (make install PREFIX=DIR, or unpack a release bundle of make dist into DIR), or use install: release." ;;
esac

how=
if [ "${QE_INSTALL:-release}" != source ] && release_install; then
	if [ "$how" = cache ]; then
		installed false cache
	fi
	installed true release
fi
if why=$(source_install); then
	installed true source
fi
unavailable "$why"
