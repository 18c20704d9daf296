#!/usr/bin/python3
"""A stand-in for `jb build` with execute_notebooks: "cache", for the action's
end-to-end test: executes the book's notebooks incrementally into
BUILD/.jupyter_cache, as MyST-NB does through jupyter-cache 1.0.1.

usage: build.py SOURCE_DIR BUILD_DIR

A trimmed copy of tests/fixtures/hook/make-hook-fixture.py (same schema, same
hashkey, same nbclient arguments), made incremental: an existing cache is
opened, a document whose hashkey is already cached is a cache hit (only
`accessed` moves) and is not executed, any other is executed by a real kernel
(which inherits QE_TELEMETRY_LOG, so the armed hook logs its cells) and gets
a new nbcache row beside the old one (uri is not unique in nbcache).  A
document that raises gets a traceback in nbproject and no nbcache row.
Exit status 1 when a document failed (as `jb build -W --keep-going`).
"""
import copy
import json
import os
import sqlite3
import sys
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from jcache_format import SCHEMA, execute, hashkey, utcnow  # noqa: E402

def main():
    if len(sys.argv) != 3:
        sys.exit("usage: build.py SOURCE_DIR BUILD_DIR")
    src, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    root = out / ".jupyter_cache"
    fresh = not (root / "global.db").exists()
    (root / "executed").mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(str(root / "global.db"))
    if fresh:
        (root / "__version__.txt").write_text("1.0.1")
        db.executescript(SCHEMA)
    failed = 0
    for path in sorted(src.glob("**/*.ipynb")):
        nb = nbformat.read(str(path), as_version=4)
        key = hashkey(nb)
        with db:
            db.execute("INSERT OR IGNORE INTO nbproject (uri, read_data, assets, exec_data, created, traceback)"
                       " VALUES (?, ?, '[]', NULL, ?, NULL)",
                       (str(path), json.dumps({"name": "nbformat", "type": "plugin"}), utcnow()))
            hit = db.execute("UPDATE nbcache SET accessed = ? WHERE hashkey = ?", (utcnow(), key)).rowcount
        if hit:
            print(f"build.py: {path.relative_to(src)}: cache hit", file=sys.stderr)
            continue
        print(f"build.py: {path.relative_to(src)}: executing", file=sys.stderr)
        nb, t, err, _ = execute(path)
        if err is not None:
            failed += 1
            print(f"build.py: {path.relative_to(src)}: failed", file=sys.stderr)
            with db:
                db.execute("UPDATE nbproject SET traceback = ? WHERE uri = ?", (err, str(path)))
            continue
        stored = copy.deepcopy(nb)
        stored.cells = [c for c in stored.cells if c.cell_type == "code"]
        (root / "executed" / key).mkdir()
        (root / "executed" / key / "base.ipynb").write_text(nbformat.writes(stored, nbformat.NO_CONVERT),
                                                             encoding="utf8")
        with db:
            db.execute("UPDATE nbproject SET traceback = NULL WHERE uri = ?", (str(path),))
            db.execute("INSERT INTO nbcache (hashkey, uri, description, data, created, accessed)"
                       " VALUES (?, ?, '', ?, ?, ?)",
                       (key, str(path), json.dumps({"execution_seconds": t}), utcnow(), utcnow()))
    db.close()
    return 1 if failed else 0


if __name__ == "__main__":
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    sys.exit(main())
