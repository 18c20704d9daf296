#!/usr/bin/python3
"""Reference implementation of qe-cell-diff's classification for the
benchmarks: Python standard library only (json, gzip), as a careful user
would write it.

    ref_diff.py BASE HEAD

Reads two NDJSON streams (gzip accepted) and prints, for each document in
name order, a "notebook-diff" record and its "cell-diff" records, then a
"diff-summary", with the fields that carry the classification: document,
base_index, head_index, verdict, flags (cells); document, verdict, flags,
measure, cells (the per-verdict counts) (notebooks); notebooks, cells,
regression, runner_factor (summary). The rules are those of
man/qe-cell-diff.1 and cmd/qe-cell-diff.c: current records only, the
origin / cache-key rule for "cached", alignment on source digests by common
prefix/suffix and longest common subsequence, then label, first line,
position; source/upstream/output/status flags; comparable timing sources;
the n=1 rule with -r 1.5 -a 0.5 (cells), --nb-ratio 1.5 --nb-abs 1.0
(cells_seconds) or --exec-abs 3.5 (execution_seconds); differing provenance
fingerprints make a document not comparable; the runner factor; a lecture
that failed in HEAD is "failed" (failed in BASE too) or "newly-failed"; the
lecture rule: a lecture holding a regressed cell and no improved one is a
"regression" (the mirror image an "improvement") whatever its total, and
only otherwise does the sum route (cells_seconds, else execution_seconds)
decide.

Not implemented (the benchmark's reports have none): replicates (a document
repeated on one side; the Mann-Whitney test), -k/-d/-f jq expressions, -A.
"""
import gzip
import json
import math
import sys

STATUS = {"ok": 1, "error": 2, "skipped": 3, "not-run": 4}
TSRC = {"hook": 1, "nbclient": 2, "jupyterlab": 3, "papermill": 4, "executetime": 5}
VERDICTS = ["regression", "improvement", "unchanged", "inconclusive", "new", "removed",
            "no-timing", "not-comparable", "cached", "failed", "newly-failed"]
FLAGS = ["source-changed", "upstream-changed", "output-changed", "status-changed", "not-comparable"]
F_SOURCE, F_UPSTREAM, F_OUTPUT, F_STATUS, F_NOTCOMP = 1, 2, 4, 8, 16
CELL_R, CELL_A, NB_R, NB_A, EXEC_A = 1.5, 0.5, 1.5, 1.0, 3.5


class Side:
    __slots__ = ("present", "origin", "input_cache", "failed", "cache_key", "status", "fp", "facts",
                 "exec_s", "cells_s", "cells", "tsrc")

    def __init__(self):
        self.present = False
        self.origin = 0
        self.input_cache = False
        self.failed = False
        self.cache_key = self.status = self.fp = self.facts = None
        self.exec_s, self.cells_s = [], []
        self.cells = {}          # index -> (src, out8, label, first_line, status, tsrc, dur)
        self.tsrc = 0


