#!/usr/bin/python3
"""Generate a year of stamped build reports for qe-history from real records.

    gen_history.py [--seed S] [--builds N] [--lectures L] [--cells C]
                   [--scale X] [--prs P] [--plain] [--year] BASE.ndjson HEAD.ndjson OUTDIR

BASE and HEAD are real qe-cache-extract output of the two timed fixture
caches (../shared/fixtures/jupyter-cache-timed/{base,head}); every notebook
and cell record written is one of theirs (fields, labels, digests, first
lines, statuses, timing sources) with new durations and a provenance object
appended as qe-stamp appends it. OUTDIR gets main-NN.ndjson.gz (N weekly
main builds, NN from 01; --plain: .ndjson) and pr-NN.ndjson.gz (pull-request
builds, between main builds), and truth.json (what was injected).

The history (builds numbered from 1):
  - durations: the template's, times --scale (default 10), then the noise of
    data-formats.md section 13: cells of 0.05 s and more x exp(N(0, 0.065))
    + N(0, 0.01 s) (A/A ratio p99 about 1.24); shorter cells x exp(N(0,
    0.21)) (ratios up to 2); the first cell of a notebook and cells that
    raise a tolerated error swing most: x exp(N(0, 0.12)); execution_seconds = cell sum + start-up U(1.2,
    1.5) s, + U(2.5, 3) s stalls in 3 % of notebooks.
  - steps: the cell "slow-sleep" of intro x3 from build 30 on; every cell of
    numba_demo x1.2 from build 40 on, with numba 0.60.0 -> 0.61.0 (and the
    environment file's digest) changed in the provenance at build 40; every
    duration x0.8 from build 45 on, where the runner class changes.
  - spikes (one build only, not steps): build 15 the cell "numpy-eig" x4;
    build 22 every cell of errors_allowed x1.8.
  - edits: from build 25 on, dynamics/markov is HEAD's (a cell inserted,
    "markov-simulate" edited, same label; cells BASE has keep BASE's
    durations); intro's unlabelled cell (index 5)
    gets a new source digest (edited) from build 27 on; intro's "params" is
    HEAD's (edited) from build 27 on. Durations follow the cell, so the
    inserted cell is a real step in the lecture's sum at build 25.
  - lectures added and removed: "intro_extra" (a copy of intro under
    another name, its digests unchanged) from build 20 on; stale_timing
    until build 35 (gone from build 36).
  - --lectures L > 7: more copies of the templates (lectures/gen/NNN), for
    the benchmark; --cells C: each copy repeats its template's cells to C
    cells (digests made distinct).
  - pull-request builds (--prs, default 8): event pull_request, every
    duration x5 (they must never reach main's series).

--year (issue 30: history over years) changes the history so:
  - builds 1-20 (main and PR) are stamped before run.build_id existed (no
    build_id; run_id and run_attempt as ever), and 11 weeks (5, 10, ...,
    50 and 51) rebuild the previous week's commit;
  - a small step: images' "text-table" (0.08 s at --scale 10, a few ms of
    noise: x exp(N(0, 0.03)) + N(0, 0.002 s)) x1.5 from build 33 on;
  - a cell edit with a step: errors_allowed's "ea-after" gets a new source
    digest and x2 from build 36 on;
  - the upgrade at build 40 is numpy 2.0.2 -> 2.1.3, jax and jaxlib 0.4.30
    -> 0.4.35 (the environment file with them) and adds 20% to every cell
    of a tenth of the lectures (truth.json "upgrade_docs": every tenth name,
    in sorted order, of the lectures of build 40 but "broken"); numba
    does not change;
  - a kernel environment change: every notebook carries kernel_env (the
    hook's in-kernel versions); from build 28 on, the lecture
    truth.json "kernel_doc" runs on JAX's cpu backend instead of gpu, its
    cells x1.5, with no package or runner change;
  - package drift that moves nothing: ipykernel 6.29.5 -> 6.29.6 at build
    12, scipy 1.14.1 -> 1.14.2 at build 48;
  - spikes (one build, not steps): build 15 "numpy-eig" x4, build 22
    errors_allowed x1.8 (as without --year), build 9 images' "png-helper"
    x3, build 47 every cell of the lecture truth.json "spike_doc" x2.5,
    build 31 dynamics/markov's "markov-simulate" x3;
  - package bumps with steps just before them, which must stay where they
    are (issue 40): nbclient 0.10.0 -> 0.10.1 at build 8 and python 3.12.7
    -> 3.12.8 at build 18; truth.json "planted" names three cells of
    generated lectures (code cell index 2) given durations of their own: a
    clean x2 step 0.30 s -> 0.60 s from build 16 on (two builds before
    python's bump), a x0.5 step 0.50 s -> 0.25 s from build 7 on (one
    build before nbclient's), and a x1.5 step on a noisy 0.08 s cell (x
    exp(N(0, 0.10)), 10% noise) from build 24 on, where nothing changed.
"""
import argparse
import copy
import gzip
import hashlib
import json
import math
import os
import random

