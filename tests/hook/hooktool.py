#!/usr/bin/python3
"""Test helper for tests/hook.bats (real kernels through nbclient).

  hooktool.py run [--timing] [--parallel] OUTDIR NB...
      execute each notebook with nbclient (record_timing only with --timing;
      --parallel: all at once, one kernel each, no cell before every kernel
      is up), in the notebook's own folder;
      writes OUTDIR/STEM.ipynb (nbformat.writes), OUTDIR/STEM.pid (the kernel's
      process id) and OUTDIR/STEM.status ("ok" or "CellExecutionError")
  hooktool.py cells LOG OUTDIR STEM
      one tab-separated line per code cell of OUTDIR/STEM.ipynb, joined to the
      hook log by kernel pid, execution count and source digest:
      index label seq hook_s nbclient_s success error window
      ("-" where a value is absent; nbclient_s = shell.execute_reply -
      iopub.execute_input; window = "in" when execute_input - 1 ms <= hook
      start <= hook end <= execute_reply + 1 ms, else "out")
  hooktool.py validate LOG
      every line validates against schema/hook-log.json; prints LOG:LINE:
      error per bad line; exit 1 if any or if there is no line
  hooktool.py runs LOG
      per run: run, pid, starts, ends, first cwd ("run pid starts ends cwd"),
      in order of first appearance; exit 1 if a run mixes pids or kernel
      starts, or its seq is not 1..n with each end after its start
"""
import asyncio
import datetime
import hashlib
import json
import pathlib
import re
import sys

import nbformat


def digest(src):
    return hashlib.sha256(re.sub(r"\r\n?", "\n", src).rstrip(" \t\n\r\f\v")
                          .encode("utf-8", "surrogatepass")).hexdigest()


EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def ts(s):
    return datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)


def cmd_run(args):
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError
    timing = parallel = False
    while args and args[0].startswith("--"):
        opt = args.pop(0)
        if opt == "--timing":
            timing = True
        elif opt == "--parallel":
            parallel = True
        else:
            sys.exit(f"hooktool: unknown option {opt}")
    out = pathlib.Path(args[0])
    out.mkdir(parents=True, exist_ok=True)

    # --parallel: no cell runs before every kernel is up, so the kernels are
    # alive at the same time however the machine schedules their starts
    barrier = asyncio.Barrier(len(args) - 1) if parallel else None

    async def started(pid, client):
        pid.append(client.km.provisioner.pid)
        if barrier is not None:
            await asyncio.wait_for(barrier.wait(), 120)

    async def one(path):
        path = pathlib.Path(path).resolve()
        nb = nbformat.read(str(path), as_version=4)
        pid = []
        client = NotebookClient(nb, timeout=120, kernel_name="python3", record_timing=timing,
                                resources={"metadata": {"path": str(path.parent)}},
                                on_notebook_start=lambda notebook: started(pid, client))
        status = "ok"
        try:
            await client.async_execute()
        except CellExecutionError:
            status = "CellExecutionError"
        (out / (path.stem + ".ipynb")).write_text(nbformat.writes(nb), encoding="utf-8")
        (out / (path.stem + ".pid")).write_text(f"{pid[0]}\n")
        (out / (path.stem + ".status")).write_text(status + "\n")

    async def main():
        if parallel:
            await asyncio.gather(*(one(p) for p in args[1:]))
        else:
            for p in args[1:]:
                await one(p)

    asyncio.run(main())


def read_log(log):
    return [json.loads(line) for line in open(log, encoding="utf-8") if line.strip()]


def cmd_cells(log, outdir, stem):
    out = pathlib.Path(outdir)
    pid = int((out / (stem + ".pid")).read_text())
    nb = nbformat.read(str(out / (stem + ".ipynb")), as_version=4)
    ends = [r for r in read_log(log) if r["pid"] == pid and r["event"] == "end"]
    code = [c for c in nb.cells if c.cell_type == "code"]
    for i, c in enumerate(code):
        m = [r for r in ends if r["source_sha256"] == digest(c.source)
             and r["execution_count"] == c.execution_count]
        ex = c.metadata.get("execution", {})
        nbc = window = "-"
        if "iopub.execute_input" in ex and "shell.execute_reply" in ex:
            a, b = ts(ex["iopub.execute_input"]), ts(ex["shell.execute_reply"])
            nbc = "%.6f" % (b - a).total_seconds()
            if m:
                slack = datetime.timedelta(milliseconds=1)
                ok = a - slack <= ts(m[0]["start"]) <= ts(m[0]["end"]) <= b + slack
                window = "in" if ok else "out"
        label = c.metadata.get("name", "-")
        if len(m) != 1:
            print(f"{i}\t{label}\t-\t-\t{nbc}\t-\t-\t{window}" if not m else f"{i}\t{label}\tambiguous")
            continue
        r = m[0]
        print(f"{i}\t{label}\t{r['seq']}\t{r['duration_s']:.6f}\t{nbc}\t"
              f"{'true' if r['success'] else 'false'}\t{r['error'] or '-'}\t{window}")


def cmd_validate(log):
    import jsonschema
    folder = pathlib.Path(__file__).resolve().parent.parent.parent / "schema"
    store = {}
    for f in folder.glob("*.json"):
        s = json.loads(f.read_text(encoding="utf-8"))
        store[s["$id"]] = s
    schema = store["https://qe-telemetry.example/schema/1/hook-log.json"]
    jsonschema.Draft202012Validator.check_schema(schema)
    v = jsonschema.Draft202012Validator(schema, resolver=jsonschema.RefResolver.from_schema(schema, store=store))
    bad = n = 0
    with open(log, encoding="utf-8") as fh:
        for i, line in enumerate(fh, 1):
            n += 1
            try:
                rec = json.loads(line)
            except ValueError as e:
                print(f"{log}:{i}: invalid JSON: {e}")
                bad += 1
                continue
            errs = list(v.iter_errors(rec))
            if errs:
                bad += 1
                best = jsonschema.exceptions.best_match(errs)
                print(f"{log}:{i}: {'/'.join(map(str, best.path))}: {best.message}")
    if n == 0:
        print(f"{log}: no lines")
    sys.exit(1 if bad or n == 0 else 0)


def cmd_runs(log):
    runs = {}
    for r in read_log(log):
        runs.setdefault(r["run"], []).append(r)
    bad = False
    for run, recs in runs.items():
        starts = [r for r in recs if r["event"] == "start"]
        ends = {r["seq"]: r for r in recs if r["event"] == "end"}
        pids = {r["pid"] for r in recs}
        ks = {r["kernel_start"] for r in recs}
        pid, us = run.split("-")
        if (pids != {int(pid)} or len(ks) != 1
                or [r["seq"] for r in starts] != list(range(1, len(starts) + 1))
                or any(ends[s["seq"]]["start"] != s["start"] for s in starts if s["seq"] in ends)
                or not set(ends) <= {s["seq"] for s in starts}
                or ts(ks.pop()) != EPOCH + datetime.timedelta(microseconds=int(us))):
            print(f"{run}: inconsistent run")
            bad = True
        print(f"{run}\t{pid}\t{len(starts)}\t{len(ends)}\t{recs[0]['cwd']}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    cmd, rest = sys.argv[1], sys.argv[2:]
    if cmd == "run":
        cmd_run(rest)
    else:
        {"cells": cmd_cells, "validate": cmd_validate, "runs": cmd_runs}[cmd](*rest)
