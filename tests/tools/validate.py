#!/usr/bin/python3
"""Validate NDJSON records (stdin or files) against schema/record.json with a
real JSON Schema validator (draft 2020-12). Prints 'FILE:LINE: error' per bad
record and exits 1 if any; 0 when every line validates (and there was one)."""
import json
import pathlib
import sys

import jsonschema

here = pathlib.Path(__file__).resolve().parents[2] / "schema"
store = {}
for p in here.glob("*.json"):
    s = json.loads(p.read_text(encoding="utf-8"))
    store[s["$id"]] = s
root = store["https://qe-telemetry.example/schema/1/record.json"]
for s in store.values():
    jsonschema.Draft202012Validator.check_schema(s)
resolver = jsonschema.RefResolver.from_schema(root, store=store)
validator = jsonschema.Draft202012Validator(root, resolver=resolver)

bad = n = 0
streams = [(f, open(f, encoding="utf-8")) for f in sys.argv[1:]] or [("<stdin>", sys.stdin)]
for name, fh in streams:
    for i, line in enumerate(fh, 1):
        if not line.strip():
            continue
        n += 1
        rec = json.loads(line)
        errs = sorted(validator.iter_errors(rec), key=lambda e: list(e.path))
        if errs:
            bad += 1
            best = jsonschema.exceptions.best_match(errs)
            print(f"{name}:{i}: {'/'.join(map(str, best.path))}: {best.message}")
if n == 0:
    print("no records")
    sys.exit(1)
sys.exit(1 if bad else 0)
