#!/usr/bin/python3
"""action-inputs-check.py ACTION.yml TABLE.md: the inputs table of TABLE.md
(docs/action.md: the table whose header is `| input | default | meaning |`)
is action.yml's inputs, and states each default as action.yml does.

- every input of action.yml is in the table's first column (a row may name
  several: `cell-ratio`, `cell-abs`), once, and nothing else is;
- an input whose action.yml default is not empty has exactly that default,
  in backquotes, in the second column;
- an input whose action.yml default is empty has no backquoted default of
  its own there (an empty cell or words: `qe-cell-diff's`, `the book's`,
  `derived`, or `` `build` when `run` is given ``), unless action.yml's
  description says `default X` with X that very value (`cache-dir`).
Prints each difference as `TABLE.md:LINE: reason`; exit 1 on any.
"""
import re
import sys

import yaml

inputs = yaml.safe_load(open(sys.argv[1]))["inputs"]
lines = open(sys.argv[2], encoding="utf-8").read().split("\n")
head = next(i for i, l in enumerate(lines) if re.match(r"^\| input \| default \| meaning \|$", l))
rows = {}
bad = []
for n in range(head + 2, len(lines)):
    l = lines[n]
    if not l.startswith("|"):
        break
    cols = [c.strip() for c in l.strip("|").split(" | ")]
    for name in re.findall(r"`([^`]+)`", cols[0]):
        if name in rows:
            bad.append(f"{n + 1}: {name}: listed twice")
        rows[name] = (n + 1, cols[1])
for name in inputs:
    if name not in rows:
        bad.append(f"{head + 1}: {name}: an input of action.yml, not in the table")
for name, (n, cell) in rows.items():
    if name not in inputs:
        bad.append(f"{n}: {name}: in the table, not an input of action.yml")
        continue
    want = str(inputs[name].get("default", ""))
    desc = str(inputs[name].get("description", ""))
    if want:
        if cell != f"`{want}`":
            bad.append(f"{n}: {name}: default {cell or 'empty'}, action.yml's is `{want}`")
    else:
        m = re.fullmatch(r"`([^`]+)`", cell)
        if m and f"default {m.group(1)}" not in desc:
            bad.append(f"{n}: {name}: default {cell}, action.yml's is empty")
for b in bad:
    print(f"{sys.argv[2]}:{b}")
if not bad:
    print(f"{len(inputs)} inputs, their defaults as action.yml states them")
sys.exit(1 if bad else 0)
