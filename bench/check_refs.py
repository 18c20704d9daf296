#!/usr/bin/python3
"""The equality checks of run_bench.py alone, without timing: each tool and
each reference run once on the bench inputs, their records compared with
compare.py.

    check_refs.py [--scale default|small] [--work DIR] [--only extract|diff]

--work is where the generated inputs are (default bench/work; generated
there when missing, as run_bench.py does); outputs go to a temporary
directory. Prints one line per check; exit 1 if a check fails.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import run_bench as rb


def run(cmd, out):
    with open(out, "wb") as f:
        subprocess.run(cmd, stdout=f, check=True, cwd=rb.TOP)


def extract(scale, tmp, checks):
    d, _ = rb.gen_cache(scale)
    cache, zp = os.path.join(d, ".jupyter_cache"), os.path.join(d, "build-cache.zip")
    tool, ref = os.path.join(rb.TOP, "qe-cache-extract"), os.path.join(rb.BENCH, "ref_extract.py")
    o = lambda n: os.path.join(tmp, n)  # noqa: E731
    run([tool, "-j", "1", cache], o("c-dir"))
    run([tool, "-j", "1", zp], o("c-zip"))
    run([rb.PY, ref, cache], o("py-dir"))
    run([rb.PY, ref, zp], o("py-zip"))
    run([os.path.join(rb.BENCH, "ref_extract_jq.sh"), cache], o("jq-dir"))
    checks.append(rb.check([o("c-dir"), o("py-dir")], "qe-cache-extract = Python reference (directory, all fields)"))
    checks.append(rb.check([o("c-dir"), o("py-zip")], "qe-cache-extract = Python reference (zip, all fields)"))
    checks.append(rb.check(["--kind", "cell", "--fields", rb.JQ_FIELDS, o("c-dir"), o("jq-dir")],
                           "qe-cache-extract = jq+sqlite3 reference (cell records, jq subset)"))


def diff(cells, tmp, checks):
    d, _ = rb.gen_reports(cells)
    b, h = os.path.join(d, "base.ndjson"), os.path.join(d, "head.ndjson")
    o = lambda n: os.path.join(tmp, n)  # noqa: E731
    run([os.path.join(rb.TOP, "qe-cell-diff"), b, h], o("d-c"))
    run([rb.PY, os.path.join(rb.BENCH, "ref_diff.py"), b, h], o("d-py"))
    checks.append(rb.check(["--fields", rb.DIFF_FIELDS, o("d-c"), o("d-py")],
                           "qe-cell-diff = Python reference (verdicts, flags, measure, counts, runner factor)"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", default=os.environ.get("BENCH_SCALE", "small"), choices=sorted(rb.SCALES))
    ap.add_argument("--work", default=rb.WORK)
    ap.add_argument("--only", choices=["extract", "diff"])
    a = ap.parse_args()
    rb.WORK = os.path.abspath(a.work)
    sc, checks = rb.SCALES[a.scale], []
    with tempfile.TemporaryDirectory(prefix="check_refs.") as tmp:
        if a.only in (None, "extract"):
            extract(sc["cache"], tmp, checks)
        if a.only in (None, "diff"):
            diff(sc["cells"], tmp, checks)
    for w, ok, line in checks:
        print(f"- {'OK' if ok else 'FAILED'}: {w}: {line}")
    return 0 if all(ok for _, ok, _ in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
