#!/usr/bin/python3
"""Compare qe-cache-extract output (argv[2]) with a fixture's reference
cells (argv[1], written by the fixture tools' summarise.py, a stdlib reader):
every reference cell must be there with the same label, tags and execution
count, duration_s equal to input_reply_s (None when stale or untimed), busy_s
equal to busy_idle_s, and the stale flag. Prints each mismatch; exit 1 if any."""
import json
import sys

ref = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
ours = [json.loads(l) for l in open(sys.argv[2], encoding="utf-8")]
cells = {(r["cache_key"], r["index"]): r for r in ours if r["kind"] == "cell"}
bad = 0
for r in ref:
    o = cells.get((r["hashkey"], r["code_cell_index"]))
    where = f'{r["uri"]} cell {r["code_cell_index"]}'
    if o is None:
        print(where, "missing")
        bad += 1
        continue
    want = None if r["stale"] else r["input_reply_s"]
    busy = None if want is None else r["busy_idle_s"]
    got = (o["duration_s"], o["busy_s"], o["label"], o["tags"], o["execution_count"],
           o["timing_note"] == "stale")
    exp = (want, busy, r["name"], r["tags"], r["execution_count"], r["stale"])
    if got != exp:
        print(where, "got", got, "want", exp)
        bad += 1
if len(cells) != len(ref):
    print(f"{len(cells)} cell records, reference has {len(ref)}")
    bad += 1
sys.exit(1 if bad else 0)
