#!/usr/bin/env python3
"""jsonlines.py FILE...: every line of every FILE that holds records (its
first byte is '{') is UTF-8 (strict), one JSON object, and every number in
it is a finite double that its text reads back to: 1.79769313486232e+308
(above DBL_MAX, read back as infinity) fails, as do NaN and Infinity.
Files whose first byte is not '{' (Markdown, usage text) are skipped.
Prints "FILE:LINE: reason" for each bad line (exit status 1 if any), then
"N records" (the lines checked)."""
import json
import math
import sys


class Bad(Exception):
    pass


def number(text):
    v = float(text)
    if not math.isfinite(v):
        raise Bad("number %s does not read back as a finite double" % text)
    return v


def constant(name):
    raise Bad("%s is not JSON" % name)


def check(path, seen):
    bad = 0
    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(b"{"):
        return 0
    for n, raw in enumerate(data.split(b"\n"), 1):
        if raw == b"":
            continue
        try:
            line = raw.decode("utf-8", errors="strict")
            rec = json.loads(line, parse_float=number, parse_int=number, parse_constant=constant)
            if not isinstance(rec, dict):
                raise Bad("not a JSON object")
            seen[0] += 1
        except (UnicodeDecodeError, ValueError, Bad) as e:
            print("%s:%d: %s" % (path, n, e))
            bad += 1
    return bad


def main():
    seen = [0]
    bad = sum(check(p, seen) for p in sys.argv[1:])
    print("%d records" % seen[0])
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
