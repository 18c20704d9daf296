#!/usr/bin/python3
"""no-expr-in-run.py FILE...: every run: script of a workflow or composite
action is free of ${{ }} expressions (values reach scripts through env:
only).  Prints FILE: job/step for each offender; exit 1 when any."""
import sys

import yaml


def steps(doc):
    if "runs" in doc:
        yield "action", doc["runs"].get("steps", [])
    for name, job in (doc.get("jobs") or {}).items():
        yield name, job.get("steps", [])


bad = 0
for path in sys.argv[1:]:
    for job, ss in steps(yaml.safe_load(open(path))):
        for n, s in enumerate(ss):
            if "${{" in str(s.get("run", "")):
                print(f"{path}: {job}/{s.get('name', s.get('id', n))}: expression inside run:")
                bad += 1
sys.exit(1 if bad else 0)
