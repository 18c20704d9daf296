#!/usr/bin/python3
"""Reference implementation of qe-cache-extract for the benchmarks: Python
standard library only (json, sqlite3, hashlib, zipfile/tarfile), written as a
careful user would write a first probe, and meant to print the SAME records.

    ref_extract.py [-a] [-r ROOT] [-s TIME] [--stale-margin S] CACHE...

CACHE is a .jupyter_cache directory (or a folder holding one, or its
global.db) or a zip/tar archive with a cache at any depth. The rules are
those of man/qe-cache-extract.1 and cmd/qe-cache-extract.c: document naming,
current/--all order, failed notebooks from nbproject/nbstage tracebacks,
cell status, the timing choice (nbclient/JupyterLab, papermill, ExecuteTime),
the stale and invalid rules, source digest normalisation, the output digest
(type, stream name/text, error name/value/traceback, sorted MIME bundle; NUL
after each field, 0x1E after each output), first_line, the output digest's normalisation of text a person reads
(stream text, tracebacks, text/* data: ANSI escapes, execution counts,
memory addresses, %time/%timeit and tqdm lines), a failed notebook's
timeout_cell (null: the hook log is not read).

Not implemented (not exercised by the benchmark): --timings (the hook log),
--baseline, notebook-file (.ipynb) operands.
"""
import argparse
import datetime as dt
import functools
import hashlib
import io
import json
import math
import os
import re
import sqlite3
import sys
import tarfile
import tempfile
import zipfile

EPOCH = dt.date(1970, 1, 1).toordinal()
TIME_RE = re.compile(r"[ \t]*(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})"
                     r"(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):?(\d{2}))?[ \t]*\Z")
MDAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]


class T:
    """A parsed timestamp: integer ns since the epoch, zone flag, offset (s)."""
    __slots__ = ("ns", "zone", "offset")

    def __init__(self, ns, zone, offset):
        self.ns, self.zone, self.offset = ns, zone, offset


def parse_time(s):
    if not isinstance(s, str):
        return None
    m = TIME_RE.match(s)
    if not m:
        return None
    Y, M, D, h, mi, sec = (int(x) for x in m.group(1, 2, 3, 4, 5, 6))
    frac = m.group(7)
    if M < 1 or M > 12 or D < 1 or D > MDAYS[M - 1] or h > 23 or mi > 59 or sec > 60:
        return None
    if M == 2 and D == 29 and not ((Y % 4 == 0 and Y % 100 != 0) or Y % 400 == 0):
        return None
    ns = 0
    if frac is not None:
        if len(frac) > 9:
            return None
        ns = int(frac.ljust(9, "0"))
    zone, off = 0, 0
    if m.group(8):
        zone = 1
    elif m.group(9):
        oh, om = int(m.group(10)), int(m.group(11))
        if oh > 23 or om > 59:
            return None
        off = (-1 if m.group(9) == "-" else 1) * (oh * 3600 + om * 60)
        zone = 1
    if sec == 60:
        sec, ns = 59, 999999999
    days = dt.date(Y, M, D).toordinal() - EPOCH
    return T((days * 86400 + h * 3600 + mi * 60 + sec - off) * 1000000000 + ns, zone, off)


def fmt_time(t):
    sec, ns = divmod(t.ns, 1000000000)
    d = dt.datetime(1970, 1, 1) + dt.timedelta(seconds=sec)
    return d.strftime("%Y-%m-%dT%H:%M:%S") + ".%06dZ" % (ns // 1000)


def diff_us(a_ns, b_ns):
    """b - a in microseconds, truncated toward zero (as C's integer division)."""
    d = b_ns - a_ns
    return d // 1000 if d >= 0 else -((-d) // 1000)


def c_round(x):
    """C round()/llround(): half away from zero."""
    return math.copysign(math.floor(abs(x) + 0.5), x)


def span(a, b):
    """(b - a in us, approximate): wall clocks when one is naive, one zoned."""
    if a.zone != b.zone:
        return diff_us(a.ns + a.offset * 1000000000, b.ns + b.offset * 1000000000), True
    return diff_us(a.ns, b.ns), False


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def jstr(obj, key):
    if isinstance(obj, dict):
        v = obj.get(key)
        return v if isinstance(v, str) else None
    return None


def jget(obj, key):
    return obj.get(key) if isinstance(obj, dict) else None


# ---- cJSON's compact printer, for non-text MIME data in the output digest ----

def _cnum(d):
    d = float(d)
    if math.isnan(d) or math.isinf(d):
        return "null"
    vi = max(min(d, 2147483647), -2147483648)
    if d == float(int(vi)):
        return "%d" % int(vi)
    s = "%1.15g" % d
    t = float(s)
    if not abs(t - d) <= max(abs(t), abs(d)) * sys.float_info.epsilon:
        s = "%1.17g" % d
    return s


def _cstr(s):
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif o < 32:
            out.append({8: "\\b", 12: "\\f", 10: "\\n", 13: "\\r", 9: "\\t"}.get(o, "\\u%04x" % o))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def cjson_print(v):
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, str):
        return _cstr(v)
    if is_num(v):
        return _cnum(v)
    if isinstance(v, list):
        return "[" + ",".join(cjson_print(x) for x in v) + "]"
    return "{" + ",".join(_cstr(k) + ":" + cjson_print(x) for k, x in v.items()) + "}"


