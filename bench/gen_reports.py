#!/usr/bin/python3
"""Generate two stamped reports (BASE and HEAD) for the qe-cell-diff benchmark.

    gen_reports.py [--cells N] [--per-doc K] [--seed S] [--gzip] OUTDIR

Writes OUTDIR/base.ndjson and OUTDIR/head.ndjson (and .gz copies with
--gzip, made by gzip(1) at its default level), and the same records without
the provenance objects in OUTDIR/{base,head}-unstamped.ndjson: notebook and cell records in
qe-cache-extract's format (schema/notebook.json, schema/cell.json), each
followed by a "provenance" object as qe-stamp appends it on a GitHub-hosted
runner (schema/provenance.json; one object per side, the same fingerprint on
both sides, different run ids and stamp times). About N cell records a side
(default 1,000,000) in documents of about K code cells (default 50).

What HEAD changes, per document: 2 % are new and 2 % removed; 20 % are
cache hits (same cache_key: "cached"); 3 % failed (no cells). In the others,
per cell: durations move by run-to-run noise (x0.9-1.1), 1 % regress (x3,
+0.6 s or more), 0.5 % improve, 1 % change source (same label), 0.5 % are
inserted and 0.5 % deleted, 2 % change output, 0.2 % start to raise. 30 % of
documents come from a stock cache without cell timing (duration null), so
their notebooks are judged on execution_seconds. OUTDIR/stats.json has the
counts and sizes.
"""
import argparse
import hashlib
import json
import os
import random
import subprocess
import sys


def prov(side, rng):
    run_id = str(12000000000 + rng.randrange(10 ** 8))
    facts = {"runner_class": "github-hosted/ubuntu-24.04/4cpu", "cpu_model": "AMD EPYC 7763 64-Core Processor",
             "packages": {"ipykernel": "6.29", "jupyter-book": "1.0", "matplotlib": "3.9", "myst-nb": "1.1",
                          "numba": "0.60", "numpy": "2.0", "pandas": "2.2", "scipy": "1.14"}}
    ff = json.dumps(facts, separators=(",", ":"))
    p = {"tool": "qe-stamp 0.1.0",
         "source": {"repository": "QuantEcon/lecture-python.myst",
                    "commit": hashlib.sha1(f"{side}-commit".encode()).hexdigest(),
                    "event": "pull_request" if side == "head" else "push",
                    "ref": "refs/pull/512/merge" if side == "head" else "refs/heads/main"},
         "run": {"workflow": "Build Cache" if side == "base" else "Build Project [using jupyter-book]",
                 "run_id": run_id, "run_number": rng.randint(100, 900), "run_attempt": 1, "job": "preview",
                 "stamped_at": "2026-11-29T14:%02d:%02d.%06dZ" % (rng.randrange(60), rng.randrange(60), rng.randrange(10 ** 6))},
         "runner": {"os": "Linux", "distro": "ubuntu-24.04", "kernel": "6.8.0-1017-azure", "arch": "x86_64",
                    "name": "GitHub Actions %d" % rng.randint(1, 99), "hosted": "github-hosted", "image": "ubuntu24",
                    "image_version": "20261117.1.0", "class": facts["runner_class"]},
         "hardware": {"cpu_model": facts["cpu_model"], "logical_cpus": 4, "memory_bytes": 16772739072},
         "environment": {"packages": {"ipykernel": "6.29.5", "jupyter-book": "1.0.3", "matplotlib": "3.9.2",
                                      "myst-nb": "1.1.2", "numba": "0.60.0", "numpy": "2.0.2", "pandas": "2.2.3",
                                      "scipy": "1.14.1"},
                         "package_count": 412,
                         "packages_sha256": hashlib.sha256(b"pkgs").hexdigest()},
         "fingerprint": hashlib.sha256(ff.encode()).hexdigest()[:16],
         "fingerprint_facts": facts,
         "descriptor_sha256": hashlib.sha256(f"{side}{run_id}".encode()).hexdigest()}
    return json.dumps(p, separators=(",", ":"))


