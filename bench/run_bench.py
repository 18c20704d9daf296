#!/usr/bin/python3
"""Run the qe-telemetry benchmarks and print the tables (see bench/README.md).

    run_bench.py [--scale default|small] [--runs N] [--only extract|diff] [--profile]

Environment: BENCH_SCALE (default|small), BENCH_RUNS (default 3),
BENCH_ONLY (extract|diff), BENCH_PROFILE=1 (callgrind profiles too).

Generates the inputs into bench/work/ when missing (seeded: the same bytes
every time), warms the page cache, then runs every command several times and
reports medians: wall time, CPU time (user + system), throughput in MB/s and
cells/s (on wall time), peak RSS (ru_maxrss of the command's process tree as
wait4(2) reports it: the largest single process, so for a pipeline the
largest stage), and ratios against qe-cache-extract / qe-cell-diff. Before
timing, each reference's records are checked equal to the tool's
(bench/compare.py). Exit 1 if a check fails. Tables also go to
bench/work/results-SCALE.md.
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(BENCH)
WORK = os.path.join(BENCH, "work")
PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
SCALES = {"default": {"cache": 1.0, "cells": 1_070_000}, "small": {"cache": 0.1, "cells": 100_000}}
SLOW_BUDGET = 60.0     # seconds: stop repeating a command once its runs took this long
JQ_FIELDS = ("kind,document,cache_key,index,label,tags,status,error,execution_count,first_line,"
             "duration_s,timing_source,timing_method,timing_note,busy_s,start,end")
# issue 16's yardstick for qe-cell-diff: Python parsing the same lines and doing nothing else
LOADS_ALONE = "import json, sys\nfor f in sys.argv[1:]:\n    for line in open(f, 'rb'):\n        json.loads(line)\n"
DIFF_FIELDS = "kind,document,base_index,head_index,verdict,flags,measure,cells,notebooks,regression,runner_factor"


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def run_once(cmd, out, cwd=TOP, concurrent=1):
    """Run cmd (list, or str for sh -c) `concurrent` times at once. -> (wall, cpu, maxrss KB)."""
    procs = []
    t0 = time.perf_counter()
    for i in range(concurrent):
        o = open(out if i == 0 else os.devnull, "wb")
        e = open(out + ".err" if out != os.devnull else os.devnull, "wb")
        procs.append((subprocess.Popen(cmd, stdout=o, stderr=e, cwd=cwd, shell=isinstance(cmd, str)), o, e))
    cpu, rss, bad = 0.0, 0, []
    for p, o, e in procs:
        _, st, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(st)
        o.close()
        e.close()
        cpu += ru.ru_utime + ru.ru_stime
        rss = max(rss, ru.ru_maxrss)
        if p.returncode != 0:
            bad.append(p.returncode)
    wall = time.perf_counter() - t0
    if bad:
        err = open(out + ".err").read()[-2000:] if out != os.devnull else ""
        raise SystemExit(f"run_bench: {cmd if isinstance(cmd, str) else ' '.join(cmd)[:200]}: exit {bad}\n{err}")
    return wall, cpu, rss


def measure(name, cmd, runs, out=os.devnull, concurrent=1):
    res = []
    for i in range(runs):
        res.append(run_once(cmd, out, concurrent=concurrent))
        if sum(r[0] for r in res) > SLOW_BUDGET:
            break
    walls = [r[0] for r in res]
    m = {"name": name, "runs": len(res), "wall": statistics.median(walls), "wall_min": min(walls),
         "wall_max": max(walls), "cpu": statistics.median(r[1] for r in res), "rss_kb": max(r[2] for r in res)}
    log(f"  {name}: {m['wall']:.3f} s wall, {m['cpu']:.3f} s cpu, {m['rss_kb'] / 1024:.1f} MB ({len(res)} runs)")
    return m


def paired(cmd, floor, pairs):
    """cmd and floor run by turns, `pairs` times: the host's drift from one minute to the next (10-25 % of
    CPU time here) then moves both alike. -> medians of each one's CPU time and of the per-pair ratio."""
    a, b, r = [], [], []
    for _ in range(pairs):
        ca, cb = run_once(cmd, os.devnull)[1], run_once(floor, os.devnull)[1]
        a.append(ca)
        b.append(cb)
        r.append(ca / cb if cb > 0 else float("nan"))
    m = {"cmd": statistics.median(a), "floor": statistics.median(b), "ratio": statistics.median(r),
         "ratio_min": min(r), "ratio_max": max(r), "pairs": pairs}
    log(f"  paired: {m['cmd']:.3f} / {m['floor']:.3f} s cpu, ratio median {m['ratio']:.3f} "
        f"({m['ratio_min']:.3f}-{m['ratio_max']:.3f}, {pairs} pairs)")
    return m


