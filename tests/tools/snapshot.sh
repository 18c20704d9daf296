#!/usr/bin/env bash
# snapshot.sh OUTDIR [BENCHDIR]: run every tool over every fixture (and, with
# BENCHDIR, over bench/work's generated inputs) and keep each command's
# stdout, stderr and exit status in OUTDIR, one file per command. Two
# snapshots taken before and after a refactor must be identical:
#
#     git stash; make; tests/tools/snapshot.sh /tmp/before; git stash pop
#     make; tests/tools/snapshot.sh /tmp/after; diff -r /tmp/before /tmp/after
#
# Tools are taken from the build directory, or from $TOOLDIR (the build of
# another checkout, e.g. the commit before a refactor). qe-stamp runs in /
# with a clean environment; its `stamped_at` (the clock) is the one value
# masked.
set -u
out=${1:?usage: snapshot.sh OUTDIR [BENCHDIR]}
bench=${2:-}
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
mkdir -p "$out"
out=$(cd "$out" && pwd)
tools=${TOOLDIR:-$top}
F=tests/fixtures
S=$F/shared
n=0

# run NAME CMD...: stdout, stderr and status of CMD into OUTDIR/NAME.*
run() {
	local name=$1
	shift
	n=$((n + 1))
	"$@" >"$out/$name.out" 2>"$out/$name.err" </dev/null
	echo $? >"$out/$name.rc"
}

# runin NAME INPUT CMD...: the same with INPUT on standard input
runin() {
	local name=$1 input=$2
	shift 2
	"$@" <"$input" >"$out/$name.out" 2>"$out/$name.err"
	echo $? >"$out/$name.rc"
}

