#!/usr/bin/python3
"""Check one build of a book built again and again on one _build: every
{exec-time} role against the build that measured it, and the status file.

usage: exec_time_builds.py HTMLDIR EXECUTED REPORT...

REPORT... are the stored reports of this build and the earlier ones, oldest
first (qe-cache-extract -s START | qe-stamp after each build); EXECUTED is
the comma-separated documents this build executed.  A document's measuring
record is its notebook record (and the cell records after it) in the last
report whose build executed it (origin "executed").  Writes that merged
record stream to HTMLDIR/../measured.ndjson (for exec_time_check.py) and
prints one line per role, `PAGE | TARGET | commit OK | SOURCE`, then the
status file's checks; exits 1 when a tooltip names another commit or
another source than the measuring build's, or a status count is not this
build's."""
import html
import json
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
executed = set(filter(None, sys.argv[2].split(",")))
measuring = {}   # document -> (notebook record, [cell records])
for path in sys.argv[3:]:
    cur = None
    for line in open(path, encoding="utf-8"):
        r = json.loads(line)
        if r["kind"] == "notebook":
            cur = None
            if r.get("origin") == "executed" and r.get("status") == "ok":
                cur = measuring[r["document"]] = (r, [])
        elif r["kind"] == "cell" and cur is not None and r["document"] == cur[0]["document"]:
            cur[1].append(r)
with open(root.parent / "measured.ndjson", "w", encoding="utf-8") as f:
    for nb, cells in measuring.values():
        for r in [nb, *cells]:
            f.write(json.dumps(r) + "\n")

bad = 0


def fail(msg):
    global bad
    bad += 1
    print(f"FAIL: {msg}")


labels = {(d, c["label"]) for d, (_, cs) in measuring.items() for c in cs if c.get("label")}
for page in sorted(root.rglob("*.html")):
    doc = str(page.relative_to(root).with_suffix(""))
    text = page.read_text(encoding="utf-8")
    for m in re.finditer(r'<li><p>([a-z]+) ([^:<]+): <abbr class="([^"]+)" title="([^"]*)">', text):
        target, cls, title = html.unescape(m.group(2)), m.group(3), html.unescape(m.group(4))
        if "#" in target:
            d = target.split("#", 1)[0]
        elif (doc, target) in labels:
            d = doc
        else:
            d = target
        if "qe-exec-time-missing" in cls:
            fail(f"{doc} | {target}: placeholder ({title})")
            continue
        nb = measuring[d][0]
        commit = nb["provenance"]["source"]["commit"][:12]
        source = "this build" if d in executed else "stored report"
        ok = f"commit {commit};" in title and f"source: {source}" in title
        if not ok:
            fail(f"{doc} | {target}: {title!r} does not name commit {commit} and source {source}")
        else:
            print(f"{doc} | {target} | commit of the measuring build | {source}")

status = json.load(open(root / "execution_status.json", encoding="utf-8"))
timed = 0
for e in status["documents"]:
    d = e["document"]
    nb = measuring[d][0]
    here = d in executed
    want = {"execution": "executed" if here else "cached",
            "cells_timed": nb["timed_cells"] if here else 0,
            "times.from": "this-build" if here else "stored-report",
            "times.commit": nb["provenance"]["source"]["commit"]}
    got = {"execution": e["execution"], "cells_timed": e["cells_timed"],
           "times.from": e["times"]["from"], "times.commit": e["times"]["commit"]}
    timed += want["cells_timed"]
    if want != got:
        fail(f"status {d}: {got} (want {want})")
    else:
        print(f"status {d} | {e['execution']} | cells_timed {e['cells_timed']} | times from {e['times']['from']}")
t = status["totals"]
if [t["executed"], t["cached"], t["cells_timed"]] != [len(executed), len(status["documents"]) - len(executed), timed]:
    fail(f"status totals {t}")
else:
    print(f"status totals | executed {t['executed']} | cached {t['cached']} | cells_timed {t['cells_timed']}")
sys.exit(1 if bad else 0)