def check(args, what):
    r = subprocess.run([PY, os.path.join(BENCH, "compare.py")] + args, capture_output=True, text=True)
    line = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else r.stderr.strip()
    log(f"  check {what}: {line}")
    if r.returncode != 0:
        log(r.stdout[-3000:])
    return (what, r.returncode == 0, line)


def same_bytes(a, b, what):
    """A check that two outputs are the same bytes."""
    ok = open(a, "rb").read() == open(b, "rb").read()
    log(f"  check {what}: {'same bytes' if ok else 'DIFFERENT'}")
    return (what, ok, "same bytes" if ok else "different bytes")


def tree_peak_kb(cmd):
    """Peak of the RSS of cmd's process tree added up (tests/tools/treerss.py: sampled every 2 ms, pages a parent
    shares with its forked workers counted in each, so an upper bound)."""
    r = subprocess.run([PY, os.path.join(TOP, "tests", "tools", "treerss.py")] + cmd, capture_output=True, text=True,
                       cwd=TOP, check=True)
    return int(r.stdout.split()[0])


def jobs_note(j1, j2, cmd2, largest):
    """-j 2 against -j 1: speed-up and the memory target (1.5 x the largest notebook + 16 MB per worker)."""
    tree = tree_peak_kb(cmd2)
    mb = 1024 * 1024
    t1, t2 = 1.5 * largest + 16 * mb, 1.5 * largest + 2 * 16 * mb
    load = " ".join(open("/proc/loadavg").read().split()[:3])
    return (f"-j 2 against -j 1: speed-up on wall time (-j 1 / -j 2) {j1['wall'] / j2['wall']:.2f}, CPU time "
            f"-j 2 / -j 1 {j2['cpu'] / j1['cpu']:.2f} "
            f"(target: speed-up >= 1.7 on 2 idle cores; load average now {load}, on {os.cpu_count()} CPUs). "
            f"Peak RSS: -j 1 {j1['rss_kb'] / 1024:.1f} MB against its target {t1 / mb:.1f} MB "
            f"(1.5 x the largest notebook + 16 MB): {'within' if j1['rss_kb'] * 1024 <= t1 else 'ABOVE'}; "
            f"-j 2 {tree / 1024:.1f} MB for the parent and its workers added up (largest single process "
            f"{j2['rss_kb'] / 1024:.1f} MB) against {t2 / mb:.1f} MB (+ 16 MB per worker): "
            f"{'within' if tree * 1024 <= t2 else 'ABOVE'}.")


