#!/bin/sh
# tools/release.sh: the steps of .github/workflows/release.yml, kept here so
# they are shellchecked and can be run by hand.
#   check-tag TAG    TAG is v + QE_VERSION of lib/qe.h (exit 1 otherwise)
#   sums DIR         DIR/SHA256SUMS of DIR/*.tar.gz; prints the lines of
#                    action/release.txt that name these bundles
#   publish TAG DIR  creates the GitHub release TAG if there is none and
#                    attaches DIR/*.tar.gz and DIR/SHA256SUMS (gh, GH_TOKEN)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n 's/^#define QE_VERSION "\(.*\)"$/\1/p' "$here/lib/qe.h")

case ${1:-} in
check-tag)
	[ "${2:-}" = "v$version" ] && exit 0
	echo "release: the tag '${2:-}' is not v$version, the version in lib/qe.h" >&2
	exit 1 ;;
sums)
	cd "${2:?usage: release.sh sums DIR}"
	sha256sum -- *.tar.gz > SHA256SUMS
	echo "version=$version"
	for a in x86_64 aarch64; do
		f=qe-telemetry-$version-linux-$a.tar.gz
		if [ -f "$f" ]; then
			echo "sha256-linux-$a=$(sha256sum -- "$f" | cut -d' ' -f1)"
		else
			echo "sha256-linux-$a="
		fi
	done ;;
publish)
	tag=${2:?usage: release.sh publish TAG DIR}
	dir=${3:?usage: release.sh publish TAG DIR}
	gh release view "$tag" > /dev/null 2>&1 ||
		gh release create "$tag" --verify-tag --title "qe-telemetry $tag" \
			--notes "Prebuilt, relocatable bundles of the tools (make dist), checked by SHA256SUMS. The action installs them by default (install: release) once action/release.txt names their digests."
	gh release upload "$tag" --clobber "$dir"/*.tar.gz "$dir/SHA256SUMS" ;;
*)
	echo "usage: tools/release.sh check-tag TAG | sums DIR | publish TAG DIR" >&2
	exit 2 ;;
esac
