#!/usr/bin/env bats
# make dist, the prebuilt relocatable bundle (tools/dist.sh), and the two
# lists every install path shares: tools/sources (the files copied to build)
# and tools/deps (the Debian/Ubuntu packages).  The bundle is built once,
# from a copy of the listed sources, unpacked, and moved to another folder
# before any test uses it (QE_BUNDLE=FILE: that bundle instead, as the
# release workflow does).

load helper

REPO="$(cd "$TESTS_DIR/.." && pwd)"
ELF_TOOLS="qe-cache-extract qe-cell-diff qe-comment qe-exec-status qe-history qe-stamp qe-sweep"

setup_file() {
	D="$BATS_FILE_TMPDIR"
	export D
	if [ -n "${QE_BUNDLE:-}" ]; then
		# the release workflow checks the very file it publishes
		mkdir "$D/out"
		cp "$QE_BUNDLE" "$D/out/"
		printf '%s\n' "$D/out/${QE_BUNDLE##*/}" > "$D/dist.out"
	else
		make -s --no-print-directory -C "$REPO" dist DISTDIR="$D/out" > "$D/dist.out"
	fi
	mkdir "$D/unpacked" "$D/elsewhere"
	tar -C "$D/unpacked" -xzf "$D"/out/qe-telemetry-*.tar.gz
	mv "$D"/unpacked/qe-telemetry-* "$D/elsewhere/qe"
}

setup() {
	D="$BATS_FILE_TMPDIR"
	B="$D/elsewhere/qe"
}

# glibc's own libraries and the kernel's vDSO: what the bundle takes from the
# machine that runs it
glibc_own() {
	[[ $1 =~ ^(linux-vdso\.so\.1|/lib64/ld-linux-x86-64\.so\.2|/lib/ld-linux-aarch64\.so\.1|lib(c|m|mvec|pthread|dl|rt)\.so\.[0-9]+)$ ]]
}