def table(rows, nbytes, units, unit_name, ref):
    """Markdown table; ratio column: wall and CPU relative to the row named ref."""
    base = next(r for r in rows if r["name"] == ref)
    out = [f"| command | runs | wall s (median, min-max) | CPU s | MB/s | {unit_name}/s | peak RSS MB | wall / tool | CPU / tool |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        b = r.get("bytes", nbytes) * r.get("mult", 1)
        u = units * r.get("mult", 1) if units and r.get("units", True) else None
        out.append("| {} | {} | {:.3f} ({:.3f}-{:.3f}) | {:.3f} | {:.0f} | {} | {:.1f} | {:.2f} | {:.2f} |".format(
            r["name"], r["runs"], r["wall"], r["wall_min"], r["wall_max"], r["cpu"], b / 1e6 / r["wall"],
            f"{u / r['wall']:,.0f}" if u else "-", r["rss_kb"] / 1024, r["wall"] / base["wall"],
            r["cpu"] / base["cpu"] if base["cpu"] > 0 else float("nan")))
    return "\n".join(out)


def machine():
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    mem = next((int(l.split()[1]) for l in open("/proc/meminfo") if l.startswith("MemTotal")), 0)
    osr = dict(l.rstrip().split("=", 1) for l in open("/etc/os-release") if "=" in l)
    load = open("/proc/loadavg").read().split()[:3]
    ver = lambda c: subprocess.run(c, capture_output=True, text=True).stdout.strip().splitlines()[0]  # noqa: E731
    return (f"- date: {time.strftime('%Y-%m-%d %H:%M:%S %Z')}\n"
            f"- machine: {os.cpu_count()} CPUs (nproc {ver(['nproc'])}), {cpu}, {mem / 1048576:.1f} GiB RAM, "
            f"{osr.get('PRETTY_NAME', '?').strip(chr(34))}, kernel {platform.release()}\n"
            f"- load average at start: {' '.join(load)} (shared machine: compare ratios within one run)\n"
            f"- tools: {ver(['jq', '--version'])}, sqlite3 {ver(['sqlite3', '--version']).split()[0]}, "
            f"Python {platform.python_version()} ({PY}), {ver(['openssl', 'version'])}")


def gen_cache(scale):
    d = os.path.join(WORK, f"cache-{scale}")
    if not os.path.exists(os.path.join(d, "stats.json")):
        log(f"generating the cache (scale {scale}) in {d} ...")
        subprocess.run([PY, os.path.join(BENCH, "gen_cache.py"), "--scale", str(scale), "--zip", d], check=True,
                       stdout=subprocess.DEVNULL)
    return d, json.load(open(os.path.join(d, "stats.json")))


def gen_reports(cells):
    d = os.path.join(WORK, f"reports-{cells}")
    if not os.path.exists(os.path.join(d, "stats.json")):
        log(f"generating two reports of {cells} cells in {d} ...")
        subprocess.run([PY, os.path.join(BENCH, "gen_reports.py"), "--cells", str(cells), "--gzip", d], check=True,
                       stdout=subprocess.DEVNULL)
    return d, json.load(open(os.path.join(d, "stats.json")))


def bench_extract(scale, runs, md, checks):
    d, st = gen_cache(scale)
    cache = os.path.join(d, ".jupyter_cache")
    zp = os.path.join(d, "build-cache.zip")
    files = [os.path.join(cache, l.strip()) for l in open(os.path.join(d, "manifest.txt")) if l.strip()]
    nbytes = sum(os.path.getsize(f) for f in files)
    cells = st["code_cells"]
    tool = os.path.join(TOP, "qe-cache-extract")
    o = lambda n: os.path.join(WORK, f"out-{n}.ndjson")  # noqa: E731
    log(f"extract: {len(files) - 1} notebooks + global.db, {nbytes / 1e6:.1f} MB, {cells} code cells; "
        f"largest notebook {st['largest'] / 1e6:.1f} MB")
    run_once(["cat"] + files + [zp], os.devnull)                     # page cache
    log("timing (directory input) ...")
    rows = [measure("qe-cache-extract -j 1", [tool, "-j", "1", cache], runs, o("c-dir")),
            measure("qe-cache-extract -j 2", [tool, "-j", "2", cache], runs, o("c-dir-j2")),
            measure("qe-cache-extract -j 1, 2 processes at once", [tool, "-j", "1", cache], runs, os.devnull,
                    concurrent=2),
            measure("Python reference (json+sqlite3+hashlib)", [PY, os.path.join(BENCH, "ref_extract.py"), cache],
                    runs, o("py-dir")),
            measure("jq + sqlite3 reference (subset)", [os.path.join(BENCH, "ref_extract_jq.sh"), cache], runs,
                    o("jq-dir")),
            measure("floor: cat", ["cat"] + files, runs),
            measure("floor: sha256sum", ["sha256sum"] + files, runs),
            measure("floor: openssl dgst -sha256", ["openssl", "dgst", "-sha256"] + files, runs)]
    rows[2]["mult"] = 2
    log("timing qe-cache-extract -j 1 and openssl dgst by turns ...")
    pair = paired([tool, "-j", "1", cache], ["openssl", "dgst", "-sha256"] + files, max(11, runs))
    md.append(f"### qe-cache-extract: directory input\n\n{len(files) - 1} current notebooks + global.db = "
              f"{nbytes / 1e6:.1f} MB, {cells} code cells, largest notebook {st['largest'] / 1e6:.1f} MB "
              f"(`{os.path.relpath(cache, TOP)}`). Throughput on wall time; \"2 processes at once\" counts "
              f"both processes' bytes.\n\n" + table(rows, nbytes, cells, "cells", "qe-cache-extract -j 1"))
    md.append(f"qe-cache-extract -j 1 against `openssl dgst -sha256` over the same bytes, run by turns "
              f"({pair['pairs']} pairs, so the host's drift moves both alike): CPU {pair['cmd']:.3f} s against "
              f"{pair['floor']:.3f} s, ratio {pair['ratio']:.2f}x (median of the pairs' ratios; "
              f"{pair['ratio_min']:.2f}-{pair['ratio_max']:.2f}). Target: within 1.5x.")
    md.append(jobs_note(rows[0], rows[1], [tool, "-j", "2", cache], st["largest"]))
    checks.append(same_bytes(o("c-dir"), o("c-dir-j2"), "qe-cache-extract -j 2 = -j 1 (directory, byte for byte)"))
    tiny = os.path.join(TOP, "tests/fixtures/shared/jupyter-cache/base/.jupyter_cache")
    base_kb = run_once([tool, "-j", "1", tiny], os.devnull)[2] if os.path.isdir(tiny) else 0
    md.append(f"Memory: qe-cache-extract peak RSS {rows[0]['rss_kb'] / 1024:.1f} MB = {base_kb / 1024:.1f} MB "
              f"(its peak on the tiny fixture cache: libraries, SQLite) + "
              f"{(rows[0]['rss_kb'] - base_kb) * 1024 / st['largest']:.2f} x the largest notebook "
              f"({st['largest'] / 1048576:.1f} MiB). Target: below 2 x the largest notebook + a small constant.")
    zbytes = os.path.getsize(zp)
    log("timing (zip input) ...")
    zrows = [measure("qe-cache-extract -j 1 build-cache.zip", [tool, "-j", "1", zp], runs, o("c-zip")),
             measure("qe-cache-extract -j 2 build-cache.zip", [tool, "-j", "2", zp], runs, o("c-zip-j2")),
             measure("Python reference build-cache.zip", [PY, os.path.join(BENCH, "ref_extract.py"), zp], runs,
                     o("py-zip")),
             measure("floor: cat build-cache.zip", ["cat", zp], runs),
             measure("floor: unzip -p (inflate every member)", ["unzip", "-p", zp], runs)]
    checks.append(check([o("c-dir"), o("py-dir")], "qe-cache-extract = Python reference (directory, all fields)"))
    checks.append(check([o("c-dir"), o("py-zip")], "qe-cache-extract = Python reference (zip, all fields)"))
    checks.append(check([o("c-dir"), o("c-zip")], "qe-cache-extract zip = directory (all fields)"))
    checks.append(same_bytes(o("c-zip"), o("c-zip-j2"), "qe-cache-extract -j 2 = -j 1 (zip, byte for byte)"))
    checks.append(check(["--kind", "cell", "--fields", JQ_FIELDS, o("c-dir"), o("jq-dir")],
                        "qe-cache-extract = jq+sqlite3 reference (cell records, jq subset)"))
    md.append(f"### qe-cache-extract: zip artifact\n\n`build-cache.zip`: {zbytes / 1e6:.1f} MB deflated, "
              f"{nbytes / 1e6:.1f} MB inflated (MB/s below count the inflated bytes).\n\n" +
              table(zrows, nbytes, cells, "cells", "qe-cache-extract -j 1 build-cache.zip") + "\n\n" +
              jobs_note(zrows[0], zrows[1], [tool, "-j", "2", zp], st["largest"]))
    return {"bytes": nbytes, "cells": cells, "largest": st["largest"], "rows": rows, "zip_rows": zrows,
            "paired_openssl": pair}


def bench_diff(cells, runs, md, checks):
    d, st = gen_reports(cells)
    b, h = os.path.join(d, "base.ndjson"), os.path.join(d, "head.ndjson")
    bz, hz = b + ".gz", h + ".gz"
    tool = os.path.join(TOP, "qe-cell-diff")
    o = lambda n: os.path.join(WORK, f"out-{n}.ndjson")  # noqa: E731
    nbytes = st["base_bytes"] + st["head_bytes"]
    ncells = st["base_cells"] + st["head_cells"]
    log(f"diff: {st['base_cells']} x {st['head_cells']} cell records, {nbytes / 1e6:.1f} MB "
        f"({(st['base_gz_bytes'] + st['head_gz_bytes']) / 1e6:.1f} MB gzip)")
    ub, uh = os.path.join(d, "base-unstamped.ndjson"), os.path.join(d, "head-unstamped.ndjson")
    run_once(["cat", b, h, bz, hz], os.devnull)
    log("timing ...")
    rows = [measure("qe-cell-diff", [tool, b, h], runs, o("d-c")),
            measure("qe-cell-diff (gzip inputs)", [tool, bz, hz], runs, o("d-cz")),
            measure("qe-cell-diff (unstamped reports)", [tool, ub, uh], runs, o("d-cu")),
            measure("Python reference (json)", [PY, os.path.join(BENCH, "ref_diff.py"), b, h], runs, o("d-py")),
            measure("Python json.loads alone (no diff)", [PY, "-c", LOADS_ALONE, b, h], runs),
            measure("floor: cat", ["cat", b, h], runs),
            measure("floor: zcat (gzip -dc)", ["gzip", "-dc", bz, hz], runs)]
    checks.append(check(["--fields", DIFF_FIELDS, o("d-c"), o("d-py")],
                        "qe-cell-diff = Python reference (verdicts, flags, measure, counts, runner factor)"))
    checks.append(check(["--fields", DIFF_FIELDS, o("d-c"), o("d-cz")], "qe-cell-diff gzip = plain"))
    checks.append(check(["--fields", DIFF_FIELDS, o("d-c"), o("d-cu")], "qe-cell-diff unstamped = stamped"))
    rows[2]["bytes"] = st["base_unstamped_bytes"] + st["head_unstamped_bytes"]
    with open(o("d-c"), "rb") as f:
        f.seek(-4096, 2)
        summary = json.loads(f.read().splitlines()[-1])
    md.append(f"### qe-cell-diff\n\nBASE {st['base_cells']:,} + HEAD {st['head_cells']:,} cell records "
              f"({st['base_records'] + st['head_records']:,} records with the notebooks), {nbytes / 1e6:.1f} MB "
              f"({(st['base_gz_bytes'] + st['head_gz_bytes']) / 1e6:.1f} MB gzip), {st['docs']:,} documents. "
              f"Verdicts: notebooks {summary['notebooks']}, cells {summary['cells']}. MB/s on the uncompressed "
              f"bytes (the unstamped row: {rows[2]['bytes'] / 1e6:.1f} MB, the same records without provenance).\n\n" + table(rows, nbytes, ncells, "cell records", "qe-cell-diff")
              + f"\n\nIssue 16's targets: qe-cell-diff {rows[0]['cpu']:.2f} s CPU (target: under 5 s for "
              f"1,000,000 x 1,000,000 stamped records on one core); Python's json.loads alone over the same two "
              f"inputs / qe-cell-diff, CPU: {rows[4]['cpu'] / rows[0]['cpu']:.1f}x (target: at least 10x).")
    return {"bytes": nbytes, "cells": ncells, "rows": rows}


def profile(md):
    """callgrind on small inputs: top functions by instructions (Ir)."""
    if subprocess.run(["which", "valgrind"], capture_output=True).returncode:
        md.append("(valgrind not installed: no profile)")
        return
    d, _ = gen_cache(0.05)
    rd, _ = gen_reports(20000)
    for name, cmd in (("qe-cache-extract", [os.path.join(TOP, "qe-cache-extract"), "-j", "1", os.path.join(d, ".jupyter_cache")]),
                      ("qe-cell-diff", [os.path.join(TOP, "qe-cell-diff"), os.path.join(rd, "base.ndjson"),
                                        os.path.join(rd, "head.ndjson")])):
        cg = os.path.join(WORK, f"callgrind.{name}")
        log(f"callgrind {name} ...")
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={cg}"] + cmd,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        a = subprocess.run(["callgrind_annotate", "--inclusive=no", cg], capture_output=True, text=True).stdout
        lines = a.splitlines()
        try:
            i = next(k for k, l in enumerate(lines) if "file:function" in l)
        except StopIteration:
            i = 0
        top = [l for l in lines[i + 2:i + 18] if "%)" in l]
        total = next((l for l in lines if "PROGRAM TOTALS" in l), "")
        md.append(f"#### callgrind: {name} ({' '.join(os.path.relpath(c, TOP) if c.startswith('/') else c for c in cmd)})"
                  f"\n\n```\n{total}\n" + "\n".join(top) + "\n```")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", default=os.environ.get("BENCH_SCALE", "default"), choices=sorted(SCALES))
    ap.add_argument("--runs", type=int, default=int(os.environ.get("BENCH_RUNS", "3")))
    ap.add_argument("--only", default=os.environ.get("BENCH_ONLY"), choices=["extract", "diff"])
    ap.add_argument("--profile", action="store_true", default=os.environ.get("BENCH_PROFILE") == "1")
    a = ap.parse_args()
    os.makedirs(WORK, exist_ok=True)
    sc = SCALES[a.scale]
    md, checks = [f"## Run: BENCH_SCALE={a.scale}, {a.runs} runs\n\n" + machine()], []
    t0 = time.time()
    res = {}
    if a.only in (None, "extract"):
        res["extract"] = bench_extract(sc["cache"], a.runs, md, checks)
    if a.only in (None, "diff"):
        res["diff"] = bench_diff(sc["cells"], a.runs, md, checks)
    if a.profile:
        profile(md)
    md.append("### Checks\n\n" + "\n".join(f"- {'OK' if ok else 'FAILED'}: {w}: {line}" for w, ok, line in checks))
    md.append(f"(benchmark time {time.time() - t0:.0f} s)")
    text = "\n\n".join(md) + "\n"
    print(text)
    with open(os.path.join(WORK, f"results-{a.scale}.md"), "w") as f:
        f.write(text)
    with open(os.path.join(WORK, f"results-{a.scale}.json"), "w") as f:
        json.dump({"checks": checks, **res}, f, indent=1)
    return 0 if all(ok for _, ok, _ in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