REPO = "QuantEcon/lecture-demo"
START = 1764568800  # 2025-12-01T06:00:00Z
WEEK = 7 * 86400


def rfc3339(t):
    import time
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + ".000000Z"


def load(path):
    docs, order = {}, []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            r = json.loads(line)
            r.pop("provenance", None)
            d = r["document"]
            if r["kind"] == "notebook":
                docs[d] = {"nb": r, "cells": []}
                order.append(d)
            elif r["kind"] == "cell":
                docs[d]["cells"].append(r)
    return docs, order


def sha(s):
    return hashlib.sha256(s.encode()).hexdigest()


def provenance(b, pr, truth):
    upgraded = b >= truth["upgrade_build"] and not pr
    runs_on = b >= truth["runner_build"] and not pr
    rclass = truth["runner_after"] if runs_on else truth["runner_before"]
    numba = truth["numba_after"] if upgraded else truth["numba_before"]
    pkgs = {"ipykernel": "6.29.5", "jupyter-book": "1.0.3", "numba": numba,
            "numpy": "2.0.2", "scipy": "1.14.1"}
    if truth.get("year"):
        pkgs.update(numba=truth["numba_before"], jax="0.4.30", jaxlib="0.4.30")
        if upgraded:
            pkgs.update(numpy="2.1.3", jax="0.4.35", jaxlib="0.4.35")
        if b >= 12:
            pkgs["ipykernel"] = "6.29.6"
        if b >= 48:
            pkgs["scipy"] = "1.14.2"
        pkgs["nbclient"] = "0.10.1" if b >= truth["nbclient_build"] else "0.10.0"
        pkgs["python"] = "3.12.8" if b >= truth["python_build"] else "3.12.7"
    facts = {"runner_class": rclass, "cpu_model": "AMD EPYC 7763 64-Core Processor",
             "packages": {k: ".".join(v.split(".")[:2]) for k, v in sorted(pkgs.items())}}
    envfile = truth["env_after"] if upgraded else truth["env_before"]
    run_id = str(14000000000 + b * 1000 + (500 if pr else 0))
    t = START + (b - 1) * WEEK + (3 * 86400 if pr else 0)
    cb = b
    while truth.get("year") and not pr and (cb % 5 == 0 or cb == 51) and cb > 1:
        cb -= 1  # a week without a new commit rebuilds the last one
    src = {"repository": REPO, "commit": hashlib.sha1(f"{'pr' if pr else 'main'}-{cb}".encode()).hexdigest()}
    if pr:
        src.update({"event": "pull_request", "ref": f"refs/pull/{100 + b}/merge", "pr": 100 + b,
                    "head_ref": f"fix-{b}", "base_ref": "main"})
    else:
        src.update({"event": "schedule" if b % 2 else "push", "ref": "refs/heads/main"})
    p = {"tool": "qe-stamp 0.1.0", "source": src,
         "run": {"workflow": "Build Cache", "run_id": run_id, "run_number": 200 + b + (1000 if pr else 0),
                 "run_attempt": 1, "job": "cache", "build_id": f"{REPO}/{run_id}/1",
                 "started_at": rfc3339(t), "stamped_at": rfc3339(t + 1800)},
         "runner": {"os": "Linux", "distro": "ubuntu-24.04", "arch": "x86_64",
                    "hosted": "self-hosted" if runs_on else "github-hosted", "class": rclass},
         "hardware": {"cpu_model": facts["cpu_model"], "logical_cpus": 4, "memory_bytes": 16772739072},
         "environment": {"files": [{"path": "environment.yml", "sha256": envfile}],
                         "hash_files": sha("hf" + envfile), "packages": pkgs, "package_count": 312,
                         "packages_sha256": sha(json.dumps(pkgs, sort_keys=True))},
         "fingerprint": sha(json.dumps(facts, separators=(",", ":")))[:16],
         "fingerprint_facts": facts}
    if truth.get("year") and b <= 20:
        del p["run"]["build_id"]  # stamped before qe-stamp wrote it
    p["descriptor_sha256"] = sha(json.dumps(p, sort_keys=True))
    return p


