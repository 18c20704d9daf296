#!/bin/sh
# Build every libFuzzer target with clang (ASan + UBSan) and run each for
# FUZZ_TIME seconds (default 60) from a seed corpus made of the fixtures.
# usage: fuzz/run.sh [target ...]
# targets: notebook globaldb archive hooklog runs mystmd time ndjson jscan jwnum cell-diff comment stamp
set -eu
cd "$(dirname "$0")/.."
FUZZ_TIME=${FUZZ_TIME:-60}
CLANG=${CLANG:-clang}
out=${FUZZ_DIR:-build/fuzz}
mkdir -p "$out"
flags="-g -O1 -std=c99 -D_GNU_SOURCE -Ilib -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined"
libs="-larchive -lsqlite3 -lcjson -lcrypto -lz -lm"
F=tests/fixtures/shared

seed() {	# seed TARGET: the fixture files that exercise it
	d="$out/seed-$1"
	rm -rf "$d"
	mkdir -p "$d"
	case $1 in
	notebook) find "$F/nbclient" "$F/papermill" "$F/jupyter-cache-timed/base" tests/fixtures/qe-cache-extract -name '*.ipynb' -exec cp --backup=numbered -t "$d" {} + ;;
	globaldb) i=0; for db in "$F"/jupyter-cache*/*/.jupyter_cache/global.db tests/fixtures/hook/*/.jupyter_cache/global.db; do i=$((i + 1)); cp "$db" "$d/$i.db"; done ;;
	archive) cp "$F"/archives/base-artifact.zip "$F"/archives/head.tar.gz "$d/" ;;
	hooklog) head -c 20000 tests/fixtures/hook/cache/hook.log > "$d/hook.log" ;;
	runs) sed -n '/^folder$/{n;p}' tests/unit/runs.test | while IFS= read -r l; do printf '%b' "$l" > "$d/run.$((n += 1))"; done ;;
	mystmd) for p in tests/fixtures/mystmd/ipynb-form/_build/site/content/*.json; do
		{ cat "$p"; printf '\000'; } > "$d/$(basename "$p")"; done
		k=$(ls tests/fixtures/mystmd/ipynb-form/_build/execute | head -1)
		for p in tests/fixtures/mystmd/ipynb-form/_build/site/content/*.json; do
			{ cat "$p"; printf '\000'; cat "tests/fixtures/mystmd/ipynb-form/_build/execute/$k"; } > "$d/e-$(basename "$p")"; done ;;
	time) for s in 2026-11-29T14:30:11.299926Z 2026-11-29T14:30:11Z 2026-11-29T14:33:53.654607+00:00 \
	    '2026-11-29 14:31:59.859127' 2017-04-22T12:27:39.829447-04:00 2026-11-29T14:30:11.904Z; do
		printf '%s' "$s" > "$d/$(printf '%s' "$s" | cksum | cut -d' ' -f1)"; done ;;
	jscan) find "$F/nbclient" tests/fixtures/qe-cache-extract -name '*.ipynb' -size -60k -exec cp --backup=numbered -t "$d" {} +
		head -3 tests/fixtures/qe-cell-diff/*.ndjson | grep '^{' | split -l 1 - "$d/line-" ;;
	jwnum) python3 -c 'import struct, sys
for i, (x, d) in enumerate([(0.5, 0), (1234.5678, 4), (0.0000125, 6), (-0.0000004, 6), (1e12 + 0.5, 6),
                            (2.675, 2), (9999.9999995, 6), (123456789.123456, 5)]):
    open(sys.argv[1] + "/%d" % i, "wb").write(struct.pack("<dB", x, d))' "$d" ;;
	ndjson) cp "$F"/reference/jupyter-cache-timed_base.cells.jsonl "$d/"; head -c 4000 tests/fixtures/hook/cache/hook.log | gzip > "$d/log.gz" ;;
	cell-diff)	# BASE 0x1e HEAD, each cut to 40 lines
		i=0; for b in tests/fixtures/qe-cell-diff/*.ndjson; do
			for h in tests/fixtures/qe-cell-diff/*.ndjson; do
				[ "$b" = "$h" ] && continue
				i=$((i + 1)); { head -40 "$b"; printf '\036'; head -40 "$h"; } > "$d/$i"
			done
		done	# and qe-replicate's stream as both operands (its replicate mode)
		r=tests/fixtures/qe-cell-diff/replicate-warm.ndjson
		{ cat "$r"; printf '\036'; cat "$r"; } > "$d/replicate" ;;
	comment) cp tests/fixtures/qe-comment/*.ndjson tests/fixtures/qe-comment/report/*.ndjson "$d/" ;;
	stamp) cp tests/fixtures/qe-stamp/*.ndjson tests/fixtures/qe-stamp/*.json tests/fixtures/qe-stamp/gpus-*.csv \
		tests/fixtures/qe-stamp/quantecon-container /etc/os-release "$d/" 2>/dev/null
		head -20 "$F"/reference/jupyter-cache-timed_base.cells.jsonl > "$d/cells" ;;
	esac
	echo "$d"
}

build() {	# build TARGET
	T=$(echo "$1" | tr a-z- A-Z_)
	case $1 in
	time|ndjson|jscan|jwnum) src=fuzz/fuzz-lib.c ;;
	cell-diff|comment|stamp) src=fuzz/fuzz-$1.c ;;
	*) src=fuzz/fuzz-extract.c ;;
	esac
	$CLANG $flags -DTARGET_"$T" -o "$out/fuzz-$1" "$src" lib/*.c lib/*/*.c $libs -ljq
}

status=0
for t in ${@:-notebook globaldb archive hooklog runs mystmd time ndjson jscan jwnum cell-diff comment stamp}; do
	build "$t"
	s=$(seed "$t")
	mkdir -p "$out/corpus-$t"
	echo "fuzz-$t: ${FUZZ_TIME}s"
	if ! "$out/fuzz-$t" -max_total_time="$FUZZ_TIME" -close_fd_mask=2 -rss_limit_mb=2048 \
	    -max_len=262144 -artifact_prefix="$out/crash-$t-" "$out/corpus-$t" "$s" 2>"$out/fuzz-$t.log"; then
		echo "fuzz-$t: FAILED, see $out/fuzz-$t.log"
		tail -30 "$out/fuzz-$t.log"
		status=1
	fi
	grep -E '^(#[0-9]+\s+DONE|Done [0-9]+ runs)' "$out/fuzz-$t.log" | tail -1
done
exit $status
