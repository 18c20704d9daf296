"""Records of qe-cache-extract (and qe-stamp) grouped by document, and the
forms a duration is printed in.

Invariants:
  - A Book maps a document name to one Entry: the newest current notebook
    record seen for it (by the stamped build's time across builds, else by
    `created`, a failed record counting as newest, as qe-cache-extract
    orders them) and the cell records that followed that notebook record in
    the stream.  Nothing here runs a program or reads a
    clock; the caller hands over lines and file names.
  - The printed forms round as documented in README.md ("The {exec-time}
    role"): human() is within 0.005 s below 10 s, 0.05 s below 60 s, 0.5 s
    below an hour, 30 s above; seconds() to its digits; rounded() within
    0.05 s below 1 s, 0.5 s below a minute, 30 s above.
"""
import gzip
import json
import math


class RecordError(Exception):
    """A line that is not a record: str() is 'file:line: reason'."""


class Entry:
    """One document's notebook record, its cells and where they came from."""

    def __init__(self, notebook, origin_file):
        self.notebook = notebook
        self.cells = []
        self.origin_file = origin_file

    def cell(self, label):
        """The cell record labelled label, or None."""
        for c in self.cells:
            if c.get("label") == label:
                return c
        return None

    @property
    def provenance(self):
        return self.notebook.get("provenance")


def _build_time(rec):
    """When the build that made a stamped record ran (qe-stamp's
    run.started_at, else run.stamped_at), or None."""
    prov = rec.get("provenance")
    run = prov.get("run") if isinstance(prov, dict) else None
    if not isinstance(run, dict):
        return None
    return run.get("started_at") or run.get("stamped_at")


def _newer(a, b):
    """True when notebook record a replaces b: the later build when both are
    stamped by different builds (a failure in an old report must not hide
    a newer success), else the newest `created`, a failed record (which
    has none) counting as newer than any, as qe-cache-extract orders them."""
    ba, bb = _build_time(a), _build_time(b)
    if ba and bb and ba != bb:
        return ba > bb
    ca, cb = a.get("created"), b.get("created")
    if ca is None:
        return True
    if cb is None:
        return False
    return ca >= cb


class Book:
    """Documents -> Entry, built from record streams."""

    def __init__(self):
        self.entries = {}
        self.errors = []

    def add_lines(self, lines, name):
        """Read NDJSON lines (an iterable of str) from the file called name.
        Bad lines are kept in self.errors as 'name:line: reason'."""
        current = None
        for i, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except ValueError as e:
                self.errors.append(f"{name}:{i}: not JSON: {e}")
                continue
            if not isinstance(rec, dict):
                self.errors.append(f"{name}:{i}: not a record")
                continue
            kind = rec.get("kind")
            if kind == "notebook":
                current = None
                if rec.get("current", True) is False or not isinstance(rec.get("document"), str):
                    continue
                doc = rec["document"]
                old = self.entries.get(doc)
                if old is None or _newer(rec, old.notebook):
                    current = self.entries[doc] = Entry(rec, name)
            elif kind == "cell":
                if current is not None and rec.get("document") == current.notebook["document"]:
                    current.cells.append(rec)
        return self

    def add_file(self, path):
        """Read a plain or gzip NDJSON file; OSError propagates."""
        with open(path, "rb") as f:
            gz = f.read(2) == b"\x1f\x8b"
        opener = gzip.open if gz else open
        with opener(path, "rt", encoding="utf-8", errors="replace") as f:
            return self.add_lines(f, path)

    def get(self, doc):
        return self.entries.get(doc)

    def __bool__(self):
        return bool(self.entries)


def human(d):
    """'0.30 s', '12.3 s', '2 min 10 s', '1 h 5 min'."""
    if d < 0.005:
        return "< 0.01 s"
    if round(d, 2) < 10:
        return f"{d:.2f} s"
    if round(d, 1) < 60:
        return f"{d:.1f} s"
    s = int(math.floor(d + 0.5))
    if s < 3600:
        m, s = divmod(s, 60)
        return f"{m} min {s} s" if s else f"{m} min"
    m = int(math.floor(d / 60 + 0.5))
    h, m = divmod(m, 60)
    return f"{h} h {m} min" if m else f"{h} h"


def seconds(d, digits=2):
    """Plain seconds to digits decimals: '130.42 s'."""
    return f"{d:.{digits}f} s"


def rounded(d):
    """A round figure: '< 0.1 s', '0.3 s', '5 s', '2 min', '1 h 5 min'."""
    if d < 0.05:
        return "< 0.1 s"
    if round(d, 1) < 1:
        return f"{d:.1f} s"
    s = int(math.floor(d + 0.5))
    if s < 60:
        return f"{s} s"
    m = int(math.floor(d / 60 + 0.5))
    if m < 60:
        return f"{m} min"
    h, m = divmod(m, 60)
    return f"{h} h {m} min" if m else f"{h} h"


def share(d, total):
    """d as a whole percentage of total: '23 %', '< 1 %'."""
    p = 100.0 * d / total
    if p < 0.5:
        return "< 1 %"
    return f"{int(math.floor(p + 0.5))} %"


FORMS = {"human", "seconds", "rounded"}