def h64(*parts):
    return hashlib.sha256("\0".join(str(p) for p in parts).encode()).hexdigest()


def q(s):
    return json.dumps(s, ensure_ascii=False)


def num(x):
    return "null" if x is None else repr(round(x, 6))


class Writer:
    def __init__(self, path, provenance):
        self.f = open(path, "w", encoding="utf-8")
        self.u = open(path.replace(".ndjson", "-unstamped.ndjson"), "w", encoding="utf-8")
        self.p = ',"provenance":' + provenance
        self.cells = 0
        self.records = 0

    def write(self, fmt, args):
        self.f.write(fmt % (args + (self.p,)))
        self.u.write(fmt % (args + ("",)))

    def notebook(self, doc, key, status, exec_s, cells_s, ncode, timed):
        uri = f"/home/runner/work/lecture-python.myst/lecture-python.myst/lectures/{doc}.md"
        self.write(
            '{"kind":"notebook","schema_version":1,"document":%s,"input":"cache","uri":%s,"cache_key":%s,'
            '"cache_pk":%s,"current":true,"status":"%s","error":%s,"execution_seconds":%s,"cells_seconds":%s,'
            '"overhead_seconds":%s,"created":%s,"code_cells":%s,"timed_cells":%d,"stale_cells":0,'
            '"discarded_timings":0,"kernel":%s,"language":%s,"language_version":%s%s}\n', (
                q(doc), q(uri), q(key) if key else "null", "null" if not key else int(key[:4], 16),
                status, '"ValueError: deliberate"' if status == "failed" else "null", num(exec_s), num(cells_s),
                num(exec_s - cells_s) if exec_s is not None and cells_s is not None else "null",
                '"2026-11-29T14:31:59.859127Z"' if key else "null", "null" if status == "failed" else ncode,
                timed, '"python3"' if key else "null", '"python"' if key else "null",
                '"3.12.7"' if key else "null"))
        self.records += 1

    def cell(self, doc, key, c):
        timed = c["dur"] is not None
        self.write(
            '{"kind":"cell","schema_version":1,"document":%s,"input":"cache","cache_key":%s,"current":true,'
            '"index":%d,"cell_id":null,"label":%s,"tags":%s,"source_sha256":"%s","output_sha256":"%s",'
            '"first_line":%s,"status":"%s","error":%s,"execution_count":%s,"duration_s":%s,"timing_source":%s,'
            '"timing_method":%s,"timing_note":%s,"busy_s":%s,"start":%s,"end":%s%s}\n', (
                q(doc), q(key), c["index"], q(c["label"]) if c["label"] else "null", c["tags"], c["src"], c["out"],
                q(c["first"]), c["status"], '"ZeroDivisionError: division by zero"' if c["status"] == "error" else "null",
                c["index"] + 1, num(c["dur"]), '"nbclient"' if timed else "null",
                '"input-reply"' if timed else "null", "null" if timed else '"no-timing"',
                num(c["dur"] + 0.0012) if timed else "null",
                '"2026-11-29T14:32:29.179270Z"' if timed else "null",
                '"2026-11-29T14:32:29.483710Z"' if timed else "null"))
        self.cells += 1
        self.records += 1

    def close(self):
        self.f.close()
        self.u.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--cells", type=int, default=1_000_000)
    ap.add_argument("--per-doc", type=int, default=50)
    ap.add_argument("--seed", type=int, default=9)
    ap.add_argument("--gzip", action="store_true")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    os.makedirs(a.outdir, exist_ok=True)
    B = Writer(os.path.join(a.outdir, "base.ndjson"), prov("base", rng))
    H = Writer(os.path.join(a.outdir, "head.ndjson"), prov("head", rng))
    ndocs = max(1, a.cells // a.per_doc)
    tags = ['[]', '[]', '[]', '["remove-output"]', '["hide-input"]']
    for d in range(ndocs):
        doc = f"part{d % 40:02d}/lecture_{d:06d}"
        x = rng.random()
        fate = ("new" if x < 0.02 else "removed" if x < 0.04 else "cached" if x < 0.24 else
                "failed" if x < 0.27 else "executed")
        timed = rng.random() >= 0.3
        n = max(1, int(rng.gauss(a.per_doc, a.per_doc / 5)))
        base = []
        for i in range(n):
            dur = min(120.0, rng.lognormvariate(-3.0, 1.7)) if timed else None
            base.append({"src": h64(doc, i, "src"), "out": h64(doc, i, "out"), "label": f"cell-{i}" if rng.random() < 0.4 else None,
                         "first": f"x_{i} = compute({i}, β=0.96)", "status": "ok", "dur": dur, "tags": rng.choice(tags)})
        head = []
        for c in base:
            y = rng.random()
            if fate != "executed":
                head.append(dict(c))
                continue
            if y < 0.005:
                continue                                            # deleted
            if y < 0.010:                                           # inserted before it
                head.append({"src": h64(doc, len(head), "ins", y), "out": h64(doc, "ins-out", y), "label": None,
                             "first": "print('inserted')", "status": "ok",
                             "dur": rng.lognormvariate(-3.0, 1.7) if timed else None, "tags": "[]"})
            h = dict(c)
            if h["dur"] is not None:
                z = rng.random()
                if z < 0.01:
                    h["dur"] = h["dur"] * 3 + 0.6 + rng.random()
                elif z < 0.015 and h["dur"] > 0.4:
                    h["dur"] = h["dur"] / 3 - 0.01
                else:
                    h["dur"] = h["dur"] * rng.uniform(0.9, 1.1)
            if 0.010 <= y < 0.020:
                h["src"] = h64(doc, c["src"], "edited")
            elif 0.020 <= y < 0.040:
                h["out"] = h64(doc, c["out"], "new-out")
            elif 0.040 <= y < 0.042:
                h["status"] = "error"
                h["out"] = h64(doc, c["out"], "err")
            head.append(h)
        for side, cells, w in (("base", base, B), ("head", head, H)):
            if (side == "base" and fate == "new") or (side == "head" and fate == "removed"):
                continue
            key = h64(doc, "key", side if fate not in ("cached",) else "same")[:32]
            if side == "head" and fate == "failed":
                w.notebook(doc, None, "failed", None, None, None, 0)
                continue
            for i, c in enumerate(cells):
                c["index"] = i
            tot = sum(c["dur"] for c in cells if c["dur"] is not None) if timed else None
            exec_s = (tot or sum(rng.uniform(0.001, 0.5) for _ in cells)) + 1.2 + rng.random() * 0.3
            w.notebook(doc, key, "ok", exec_s, round(tot, 6) if tot is not None else None, len(cells),
                       len(cells) if timed else 0)
            for c in cells:
                w.cell(doc, key, c)
    B.close()
    H.close()
    stats = {"docs": ndocs, "base_cells": B.cells, "head_cells": H.cells, "base_records": B.records,
             "head_records": H.records}
    for s in ("base", "head"):
        p = os.path.join(a.outdir, f"{s}.ndjson")
        stats[f"{s}_bytes"] = os.path.getsize(p)
        stats[f"{s}_unstamped_bytes"] = os.path.getsize(p.replace(".ndjson", "-unstamped.ndjson"))
    if a.gzip:
        procs = [subprocess.Popen(f"gzip -c {s}.ndjson > {s}.ndjson.gz.tmp && mv {s}.ndjson.gz.tmp {s}.ndjson.gz",
                                  shell=True, cwd=a.outdir) for s in ("base", "head")]
        if any(p.wait() for p in procs):
            sys.exit("gen_reports: gzip failed")
        for s in ("base", "head"):
            stats[f"{s}_gz_bytes"] = os.path.getsize(os.path.join(a.outdir, f"{s}.ndjson.gz"))
    with open(os.path.join(a.outdir, "stats.json"), "w") as f:
        json.dump(stats, f, indent=1)
    print(json.dumps(stats))


if __name__ == "__main__":
    main()
