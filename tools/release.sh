#!/bin/sh
# tools/release.sh: the steps of .github/workflows/release.yml, kept here so
# they are shellchecked and can be run by hand (README.md, "Releases").
#   check-tag TAG    TAG is v + QE_VERSION of lib/qe.h (exit 1 otherwise)
#   check-release    action/release.txt names QE_VERSION and a SHA-256 digest
#                    for every platform: a tagged commit must hold its own
#                    bundles' digests, or install: release is dead (exit 1)
#   sums DIR         DIR/SHA256SUMS of DIR/*.tar.gz; prints the lines of
#                    action/release.txt that name these bundles
#   verify DIR       DIR's bundles are the ones action/release.txt names
#                    (same version, same digests; exit 1 otherwise)
#   draft TAG DIR    creates the draft release TAG (no tag yet: it targets
#                    this commit, GITHUB_SHA) and attaches DIR/*.tar.gz and
#                    DIR/SHA256SUMS (gh, GH_TOKEN); a release TAG that is
#                    already published is refused (exit 1), never overwritten
#   publish TAG DIR  downloads the draft's bundles into DIR, verifies them
#                    against action/release.txt and publishes the draft on
#                    the tag (gh, GH_TOKEN)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n 's/^#define QE_VERSION "\(.*\)"$/\1/p' "$here/lib/qe.h")
release=$here/action/release.txt
platforms="x86_64 aarch64"

value() {
	sed -n "s/^$1=//p" "$release" | head -n 1
}

case ${1:-} in
check-tag)
	[ "${2:-}" = "v$version" ] && exit 0
	echo "release: the tag '${2:-}' is not v$version, the version in lib/qe.h" >&2
	exit 1 ;;
check-release)
	bad=0
	if [ "$(value version)" != "$version" ]; then
		echo "release: action/release.txt names version '$(value version)', lib/qe.h's QE_VERSION is '$version'" >&2
		bad=1
	fi
	for a in $platforms; do
		if ! value "sha256-linux-$a" | grep -Eqx '[0-9a-f]{64}'; then
			echo "release: action/release.txt has no SHA-256 digest for linux-$a: build the draft release first (release.yml, run on this commit), commit the lines it prints, tag that commit" >&2
			bad=1
		fi
	done
	exit "$bad" ;;
sums)
	cd "${2:?usage: release.sh sums DIR}"
	sha256sum -- *.tar.gz > SHA256SUMS
	echo "version=$version"
	for a in $platforms; do
		f=qe-telemetry-$version-linux-$a.tar.gz
		if [ -f "$f" ]; then
			echo "sha256-linux-$a=$(sha256sum -- "$f" | cut -d' ' -f1)"
		else
			echo "sha256-linux-$a="
		fi
	done ;;
verify)
	dir=${2:?usage: release.sh verify DIR}
	bad=0
	for a in $platforms; do
		f=$dir/qe-telemetry-$(value version)-linux-$a.tar.gz
		if [ ! -f "$f" ] || [ "$(sha256sum -- "$f" | cut -d' ' -f1)" != "$(value "sha256-linux-$a")" ]; then
			echo "release: $f is missing or is not the bundle action/release.txt names" >&2
			bad=1
		fi
	done
	exit "$bad" ;;
draft)
	tag=${2:?usage: release.sh draft TAG DIR}
	dir=${3:?usage: release.sh draft TAG DIR}
	# a published release is never touched: every install of that version
	# checks its bundles against the digests committed for them
	if gh release view "$tag" --json isDraft --jq .isDraft > "$dir/.draft" 2> /dev/null; then
		if [ "$(cat "$dir/.draft")" != true ]; then
			rm -f "$dir/.draft"
			echo "release: $tag is published: its bundles are never replaced (bump QE_VERSION for a new release)" >&2
			exit 1
		fi
	else
		gh release create "$tag" --draft --target "${GITHUB_SHA:?GITHUB_SHA is not set}" --title "qe-telemetry $tag" \
			--notes "Prebuilt, relocatable bundles of the tools (make dist), checked by SHA256SUMS. The action installs them by default (install: release): the tagged commit's action/release.txt names their digests."
	fi
	rm -f "$dir/.draft"
	# a draft's bundles may be replaced (a re-run of the draft job)
	gh release upload "$tag" --clobber "$dir"/*.tar.gz "$dir/SHA256SUMS" ;;
publish)
	tag=${2:?usage: release.sh publish TAG DIR}
	dir=${3:?usage: release.sh publish TAG DIR}
	mkdir -p "$dir"
	gh release download "$tag" --dir "$dir" --clobber --pattern '*.tar.gz'
	"$0" verify "$dir"
	gh release edit "$tag" --draft=false --tag "$tag" ;;
*)
	echo "usage: tools/release.sh check-tag TAG | check-release | sums DIR | verify DIR | draft TAG DIR | publish TAG DIR" >&2
	exit 2 ;;
esac
