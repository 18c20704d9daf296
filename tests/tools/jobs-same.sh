#!/bin/bash
# jobs-same.sh ARGS...: qe-cache-extract (QE_REAL_EXTRACT) run with -j 1,
# -j 2 and -j 8 on the same arguments and the same stdin; any difference in
# stdout, stderr or exit status is printed and exits 99. Otherwise the
# -j 1 run's stdout, stderr and status are passed on, so a bats suite run
# with this on PATH as qe-cache-extract (make jobs-check) checks every
# invocation it makes. The -j 1 run passed on is a fourth one, with the
# caller's own stdout and stderr (a full disk, a closed stdout, a reader
# that left behave as they do). An -j of the caller's own comes after ours
# and wins.
set -u
real=${QE_REAL_EXTRACT:?}
d=$(mktemp -d "${TMPDIR:-/tmp}/jobs-same.XXXXXX") || exit 99
if [ -t 0 ]; then : > "$d/in"; else cat > "$d/in"; fi
for j in 1 2 8; do
	"$real" -j "$j" "$@" < "$d/in" > "$d/out$j" 2> "$d/err$j"
	echo $? > "$d/rc$j"
done
for j in 2 8; do
	for f in out err rc; do
		if ! cmp -s "$d/${f}1" "$d/$f$j"; then
			echo "jobs-same.sh: -j 1 and -j $j differ in $f: qe-cache-extract $*" >&2
			diff "$d/${f}1" "$d/$f$j" | head -20 >&2
			rm -rf "$d"
			exit 99
		fi
	done
done
exec 0< "$d/in"
rm -rf "$d"
exec "$real" -j 1 "$@"
