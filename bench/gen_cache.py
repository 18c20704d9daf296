#!/usr/bin/python3
"""Generate a realistic large jupyter-cache for the benchmarks (stdlib only).

    gen_cache.py [--scale S] [--notebooks N] [--seed N] [--zip] OUTDIR

Writes OUTDIR/.jupyter_cache/ exactly as jupyter-cache 1.0.1 lays it out
(global.db in its SQLAlchemy schema, __version__.txt, executed/<md5>/base.ipynb
in nbformat's writer style: indent 1, keys sorted, code cells only), and with
--zip OUTDIR/build-cache.zip, the cache as actions/upload-artifact stores an
artifact of _build with include-hidden-files (members .jupyter_cache/...,
deflate level 6, directory entries included).

At --scale 1: 150 notebooks (some in sub-folders, a few .ipynb sources), about
3,300 code cells, about 250 MB: matplotlib-sized PNG outputs (base64 of
incompressible bytes behind a real PNG header; most 20-150 KB, a few of
several MB, one notebook of about 25 MB), stream outputs (short prints and
long progress logs), pandas-style HTML results, tolerated errors with ANSI
tracebacks, blank cells, skip-execution cells, labels (metadata.name and
mystnb.figure.name), tags, non-ASCII text. About a third of the notebooks carry
nbclient timing (metadata.execution with the four keys, 6 digits + Z) inside
their record's execution window; two .ipynb sources carry stale timings from
an older run; one notebook carries JupyterLab's five keys. Ten documents have
an older record too (an incremental build), three documents failed (a
traceback in nbproject, no nbcache row).

Also writes OUTDIR/manifest.txt: the files qe-cache-extract reads (global.db
and the current records' notebooks), for the cat/sha256 floors, and
OUTDIR/stats.json (bytes, notebooks, cells, largest notebook).
"""
import argparse
import base64
import datetime as dt
import hashlib
import json
import os
import random
import sqlite3
import struct
import sys
import zipfile
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "tools"))
from jcache_format import SCHEMA  # noqa: E402  jupyter-cache 1.0.1's global.db

ROOT = "/home/runner/work/lecture-python.myst/lecture-python.myst/lectures"
TOPICS = ["intro", "markov", "kalman", "lln_clt", "mccall", "cake_eating", "optgrowth",
          "ifp", "lqcontrol", "perm_income", "career", "jv", "odu", "wealth_dynamics",
          "kesten", "ar1", "samuelson", "linear_models", "finite_markov", "inventory",
          "newton", "sir_model", "heavy_tails", "schelling", "lake_model", "rational",
          "harrison_kreps", "cass_koopmans", "aiyagari", "arellano", "coleman", "egm"]
FOLDERS = ["", "", "", "dynamics/", "tools/", "dynamic_programming/", "multi_agent/"]

ANSI_TB = [
    "\x1b[0;31m---------------------------------------------------------------------------\x1b[0m",
    "\x1b[0;31m{ename}\x1b[0m                                Traceback (most recent call last)",
    "Cell \x1b[0;32mIn[{n}], line 3\x1b[0m\n\x1b[1;32m      1\x1b[0m x \x1b[38;5;241m=\x1b[39m np\x1b[38;5;241m.\x1b[39mzeros(\x1b[38;5;241m3\x1b[39m)\n\x1b[0;32m----> 3\x1b[0m {line}",
    "\x1b[0;31m{ename}\x1b[0m: {evalue}",
]
ERRORS = [("ZeroDivisionError", "division by zero", "1 / 0"),
          ("ValueError", "matrix is not positive definite", "np.linalg.cholesky(A)"),
          ("KeyError", "'gamma'", "params['gamma']"),
          ("LinAlgError", "Singular matrix", "np.linalg.inv(B)")]


def png_bytes(rng, n):
    """A PNG of about n bytes: real signature and IHDR, incompressible IDAT."""
    w, h = rng.choice([(640, 480), (800, 600), (1000, 400), (1200, 800), (432, 288)])
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0)

    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    body = rng.randbytes(max(64, n - 57))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", body) + chunk(b"IEND", b"")


def lines(text):
    """nbformat's multiline string: a list of lines, each ending in \\n but the last."""
    parts = text.split("\n")
    out = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def stamp(t):
    return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def dbtime(t):
    return t.strftime("%Y-%m-%d %H:%M:%S.%f")


