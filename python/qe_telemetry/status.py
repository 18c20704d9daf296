"""The execution status document (schema/execution-status.json) from a Book
of qe-cache-extract records, and the command qe-exec-status.

Invariants:
  - One document per build: `documents` holds one entry per document of the
    records, in document-name order, with `status` ok|failed (the exception
    line in `error`), `execution` executed|cached|null (the records' origin:
    executed by this build, inherited from an earlier one, or unknown when
    the records were made without --since/--baseline).
  - The words below are the schema's enums (tests/sphinx.bats compares).
  - Nothing here reads a clock or the environment: the caller passes the
    build facts (generator, times, provenance).
"""
import argparse
import json
import os
import sys

from . import __version__
from .records import Book

STATUSES = ("ok", "failed")
EXECUTIONS = ("executed", "cached")
_ORIGIN = {"executed": "executed", "inherited": "cached"}


def _document(entry):
    nb = entry.notebook
    return {
        "document": nb["document"],
        "status": "failed" if nb.get("status") == "failed" else "ok",
        "error": nb.get("error"),
        "execution": _ORIGIN.get(nb.get("origin")),
        "runtime_s": nb.get("execution_seconds"),
        "cells": nb.get("code_cells"),
        "cells_timed": nb.get("timed_cells", 0),
        "cells_seconds": nb.get("cells_seconds"),
        "created": nb.get("created"),
        "cache_key": nb.get("cache_key"),
    }


def _provenance(book):
    """The provenance of the records (qe-stamp gives every record of a run
    the same object): the first notebook's, or None."""
    for doc in sorted(book.entries):
        p = book.entries[doc].provenance
        if isinstance(p, dict):
            return p
    return None


def document(book, generator, inputs, provenance=None, started=None, finished=None):
    """The status document as a dict.  inputs: list of file names read."""
    docs = [_document(book.entries[d]) for d in sorted(book.entries)]
    runtimes = [d["runtime_s"] for d in docs if d["runtime_s"] is not None]
    totals = {
        "documents": len(docs),
        "ok": sum(d["status"] == "ok" for d in docs),
        "failed": sum(d["status"] == "failed" for d in docs),
        "executed": sum(d["execution"] == "executed" for d in docs),
        "cached": sum(d["execution"] == "cached" for d in docs),
        "runtime_s": round(sum(runtimes), 6),
        "cells_timed": sum(d["cells_timed"] for d in docs),
    }
    return {
        "kind": "execution-status",
        "schema_version": 1,
        "build": {
            "generator": generator,
            "started": started,
            "finished": finished,
            "inputs": list(inputs),
            "provenance": provenance if provenance is not None else _provenance(book),
        },
        "totals": totals,
        "documents": docs,
    }


def dumps(doc):
    """The document as written: indented UTF-8 JSON and a final newline."""
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


def _emit(prog, text):
    """Write text to standard output unbuffered: 0, or 2 with
    'prog: stdout: reason' (a full disk, a closed pipe)."""
    data = text.encode("utf-8")
    try:
        fd = sys.stdout.fileno()
        while data:
            data = data[os.write(fd, data):]
    except OSError as e:
        print(f"{prog}: stdout: {e.strerror}", file=sys.stderr)
        return 2
    return 0


def main(argv=None):
    """qe-exec-status [-o file] [--started time] [--finished time] [report ...]"""
    prog = "qe-exec-status"
    p = argparse.ArgumentParser(prog=prog, add_help=False,
                                description="One execution status document (JSON) from qe-cache-extract / qe-stamp records.")
    p.add_argument("-h", "--help", action="store_true", help="show this help and exit")
    p.add_argument("-o", "--output", metavar="file", help="write here (default: standard output)")
    p.add_argument("--started", metavar="time", help="when the build started (RFC 3339)")
    p.add_argument("--finished", metavar="time", help="when the build finished (RFC 3339)")
    p.add_argument("--version", action="store_true", help="show the version and exit")
    p.add_argument("files", nargs="*", metavar="report", help="NDJSON records, plain or gzip ('-' or none: standard input)")
    a = p.parse_args(argv)
    if a.help or a.version:
        return _emit(prog, p.format_help() if a.help else f"{prog} {__version__}\n")
    book = Book()
    rc = 0
    names = a.files or ["-"]
    for f in names:
        try:
            if f == "-":
                book.add_lines(sys.stdin, "<stdin>")
            else:
                book.add_file(f)
        except (OSError, UnicodeError) as e:
            print(f"{prog}: {f}: {e.strerror if isinstance(e, OSError) and e.strerror else e}", file=sys.stderr)
            rc = 2
    for e in book.errors:
        print(f"{prog}: {e}", file=sys.stderr)
        rc = 2
    out = dumps(document(book, f"{prog} {__version__}", [n for n in names if n != "-"],
                         started=a.started, finished=a.finished))
    try:
        if a.output:
            tmp = a.output + ".tmp"
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(out)
            os.replace(tmp, a.output)
        else:
            if _emit(prog, out):
                return 2
    except OSError as e:
        print(f"{prog}: {a.output}: {e.strerror}", file=sys.stderr)
        return 2
    return rc


if __name__ == "__main__":
    sys.exit(main())
