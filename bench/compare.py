#!/usr/bin/python3
"""Check that two NDJSON outputs hold the same records, in the same order.

    compare.py [--fields F1,F2,...] [--kind KIND] [--sort] EXPECTED GOT

Records are compared as parsed JSON (so key order and number spelling do not
matter; floats are compared to 14 significant digits, since cJSON prints
doubles with 15 or 17 digits). --kind keeps only records of that kind in
both files; --fields compares only those fields (the jq reference implements
a subset); --sort compares sorted by (document, kind, index) instead of in
order. Prints a summary line and up to 10 differences; exit 1 if any.
"""
import argparse
import json
import sys


def canon(v):
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, (int, float)):
        return float("%.14g" % v)
    if isinstance(v, list):
        return [canon(x) for x in v]
    return {k: canon(x) for k, x in v.items()}


def load(path, kind, fields):
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            r = json.loads(line)
            if kind and r.get("kind") != kind:
                continue
            if fields:
                r = {k: r.get(k, "<absent>") for k in fields}
            out.append(canon(r))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fields")
    ap.add_argument("--kind")
    ap.add_argument("--sort", action="store_true")
    ap.add_argument("expected")
    ap.add_argument("got")
    a = ap.parse_args()
    fields = a.fields.split(",") if a.fields else None
    x, y = load(a.expected, a.kind, fields), load(a.got, a.kind, fields)
    if a.sort:
        key = lambda r: json.dumps([r.get("document"), r.get("kind"), r.get("index")], sort_keys=True)  # noqa: E731
        x.sort(key=key)
        y.sort(key=key)
    bad = 0
    for i, (r, s) in enumerate(zip(x, y)):
        if r != s:
            bad += 1
            if bad <= 10:
                diff = {k: (r.get(k, "<absent>"), s.get(k, "<absent>")) for k in sorted(set(r) | set(s))
                        if r.get(k, "<absent>") != s.get(k, "<absent>")}
                print(f"record {i + 1} ({r.get('document')} {r.get('kind')} {r.get('index', '')}): "
                      f"{json.dumps(diff, ensure_ascii=False)[:600]}")
    if len(x) != len(y):
        print(f"{a.expected}: {len(x)} records, {a.got}: {len(y)}")
        bad += 1
    what = f"fields {a.fields}" if fields else "all fields"
    print(f"{'SAME' if not bad else 'DIFFERENT'}: {len(x)} records compared on {what}, {bad} differing")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