class Gen:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.cells = 0

    def png_size(self, huge=False):
        r = self.rng
        if huge:
            return r.randint(2_500_000, 4_000_000)
        if r.random() < 0.015:
            return r.randint(1_000_000, 2_500_000)       # a dense figure
        return int(min(900_000, max(8_000, r.lognormvariate(11.0, 0.7))))  # median ~60 KB

    def source(self, kind, i):
        r = self.rng
        if kind == "blank":
            return r.choice(["", "\n", "  \n"])
        if kind == "import":
            return "import numpy as np\nimport matplotlib.pyplot as plt\nfrom numba import njit\n"
        if kind == "param":
            return f"β, γ = 0.96, {r.randint(1, 5)}.0  # discount, risk aversion\nT = {r.randint(10, 500)}"
        body = [f"def f_{i}(x, α=0.{r.randint(1, 9)}):",
                "    \"\"\"Update the state.\"\"\"",
                f"    return x**α + {r.random():.4f}",
                "",
                f"xs = np.linspace(0, {r.randint(1, 20)}, {r.randint(50, 500)})"]
        if kind == "plot":
            body += ["fig, ax = plt.subplots()", f"ax.plot(xs, f_{i}(xs), label='$f_{{{i}}}$')",
                     "ax.legend()", "plt.show()"]
        elif kind == "log":
            body += ["for t in range(T):", "    if t % 10 == 0:", "        print(t, f(xs).mean())"]
        else:
            body += [f"print(f_{i}(xs).sum())"]
        if r.random() < 0.1:
            body[0] = "    " + body[0]               # leading blanks: first_line trims
        src = "\n".join(body[: r.randint(3, len(body))])
        if r.random() < 0.05:
            src = src.replace("\n", "\r\n") + "  \n\n"  # CR LF and trailing blanks
        return src

    def outputs(self, kind, n, huge=False):
        r = self.rng
        out = []
        if kind == "plot":
            for _ in range(1 if r.random() < 0.8 else r.randint(2, 3)):
                b64 = base64.b64encode(png_bytes(r, self.png_size(huge))).decode() + "\n"
                out.append({"data": {"image/png": b64,
                                     "text/plain": ["<Figure size 640x480 with 1 Axes>"]},
                            "metadata": {}, "output_type": "display_data"})
        elif kind == "log":
            k = r.choice([20, 50, 200, 2000])
            text = "".join(f"{t} {r.random():.6f}\n" for t in range(k))
            out.append({"name": "stdout", "output_type": "stream", "text": lines(text)})
        elif kind == "table":
            rows = "".join(f"<tr><th>{j}</th><td>{r.random():.3f}</td><td>{r.random():.3f}</td></tr>\n"
                           for j in range(r.randint(5, 60)))
            out.append({"data": {"text/html": lines("<table border=\"1\" class=\"dataframe\">\n" + rows + "</table>"),
                                 "text/plain": lines("      a     b\n0  0.1  0.2")},
                        "execution_count": n, "metadata": {}, "output_type": "execute_result"})
        elif kind == "error":
            ename, evalue, line = r.choice(ERRORS)
            tb = [s.format(ename=ename, evalue=evalue, n=n, line=line) for s in ANSI_TB]
            out.append({"name": "stdout", "output_type": "stream", "text": ["before the error\n"]})
            out.append({"ename": ename, "evalue": evalue, "output_type": "error", "traceback": tb})
        elif kind == "calc":
            if r.random() < 0.5:
                out.append({"name": "stdout", "output_type": "stream",
                            "text": lines(f"équilibre λ = {r.random():.4f}\n")})
            if r.random() < 0.3:
                out.append({"name": "stderr", "output_type": "stream",
                            "text": ["/usr/lib/python3/dist-packages/numba/core/dispatcher.py:1: NumbaWarning: ...\n"]})
            out.append({"data": {"text/plain": [f"{r.random():.12f}"]}, "execution_count": n,
                        "metadata": {}, "output_type": "execute_result"})
        return out

    def notebook(self, ncode, start, timing, stale_from=None, lab=False, huge=False, ipynb=False):
        """Return (nb, end time, code cells). timing: write metadata.execution."""
        r = self.rng
        cells = []
        t = start + dt.timedelta(seconds=1.2 + r.random() * 0.3)   # kernel start-up
        ts = stale_from if stale_from else start
        n = 0
        plots_left = 6 if huge else 0
        for i in range(ncode):
            if i == 0:
                kind = "import"
            elif i == 1:
                kind = "param"
            elif plots_left:
                kind = "bigplot"
                plots_left -= 1
            else:
                x = r.random()
                kind = ("plot" if x < 0.42 else "log" if x < 0.55 else "table" if x < 0.62 else
                        "error" if x < 0.64 else "blank" if x < 0.67 else "skip" if x < 0.69 else "calc")
            md = {}
            if r.random() < 0.3:
                md["name"] = f"{kind}-{i}" if r.random() < 0.9 else f"résumé-λ-{i}"
            elif kind == "plot" and r.random() < 0.3:
                md["mystnb"] = {"figure": {"name": f"fig-{i}", "caption": "A figure"}}
            tags = []
            if kind == "error":
                tags.append("raises-exception")
            if kind == "skip":
                tags.append("skip-execution")
            if r.random() < 0.15:
                tags.append(r.choice(["remove-output", "hide-input", "remove-cell", "full-width"]))
            if tags:
                md["tags"] = tags
            big = kind == "bigplot"
            kind = "plot" if big else kind
            src = self.source("calc" if kind == "skip" else kind, i)
            cell = {"cell_type": "code", "execution_count": None, "id": f"{r.getrandbits(32):08x}",
                    "metadata": md, "outputs": [], "source": lines(src)}
            runs = kind not in ("blank", "skip")
            if runs:
                n += 1
                cell["execution_count"] = n
                cell["outputs"] = self.outputs(kind, n, big)
                dur = r.lognormvariate(-3.5, 1.6) + (0.2 if kind == "plot" else 0)
                busy = t + dt.timedelta(microseconds=r.randint(200, 900))
                inp = busy + dt.timedelta(microseconds=r.randint(100, 900))
                reply = inp + dt.timedelta(seconds=dur)
                idle = reply + dt.timedelta(microseconds=r.randint(-3000, 2000))
                if timing or stale_from:
                    b0 = ts + (busy - start)
                    ex = {"iopub.status.busy": stamp(b0),
                          "iopub.execute_input": stamp(ts + (inp - start)),
                          "shell.execute_reply": stamp(ts + (reply - start)),
                          "iopub.status.idle": stamp(ts + (idle - start))}
                    if lab:
                        ex["shell.execute_reply.started"] = stamp(ts + (inp - start) + dt.timedelta(microseconds=40))
                    md["execution"] = ex
                t = max(reply, idle) + dt.timedelta(microseconds=r.randint(500, 3000))
            cells.append(cell)
            self.cells += 1
        end = t + dt.timedelta(seconds=0.2 + r.random() * 0.2)        # shutdown
        meta = {"kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
                "language_info": {"codemirror_mode": {"name": "ipython", "version": 3}, "file_extension": ".py",
                                  "mimetype": "text/x-python", "name": "python", "nbconvert_exporter": "python",
                                  "pygments_lexer": "ipython3", "version": "3.11.9"}}
        if not ipynb:
            meta["jupytext"] = {"text_representation": {"extension": ".md", "format_name": "myst",
                                                        "format_version": 0.13, "jupytext_version": "1.16.1"}}
            meta["source_map"] = sorted(r.sample(range(10, 40 * ncode + 20), ncode))
        nb = {"cells": cells, "metadata": meta, "nbformat": 4, "nbformat_minor": 5}
        return nb, end


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--scale", type=float, default=1.0, help="multiplies the number of notebooks (default 1: 150)")
    ap.add_argument("--notebooks", type=int, help="number of notebooks (overrides --scale)")
    ap.add_argument("--seed", type=int, default=9)
    ap.add_argument("--zip", action="store_true", help="also write OUTDIR/build-cache.zip")
    a = ap.parse_args()
    nnb = a.notebooks if a.notebooks else max(6, round(150 * a.scale))
    g = Gen(a.seed)
    r = g.rng
    cache = os.path.join(a.outdir, ".jupyter_cache")
    os.makedirs(os.path.join(cache, "executed"), exist_ok=True)
    dbpath = os.path.join(cache, "global.db")
    if os.path.exists(dbpath):
        os.unlink(dbpath)
    with open(os.path.join(cache, "__version__.txt"), "w") as f:
        f.write("1.0.1")
    db = sqlite3.connect(dbpath)
    db.executescript(SCHEMA)

    names = []
    for i in range(nnb):
        name = FOLDERS[i % len(FOLDERS)] + TOPICS[i % len(TOPICS)] + ("" if i < len(TOPICS) else f"_{i // len(TOPICS)}")
        names.append(name + (".ipynb" if i % 25 == 7 else ".md"))
    build0 = dt.datetime(2026, 11, 22, 3, 0, 0, 123456)     # the baseline's weekly build
    build1 = dt.datetime(2026, 11, 29, 14, 0, 0, 654321)    # this (incremental) build
    older = set(r.sample(range(nnb), min(10, nnb // 3)))
    failed = set(r.sample(sorted(set(range(nnb)) - older), 3 if nnb >= 30 else 1))
    lab = r.choice(sorted(set(range(nnb)) - older - failed))
    stale = [i for i in range(nnb) if names[i].endswith(".ipynb")][:2]
    huge = (nnb * 2) // 3
    rows, manifest, stats = [], ["global.db"], {"notebooks": 0, "code_cells": 0, "bytes": 0, "largest": 0}
    t = build1
    proj_t = build0
    for i, name in enumerate(names):
        uri = f"{ROOT}/{name}"
        ncode = r.randint(8, 36)
        reads = [("old", build0 + dt.timedelta(seconds=37 * i))] if i in older else []
        reads.append(("cur", None))
        for which, when in reads:
            start = when if when else t
            timing = (i % 3 == 0) or i == lab
            nb, end = g.notebook(ncode, start, timing, stale_from=(build0 - dt.timedelta(days=30)) if i in stale else None,
                                 lab=i == lab, huge=(i == huge and which == "cur"), ipynb=name.endswith(".ipynb"))
            if which == "cur":
                if i in failed:
                    t = end + dt.timedelta(seconds=0.5)
                    continue
                t = end + dt.timedelta(milliseconds=r.randint(30, 80))
            hk = hashlib.md5(f"{a.seed}:{i}:{which}".encode()).hexdigest()
            d = os.path.join(cache, "executed", hk)
            os.makedirs(d, exist_ok=True)
            text = json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
            p = os.path.join(d, "base.ipynb")
            with open(p, "w", encoding="utf-8") as f:
                f.write(text)
            created = end + dt.timedelta(microseconds=r.randint(2000, 9000))
            data = json.dumps({"execution_seconds": (created - start).total_seconds() + r.random() * 1e-6})
            rows.append((hk, uri, data, dbtime(created), dbtime(created + dt.timedelta(microseconds=9))))
            if which == "cur":
                size = os.path.getsize(p)
                manifest.append(os.path.relpath(p, cache))
                stats["notebooks"] += 1
                stats["code_cells"] += ncode
                stats["bytes"] += size
                stats["largest"] = max(stats["largest"], size)
    rows.sort(key=lambda x: x[3])                            # pk in insertion (created) order
    for pk, row in enumerate(rows, 1):
        db.execute("INSERT INTO nbcache VALUES (?, ?, ?, '', ?, ?, ?)", (pk,) + row)
    for pk, name in enumerate(names, 1):
        tb = None
        if pk - 1 in failed:
            ename, evalue, line = ERRORS[pk % len(ERRORS)]
            tb = ("Traceback (most recent call last):\n  File \"/usr/lib/python3/dist-packages/nbclient/client.py\", line 1265, in execute\n"
                  "nbclient.exceptions.CellExecutionError: An error occurred while executing the following cell:\n"
                  f"------------------\n{line}\n------------------\n\n" +
                  "\n".join(s.format(ename=ename, evalue=evalue, n=4, line=line) for s in ANSI_TB) +
                  f"\n{ename}: {evalue}\n\n")
        rd = '{"name": "nbformat", "type": "plugin"}' if name.endswith(".ipynb") else '{"type": "plugin", "name": "myst_nb_md"}'
        db.execute("INSERT INTO nbproject VALUES (?, ?, ?, '[]', NULL, ?, ?)",
                   (pk, f"{ROOT}/{name}", rd, dbtime(proj_t + dt.timedelta(seconds=pk)), tb))
    db.commit()
    db.close()
    stats["bytes"] += os.path.getsize(dbpath)
    stats["cache_rows"] = len(rows)
    stats["failed"] = len(failed)
    with open(os.path.join(a.outdir, "manifest.txt"), "w") as f:
        f.write("".join(m + "\n" for m in manifest))
    if a.zip:
        zp = os.path.join(a.outdir, "build-cache.zip")
        with zipfile.ZipFile(zp + ".tmp", "w", zipfile.ZIP_DEFLATED, compresslevel=6) as z:
            z.write(cache, ".jupyter_cache/")
            for top, dirs, files in os.walk(cache):
                dirs.sort()
                rel = os.path.relpath(top, a.outdir)
                if top != cache:
                    z.write(top, rel + "/")
                for fn in sorted(files):
                    z.write(os.path.join(top, fn), f"{rel}/{fn}")
        os.replace(zp + ".tmp", zp)
        stats["zip_bytes"] = os.path.getsize(zp)
    with open(os.path.join(a.outdir, "stats.json"), "w") as f:
        json.dump(stats, f, indent=1)
    print(json.dumps(stats))


if __name__ == "__main__":
    sys.exit(main())
