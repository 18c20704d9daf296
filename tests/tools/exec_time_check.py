#!/usr/bin/python3
"""Check the {exec-time} roles of a built HTML book against records.

usage: exec_time_check.py HTMLDIR RECORDS.ndjson

Every list item of the test book reads `FORM TARGET: <abbr ...>TEXT</abbr>`.
For each, in page order, prints `PAGE | FORM TARGET | TEXT | VERDICT`:
VERDICT is `within` when TEXT is the value the records give for TARGET
(a cell's duration_s, a document's execution_seconds, a share of the
document's cells_seconds) within the rounding docs/exec-time.md documents for the
form (half a unit of the last printed digit; '< 0.01 s' means below
0.005 s), `placeholder` for the placeholder, else `OFF by ...`.  TEXT
prints a no-break space as `~` (number and unit must be joined by one).  Exit 1 when
any item is OFF.  It parses the printed text itself: it never calls the
extension's formatting code."""
import html
import json
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
cells, notebooks = {}, {}
for line in open(sys.argv[2], encoding="utf-8"):
    r = json.loads(line)
    if r["kind"] == "notebook":
        notebooks[r["document"]] = r
    elif r["kind"] == "cell" and r.get("label"):
        cells[(r["document"], r["label"])] = r

ITEM = re.compile(r'<li><p>([a-z]+) ([^:<]+): <abbr class="([^"]+)" title="[^"]*">([^<]*)</abbr>')


def parse(text, form):
    """(value, half-unit) of a printed duration or share: '< X' is below
    X/2 (the value that rounds to X), 'N min' is to the second in the
    human form and to the minute in the rounded one."""
    text = html.unescape(text).replace("\u00a0", " ")
    m = re.fullmatch(r"< ([0-9.]+) ?(s|%)", text)
    if m:
        return float(m.group(1)) / 4, float(m.group(1)) / 4
    m = re.fullmatch(r"(\d+) h(?: (\d+) min)?", text)
    if m:
        return 3600 * int(m.group(1)) + 60 * int(m.group(2) or 0), 30
    m = re.fullmatch(r"(\d+) min(?: (\d+) s)?", text)
    if m:
        half = 30 if form == "rounded" and m.group(2) is None else 0.5
        return 60 * int(m.group(1)) + int(m.group(2) or 0), half
    m = re.fullmatch(r"(\d+(?:\.(\d+))?) ?(s|%)", text)
    if m:
        digits = len(m.group(2) or "")
        return float(m.group(1)), 0.5 * 10 ** -digits
    raise ValueError(f"cannot read {text!r}")


bad = 0
for page in sorted(root.rglob("*.html")):
    doc = str(page.relative_to(root).with_suffix(""))
    for form, target, cls, text in ITEM.findall(page.read_text(encoding="utf-8")):
        target = html.unescape(target)
        key = f"{doc} | {form} {target} | {html.unescape(text).replace(chr(0xa0), '~')}"
        if "qe-exec-time-missing" in cls:
            print(f"{key} | placeholder")
            continue
        if "#" in target:
            d, label = target.split("#", 1)
        elif (doc, target) in cells:
            d, label = doc, target
        else:
            d, label = target, None
        nb = notebooks[d]
        want = nb["execution_seconds"] if label is None else cells[(d, label)]["duration_s"]
        if form == "share":
            want = 100 * want / nb["cells_seconds"]
        got, half = parse(text, form)
        if abs(got - want) <= half + 1e-9:
            print(f"{key} | within")
        else:
            bad += 1
            print(f"{key} | OFF by {got - want:+.6f} (records: {want})")
sys.exit(1 if bad else 0)