def read(path, who, docs):
    op = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with op(path, "rt", encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            r = json.loads(line)
            kind = r.get("kind")
            if kind not in ("cell", "notebook") or r.get("current") is False:
                continue
            d = docs.get(r["document"])
            if d is None:
                d = docs[r["document"]] = (Side(), Side())
            s = d[who]
            s.present = True
            o = r.get("origin")
            if isinstance(o, str):
                if o == "inherited":
                    s.origin = s.origin or 2
                else:
                    s.origin = 1
            p = r.get("provenance")
            if isinstance(p, dict) and isinstance(p.get("fingerprint"), str) and s.fp is None:
                s.fp, s.facts = p["fingerprint"], p.get("fingerprint_facts")
            if kind == "notebook":
                es, cs = r.get("execution_seconds"), r.get("cells_seconds")
                s.exec_s.append(es if isinstance(es, (int, float)) else math.nan)
                s.cells_s.append(cs if isinstance(cs, (int, float)) else math.nan)
                if isinstance(r.get("cache_key"), str) and s.cache_key is None:
                    s.cache_key = r["cache_key"]
                st = r.get("status")
                if isinstance(st, str) and (s.status is None or st == "failed"):
                    s.status = st
                if st == "failed":
                    s.failed = True
                s.input_cache = r.get("input") == "cache"
                continue
            dur = r.get("duration_s")
            dur = dur if isinstance(dur, (int, float)) else math.nan
            ts = r.get("timing_source")
            tsrc = 0 if ts is None else TSRC.get(ts, 6)
            st = r.get("status")
            out = r.get("output_sha256")
            s.cells[r["index"]] = (r["source_sha256"][:32], out[:16] if isinstance(out, str) else None,
                                   r.get("label"), r.get("first_line"),
                                   0 if st is None else STATUS.get(st, 4), tsrc, dur)
            if not math.isnan(dur) and tsrc:
                if s.tsrc == 0:
                    s.tsrc = tsrc
                elif s.tsrc != tsrc:
                    s.tsrc = -1


def comparable(a, b):
    return a == b or (a in (2, 3) and b in (2, 3))


def same(level, x, y):
    if level == 0:
        return x[0] == y[0]
    if level == 1:
        return x[2] is not None and y[2] is not None and x[2] == y[2]
    return x[3] is not None and y[3] is not None and x[3] == y[3]


def align_level(B, H, out, level, b0, b1, h0, h1):
    if level == 3:
        g = min(b1 - b0, h1 - h0)
        out.extend((b0 + t, h0 + t) for t in range(g))
        out.extend((t, -1) for t in range(b0 + g, b1))
        out.extend((-1, t) for t in range(h0 + g, h1))
        return
    if b0 == b1 or h0 == h1:
        align_level(B, H, out, 3, b0, b1, h0, h1)
        return
    pre = suf = 0
    while b0 + pre < b1 and h0 + pre < h1 and same(level, B[b0 + pre], H[h0 + pre]):
        pre += 1
    while suf < b1 - b0 - pre and suf < h1 - h0 - pre and same(level, B[b1 - 1 - suf], H[h1 - 1 - suf]):
        suf += 1
    out.extend((b0 + t, h0 + t) for t in range(pre))
    lb, lh = b0 + pre, h0 + pre
    mb, mh = b1 - suf - lb, h1 - suf - lh
    match = [-1] * mb
    if mb > 0 and mh > 0 and (mb + 1) * (mh + 1) <= 64 << 20:
        L = [[0] * (mh + 1) for _ in range(mb + 1)]
        eq = [[same(level, B[lb + i], H[lh + k]) for k in range(mh)] for i in range(mb)]
        for i in range(mb - 1, -1, -1):
            Li, Ln, e = L[i], L[i + 1], eq[i]
            for k in range(mh - 1, -1, -1):
                Li[k] = Ln[k + 1] + 1 if e[k] else (Ln[k] if Ln[k] >= Li[k + 1] else Li[k + 1])
        i = k = 0
        while i < mb and k < mh:
            if eq[i][k] and L[i][k] == L[i + 1][k + 1] + 1:
                match[i] = k
                i += 1
                k += 1
            elif L[i + 1][k] >= L[i][k + 1]:
                i += 1
            else:
                k += 1
    i = k = 0
    while i < mb or k < mh:
        ni = i
        while ni < mb and match[ni] < 0:
            ni += 1
        nk = match[ni] if ni < mb else mh
        align_level(B, H, out, level + 1, lb + i, lb + ni, lh + k, lh + nk)
        if ni < mb:
            out.append((lb + ni, lh + nk))
            ni += 1
            nk += 1
        i, k = ni, nk
    out.extend((b1 - suf + t, h1 - suf + t) for t in range(suf))


def pairs(d):
    B = [d[0].cells[i] for i in sorted(d[0].cells)]
    H = [d[1].cells[i] for i in sorted(d[1].cells)]
    bi, hi = sorted(d[0].cells), sorted(d[1].cells)
    p = []
    align_level(B, H, p, 0, 0, len(B), 0, len(H))
    res, changed = [], False
    for b, h in p:
        f = F_UPSTREAM if changed else 0
        cb, ch = (B[b] if b >= 0 else None), (H[h] if h >= 0 else None)
        if cb and ch:
            if cb[0] != ch[0]:
                f |= F_SOURCE
            if cb[1] != ch[1]:
                f |= F_OUTPUT
            if cb[4] != ch[4]:
                f |= F_STATUS
        if not cb or not ch or f & F_SOURCE:
            changed = True
        res.append((cb, ch, bi[b] if b >= 0 else None, hi[h] if h >= 0 else None, f))
    return res


def head_executed(d):
    b, h = d
    if h.origin:
        return h.origin == 1, "origin"
    if not b.present or not h.input_cache or not b.input_cache or h.cache_key is None or b.cache_key is None:
        return True, "cache-key"
    return h.cache_key != b.cache_key, "cache-key"


def judge(b, h, R, A):
    delta = h - b
    if h >= b * R and delta >= A:
        return 0
    if b >= h * R and -delta >= A:
        return 1
    return 2


def median(v):
    v = sorted(v)
    n = len(v)
    return math.nan if n == 0 else v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def main():
    docs = {}
    read(sys.argv[1], 0, docs)
    read(sys.argv[2], 1, docs)
    names = sorted(docs, key=lambda s: s.encode())
    # runner factor: unchanged matched ok cells of >= 0.05 s on both sides
    logs = []
    for n in names:
        d = docs[n]
        if not (d[0].present and d[1].present and head_executed(d)[0]):
            continue
        for cb, ch, _, _, f in pairs(d):
            if cb is None or ch is None or f & (F_SOURCE | F_UPSTREAM | F_STATUS):
                continue
            if cb[4] != 1 or not comparable(cb[5], ch[5]):
                continue
            if math.isnan(cb[6]) or math.isnan(ch[6]) or cb[6] < 0.05 or ch[6] < 0.05:
                continue
            logs.append(math.log(ch[6] / cb[6]))
    factor = math.exp(median(logs)) if len(logs) >= 3 else None
    nbc, cc = [0] * 11, [0] * 8
    regress = False
    w = sys.stdout
    for n in names:
        d = docs[n]
        bs, hs = d
        executed, how = head_executed(d) if hs.present else (False, None)
        notcomp = executed and bs.present and bs.fp is not None and hs.fp is not None and bs.fp != hs.fp
        nbflags = F_NOTCOMP if notcomp else 0
        want = ((not hs.present or executed) and not (hs.present and hs.failed and not hs.cells) and
                not (bs.present and bs.failed and not bs.cells and hs.present))
        # a lecture that failed in HEAD: failed (in BASE too) or newly-failed, whatever its timings
        nbv = (9 if bs.present and bs.failed else 10) if hs.present and hs.failed else \
            8 if hs.present and not executed else 4 if not bs.present else 5 if not hs.present else -1
        counts = [0] * 8
        lines = []
        sumb = sumh = 0.0
        if want:
            ps = pairs(d)
            for cb, ch, _, _, _ in ps:
                if cb and not math.isnan(cb[6]):
                    sumb += cb[6]
                if ch and not math.isnan(ch[6]):
                    sumh += ch[6]
            for cb, ch, ib, ih, f in ps:
                f |= F_NOTCOMP if notcomp else 0
                if cb is None:
                    v = 4
                elif ch is None:
                    v = 5
                elif math.isnan(cb[6]) or math.isnan(ch[6]):
                    v = 6
                elif not comparable(cb[5], ch[5]):
                    v = 7
                    f |= F_NOTCOMP
                else:
                    v = judge(cb[6], ch[6], CELL_R, CELL_A)
                counts[v] += 1
                cc[v] += 1
                if v == 0 and not f & F_NOTCOMP:
                    regress = True
                nbflags |= f & (F_OUTPUT | F_STATUS)
                if v in (4, 5) or f & F_SOURCE:
                    nbflags |= F_SOURCE
                lines.append({"kind": "cell-diff", "document": n, "base_index": ib, "head_index": ih,
                              "verdict": VERDICTS[v], "flags": [FLAGS[i] for i in range(5) if f & (1 << i)]})
        if bs.status and hs.status and bs.status != hs.status:
            nbflags |= F_STATUS
        measure = None
        if nbv < 0:
            bv = hv = []
            if bs.tsrc > 0 and hs.tsrc > 0 and comparable(bs.tsrc, hs.tsrc):
                bv = [x for x in bs.cells_s if not math.isnan(x)] or ([sumb] if sumb > 0 else [])
                hv = [x for x in hs.cells_s if not math.isnan(x)] or ([sumh] if sumh > 0 else [])
            if bv and hv:
                measure, nbv = "cells_seconds", judge(median(bv), median(hv), NB_R, NB_A)
            else:
                bv = [x for x in bs.exec_s if not math.isnan(x)]
                hv = [x for x in hs.exec_s if not math.isnan(x)]
                if bv and hv:
                    measure, nbv = "execution_seconds", judge(median(bv), median(hv), NB_R, EXEC_A)
                else:
                    nbv = 6
            # the lecture rule: its cells first (a regressed cell and no improved one, or the
            # mirror image), the sum above only when no cell moved or cells moved both ways
            if counts[0] and not counts[1]:
                nbv = 0
            elif counts[1] and not counts[0]:
                nbv = 1
        nbc[nbv] += 1
        if nbv == 0 and not notcomp:
            regress = True
        rec = {"kind": "notebook-diff", "document": n, "verdict": VERDICTS[nbv],
               "flags": [FLAGS[i] for i in range(5) if nbflags & (1 << i)], "measure": measure,
               "cells": dict(zip(VERDICTS, counts))}
        w.write(json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\n")
        for r in lines:
            w.write(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n")
    w.write(json.dumps({"kind": "diff-summary", "regression": regress, "notebooks": dict(zip(VERDICTS, nbc)),
                        "cells": dict(zip(VERDICTS, cc)),
                        "runner_factor": None if factor is None else round(factor * 1e4) / 1e4},
                       separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