@test "make dist: one archive named by version and platform, laid out as make install lays out a prefix, plus lib/" {
	run -0 cat "$D/dist.out"
	assert_output "$D/out/qe-telemetry-0.1.0-linux-$(uname -m).tar.gz"
	run -0 ls "$B" "$B/bin" "$B/share/man/man1" "$B/share/qe-telemetry"
	assert_output - <<-EOF
	$B:
	bin
	lib
	share

	$B/bin:
	qe-cache-extract
	qe-cell-diff
	qe-comment
	qe-exec-status
	qe-history
	qe-hook
	qe-replicate
	qe-stamp
	qe-sweep

	$B/share/man/man1:
	qe-cache-extract.1
	qe-cell-diff.1
	qe-comment.1
	qe-exec-status.1
	qe-history.1
	qe-hook.1
	qe-replicate.1
	qe-stamp.1
	qe-sweep.1

	$B/share/qe-telemetry:
	mystmd
	python
	qe_replicate_notebook.py
	qe_replicate_profile.py
	qe_replicate_values.py
	qe_telemetry_startup.py
	schema
	EOF
	cmp "$REPO/schema/record.json" "$B/share/qe-telemetry/schema/record.json"
	# the mystmd plugin; its forms come from qe-exec-status (no Python formatter)
	cmp "$REPO/mystmd/exec-time.mjs" "$B/share/qe-telemetry/mystmd/exec-time.mjs"
	[ ! -e "$B/share/qe-telemetry/python/qe_telemetry/records.py" ]
	# one top folder, owned by root, no build leftovers
	run -0 bash -c 'tar -tvzf "$1" | awk "{print \$2}" | sort -u' _ "$D"/out/*.tar.gz
	assert_output "0/0"
	run -0 bash -c 'tar -tzf "$1" | cut -d/ -f1 | sort -u' _ "$D"/out/*.tar.gz
	assert_output "qe-telemetry-0.1.0-linux-$(uname -m)"
}

@test "make dist: ldd finds cJSON, jq, oniguruma, libarchive and its libraries in the bundle, nothing outside it but glibc's own" {
	local t soname arrow path libs=
	for t in $ELF_TOOLS; do
		# DT_RPATH (applies to libarchive's own dependencies too), not DT_RUNPATH
		run -0 readelf -d "$B/bin/$t"
		assert_line --regexp '\(RPATH\) +Library rpath: \[\$ORIGIN/\.\./lib\]$'
		refute_line --partial RUNPATH
		# LD_LIBRARY_PATH set to the system's folder: the bundle still wins
		run -0 env LD_LIBRARY_PATH=/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:/lib/aarch64-linux-gnu ldd "$B/bin/$t"
		refute_output --partial 'not found'
		while read -r soname arrow path _; do
			if [ "$arrow" = "=>" ]; then
				if glibc_own "$soname"; then
					[[ $path != "$B"/* ]]
				else
					assert_equal "$path" "$B/bin/../lib/$soname"
					libs="$libs $soname"
				fi
			else
				glibc_own "$soname" || fail "$t: $soname from outside the bundle"
			fi
		done <<< "$output"
	done
	# libarchive: the distribution's shared one with its libraries, or linked
	# into qe-cache-extract (QE_LIBARCHIVE, tools/libarchive.sh, as the release
	# is built): then without XML, so no libxml2 and no ICU in the bundle
	local want="libcjson.so.1 libjq.so.1 libonig.so.5 libz.so.1 liblzma.so.5 libbz2.so.1.0"
	if [[ " $libs " == *" libarchive.so.13 "* ]]; then
		want="$want libzstd.so.1"
	else
		grep -q 'libarchive 3\.' "$B/bin/qe-cache-extract" || fail "qe-cache-extract loads no libarchive and has none linked in"
		[[ " $libs " != *" libxml2"* && " $libs " != *" libicu"* ]] || fail "libarchive linked in, yet libxml2 or ICU in the bundle:$libs"
	fi
	for soname in $want; do
		[[ " $libs " == *" $soname "* ]] || fail "$soname is not loaded from the bundle"
	done
	# lib/ holds exactly what the tools load, nothing else
	run -0 ls "$B/lib"
	assert_output "$(printf '%s\n' $libs | sort -u)"
	# SQLite is linked in (its static archive exists on Debian and Ubuntu)
	[[ " $libs " != *" libsqlite3.so.0 "* ]]
}

@test "the bundle's tools, moved to another folder, give the same records as the build in the tree" {
	local head
	head=$(shared jupyter-cache/head-incremental/.jupyter_cache)
	# libarchive (a zip read in memory), SQLite, cJSON
	run -0 --separate-stderr "$B/bin/qe-cache-extract" --all --baseline "$(shared archives/base-artifact.zip)" "$head"
	local bundled=$output
	run -0 --separate-stderr qe-cache-extract --all --baseline "$(shared archives/base-artifact.zip)" "$head"
	assert_equal "$bundled" "$output"
	[ "$(wc -l <<< "$output")" -gt 10 ]
	# libjq and oniguruma: a jq filter with a regular expression
	"$B/bin/qe-cache-extract" "$(shared archives/base.zip)" > "$BATS_TEST_TMPDIR/base.ndjson"
	"$B/bin/qe-cache-extract" "$head" > "$BATS_TEST_TMPDIR/head.ndjson"
	run -0 --separate-stderr "$B/bin/qe-cell-diff" -f '.document | test("^dyn")' "$BATS_TEST_TMPDIR/base.ndjson" "$BATS_TEST_TMPDIR/head.ndjson"
	bundled=$output
	run -0 --separate-stderr qe-cell-diff -f '.document | test("^dyn")' "$BATS_TEST_TMPDIR/base.ndjson" "$BATS_TEST_TMPDIR/head.ndjson"
	assert_equal "$bundled" "$output"
	run -0 jq -r 'select(.kind == "notebook-diff") | .document' <<< "$output"
	refute_output --regexp '^[^d]'
	# libcrypto, then qe-comment; the hook finds its startup file in share/
	run -0 --separate-stderr bash -c '"$1/bin/qe-stamp" < "$2" | "$1/bin/qe-comment" -r' _ "$B" "$BATS_TEST_TMPDIR/head.ndjson"
	assert_line --index 0 '## Lecture execution times (this build)'
	HOME="$BATS_TEST_TMPDIR/home" run -0 "$B/bin/qe-hook" arm
	HOME="$BATS_TEST_TMPDIR/home" run -0 --separate-stderr "$B/bin/qe-hook" status
	assert_line --index 0 "hook: $BATS_TEST_TMPDIR/home/.ipython/profile_default/startup/90-qe-telemetry.py (armed)"
}

@test "the bundle runs in a bare root that holds only glibc's loader, libc and libm (chroot)" {
	[ "$(id -u)" -eq 0 ] || skip "chroot needs root"
	command -v unshare > /dev/null || skip "no unshare (util-linux)"
	local r="$BATS_TEST_TMPDIR/root" lib l
	lib=$(dirname "$(ldd /bin/sh | awk '$1 == "libc.so.6" { print $3 }')")
	mkdir -p "$r/$lib" "$r/proc" "$r/opt" "$r/data"
	for l in libc.so.6 libm.so.6; do cp -L "$lib/$l" "$r/$lib/"; done
	l=$(ldd /bin/sh | awk '/ld-linux/ { print $1 }')
	mkdir -p "$r/$(dirname "$l")"
	cp -L "$l" "$r/$l"
	cp -a "$B" "$r/opt/qe"
	cp "$(shared archives/head.zip)" "$r/data/"
	unshare -m true 2> /dev/null || skip "no mount namespace here (unshare -m)"
	# $ORIGIN is read from /proc/self/exe, present in every container: mounted
	# in a private mount namespace that ends with the command
	run -0 --separate-stderr unshare -m sh -c 'mount -t proc proc "$1/proc" && chroot "$1" /opt/qe/bin/qe-cache-extract /data/head.zip' _ "$r"
	local inroot=$output
	run -0 --separate-stderr qe-cache-extract "$(shared archives/head.zip)"
	assert_equal "$inroot" "$output"
	run -0 --separate-stderr unshare -m sh -c 'mount -t proc proc "$1/proc" && chroot "$1" /opt/qe/bin/qe-cell-diff --version' _ "$r"
	assert_output "qe-cell-diff 0.1.0"
	# and nothing else is there to be found
	run -127 chroot "$r" /bin/sh -c true
}

@test "tools/sources: a copy of exactly the listed files builds and installs (the action's cold-cache source install)" {
	local s="$BATS_TEST_TMPDIR/src" f
	mkdir "$s"
	(cd "$REPO" && tar -cf - $(grep -v '^#' tools/sources)) | tar -C "$s" -xf -
	make -s -C "$s" clean
	run -0 make -s -C "$s" -j2 all
	run -0 make -s -C "$s" install PREFIX="$BATS_TEST_TMPDIR/prefix"
	run -0 "$BATS_TEST_TMPDIR/prefix/bin/qe-cell-diff" --version
	assert_output "qe-cell-diff 0.1.0"
	# every file the Makefile must include is listed; optional ones say so
	run -0 sed -n 's/^include  *//p' "$REPO/Makefile"
	for f in "${lines[@]}"; do
		[ -e "$s/$f" ] || fail "the Makefile includes $f, which tools/sources leaves out"
	done
	# optional: the benchmarks, and the header dependencies a build wrote
	run -0 sed -n 's/^-include  *//p' "$REPO/Makefile"
	assert_equal "${#lines[@]}" 2
	assert_line -n 0 "bench/Makefile.inc"
	assert_line -n 1 "\$(shell find \$(B) -name '*.d' 2>/dev/null)"
	# the two users of the list read it, and name no other copy list
	run -0 grep -c 'tools/sources' "$REPO/tools/dist.sh" "$REPO/action/tools.sh"
	refute_output --partial ':0'
	run -1 grep -n 'cp -R Makefile' "$REPO/action/install.sh" "$REPO/action/tools.sh" "$REPO/tools/dist.sh"
}

