#!/bin/sh
# tools/libarchive.sh PREFIX: a static libarchive without XML support, for
# the release bundle (make dist with QE_LIBARCHIVE=PREFIX, tools/dist.sh).
# The distribution's libarchive reads xar archives through libxml2, which
# loads ICU: libicudata alone is 31 MB of the bundle's 44 MB of libraries.
# The tools read directories and zip artifacts, never xar, so this builds
# the distribution's own source package of the installed libarchive-dev
# (its version, its security patches) with --without-xml2 --without-expat
# into PREFIX/lib/libarchive.a (and PREFIX/lib/pkgconfig/libarchive.pc,
# whose static link line names the compression libraries it still needs).
# The source comes through a scratch apt setup: the deb-src twins of the
# machine's own deb sources, in a temporary folder; /etc/apt is not touched.
# Needs apt-get, dpkg-source (dpkg-dev) and a compiler (tools/deps build).
set -eu
prefix=${1:?usage: tools/libarchive.sh PREFIX}
version=$(dpkg-query -W -f '${Version}' libarchive-dev)
work=$(mktemp -d "${TMPDIR:-/tmp}/qe-libarchive.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
mkdir -p "$work/lists/partial" "$work/parts" "$work/get" "$work/cache/archives/partial"
# one-line sources (sources.list, *.list) and deb822 ones (*.sources)
cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2> /dev/null |
	sed -n 's/^deb \(.*\)$/deb-src \1/p' > "$work/sources.list"
for f in /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] || continue
	sed 's/^Types:.*$/Types: deb-src/' "$f" > "$work/parts/${f##*/}"
done
set -- -o "Dir::Etc::SourceList=$work/sources.list" -o "Dir::Etc::SourceParts=$work/parts" \
	-o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache"
apt-get "$@" -qq update
(cd "$work/get" && apt-get "$@" -qq source --download-only "libarchive=$version")
dpkg-source -x "$work"/get/libarchive_*.dsc "$work/src" > /dev/null
cd "$work/src"
# The patches touch configure.ac and Makefile.am (a pkg-config line, test
# lists), which would make `make` regenerate the build system with
# automake; the tarball's generated one serves (the code's patches are in
# the .c files): one timestamp for the whole tree
find . -exec touch -d '2000-01-01 00:00:00' {} +
./configure -q --prefix="$prefix" --without-xml2 --without-expat --disable-bsdtar --disable-bsdcpio \
	--disable-bsdcat --enable-static --disable-shared --with-pic CFLAGS=-O2 > /dev/null
make -s -j "$(nproc 2> /dev/null || echo 2)" > /dev/null
make -s install > /dev/null
# what Debian's iconv-pkgconfig.patch does in configure.ac: glibc's iconv is
# no pkg-config package
sed -i '/^Requires.private:/s/\<iconv\>//' "$prefix/lib/pkgconfig/libarchive.pc"
printf '%s\n' "$prefix/lib/libarchive.a"
