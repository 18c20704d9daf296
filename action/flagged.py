"""The lectures the screen flagged, for replicate.sh.

Usage: python3 flagged.py diff.ndjson

Reads qe-cell-diff's records and writes, for each notebook-diff whose
verdict is regression or improvement, in the diff's order, three fields
each ended by a NUL byte: the document name, then the base and the head
execution seconds rounded up to whole seconds (0 when null).  The name is
written as the bytes it names on disk (surrogateescape), whatever it holds:
quotes, backslashes, newlines.  A name that cannot be an argument (a NUL
byte, or not encodable) is written as the empty string, which the caller
notes as not replicated.  Lines that are not such records are passed over:
the diff is qe-cell-diff's own output.  Exit 2 when the file cannot be read.
"""
import json
import math
import sys


def whole_seconds(v):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v or v in (math.inf, -math.inf):
        return 0
    return max(0, math.ceil(v))


def name_bytes(doc):
    if "\0" in doc:
        return b""
    try:
        return doc.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return b""


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: flagged.py diff.ndjson\n")
        return 2
    out = sys.stdout.buffer
    try:
        with open(argv[1], "rb") as f:
            for raw in f:
                try:	# bytes that are not UTF-8 come back as they were
                    rec = json.loads(raw.decode("utf-8", "surrogateescape"))
                except ValueError:
                    continue
                if not isinstance(rec, dict) or rec.get("kind") != "notebook-diff":
                    continue
                if rec.get("verdict") not in ("regression", "improvement") or not isinstance(rec.get("document"), str):
                    continue
                b = whole_seconds(rec.get("base_execution_seconds"))
                h = whole_seconds(rec.get("head_execution_seconds"))
                out.write(name_bytes(rec["document"]) + b"\0%d\0%d\0" % (b, h))
    except OSError as e:
        sys.stderr.write("flagged.py: %s: %s\n" % (argv[1], e.strerror))
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
