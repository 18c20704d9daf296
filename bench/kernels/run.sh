#!/bin/sh
# bench/kernels/run.sh [K | -t]: sweep every kernel of the suite (make.py)
# on this machine, K runs of each version at each size (default 2), and
# write the kernel crossover table: qe-comment's evaluation of qe-sweep's
# records of qe-replicate --sweep's runs, stamped (qe-stamp) with this
# machine. Writes work/ (the runs) and RESULTS.md here: minutes of kernel
# runs. -t: only the table again, from the runs in work/.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$here/../..
k=${1:-2}
py=${QE_PYTHON:-/usr/bin/python3}
mkdir -p "$here/work"
[ "$k" = -t ] && k=$(jq -r 'select(.kind == "notebook") | .replicate' "$here"/work/*.ndjson | sort -n | tail -1)
[ "${1:-}" = -t ] || "$py" "$here/make.py"
[ "${1:-}" = -t ] || for nb in "$here"/*-numba.ipynb; do
	name=$(basename "$nb" -numba.ipynb)
	"$py" "$top/hook/qe-replicate" -k "$k" --sweep n=1e4,1e5,1e6,1e7 -n "$name" \
	    "$here/$name.ipynb" "$nb" 2> "$here/work/$name.err" | "$top/qe-stamp" > "$here/work/$name.ndjson"
done
"$top/qe-sweep" "$here"/work/*.ndjson > "$here/work/sweep.ndjson"
{
	printf '# Kernel crossover table: NumPy (or plain Python) against numba\n\n'
	printf 'Measured by `bench/kernels/run.sh %s` on %s, %s, %s runs of each version at n = 1e4, 1e5, 1e6, 1e7;\n' "$k" \
	    "$(jq -r 'select(.cell == null) | .machine.runner_class' "$here/work/sweep.ndjson" | head -1)" \
	    "$(jq -r 'select(.cell == null) | .machine.cpu_model' "$here/work/sweep.ndjson" | head -1)" "$k"
	printf 'each kernel notebook says n = 1e5 in its parameters cell. These are one machine'"'"'s numbers, at the load\n'
	printf 'it had: the tests assert properties, never these timings. The findings are the crossover table.\n'
	"$top/qe-comment" -s -t "Evaluation" "$here/work/sweep.ndjson" | sed 1d
} > "$here/RESULTS.md"
