#!/usr/bin/env python3
"""cases.py FILE...: run the tool-level cases kept as data (tests/cases/*.cases)
and print "N passed, N failed"; exit 1 when any failed, 2 on a malformed file.

A case file reads like the specification it checks. Each case is a block:

    ## what the case shows (its name)
    $ qe-stamp -r test -
    < {"kind":"cell","schema_version":1}      one line of standard input
    > {"kind":"cell",...}                     one line of standard output
    ! qe-stamp: <stdin>:2: invalid JSON ...   one line of standard error
    ? 2                                       the exit status (0 if not given)

`$` is a command for bash, run in a fresh empty folder (the case's own,
also $T) with the tools first on PATH, no LANG or LC_*, TZ=UTC, and these
variables: R (the repository's root), F (tests/fixtures), S
(tests/fixtures/shared). Standard output and standard error are compared line for line and
whole: a case that gives no `>` line expects no output, one that gives no
`!` line expects silence on stderr. A line `<` or `>` or `!` alone is an
empty line. `#` starts a comment line; blank lines separate nothing.
Bytes that are not UTF-8 are written as Python's \\x escapes in a
`<b ` (stdin), `>b ` (stdout) or `!b ` (stderr) line.
"""
import ast
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Case:
    def __init__(self, path, line, name):
        self.path, self.line, self.name = path, line, name
        self.cmd = None
        self.stdin, self.stdout, self.stderr = [], [], []
        self.status = 0


def unescape(text):
    return ast.literal_eval("b'''" + text.replace("'''", "\\'\\'\\'") + "'''")


def parse(path):
    cases, cur, bad = [], None, []
    with open(path, "rb") as f:
        for n, raw in enumerate(f.read().split(b"\n"), 1):
            line = raw.decode("utf-8", "surrogateescape")
            if line.startswith("## "):
                cur = Case(path, n, line[3:].strip())
                cases.append(cur)
                continue
            if line.strip() == "" or line.startswith("#"):
                continue
            if cur is None:
                bad.append("%s:%d: a line before the first '## ' case" % (path, n))
                continue
            tag, _, rest = line.partition(" ")
            if tag == "$":
                if cur.cmd is not None:
                    bad.append("%s:%d: a second command in case '%s'" % (path, n, cur.name))
                cur.cmd = rest
            elif tag in ("<", ">", "!"):
                target = {"<": cur.stdin, ">": cur.stdout, "!": cur.stderr}[tag]
                target.append(rest.encode("utf-8", "surrogateescape"))
            elif tag in ("<b", ">b", "!b"):
                target = {"<b": cur.stdin, ">b": cur.stdout, "!b": cur.stderr}[tag]
                target.append(unescape(rest))
            elif tag == "?":
                try:
                    cur.status = int(rest)
                except ValueError:
                    bad.append("%s:%d: '? %s': the status is a number" % (path, n, rest))
            else:
                bad.append("%s:%d: '%s': a line begins with ##, $, <, >, !, ? or #" % (path, n, tag))
    for c in cases:
        if c.cmd is None:
            bad.append("%s:%d: case '%s' has no command" % (path, c.line, c.name))
    return cases, bad


def environment(tmp):
    env = {k: v for k, v in os.environ.items()
           if not (k == "LANG" or k.startswith("LC_") or k == "LANGUAGE")}
    env.update(TZ="UTC", R=ROOT, F=os.path.join(ROOT, "tests", "fixtures"),
               S=os.path.join(ROOT, "tests", "fixtures", "shared"), T=tmp)
    return env


def lines(data):
    if data == b"":
        return []
    if data.endswith(b"\n"):
        data = data[:-1]
    return data.split(b"\n")


def show(label, got, want):
    out = ["  %s:" % label]
    for i in range(max(len(got), len(want))):
        g = got[i] if i < len(got) else None
        w = want[i] if i < len(want) else None
        mark = " " if g == w else "!"
        if w is not None:
            out.append("   %s want %r" % (mark, w.decode("utf-8", "backslashreplace")))
        if g != w:
            out.append("   %s got  %s" % (mark, "(nothing)" if g is None else repr(g.decode("utf-8", "backslashreplace"))))
    return out


def run(case):
    tmp = tempfile.mkdtemp(prefix="case.")
    try:
        stdin = b"".join(l + b"\n" for l in case.stdin)
        p = subprocess.run(["bash", "-c", case.cmd], input=stdin, capture_output=True,
                           cwd=tmp, env=environment(tmp), timeout=120)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    out, err = lines(p.stdout), lines(p.stderr)
    if out == case.stdout and err == case.stderr and p.returncode == case.status:
        return None
    report = ["%s:%d: %s" % (case.path, case.line, case.name), "  $ " + case.cmd]
    if out != case.stdout:
        report += show("stdout", out, case.stdout)
    if err != case.stderr:
        report += show("stderr", err, case.stderr)
    if p.returncode != case.status:
        report.append("  status: want %d, got %d" % (case.status, p.returncode))
    return "\n".join(report)


def main():
    if len(sys.argv) < 2:
        print("usage: cases.py FILE...", file=sys.stderr)
        return 2
    passed = failed = 0
    trouble = False
    for path in sys.argv[1:]:
        cases, bad = parse(path)
        for b in bad:
            print(b, file=sys.stderr)
            trouble = True
        for c in cases:
            if c.cmd is None:
                continue
            r = run(c)
            if r is None:
                passed += 1
            else:
                failed += 1
                print(r, file=sys.stderr)
    sys.stderr.flush()
    print("%d passed, %d failed" % (passed, failed))
    return 2 if trouble else (1 if failed else 0)


if __name__ == "__main__":
    sys.exit(main())