def noisy(rng, d, swing, quiet=False, noise=None):
    if noise is not None:  # a cell of its own noise: x exp(N(0, noise))
        return d * math.exp(rng.gauss(0, noise))
    if quiet:  # a cell whose noise is a few ms
        return d * math.exp(rng.gauss(0, 0.03)) + rng.gauss(0, 0.002)
    if d >= 0.05:
        return max(0.0005, d * math.exp(rng.gauss(0, 0.12 if swing else 0.065)) + rng.gauss(0, 0.01))
    return d * math.exp(rng.gauss(0, 0.21))


def factor(b, pr, doc, label, truth):
    f = 5.0 if pr else 1.0
    if doc == "intro" and label == "slow-sleep" and b >= truth["cell_step_build"]:
        f *= 3.0
    if doc == "numba_demo" and b >= truth["upgrade_build"] and not pr and not truth.get("year"):
        f *= 1.2
    if truth.get("year"):
        f *= year_factor(b, pr, doc, label, truth)
    if b >= truth["runner_build"] and not pr:
        f *= 0.8
    if b == 15 and doc == "intro" and label == "numpy-eig":
        f *= 4.0
    if b == 22 and doc == "errors_allowed":
        f *= 1.8
    return f


def year_factor(b, pr, doc, label, truth):
    f = 1.0
    if doc == "images" and label == "text-table" and b >= truth["small_step_build"]:
        f *= 1.5
    if doc == "errors_allowed" and label == "ea-after" and b >= truth["edit_build"]:
        f *= 2.0
    if doc in truth["upgrade_docs"] and b >= truth["upgrade_build"] and not pr:
        f *= 1.2
    if doc == truth["kernel_doc"] and b >= truth["kernel_build"]:
        f *= 1.5
    if b == 9 and doc == "images" and label == "png-helper":
        f *= 3.0
    if b == 47 and doc == truth["spike_doc"]:
        f *= 2.5
    if b == 31 and doc == "dynamics/markov" and label == "markov-simulate":
        f *= 3.0
    return f


def planted(b, pr, doc, index, truth):
    """(seconds, noise or None) of a cell with a step of its own (--year), else None."""
    for st in truth.get("planted", []):
        if st["document"] == doc and st["index"] == index:
            f = (5.0 if pr else 1.0) * (st["factor"] if b >= st["build"] else 1.0)
            return st["base_s"] * f * (0.8 if b >= truth["runner_build"] and not pr else 1.0), st["noise"]
    return None


