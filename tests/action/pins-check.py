#!/usr/bin/python3
"""pins-check.py RUNTIMES YAML...: every inner action a workflow or action.yml
uses is pinned by a 40-hex commit SHA with its tag in a comment
(`uses: owner/repo@SHA # vX.Y.Z`), and RUNTIMES (tests/action/runtimes.txt)
lists that pin with that tag and a node24 runtime.  Local actions (./) and
this project's own action (QuantEcon/qe-telemetry, by its major tag in the
examples) are not inner actions.  Prints "FILE:LINE: what" and exits 1 on
any finding."""
import re
import sys


def main(argv):
    table = {}
    for ln in open(argv[0], encoding="utf-8"):
        if ln.strip() and not ln.startswith("#"):
            pin, tag, runtime = ln.split()
            table[pin] = (tag, runtime)
    bad = []
    for path in argv[1:]:
        for no, ln in enumerate(open(path, encoding="utf-8"), 1):
            m = re.match(r"\s*(?:-\s+)?uses:\s*(\S+)\s*(.*)$", ln)
            if not m or m.group(1).startswith(("./", "QuantEcon/qe-telemetry")):
                continue
            pin, comment = m.group(1), m.group(2)
            where = "%s:%d: %s" % (path, no, pin)
            p = re.fullmatch(r"([\w.-]+/[\w./-]+)@([0-9a-f]{40})", pin)
            c = re.fullmatch(r"#\s*(v[0-9][\w.]*)\s*", comment)
            if not p or not c:
                bad.append(where + ": not pinned by commit SHA with its tag in a comment")
            elif pin not in table:
                bad.append(where + ": not in %s (read runs.using at that tag upstream)" % argv[0])
            elif table[pin][0] != c.group(1):
                bad.append(where + ": the comment says %s, the SHA is %s" % (c.group(1), table[pin][0]))
            elif table[pin][1] != "node24":
                bad.append(where + ": runs on %s, which the runners removed; use its node24 release" % table[pin][1])
    print("\n".join(bad)) if bad else None
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
