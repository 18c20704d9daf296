#!/usr/bin/env bash
# Make the tools available: a restored cache is checked (every tool runs),
# otherwise the sources shipped with the action are built with the
# distribution's packages and installed under the prefix, which the next step
# saves to the cache.
# shellcheck source=action/lib.sh
. "$GITHUB_ACTION_PATH/action/lib.sh"

tools="qe-cache-extract qe-stamp qe-cell-diff qe-comment qe-hook"
# Debian/Ubuntu names: headers and pkg-config files, and the runtime libraries
packages="build-essential pkg-config libcjson-dev libjq-dev libarchive-dev libsqlite3-dev zlib1g-dev libssl-dev"

works() {
	local t
	for t in $tools; do
		"$QE_PREFIX/bin/$t" --version > /dev/null 2>&1 || return 1
	done
}

apt_install() {
	if [ "$QE_INSTALL_PACKAGES" != true ]; then
		error "the tools need: $packages (install-packages is false)"
		exit 2
	fi
	local sudo=
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	# shellcheck disable=SC2086
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $packages > /dev/null ||
		{ $sudo apt-get update -qq > /dev/null &&
		  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $packages > /dev/null; }
}

if [ "${QE_CACHE_HIT:-}" = true ]; then
	if ! works; then
		# restored binaries whose shared libraries are missing here
		apt_install
	fi
	if works; then
		printf '%s\n' "$QE_KEY" > "$QE_PREFIX/.key"
		output built false
		exit 0
	fi
	warn "the cached tools do not run here; building them"
fi

missing=
for p in $packages; do
	dpkg-query -W -f '${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
[ -z "$missing" ] || apt_install

src=$QE_STATE/src
rm -rf "$src" "$QE_PREFIX"
mkdir -p "$src"
(cd "$GITHUB_ACTION_PATH" && cp -R Makefile cmd lib hook man schema "$src"/)
rm -f "$src"/cmd/*.o "$src"/lib/*.o "$src"/lib/*.a
make -s -C "$src" -j "$(nproc 2>/dev/null || echo 2)" all
make -s -C "$src" install PREFIX="$QE_PREFIX"
works || { error "the tools were built but do not run"; exit 2; }
printf '%s\n' "$QE_KEY" > "$QE_PREFIX/.key"
output built true