def kernel_env(b, doc, truth):
    pkgs = provenance(b, False, truth)["environment"]["packages"]
    gpu = not (doc == truth["kernel_doc"] and b >= truth["kernel_build"])
    return {"modules": {"numpy": pkgs["numpy"], "jax": pkgs["jax"]},
            "jax": {"x64": False, "backend": "gpu" if gpu else "cpu"}, "threads": {"cpus": 4}}


def lectures(b, base, head, order, args):
    """(document, template) for build b."""
    out = []
    for d in order:
        if d == "stale_timing" and b >= 36:
            continue
        t = base[d]
        if d == "dynamics/markov" and b >= 25:
            t = copy.deepcopy(head[d])
            was = {c["label"]: c["duration_s"] for c in base[d]["cells"]}
            for c in t["cells"]:
                c["duration_s"] = was.get(c["label"], c["duration_s"])
        if d == "errors_allowed" and args.year and b >= 36:
            t = copy.deepcopy(base[d])
            t["cells"][2]["source_sha256"] = sha("errors_allowed ea-after, edited")
        if d == "intro" and b >= 27:
            t = copy.deepcopy(base[d])
            t["cells"][1] = copy.deepcopy(head[d]["cells"][1])
            t["cells"][1]["duration_s"] = base[d]["cells"][1]["duration_s"]
            t["cells"][5]["source_sha256"] = sha("intro cell 5, edited")
        out.append((d, t))
        if d == "intro" and b >= 20:
            out.append(("intro_extra", t))
    timed = [d for d in order if d not in ("broken", "stale_timing")]
    for k in range(max(0, args.lectures - 8)):
        out.append((f"lectures/gen/{k:03d}", base[timed[k % len(timed)]]))
    return out


_copies = {}


def copy_cells(doc, tmpl, args):
    k = (doc, id(tmpl))
    if k not in _copies:
        _copies[k] = _copy_cells(doc, tmpl, args)
    return _copies[k]


def _copy_cells(doc, tmpl, args):
    cells = tmpl["cells"]
    if not doc.startswith("lectures/gen/") or args.cells <= len(cells) or not cells:
        return cells
    out = []
    for i in range(args.cells):
        c = copy.deepcopy(cells[i % len(cells)])
        c["index"] = i
        if i >= len(cells):
            c["source_sha256"] = sha(f"{c['source_sha256']}/{i}")
            if c["label"] is not None:
                c["label"] = f"{c['label']}-{i}"
        out.append(c)
    return out


def build_records(rng, b, pr, base, head, order, args, truth):
    prov = json.dumps(provenance(b, pr, truth), ensure_ascii=False, separators=(",", ":"))
    lines = []
    for doc, t in lectures(b, base, head, order, args):
        nb = copy.deepcopy(t["nb"])
        nb["document"] = doc
        if args.year:
            nb["kernel_env"] = kernel_env(b, doc, truth)
        cells = []
        for c in copy_cells(doc, t, args):
            c = dict(c, document=doc)
            if c["duration_s"] is not None:
                d = c["duration_s"] * args.scale * factor(b, pr, doc, c["label"], truth)
                swing = c["index"] == 0 or c["status"] == "error"
                quiet = args.year and doc == "images" and c["label"] == "text-table"
                st = planted(b, pr, doc, c["index"], truth)
                if st:
                    d = st[0]
                c["duration_s"] = round(noisy(rng, d, swing, quiet, st[1] if st else None), 6)
            cells.append(c)
        if nb["status"] == "ok":
            s = round(sum(c["duration_s"] for c in cells if c["duration_s"] is not None), 6)
            nb["cells_seconds"] = s
            ex = s + rng.uniform(1.2, 1.5) + (rng.uniform(2.5, 3.0) if rng.random() < 0.03 else 0)
            nb["execution_seconds"] = round(ex, 6)
            nb["overhead_seconds"] = round(ex - s, 6)
            nb["code_cells"] = len(cells)
            nb["timed_cells"] = sum(1 for c in cells if c["duration_s"] is not None)
        for r in [nb] + cells:  # provenance last, as qe-stamp appends it
            lines.append(json.dumps(r, ensure_ascii=False, separators=(",", ":"))[:-1] + ',"provenance":' + prov + "}")
    return "\n".join(lines) + "\n"