# stubs DIR [PACKAGE...]: id says uid 1000, sudo asks for a password, and
# dpkg-query says the PACKAGEs are not installed
stubs() {
	mkdir -p "$1"
	printf '#!/bin/sh\n[ "$1" = -u ] && { echo 1000; exit 0; }\nexec /usr/bin/id "$@"\n' > "$1/id"
	printf '#!/bin/sh\necho "sudo: a password is required" >&2\nexit 1\n' > "$1/sudo"
	printf '#!/bin/sh\nfor p in %s; do [ "$4" = "$p" ] && { echo not-installed; exit 0; }; done\nexec /usr/bin/dpkg-query "$@"\n' "${*:2}" > "$1/dpkg-query"
	chmod +x "$1"/*
}

@test "tools/deps: one list per purpose; what is missing is installed, or named with the command that installs it" {
	run -0 "$REPO/tools/deps" --list build
	assert_output "build-essential pkg-config libcjson-dev libjq-dev libarchive-dev libsqlite3-dev zlib1g-dev libssl-dev"
	run -0 "$REPO/tools/deps" --list test
	assert_output --regexp '^build-essential pkg-config libcjson-dev libjq-dev libarchive-dev libsqlite3-dev zlib1g-dev libssl-dev jq .* python3-numpy .*$'
	run -0 "$REPO/tools/deps" --list ci
	assert_output --regexp ' clang libclang-rt-14-dev valgrind chromium$'
	run -2 "$REPO/tools/deps" lint
	assert_output "usage: tools/deps [--list | --missing | --check] [build | test | ci]"
	# here every package is installed
	run -0 "$REPO/tools/deps" --missing build
	assert_output ""
	run -0 "$REPO/tools/deps" build
	assert_output ""
	# not root, sudo wants a password, two packages missing: the list, why, and the command
	stubs "$BATS_TEST_TMPDIR/stubs" libjq-dev libcjson-dev
	PATH="$BATS_TEST_TMPDIR/stubs:$PATH" run -0 "$REPO/tools/deps" --missing build
	assert_output "libcjson-dev libjq-dev"
	PATH="$BATS_TEST_TMPDIR/stubs:$PATH" run -3 "$REPO/tools/deps" --check build
	assert_output "tools/deps: missing packages: libcjson-dev libjq-dev"
	PATH="$BATS_TEST_TMPDIR/stubs:$PATH" run -3 "$REPO/tools/deps" build < /dev/null
	assert_output - <<-'EOF'
	tools/deps: missing packages: libcjson-dev libjq-dev
	tools/deps: cannot install them here (not root, and sudo needs a password); as root run:
	  apt-get update && apt-get install -y --no-install-recommends libcjson-dev libjq-dev
	EOF
	# not root and no sudo at all: every command of the machine but sudo
	local bin="$BATS_TEST_TMPDIR/bin" d f
	mkdir -p "$bin"
	for d in /usr/local/bin /usr/bin /bin /usr/sbin /sbin; do
		for f in "$d"/*; do
			[ "${f##*/}" = sudo ] || [ -e "$bin/${f##*/}" ] || ln -s "$f" "$bin/${f##*/}"
		done
	done
	rm "$BATS_TEST_TMPDIR/stubs/sudo"
	PATH="$BATS_TEST_TMPDIR/stubs:$bin" run -1 command -v sudo
	PATH="$BATS_TEST_TMPDIR/stubs:$bin" run -3 "$REPO/tools/deps" build < /dev/null
	assert_line --index 1 "tools/deps: cannot install them here (not root, and no sudo); as root run:"
	# .ci/run, the README and the CI workflow install through it
	run -0 grep -c 'tools/deps' "$REPO/.ci/run" "$REPO/README.md" "$REPO/tests/action/ubuntu-packages.sh"
	refute_output --partial ':0'
	run -1 grep -l 'libcjson-dev' "$REPO/tests/action/ubuntu-packages.sh" "$REPO/action/install.sh"
	# .ci/run runs README.md's two commands as written there, after apt-get
	# update; then it installs `tools/deps --list ci` written out (the same
	# packages, in one apt-get install after the README's commands, so they
	# install the test set themselves) and checks with tools/deps --check ci
	run -0 /usr/bin/python3 - "$REPO/README.md" "$REPO/.ci/run" "$(sh "$REPO/tools/deps" --list ci)" <<-'PY'
	import sys
	section = open(sys.argv[1]).read().split("\n## The two commands\n", 1)[1].split("\n## ", 1)[0]
	readme = [l[4:] for l in section.splitlines() if l.startswith("    ")]
	text = open(sys.argv[2]).read()
	run = [l for l in text.splitlines() if l.strip() and not l.lstrip().startswith("#")]
	print(len(readme), "commands in README.md")
	install = [i for i, l in enumerate(run) if "apt-get install" in l]
	want = ["apt-get update"] + [c + " || exit" for c in readme] + ["tools/deps --check ci"]
	at = [run.index(w) if w in run else -1 for w in want]
	at = at[:-1] + install + at[-1:]
	print("in order" if -1 not in at and at == sorted(at) else "not in order: %s" % at)
	print("apt-get install:", len(install))
	words = " ".join(text.replace("\\\n", " ").split("apt-get install", 1)[1].split("\n", 1)[0].split())
	listed = [w for w in words.split() if not w.startswith("-")]
	print("the list of tools/deps" if sorted(listed) == sorted(sys.argv[3].split()) else "lists differ: %s" % listed)
	PY
	assert_output - <<-'EOF'
	2 commands in README.md
	in order
	apt-get install: 1
	the list of tools/deps
	EOF
}

