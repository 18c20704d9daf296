#!/usr/bin/python3
"""qe-history at the scale of a year of a 150-lecture repository.

    history_bench.py [--lectures L] [--cells C] [--builds N] [--runs R] [--work DIR]

Generates (once, into bench/work/history-LxCxN/, or DIR) weekly main builds
with tests/tools/gen_history.py --year from real qe-cache-extract records of
the timed fixture caches: L lectures (default 150) of C code cells (default
135), N builds (default 52, a year: about 1,000,000 cell records; 520, ten
years: 10 million), gzip, every record stamped, the first 20 weeks without
build_id. Then times, as separate processes on a fresh database:

  - qe-history add of every report (one process, one core), and
  - every query (slowest, series of a lecture, of a cell by label and by
    code-cell number, changes, fences, compare without --by and with --by
    numpy, cost, report -o), R runs each (default 3), median;

with CPU time and peak RSS from wait4(2). Prints a Markdown table and writes
it to bench/work/history-results.md. Exit 1 if a target is missed in CPU
time (add under 5 s per million cell records, each query under 1 s).
"""
import argparse
import glob
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
WORK = os.path.join(HERE, "work")
FIX = os.path.join(ROOT, "tests", "fixtures", "shared", "jupyter-cache-timed")


def run(argv, out=subprocess.DEVNULL):
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdout=out, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    err = p.stderr.read().decode()
    p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{argv[:3]}: exit {os.waitstatus_to_exitcode(status)}: {err}")
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024


def generate(args, outdir):
    if os.path.exists(os.path.join(outdir, "truth.json")):
        return
    os.makedirs(WORK, exist_ok=True)
    for side in ("base", "head"):
        with open(os.path.join(WORK, f"history-{side}.ndjson"), "w") as fh:
            subprocess.run([os.path.join(ROOT, "qe-cache-extract"),
                            os.path.join(FIX, side, ".jupyter_cache")], stdout=fh, check=True)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, os.path.join(ROOT, "tests", "tools", "gen_history.py"), "--year",
                    "--lectures", str(args.lectures), "--cells", str(args.cells),
                    "--builds", str(args.builds), "--prs", "0",
                    os.path.join(WORK, "history-base.ndjson"), os.path.join(WORK, "history-head.ndjson"),
                    outdir], check=True)
    print(f"generated in {time.perf_counter() - t0:.0f} s", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lectures", type=int, default=150)
    ap.add_argument("--cells", type=int, default=135)
    ap.add_argument("--builds", type=int, default=52)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--work")
    args = ap.parse_args()
    outdir = args.work or os.path.join(WORK, f"history-{args.lectures}x{args.cells}x{args.builds}")
    generate(args, outdir)
    reports = sorted(glob.glob(os.path.join(outdir, "main-*.ndjson.gz")))
    size = sum(os.path.getsize(r) for r in reports)
    db = os.path.join(outdir, "bench.db")
    for f in (db, db + "-wal", db + "-shm"):
        if os.path.exists(f):
            os.remove(f)
    qh = os.path.join(ROOT, "qe-history")
    for r in reports:  # warm the page cache
        with open(r, "rb") as fh:
            while fh.read(1 << 20):
                pass
    rows = []
    with open(os.path.join(outdir, "add.ndjson"), "w") as fh:
        wall, cpu, rss = run(["taskset", "-c", "0", qh, "add", "-d", db] + reports, out=fh)
    cells = int(subprocess.run(["jq", "-s", "map(.cells) | add", os.path.join(outdir, "add.ndjson")],
                               capture_output=True, text=True, check=True).stdout)
    rows.append(("add (%d reports, %d cell records, %.0f MB gzip)" % (len(reports), cells, size / 1e6),
                 wall, cpu, rss, 5.0 * max(1, cells / 1e6)))
    site = os.path.join(outdir, "site")
    queries = [("slowest", ["slowest"]), ("series (lecture)", ["series", "lectures/gen/000"]),
               ("series (cell, label)", ["series", "lectures/gen/000", "markov-simulate"]),
               ("series (cell, code cell 2)", ["series", "lectures/gen/000", "2"]),
               ("changes", ["changes"]), ("fences", ["fences"]),
               ("compare", ["compare"]), ("compare --by numpy", ["compare", "--by", "numpy"]),
               ("cost", ["cost"]), ("report -o (the page)", ["report", "-o", site])]
    for name, q in queries:
        runs = [run(["taskset", "-c", "0", qh] + [q[0], "-d", db] + q[1:]) for _ in range(args.runs)]
        rows.append((name, statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs),
                     max(r[2] for r in runs), 1.0))
    dbsize = os.path.getsize(db)
    lines = ["| step | wall s | CPU s | peak RSS MiB | target CPU s |", "|---|---|---|---|---|"]
    bad = 0
    for name, wall, cpu, rss, target in rows:
        bad += cpu > target
        lines.append(f"| {name} | {wall:.2f} | {cpu:.2f} | {rss:.0f} | < {target:g} |")
    lines.append("")
    lines.append(f"Database: {dbsize / 1e6:.0f} MB. One core (taskset -c 0), page cache warm, "
                 f"median of {args.runs} runs for queries.")
    text = "\n".join(lines) + "\n"
    print(text)
    os.makedirs(WORK, exist_ok=True)  # with --work elsewhere the results still go here
    with open(os.path.join(WORK, "history-results.md"), "w") as fh:
        fh.write(text)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