def plant(free, base, order):
    """The cells given steps of their own: two just before a package bump, one small on a noisy cell."""
    timed = [d for d in order if d not in ("broken", "stale_timing")]
    spec = [("before-python", 16, 2.0, 0.30, None), ("before-nbclient", 7, 0.5, 0.50, None),
            ("noisy-small", 24, 1.5, 0.08, 0.10)]
    out = []
    for (what, build, f, s, noise), doc in zip(spec, free):
        tmpl = base[timed[int(doc.rsplit("/", 1)[1]) % len(timed)]]
        out.append({"what": what, "document": doc, "index": 2, "label": tmpl["cells"][2]["label"],
                    "build": build, "factor": f, "base_s": s, "noise": noise})
    return out


def write(path, text, plain):
    if plain:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        with gzip.GzipFile(path, "wb", compresslevel=6, mtime=0) as fh:
            fh.write(text.encode())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--builds", type=int, default=52)
    ap.add_argument("--lectures", type=int, default=8)
    ap.add_argument("--cells", type=int, default=0)
    ap.add_argument("--scale", type=float, default=10.0)
    ap.add_argument("--prs", type=int, default=8)
    ap.add_argument("--plain", action="store_true")
    ap.add_argument("--year", action="store_true")
    ap.add_argument("base")
    ap.add_argument("head")
    ap.add_argument("outdir")
    args = ap.parse_args()
    base, order = load(args.base)
    head, _ = load(args.head)
    truth = {"cell_step_build": 30, "upgrade_build": 40, "runner_build": 45,
             "numba_before": "0.60.0", "numba_after": "0.61.0",
             "env_before": sha("environment.yml 2025"), "env_after": sha("environment.yml 2026"),
             "runner_before": "github-hosted/ubuntu-24.04/4cpu", "runner_after": "runs-on/cpu=4+ram=16"}
    if args.year:
        names = sorted({d for d, _ in lectures(truth["upgrade_build"], base, head, order, args)} - {"broken"})
        gen = [d for d in names if d.startswith("lectures/gen/")] or names
        truth.update(year=True, small_step_build=33, edit_build=36, kernel_build=28,
                     upgrade_docs=names[::10], kernel_doc=gen[len(gen) // 3],
                     spike_doc=gen[len(gen) // 2], numpy_before="2.0.2", numpy_after="2.1.3")
        free = [d for d in gen if d not in truth["upgrade_docs"] + [truth["kernel_doc"], truth["spike_doc"]]]
        truth.update(nbclient_build=8, python_build=18, planted=plant(free, base, order))
    else:
        truth["upgrade_docs"] = ["numba_demo"]
    rng = random.Random(args.seed)
    os.makedirs(args.outdir, exist_ok=True)
    ext = ".ndjson" if args.plain else ".ndjson.gz"
    pr_at = sorted(random.Random(args.seed + 1).sample(range(2, args.builds), max(0, min(args.prs, args.builds - 2))))
    for b in range(1, args.builds + 1):
        write(os.path.join(args.outdir, f"main-{b:02d}{ext}"),
              build_records(rng, b, False, base, head, order, args, truth), args.plain)
        if b in pr_at:
            write(os.path.join(args.outdir, f"pr-{b:02d}{ext}"),
                  build_records(rng, b, True, base, head, order, args, truth), args.plain)
    truth["pr_builds"] = pr_at
    with open(os.path.join(args.outdir, "truth.json"), "w") as fh:
        json.dump(truth, fh, indent=1, sort_keys=True)
        fh.write("\n")


if __name__ == "__main__":
    main()
