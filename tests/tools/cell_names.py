"""The display name of every code cell in qe-cache-extract records on stdin, one
line each ("  code cell N: NAME", N counted from 1), under its document: what
tests/fixtures/names/names.golden lists."""
import sys, json
for l in sys.stdin:
    r = json.loads(l)
    if r["kind"] == "notebook":
        print(f"{r['document']} (names from: {r['names_from'] or 'failed, no cells'})")
    elif r["kind"] == "cell":
        print(f"  code cell {r['index'] + 1}: {r['name'] if r['name'] is not None else '(blank)'}")
