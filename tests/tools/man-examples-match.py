"""man-examples-match.py WANT GOT: does GOT (a command's output) match WANT
(the output a man page shows)?  Lines are compared exactly, except that a
line that is only `...` (or `…`) matches any number of lines, and a `…`
inside a line matches any text.  Exit 0: it matches; 1: it does not."""
import re
import sys


def line_re(want):
    return re.compile("".join(".*" if p == "…" else re.escape(p) for p in re.split("(…)", want)) + r"\Z",
                      re.DOTALL)


def match(want, got):
    # ends[i]: the got-line counts that want[:i] can match
    ends = {0}
    for w in want:
        if w in ("...", "…"):
            ends = set(range(min(ends), len(got) + 1)) if ends else set()
        else:
            r = line_re(w)
            ends = {j + 1 for j in ends if j < len(got) and r.match(got[j])}
    return len(got) in ends


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        want = f.read().splitlines()
    with open(sys.argv[2], encoding="utf-8", errors="replace") as f:
        got = f.read().splitlines()
    sys.exit(0 if match(want, got) else 1)


main()