@test "release.yml: by hand, make dist on ubuntu-22.04 (x86_64 and arm) into a draft; on version tags, the check and the publication; inner actions pinned by commit SHA" {
	local wf="$REPO/.github/workflows/release.yml"
	run -0 /usr/bin/python3 - "$wf" <<-'PY'
	import re, sys, yaml
	wf = yaml.safe_load(open(sys.argv[1]))
	on = wf[True] if True in wf else wf["on"]
	print("tags", on["push"]["tags"], "dispatch", "workflow_dispatch" in on)
	print("runners", wf["jobs"]["bundle"]["strategy"]["matrix"]["runner"])
	print("write", [j for j, v in wf["jobs"].items() if (v.get("permissions") or {}).get("contents") == "write"])
	print("on tags", [j for j, v in wf["jobs"].items() if v.get("if") == "github.event_name == 'push'"])
	print("checks", any("check-release" in (st.get("run") or "") for st in wf["jobs"]["publish"]["steps"]))
	PY
	assert_output - <<-'EOF'
	tags ['v*.*.*'] dispatch True
	runners ['ubuntu-22.04', 'ubuntu-22.04-arm']
	write ['draft', 'publish']
	on tags ['publish']
	checks True
	EOF
	run -0 grep -E '^\s+- uses: ' "$wf"
	for line in "${lines[@]}"; do
		[[ $line =~ uses:\ [a-z-]+/[a-z-]+@[0-9a-f]{40}\ \#\ v[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "not pinned by commit SHA with its version: $line"
	done
	[ "${#lines[@]}" -eq 5 ]
}

@test "tools/release.sh check-release: a tagged commit must name QE_VERSION and hold its bundles' digests (the release CI refuses one without); verify compares bundles with them" {
	local t="$BATS_TEST_TMPDIR/tree" d=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
	mkdir -p "$t/tools" "$t/lib" "$t/action"
	cp "$REPO/tools/release.sh" "$t/tools/"
	cp "$REPO/lib/qe.h" "$t/lib/"
	cp "$REPO/action/release.txt" "$t/action/"
	# as the tree is between releases: empty digests
	run -1 "$t/tools/release.sh" check-release
	assert_line "release: action/release.txt has no SHA-256 digest for linux-x86_64: build the draft release first (release.yml, run on this commit), commit the lines it prints, tag that commit"
	# digests filled in, the version right: accepted
	printf 'version=0.1.0\nsha256-linux-x86_64=%s\nsha256-linux-aarch64=%s\n' "$d" "$d" > "$t/action/release.txt"
	run -0 "$t/tools/release.sh" check-release
	assert_output ""
	# another version than lib/qe.h's
	sed -i 's/^version=.*/version=0.0.9/' "$t/action/release.txt"
	run -1 "$t/tools/release.sh" check-release
	assert_output "release: action/release.txt names version '0.0.9', lib/qe.h's QE_VERSION is '0.1.0'"
	# the version of this tree's action/release.txt is QE_VERSION
	run -0 sed -n 's/^version=//p' "$REPO/action/release.txt"
	assert_output "$(sed -n 's/^#define QE_VERSION "\(.*\)"$/\1/p' "$REPO/lib/qe.h")"
	# verify: the bundles must be the ones named
	mkdir "$t/rel"
	cp "$D"/out/*.tar.gz "$t/rel/"
	for a in x86_64 aarch64; do
		[ -f "$t/rel/qe-telemetry-0.1.0-linux-$a.tar.gz" ] || cp "$D"/out/*.tar.gz "$t/rel/qe-telemetry-0.1.0-linux-$a.tar.gz"
	done
	"$REPO/tools/release.sh" sums "$t/rel" > "$t/action/release.txt"
	run -0 "$t/tools/release.sh" verify "$t/rel"
	printf 'x' >> "$t/rel/qe-telemetry-0.1.0-linux-$(uname -m).tar.gz"
	run -1 "$t/tools/release.sh" verify "$t/rel"
	assert_output "release: $t/rel/qe-telemetry-0.1.0-linux-$(uname -m).tar.gz is missing or is not the bundle action/release.txt names"
}

@test ".github/workflows/ci.yml: on a version tag, CI runs check-tag and check-release" {
	run -0 /usr/bin/python3 - "$REPO/.github/workflows/ci.yml" <<-'PY'
	import sys, yaml
	j = yaml.safe_load(open(sys.argv[1]))["jobs"]["release-txt"]
	print(j["if"])
	print([st["run"] for st in j["steps"] if "run" in st])
	PY
	assert_output - <<-'EOF'
	startsWith(github.ref, 'refs/tags/v')
	['tools/release.sh check-tag "$TAG" && tools/release.sh check-release']
	EOF
}

@test "tools/release.sh: the tag must be v + QE_VERSION; SHA256SUMS and the lines of action/release.txt" {
	run -0 "$REPO/tools/release.sh" check-tag v0.1.0
	run -1 "$REPO/tools/release.sh" check-tag v0.1.1
	assert_output "release: the tag 'v0.1.1' is not v0.1.0, the version in lib/qe.h"
	mkdir "$BATS_TEST_TMPDIR/rel"
	cp "$D"/out/*.tar.gz "$BATS_TEST_TMPDIR/rel/"
	local f digest
	f=$(cd "$D/out" && ls -- *.tar.gz)
	digest=$(sha256sum "$D/out/$f" | cut -d' ' -f1)
	run -0 "$REPO/tools/release.sh" sums "$BATS_TEST_TMPDIR/rel"
	assert_line --index 0 "version=0.1.0"
	assert_line "sha256-linux-$(uname -m)=$digest"
	run -0 cat "$BATS_TEST_TMPDIR/rel/SHA256SUMS"
	assert_output "$digest  $f"
	# the lines have the form action/release.txt has
	run -0 grep -c -E '^(version|sha256-linux-x86_64|sha256-linux-aarch64)=' "$REPO/action/release.txt"
	assert_output 3
}