x=$tools/qe-cache-extract
i=0
for c in $S/jupyter-cache/*/.jupyter_cache $S/jupyter-cache-timed/*/.jupyter_cache $S/archives/* \
	$S/nbclient/base $S/nbclient/head $S/papermill $S/mystnb-build/base $S/mystnb-build/head \
	$S/notebooks/base $S/notebooks/head $F/qe-cache-extract $F/hostile; do
	i=$((i + 1))
	run "extract-$i" $x "$c"
	run "extract-$i-all" $x -a "$c"
done
run extract-since $x --all --since 2026-11-29T14:32:10Z $S/jupyter-cache/head-incremental/.jupyter_cache
run extract-baseline $x -b $S/jupyter-cache/base/.jupyter_cache $S/jupyter-cache/head-incremental/.jupyter_cache
run extract-root $x -r $S/notebooks/base $S/jupyter-cache/base/.jupyter_cache
run extract-margin $x --stale-margin 0 $S/jupyter-cache-timed/base/.jupyter_cache
run extract-build $x $S/jupyter-cache/base
run extract-globaldb $x $S/jupyter-cache/base/.jupyter_cache/global.db
run extract-hook $x -t $F/hook/cache/hook.log $F/hook/cache
run extract-hook-par $x -t $F/hook/parallel/hook.log $F/hook/parallel
run extract-many $x $S/jupyter-cache/base/.jupyter_cache $S/archives/head.zip $S/nbclient/base
runin extract-stdin <(printf '%s\n' $S/archives/base.zip $S/nbclient/head) $x
run extract-missing $x /nonexistent $S/archives/base.zip
run extract-maxnb $x --max-notebook 1000 $S/jupyter-cache/base/.jupyter_cache

d=$tools/qe-cell-diff
D=$F/qe-cell-diff
run diff-stock $d $D/stock-base.ndjson $D/stock-head.ndjson
run diff-stock-e $d -e $D/stock-base.ndjson $D/stock-head.ndjson
run diff-incr $d $D/stock-base.ndjson $D/stock-head-incremental.ndjson
run diff-timed $d $D/timed-base.ndjson $D/timed-head.ndjson
run diff-timed-A $d -A $D/timed-base.ndjson $D/timed-head.ndjson
run diff-aa $d $D/aa-run1.ndjson $D/aa-run2.ndjson
run diff-rep $d $D/rep-base.ndjson $D/rep-head.ndjson
run diff-same $d $D/stamped-base.ndjson $D/stamped-head-same.ndjson
run diff-other $d $D/stamped-base.ndjson $D/stamped-head-other.ndjson
run diff-other-A $d -A $D/stamped-base.ndjson $D/stamped-head-other.ndjson
run diff-self $d $D/timed-base.ndjson $D/timed-base.ndjson
run diff-bad $d $D/timed-base.ndjson $D/stock-head.expected
for f in $F/qe-comment/*.ndjson; do
	b=$(basename "$f" .ndjson)
	run "diffin-$b" $d "$f" "$f"
done
run diff-help $d --help
run diff-opts $d -a 0.1 -r 1.2 --alpha 0.1 --exec-abs 1 --nb-abs 0.2 --nb-ratio 1.1 $D/timed-base.ndjson $D/timed-head.ndjson
run diff-jq $d -k '.label // .index' -d '.document' -f 'select(.status != "error")' $D/timed-base.ndjson $D/timed-head.ndjson
run diff-badopt $d -r 0.5 $D/timed-base.ndjson $D/timed-head.ndjson
run diff-gz sh -c "gzip -c $D/timed-base.ndjson | $d - $D/timed-head.ndjson"
# tests/fixtures/verdicts: the extractions (hook logs, -b) and the diffs with --changed and -i
V=$F/verdicts
run verdicts-x-aa1 $x -t $V/aa1/hook.log $V/aa1/.jupyter_cache
run verdicts-x-aa2 $x -b $V/aa1/.jupyter_cache -t $V/aa2/hook.log $V/aa2/.jupyter_cache
run verdicts-x-head $x -b $V/aa1/.jupyter_cache -t $V/head/hook.log $V/head/.jupyter_cache
run verdicts-diff-aa $d -e "$out/verdicts-x-aa1.out" "$out/verdicts-x-aa2.out"
run verdicts-diff-pr $d -e --changed $V/changed.txt "$out/verdicts-x-aa1.out" "$out/verdicts-x-head.out"
run verdicts-diff-ign $d -e -i 'long#long-hot' -i errors_allowed "$out/verdicts-x-aa1.out" "$out/verdicts-x-head.out"

c=$tools/qe-comment
for f in $F/qe-comment/*.ndjson; do
	b=$(basename "$f" .ndjson)
	run "comment-$b" $c "$f"
	run "comment-$b-s" $c -s "$f"
	run "comment-$b-l" $c -l 4096 "$f"
	run "comment-$b-n" $c -n 1 -t "T <b>" -u https://example.org/r -I 99 "$f"
	run "comment-$b-SN" $c -S 0123456789abcdef0123456789abcdef01234567 -N 42 "$f"
done
run comment-help $c --help
run comment-report $c -r $F/qe-comment/report/build.ndjson
run comment-report-l $c -r -l 4096 $F/qe-comment/report/build.ndjson

s=$tools/qe-stamp
Q=$top/$F/qe-stamp
stamp() {
	(cd / && env -i PATH="$PATH" HOME=/nonexistent "$s" "$@") |
		sed -E 's/"stamped_at":"[^"]*"/"stamped_at":"X"/g'
}
run stamp-plain stamp $Q/records.ndjson
run stamp-full stamp -r runs-on=1/family=m7 -f $Q/environment.yml -c $Q/conda-list.json \
	-p $Q/pip-list.json -m $Q/quantecon-container $Q/records.ndjson
run stamp-d stamp -d -c $Q/conda-list.json
run stamp-R stamp -R $Q/stamped.ndjson
run stamp-twice stamp $Q/stamped.ndjson
run stamp-help $s --help

for t in qe-cache-extract qe-cell-diff qe-comment qe-stamp; do
	run "version-$t" "$tools/$t" --version
	run "badopt-$t" "$tools/$t" --no-such-option
done

# The hostile catalogue's inputs are made by its tests; the ones kept as files:
run hostile-span $x $F/hostile/span-10000-years.ipynb

if [ -n "$bench" ]; then
	for c in "$bench"/cache-*; do
		[ -d "$c" ] || continue
		b=$(basename "$c")
		run "bench-$b" sh -c "$x $c/.jupyter_cache | sha256sum"
		run "bench-$b-zip" sh -c "$x $c/build-cache.zip | sha256sum"
	done
	for r in "$bench"/reports-*; do
		[ -d "$r" ] || continue
		b=$(basename "$r")
		run "bench-$b" sh -c "$d $r/base.ndjson $r/head.ndjson | sha256sum"
		run "bench-$b-unstamped" sh -c "$d $r/base-unstamped.ndjson $r/head-unstamped.ndjson | sha256sum"
	done
fi
echo "snapshot: $out" >&2
