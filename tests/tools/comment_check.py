#!/usr/bin/python3
"""comment_check.py FILE.md...: parse qe-comment's rendered Markdown (a
comment or a job summary) and check that its sections agree with each other.
Prints one line per disagreement ("FILE: what") and exits 1 if there is any.

What must agree (tests/qe-comment.bats runs it on every fixture):
  - the headline's cell counts (slower, faster, unclear, unchanged) are the
    rows of those verdicts in "All cells", leaving out rows reported apart
    (changed on main, ignored), when the table is listed whole;
  - the headline's re-executed lectures, newly failing and still failing are
    the summary's ("Compared") and the failure warnings';
  - the summary's lecture kinds add up to its total, its failures to its
    failed count, and the lectures not re-executed are the cached line's;
  - "Per-lecture totals: N" and "All cells: N" are their tables' rows (or
    a truncation note says how many are missing), and the per-lecture table
    lists every lecture but those not re-executed;
  - no lecture reads "unchanged" beside cells that moved one way only.
"""
import re
import sys


def num(s):
    return int(s.replace(",", ""))


def count(pattern, text, default=None):
    m = re.search(pattern, text)
    return num(m.group(1)) if m else default


def tables(lines):
    """Each table: (the <summary> before it or None, [rows as lists of cells])."""
    out, cur, summary = [], None, None
    for ln in lines:
        m = re.match(r"<summary>(.*)</summary>", ln)
        if m:
            summary = m.group(1)
        if ln.startswith("|"):
            if cur is None:
                cur = (summary, [])
                out.append(cur)
                summary = None
            cur[1].append([c.strip() for c in ln.strip().strip("|").split(" | ")])
        else:
            cur = None
    return [(s, rows[2:]) for s, rows in out]  # header and alignment rows dropped


def check(path):
    text = open(path, encoding="utf-8").read()
    lines = text.splitlines()
    bad = []
    # the headline (after a results-differ line, which comes first when there is one)
    head = next((ln for ln in lines if ln.startswith(("🔴", "🟡", "🟢", "⚠️"))
                 and not ln.startswith("⚠️ **Results differ**")), "")
    hc = {w: count(r"(?:\*\*)?([\d,]+) (?:cells? )?" + w, head.split(" in ")[0], 0)
          for w in ("slower", "faster", "unclear", "unchanged")}
    h_exec = count(r"in ([\d,]+) re-executed lecture", head)
    h_new = count(r"([\d,]+) lectures? newly failing", head, 0)
    h_still = count(r"([\d,]+) lectures? still failing", head, 0)
    # the warnings
    m = re.search(r"(?m)^> - \*\*([\d,]+) lectures? newly failing", text)
    w_new = num(m.group(1)) if m else 0
    m = re.search(r"(?m)^> - ([\d,]+) lectures? still failing", text)
    w_still = num(m.group(1)) if m else 0
    if (w_new, w_still) != (h_new, h_still):
        bad.append(f"headline failing {h_new}+{h_still}, warnings {w_new}+{w_still}")
    if re.search(r"lectures? failed\*\*", head):
        bad.append("headline counts failed lectures without telling newly from still failing")
    # the summary's Compared line
    m = re.search(r"(?m)^- Lectures: ([\d,]+) in total: (.*)\. Cells: ([\d,]+) compared", text)
    if m is None and "#### Compared" in text:
        bad.append("a Compared section without its lecture counts")
    cached_line = count(r"(?m)^([\d,]+) lectures? (?:was|were) not re-executed", text, 0)
    total = None
    if m:
        total, kinds = num(m.group(1)), m.group(2)
        parts = {k: num(v) for v, k in re.findall(r"([\d,]+) (re-executed|not re-executed|failed|"
                                                  r"changed on main|removed|ignored)\b", kinds)}
        if sum(parts.values()) != total:
            bad.append(f"lecture kinds {parts} do not add up to {total}")
        if h_exec is not None and parts.get("re-executed") != h_exec:
            bad.append(f"headline {h_exec} re-executed, summary {parts.get('re-executed')}")
        if parts.get("failed", 0) != h_new + h_still:
            bad.append(f"summary failed {parts.get('failed', 0)}, headline {h_new}+{h_still}")
        fm = re.search(r"failed \(([\d,]+) newly failing, ([\d,]+) still failing\)", kinds)
        if fm and (num(fm.group(1)), num(fm.group(2))) != (h_new, h_still):
            bad.append("summary's newly/still failing differ from the headline's")
        if parts.get("not re-executed", 0) != cached_line and \
                "Lectures not re-executed:" not in text:
            bad.append(f"not re-executed {parts.get('not re-executed')}, cached line {cached_line}")
    for summary, rows in tables(lines):
        if summary is None:
            continue
        m = re.match(r"(Per-lecture totals|All cells): ([\d,]+)", summary)
        if not m:
            continue
        want = num(m.group(2))
        tm = re.search(r"Truncated: ([\d,]+) of ([\d,]+) " + ("lectures" if m.group(1)[0] == "P" else "cells"), text)
        missing = num(tm.group(1)) if tm else 0
        if len(rows) + missing != want:
            bad.append(f"{m.group(1)}: {want} said, {len(rows)} rows and {missing} truncated")
        if m.group(1) == "Per-lecture totals":
            if total is not None and missing == 0 and want != total - cached_line:
                bad.append(f"per-lecture table {want}, lectures {total} - not re-executed {cached_line}")
            for r in rows:
                verdict, cells = r[1], r[5]
                if verdict == "unchanged" and ("slower" in cells) != ("faster" in cells):
                    bad.append(f"lecture {r[0]} unchanged beside cells '{cells}'")
                if "slower" in cells and "faster" not in cells and "slower" not in verdict \
                        and "failing" not in verdict and "ignored" not in verdict:
                    bad.append(f"lecture {r[0]} '{verdict}' beside cells '{cells}'")
        elif missing == 0 and head:
            seen = {w: 0 for w in hc}
            for r in rows:
                if "changed on main" in r[-1] or "ignored" in r[-1]:
                    continue
                if r[2].endswith("now fails"):  # an unchanged cell that now raises
                    seen["unchanged"] += 1
                for w in seen:
                    if r[2].endswith(w):
                        seen[w] += 1
            if seen != hc and not head.startswith("⚠️") and "No per-cell timings" not in head \
                    and "No lecture was re-executed" not in head:
                if "No cell moved" in head:
                    seen_un = seen["unchanged"]
                    if seen_un != hc["unchanged"] or seen["slower"] or seen["faster"]:
                        bad.append(f"headline cells {hc}, table {seen}")
                else:
                    bad.append(f"headline cells {hc}, table {seen}")
    return [f"{path}: {b}" for b in bad]


def main():
    bad = []
    for p in sys.argv[1:]:
        bad += check(p)
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