# ---- one notebook -> records ---------------------------------------------------

# Volatile text a person reads, normalised line by line before the digest
# (man/qe-cache-extract.1, output_sha256), on the UTF-8 bytes.
VOLATILE = re.compile(rb"\x1b\[|(?:In|Out) ?\[[0-9]|0x[0-9A-Fa-f]")
COUNT = re.compile(rb"(In|Out)( ?)\[[0-9]+\]")
HEX = re.compile(rb"0x[0-9A-Fa-f]+")
WORD = frozenset(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")


def norm_line(b):
    if b.startswith(b"CPU times:") or b.startswith(b"Wall time:"):
        return b[:10]                       # %time: the times are not the result
    if b" per loop (mean " in b or b"it/s]" in b or b"s/it]" in b:
        return b"(timing)"                  # %timeit, a tqdm progress bar
    if not VOLATILE.search(b):
        return b
    out, i, n = bytearray(), 0, len(b)
    while i < n:
        word = bool(out) and out[-1] in WORD     # "not inside a word": what is already out
        if b.startswith(b"\x1b[", i):           # an ANSI CSI sequence: up to its final byte
            j = i + 2
            while j < n and not 0x40 <= b[j] <= 0x7e:
                j += 1
            i = min(j + 1, n)
            continue
        m = None if word else COUNT.match(b, i)
        if m:                                   # In [12], In[12], Out[12]
            out += m.group(1) + m.group(2) + b"[#]"
            i = m.end()
            continue
        m = None if word or n - i < 8 else HEX.match(b, i)
        if m:                                   # 0x and six or more hex digits
            out += b"0x#" if m.end() - i >= 8 else m.group(0)
            i = m.end()
            continue
        out.append(b[i])
        i += 1
    return bytes(out)


def norm_text(b):
    return b"\n".join(norm_line(x) for x in b.split(b"\n"))


def md_value(h, v, readable=False):
    if v is None:
        pass
    elif isinstance(v, str) or (isinstance(v, list) and all(isinstance(x, str) for x in v)):
        b = "".join(v if isinstance(v, list) else [v]).encode("utf-8", "surrogatepass")
        h.update(norm_text(b) if readable else b)
    else:
        h.update(cjson_print(v).encode("utf-8", "surrogatepass"))
    h.update(b"\0")


def md_str(h, s):
    h.update((s or "").encode("utf-8", "surrogatepass") + b"\0")


def output_digest(outputs):
    h = hashlib.sha256()
    err = None
    for o in outputs if isinstance(outputs, list) else ():
        typ = jstr(o, "output_type")
        md_str(h, typ)
        if typ == "stream":
            md_str(h, jstr(o, "name"))
            md_value(h, jget(o, "text"), True)
        elif typ == "error":
            if err is None:
                err = o
            md_str(h, jstr(o, "ename"))
            md_str(h, jstr(o, "evalue"))
            md_value(h, jget(o, "traceback"), True)
        elif isinstance(jget(o, "data"), dict):
            data = o["data"]
            for k in sorted(data, key=lambda k: k.encode("utf-8", "surrogatepass")):
                md_str(h, k)
                md_value(h, data[k], k.startswith("text/"))
        h.update(b"\x1e")
    return h.hexdigest(), err


def first_line(src):
    for line in src.split("\n"):
        s = line.lstrip(" \t").rstrip(" \t\f\v")
        if s:
            return s[:80] + ("\u2026" if len(s) > 80 else "")
    return None


def has_tag(tags, tag):
    return isinstance(tags, list) and any(t == tag for t in tags if isinstance(t, str))


def choose_timing(md):
    """-> (timing dict or None, busy_us or None)."""
    ex, pm, et = jget(md, "execution"), jget(md, "papermill"), jget(md, "ExecuteTime")
    busy = None

    def pair(obj, k0, k1, source, method):
        a, b = parse_time(jget(obj, k0)), parse_time(jget(obj, k1))
        if a is None or b is None:
            return None
        us, approx = span(a, b)
        return {"start": a, "end": b, "us": us, "source": source, "method": method, "approx": approx}

    if isinstance(ex, dict):
        src = "jupyterlab" if "shell.execute_reply.started" in ex else "nbclient"
        b, i = parse_time(jget(ex, "iopub.status.busy")), parse_time(jget(ex, "iopub.status.idle"))
        if b is not None and i is not None:
            us, _ = span(b, i)
            busy = us if us >= 0 else None
        t = (pair(ex, "iopub.execute_input", "shell.execute_reply", src, "input-reply") or
             pair(ex, "shell.execute_reply.started", "shell.execute_reply", src, "started-reply") or
             pair(ex, "iopub.status.busy", "iopub.status.idle", src, "busy-idle"))
        if t:
            return t, busy
    if isinstance(pm, dict):
        dur, st = jget(pm, "duration"), jstr(pm, "status")
        if is_num(dur) and math.isfinite(dur) and st != "pending":
            a, b = parse_time(jget(pm, "start_time")), parse_time(jget(pm, "end_time"))
            if a is None or b is None:
                a = b = None
            return {"start": a, "end": b, "us": int(c_round(dur * 1e6)), "source": "papermill",
                    "method": "duration", "approx": False}, busy
    if isinstance(et, dict):
        t = pair(et, "start_time", "end_time", "executetime", "start-end")
        if t:
            return t, busy
    return None, busy


class NB:
    def __init__(self, **kw):
        self.__dict__.update(kw)
        self.timed = self.stale = self.discarded = self.untimed = 0
        self.cells_seconds = 0.0
        self.last_end = None
        self.failure = None


def identity(rec, nb, notebook):
    if notebook and nb.uri:
        rec["uri"] = nb.uri
    rec["cache_key"] = nb.cache_key
    if notebook:
        rec["cache_pk"] = nb.pk if nb.pk >= 0 else None
    rec["current"] = nb.current
    if nb.origin:
        rec["origin"] = nb.origin


def cell_record(nb, cell, index, margin_us):
    md = jget(cell, "metadata")
    tags = jget(md, "tags")
    outputs = jget(cell, "outputs")
    count = jget(cell, "execution_count")
    pm = jget(md, "papermill")
    pmstatus = jstr(pm, "status")
    src = jget(cell, "source")
    if src is None:
        src = ""
    elif isinstance(src, list) and all(isinstance(x, str) for x in src):
        src = "".join(src)
    elif not isinstance(src, str):
        print(f"ref_extract: {nb.where}: code cell {index}: 'source' is not a string or a list of strings",
              file=sys.stderr)
        src = ""
    src = re.sub(r"\r\n?", "\n", src).rstrip(" \t\n\r\f\v")
    ohex, errout = output_digest(outputs)
    rec = {"kind": "cell", "schema_version": 1, "document": nb.document, "input": "cache"}
    identity(rec, nb, False)
    rec["index"] = index
    rec["cell_id"] = jstr(cell, "id") if nb.stable_ids else None
    label = jstr(md, "name")
    if label is None:
        label = jstr(jget(jget(md, "mystnb"), "figure"), "name")
    rec["label"] = label
    rec["tags"] = [t for t in tags if isinstance(t, str)] if isinstance(tags, list) else []
    rec["source_sha256"] = hashlib.sha256(src.encode("utf-8", "surrogatepass")).hexdigest()
    rec["output_sha256"] = ohex
    rec["first_line"] = first_line(src)

    tm, busy = choose_timing(md)
    note = None
    executed = is_num(count) or tm is not None or (isinstance(outputs, list) and len(outputs) > 0)
    if has_tag(tags, "skip-execution"):
        status, note = "skipped", "skipped"
    elif not src or pmstatus == "pending" or not executed:
        status, note = "not-run", "not-executed"
    elif errout is not None or pmstatus == "failed":
        status = "error"
    else:
        status = "ok"
    rec["status"] = status
    if errout is not None:
        en, ev = jstr(errout, "ename"), jstr(errout, "evalue")
        e = (en if en is not None else "Error") + (": " + ev if ev else "")
        rec["error"] = e
        if nb.failure is None and not has_tag(tags, "raises-exception"):
            nb.failure = e
    else:
        rec["error"] = None
    rec["execution_count"] = count if is_num(count) else None

    have_dur = stale = False
    if note is None and tm is None:
        note = "no-timing"
    elif note is None:
        exec_us = -1 if nb.execution_seconds is None else int(c_round(nb.execution_seconds * 1e6))
        if nb.created is not None and tm["start"] is not None:
            lo = nb.created.ns - (max(exec_us, 0) + margin_us) * 1000
            if (exec_us >= 0 and diff_us(lo, tm["start"].ns) < 0) or \
                    diff_us(nb.created.ns, tm["end"].ns) > margin_us:
                stale = True
        if stale:
            note = "stale"
            nb.stale += 1
        elif tm["us"] < 0 or (exec_us >= 0 and tm["us"] > exec_us + margin_us):
            note = "invalid"
            nb.discarded += 1
        else:
            have_dur = True
            if tm["approx"]:
                note = "approximate"
    us = tm["us"] if tm else 0
    rec["duration_s"] = us / 1e6 if have_dur else None
    rec["timing_source"] = tm["source"] if have_dur else None
    rec["timing_method"] = tm["method"] if have_dur else None
    rec["timing_note"] = note
    rec["busy_s"] = busy / 1e6 if have_dur and busy is not None else None
    if stale:
        rec["stale_duration_s"] = us / 1e6
    rec["start"] = fmt_time(tm["start"]) if have_dur and tm["start"] is not None else None
    rec["end"] = fmt_time(tm["end"]) if have_dur and tm["end"] is not None else None
    if have_dur:
        nb.timed += 1
        nb.cells_seconds += us / 1e6
        if tm["end"] is not None and (nb.last_end is None or tm["end"].ns - nb.last_end.ns >= 1000):
            nb.last_end = tm["end"]
    elif status in ("ok", "error"):
        nb.untimed += 1
    return rec


def notebook_records(nb, text, margin_us, out):
    try:
        doc = json.loads(text)
    except ValueError as e:
        print(f"ref_extract: {nb.where}: invalid JSON: {e}", file=sys.stderr)
        return -1
    del text
    cells = jget(doc, "cells")
    if not isinstance(doc, dict) or not isinstance(cells, list) or not is_num(doc.get("nbformat")) \
            or doc["nbformat"] != 4:
        print(f"ref_extract: {nb.where}: not a notebook", file=sys.stderr)
        return -1
    crecs = []
    for cell in cells:
        if jstr(cell, "cell_type") != "code":
            continue
        crecs.append(cell_record(nb, cell, len(crecs), margin_us))
    md = jget(doc, "metadata")
    ks, li = jget(md, "kernelspec"), jget(md, "language_info")
    rec = {"kind": "notebook", "schema_version": 1, "document": nb.document, "input": "cache"}
    identity(rec, nb, True)
    rec["status"] = "ok"
    rec["error"] = None
    rec["execution_seconds"] = nb.execution_seconds
    rec["cells_seconds"] = c_round(nb.cells_seconds * 1e6) / 1e6 if nb.timed else None
    rec["overhead_seconds"] = (c_round((nb.execution_seconds - nb.cells_seconds) * 1e6) / 1e6
                               if nb.timed and not nb.untimed and nb.execution_seconds is not None else None)
    if nb.created is not None:
        rec["created"] = fmt_time(nb.created)
    else:
        rec["created"] = fmt_time(nb.last_end) if nb.last_end else None
    rec["code_cells"] = len(crecs)
    rec["timed_cells"] = nb.timed
    rec["stale_cells"] = nb.stale
    rec["discarded_timings"] = nb.discarded
    rec["kernel"] = jstr(ks, "name")
    rec["language"] = jstr(li, "name") or jstr(ks, "language")
    rec["language_version"] = jstr(li, "version")
    out.append(rec)
    out.extend(crecs)
    return 0


# ---- caches ------------------------------------------------------------------------

def exception_line(tb):
    clean = re.sub(r"\x1b\[[^\x40-\x7e]*[\x40-\x7e]?", "", tb)
    last = None
    for line in clean.split("\n"):
        if line.lstrip(" \t\r"):
            last = line
    return last.rstrip(" \t\r") if last is not None else None


def dir_len(p):
    i = p.rfind("/")
    return i if i >= 0 else 0


def common_dir(path, prefix, n):
    i = last = 0
    while i < n and i < len(path) and path[i] == prefix[i]:
        if path[i] == "/":
            last = i
        i += 1
    if i == n and i < len(path) and path[i] == "/":
        return n
    return last


def document_name(path, base, baselen, root):
    rel = path
    if root is not None and path.startswith(root) and path[len(root):len(root) + 1] == "/":
        rel = path[len(root) + 1:]
    elif root is None and baselen > 0 and path[:baselen] == base[:baselen] and path[baselen:baselen + 1] == "/":
        rel = path[baselen + 1:]
    elif root is None and baselen == 0 and path.startswith("/") and base.startswith("/"):
        rel = path[1:]
    slash, dot = rel.rfind("/"), rel.rfind(".")
    if dot > 0 and dot > slash and not (slash < 0 and dot == 0):
        rel = rel[:dot]
    return rel


def entry_cmp(x, y):
    a, b = x["document"].encode(), y["document"].encode()
    if a != b:
        return -1 if a < b else 1
    if x["pk"] < 0 or y["pk"] < 0:
        return (x["pk"] >= 0) - (y["pk"] >= 0)
    if x["created"] is not None and y["created"] is not None:
        d = diff_us(x["created"].ns, y["created"].ns)
        if d != 0:
            return 1 if d > 0 else -1
    return (x["pk"] < y["pk"]) - (x["pk"] > y["pk"])


def read_entries(db, where):
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "nbcache" not in tables:
        raise SystemExit(f"ref_extract: {where}: not a jupyter-cache database (no table 'nbcache')")
    proj = "nbproject" if "nbproject" in tables else "nbstage" if "nbstage" in tables else None
    entries = []
    for pk, hk, uri, data, created in db.execute("SELECT pk, hashkey, uri, data, created FROM nbcache"):
        if not isinstance(hk, str) or not isinstance(uri, str) or not hk or len(hk) > 128 or \
                not re.fullmatch(r"[0-9a-fA-F]+", hk):
            print(f"ref_extract: {where}: nbcache row {pk}: bad 'hashkey' or 'uri'", file=sys.stderr)
            continue
        es = None
        try:
            d = json.loads(data) if isinstance(data, str) else None
        except ValueError:
            d = None
        v = jget(d, "execution_seconds")
        if is_num(v) and math.isfinite(v) and v >= 0:
            es = float(v)
        entries.append({"pk": pk, "hashkey": hk, "uri": uri, "execution_seconds": es,
                        "created": parse_time(created) if isinstance(created, str) else None})
    if proj:
        for uri, tb in db.execute(f"SELECT uri, traceback FROM {proj} "
                                  "WHERE traceback IS NOT NULL AND traceback != '' ORDER BY pk"):
            if uri is None:
                continue
            entries.append({"pk": -1, "hashkey": None, "uri": uri, "execution_seconds": None,
                            "created": None, "error": exception_line(tb or "")})
    return entries


def arrange(entries, root, all_records):
    base = entries[0]["uri"] if entries else ""
    baselen = dir_len(base) if entries else 0
    for e in entries[1:]:
        baselen = common_dir(e["uri"], base, baselen)
    for e in entries:
        e["document"] = document_name(e["uri"], base, baselen, root)
    entries.sort(key=functools.cmp_to_key(entry_cmp))
    for i, e in enumerate(entries):
        e["current"] = i == 0 or e["document"] != entries[i - 1]["document"]
    return [e for e in entries if all_records or e["current"]]


def origin_of(e, since):
    if since is None:
        return None
    if e["pk"] < 0:
        return "executed"
    return "executed" if e["created"] is not None and diff_us(since.ns, e["created"].ns) >= 0 else "inherited"


def failed_record(e, since):
    rec = {"kind": "notebook", "schema_version": 1, "document": e["document"], "input": "cache",
           "uri": e["uri"], "cache_key": None, "cache_pk": None, "current": e["current"]}
    o = origin_of(e, since)
    if o:
        rec["origin"] = o
    rec.update({"status": "failed", "error": e["error"], "execution_seconds": None, "cells_seconds": None,
                "overhead_seconds": None, "created": None, "code_cells": None, "timed_cells": 0,
                "stale_cells": 0, "discarded_timings": 0, "kernel": None, "language": None,
                "language_version": None, "timeout_cell": None})   # null: no hook log here
    return rec


def emit(recs, w):
    for r in recs:
        w.write(json.dumps(r, ensure_ascii=False, separators=(",", ":")))
        w.write("\n")


def run_cache(entries, read_nb, where_of, a, since, w):
    for e in arrange(entries, a.root, a.all):
        if e["pk"] < 0:
            emit([failed_record(e, since)], w)
            continue
        uri = e["uri"]
        nb = NB(where=where_of(e), document=e["document"], uri=uri, cache_key=e["hashkey"], pk=e["pk"],
                current=e["current"], origin=origin_of(e, since), execution_seconds=e["execution_seconds"],
                created=e["created"], stable_ids=len(uri) > 6 and uri.endswith(".ipynb"))
        text = read_nb(e)
        if text is None:
            continue
        out = []
        notebook_records(nb, text, a.margin_us, out)
        emit(out, w)


def do_dir(cdir, a, since, w):
    db = sqlite3.connect(f"file:{os.path.join(cdir, 'global.db')}?mode=ro", uri=True)
    entries = read_entries(db, os.path.join(cdir, "global.db"))
    db.close()

    def path(e):
        return os.path.join(cdir, "executed", e["hashkey"], "base.ipynb")

    def read_nb(e):
        try:
            with open(path(e), "rb") as f:
                return f.read()
        except OSError as err:
            print(f"ref_extract: {err}", file=sys.stderr)
            return None
    run_cache(entries, read_nb, path, a, since, w)


def do_archive(p, a, since, w):
    if zipfile.is_zipfile(p):
        z = zipfile.ZipFile(p)
        names = [i.filename for i in z.infolist() if not i.is_dir()]
        read = z.read
    else:
        t = tarfile.open(p)
        members = {m.name.lstrip("./") if m.name.startswith("./") else m.name: m for m in t.getmembers() if m.isfile()}
        names = list(members)
        read = lambda n: t.extractfile(members[n]).read()    # noqa: E731
    dbs = [n for n in names if n == "global.db" or n.endswith("/global.db")]
    if len(dbs) != 1:
        raise SystemExit(f"ref_extract: {p}: {len(dbs)} global.db members")
    prefix = dbs[0][:-len("global.db")]
    with tempfile.NamedTemporaryFile(suffix=".db") as tmp:   # sqlite3 reads files: spill it
        tmp.write(read(dbs[0]))
        tmp.flush()
        db = sqlite3.connect(tmp.name)
        entries = read_entries(db, f"{p}:{dbs[0]}")
        db.close()
    have = set(names)

    def member(e):
        return f"{prefix}executed/{e['hashkey']}/base.ipynb"

    def read_nb(e):
        if member(e) not in have:
            print(f"ref_extract: {p}: member '{member(e)}' missing", file=sys.stderr)
            return None
        return read(member(e))
    run_cache(entries, read_nb, lambda e: f"{p}:{member(e)}", a, since, w)


def main():
    ap = argparse.ArgumentParser(description="Python reference of qe-cache-extract (cache input)")
    ap.add_argument("-a", "--all", action="store_true")
    ap.add_argument("-r", "--root")
    ap.add_argument("-s", "--since")
    ap.add_argument("--stale-margin", type=float, default=5.0)
    ap.add_argument("paths", nargs="+")
    a = ap.parse_args()
    a.margin_us = int(c_round(a.stale_margin * 1e6))
    if a.root:
        a.root = os.path.realpath(a.root) if os.path.exists(a.root) else a.root
        a.root = a.root.rstrip("/") or "/"
    since = parse_time(a.since) if a.since else None
    w = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", newline="\n")
    for p in a.paths:
        if os.path.isdir(p):
            cdir = p if os.path.exists(os.path.join(p, "global.db")) else os.path.join(p, ".jupyter_cache")
            do_dir(cdir, a, since, w)
        elif os.path.basename(p) == "global.db":
            do_dir(os.path.dirname(p) or ".", a, since, w)
        else:
            do_archive(p, a, since, w)
    w.flush()


if __name__ == "__main__":
    main()
