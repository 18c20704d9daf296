#!/usr/bin/python3
"""bq_check.py SCHEMA NDJSON...: every record's fields fit the BigQuery table
schema SCHEMA (tools/bq-schema's output) the way `bq load
--source_format=NEWLINE_DELIMITED_JSON` reads them: each key is a field, a
REQUIRED field is present and not null, a value has the field's type
(RECORD: an object of its fields, REPEATED: a list, JSON: any object,
TIMESTAMP: an RFC 3339 string).  Prints 'FILE:LINE: path: problem' and
exits 1 when any record does not fit; prints the number of records
checked and exits 0 otherwise.  Reads gzip files too."""
import gzip
import json
import re
import sys

TS = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$")


def fits(f, v, path, out):
    if v is None:
        if f["mode"] == "REQUIRED":
            out.append(f"{path}: REQUIRED but null")
        return
    if f["mode"] == "REPEATED":
        if not isinstance(v, list):
            out.append(f"{path}: REPEATED but not a list")
            return
        for i, x in enumerate(v):
            one(f, x, f"{path}[{i}]", out)
        return
    one(f, v, path, out)


def one(f, v, path, out):
    t = f["type"]
    ok = {
        "STRING": lambda: isinstance(v, str),
        "INTEGER": lambda: isinstance(v, int) and not isinstance(v, bool),
        "FLOAT": lambda: isinstance(v, (int, float)) and not isinstance(v, bool),
        "BOOLEAN": lambda: isinstance(v, bool),
        "TIMESTAMP": lambda: isinstance(v, str) and TS.match(v) is not None,
        "JSON": lambda: isinstance(v, dict),
        "RECORD": lambda: isinstance(v, dict),
    }[t]()
    if not ok:
        out.append(f"{path}: {t} but {json.dumps(v)[:60]}")
    elif t == "RECORD":
        record(f["fields"], v, path, out)


def record(fields, obj, path, out):
    byname = {f["name"]: f for f in fields}
    for k, v in obj.items():
        if k not in byname:
            out.append(f"{path}{k}: no such field")
        else:
            fits(byname[k], v, f"{path}{k}.", out)
    for f in fields:
        if f["mode"] == "REQUIRED" and f["name"] not in obj:
            out.append(f"{path}{f['name']}: REQUIRED but missing")


def main():
    fields = json.load(open(sys.argv[1], encoding="utf-8"))
    n = bad = 0
    for name in sys.argv[2:]:
        opener = gzip.open if name.endswith(".gz") else open
        with opener(name, "rt", encoding="utf-8") as fh:
            for i, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                n += 1
                out = []
                record(fields, json.loads(line), "", out)
                for o in out:
                    print(f"{name}:{i}: {o.replace('.:', ':').rstrip('.')}")
                bad += bool(out)
    print(f"{n} records")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
