#!/usr/bin/python3
"""Validate whole JSON documents (not NDJSON) against one schema of schema/,
with the others available for $ref: validate_doc.py SCHEMA FILE...  Prints
'FILE: path: error' per bad document and exits 1 if any; 0 when every
document validates."""
import json
import pathlib
import sys

import jsonschema

here = pathlib.Path(__file__).resolve().parents[2] / "schema"
store = {}
for p in here.glob("*.json"):
    s = json.loads(p.read_text(encoding="utf-8"))
    store[s["$id"]] = s
    jsonschema.Draft202012Validator.check_schema(s)
root = store["https://qe-telemetry.example/schema/1/" + sys.argv[1]]
resolver = jsonschema.RefResolver.from_schema(root, store=store)
validator = jsonschema.Draft202012Validator(root, resolver=resolver)
bad = 0
for name in sys.argv[2:]:
    doc = json.loads(pathlib.Path(name).read_text(encoding="utf-8"))
    errs = list(validator.iter_errors(doc))
    if errs:
        bad += 1
        best = jsonschema.exceptions.best_match(errs)
        print(f"{name}: {'/'.join(map(str, best.path))}: {best.message}")
sys.exit(1 if bad or len(sys.argv) < 3 else 0)
