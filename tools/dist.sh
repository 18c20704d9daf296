#!/bin/sh
# tools/dist.sh [OUTDIR]: the prebuilt, relocatable bundle of the tools
# (make dist), OUTDIR/qe-telemetry-VERSION-linux-ARCH.tar.gz, whose path it
# prints.  tools/dist.sh --unpacked DIR: the same folder, not archived, as
# DIR (action/install.sh's source install).  The bundle unpacks to one folder laid out as `make install` lays
# out a prefix, plus lib/:
#
#   bin/      the tools and qe-hook
#   lib/      every shared library the tools load beyond glibc's own (cJSON,
#             jq and oniguruma, libarchive and its compression and XML
#             libraries, ...), copied from the build machine
#   share/man/, share/qe-telemetry/ (schema/, the hook's startup file, the
#             Python side and the mystmd plugin, mystmd/exec-time.mjs)
#
# Built from a copy of the files tools/sources lists (the working tree's own
# build is left alone).  SQLite is linked statically where its static
# archive exists (self-contained, one user: qe-cache-extract); libcrypto
# stays shared (statically it adds 3.5 MB to each of four tools), zlib too
# (libarchive needs libz.so anyway), and Debian ships no static cJSON, jq or
# oniguruma.  The
# binaries carry DT_RPATH $ORIGIN/../lib (--disable-new-dtags): unlike
# DT_RUNPATH it is searched for the libraries' own dependencies too
# (libarchive's), and before LD_LIBRARY_PATH and the system's copies.
# QE_LIBARCHIVE=PREFIX links the static, XML-free libarchive that
# tools/libarchive.sh built there instead of the distribution's shared one,
# which brings libxml2 and ICU (31 MB of ICU data) into lib/.
# Built on the oldest glibc supported (ubuntu-22.04 in
# .github/workflows/release.yml), the bundle runs where that glibc or a newer
# one is.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
unpacked=
if [ "${1:-}" = --unpacked ]; then
	# the action's source install: the bundle's folder itself, as DIR
	unpacked=${2:?usage: tools/dist.sh [OUTDIR | --unpacked DIR]}
	out=$(dirname "$unpacked")
else
	out=${1:-dist}
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
version=$(sed -n 's/^#define QE_VERSION "\(.*\)"$/\1/p' "$here/lib/qe.h")
[ -n "$version" ] || { echo "dist: no QE_VERSION in lib/qe.h" >&2; exit 2; }
name=qe-telemetry-$version-linux-$(uname -m)
CC=${CC:-cc}

work=$(mktemp -d "${TMPDIR:-/tmp}/qe-dist.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
mkdir "$work/src"
# shellcheck disable=SC2046 # one word per listed path
(cd "$here" && tar -cf - $(grep -v '^#' tools/sources)) | tar -C "$work/src" -xf -
make -s --no-print-directory -C "$work/src" clean
# A reproducible archive: fixed order, owner and times (SOURCE_DATE_EPOCH if
# set, else the newest source file's).
epoch=${SOURCE_DATE_EPOCH:-$(find "$work/src" -type f -printf '%T@\n' | sort -n | tail -1 | cut -d. -f1)}

# static NAME: link options for libNAME.a where the compiler finds one
static() {
	a=$("$CC" -print-file-name="lib$1.a")
	case $a in
	/*) [ -f "$a" ] && { echo "-Wl,-Bstatic -l$1 -Wl,-Bdynamic"; return; } ;;
	esac
	echo "-l$1"
}
# the Makefile's ARCHIVE_LIBS (pkg-config's shared libarchive), or
# QE_LIBARCHIVE's static one with the libraries it needs
set --
if [ -n "${QE_LIBARCHIVE:-}" ]; then
	[ -f "$QE_LIBARCHIVE/lib/libarchive.a" ] || { echo "dist: no $QE_LIBARCHIVE/lib/libarchive.a (tools/libarchive.sh)" >&2; exit 2; }
	set -- ARCHIVE_LIBS="$(PKG_CONFIG_PATH="$QE_LIBARCHIVE/lib/pkgconfig" pkg-config --static --libs libarchive)"
fi
make -s --no-print-directory -C "$work/src" -j "$(nproc 2> /dev/null || echo 2)" all CC="$CC" CFLAGS="-O2" \
	LDFLAGS="-Wl,-rpath,'\$\$ORIGIN/../lib' -Wl,--disable-new-dtags" \
	SQLITE_LIBS="$(static sqlite3) -lm -ldl -lpthread" "$@"
make -s --no-print-directory -C "$work/src" install PREFIX="$work/$name"
root=$work/$name
strip --strip-unneeded "$root"/bin/qe-cache-extract "$root"/bin/qe-stamp \
	"$root"/bin/qe-cell-diff "$root"/bin/qe-comment "$root"/bin/qe-history "$root"/bin/qe-exec-status \
	"$root"/bin/qe-sweep 2> /dev/null || true

# glibc's own libraries (and the kernel's vDSO) come from the machine that
# runs the bundle; everything else the tools load is copied into lib/.
glibc='^(linux-vdso|linux-gate|ld-linux[^ ]*|libc|libm|libmvec|libpthread|libdl|librt|libresolv|libutil|libanl|libnsl)\.so'
mkdir "$root/lib"
for b in "$root"/bin/*; do
	head -c 4 "$b" | grep -q 'ELF' || continue
	ldd "$b" > "$work/ldd" || { echo "dist: ldd $b failed" >&2; exit 1; }
	if grep -q 'not found' "$work/ldd"; then
		echo "dist: $b: unresolved libraries:" >&2
		grep 'not found' "$work/ldd" >&2
		exit 1
	fi
	awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' "$work/ldd" |
	while read -r soname path; do
		printf '%s\n' "$soname" | grep -Eq "$glibc" && continue
		[ -e "$root/lib/$soname" ] || cp -L "$path" "$root/lib/$soname"
	done
done
chmod 644 "$root"/lib/*
if [ -n "$unpacked" ]; then
	rm -rf "$unpacked"
	mv "$root" "$unpacked"
	printf '%s\n' "$unpacked"
	exit 0
fi

tar -C "$work" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" -cf - "$name" |
	gzip -9n > "$out/$name.tar.gz"
printf '%s\n' "$out/$name.tar.gz"
