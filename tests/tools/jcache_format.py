"""The on-disk format of jupyter-cache 1.0.1, for the scripts that build real
caches with real kernels (tests/fixtures/hook/make-hook-fixture.py,
tests/action/build.py): global.db's schema, the notebook hashkey, and one
document executed the way jupyter-cache's executor runs it.  jupyter-cache
itself is not a Debian package; make-hook-fixture.py checks hashkey() against
every notebook of a cache written by the real jupyter-cache.  bench/gen_cache.py
takes SCHEMA from here too (standard library only: nbformat is imported by the
functions that need it)."""
import copy
import datetime
import hashlib
import json
import time
import traceback

# `sqlite3 global.db .schema` of a cache written by jupyter-cache 1.0.1
# (SQLAlchemy 1.4), ../shared/fixtures/jupyter-cache/base/.jupyter_cache
SCHEMA = """CREATE TABLE settings (
	pk INTEGER NOT NULL, 
	"key" VARCHAR(36) NOT NULL, 
	value JSON, 
	PRIMARY KEY (pk), 
	UNIQUE ("key")
);
CREATE TABLE nbproject (
	pk INTEGER NOT NULL, 
	uri VARCHAR(255) NOT NULL, 
	read_data JSON NOT NULL, 
	assets JSON NOT NULL, 
	exec_data JSON, 
	created DATETIME NOT NULL, 
	traceback TEXT, 
	PRIMARY KEY (pk), 
	UNIQUE (uri)
);
CREATE TABLE nbcache (
	pk INTEGER NOT NULL, 
	hashkey VARCHAR(255) NOT NULL, 
	uri VARCHAR(255) NOT NULL, 
	description VARCHAR(255) NOT NULL, 
	data JSON, 
	created DATETIME NOT NULL, 
	accessed DATETIME NOT NULL, 
	PRIMARY KEY (pk), 
	UNIQUE (hashkey)
);
"""


def utcnow():
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None).strftime("%Y-%m-%d %H:%M:%S.%f")


def hashkey(nb):
    """jupyter-cache's JupyterCacheBase._hash_notebook (defaults:
    compare_nb_meta=("kernelspec",), compare_cell_meta=None)."""
    import nbformat  # here, so SCHEMA alone needs only the standard library
    nb = nbformat.convert(copy.deepcopy(nb), to_version=4)
    hash_nb = nbformat.from_dict({
        "nbformat": nb.nbformat,
        "nbformat_minor": 4,
        "metadata": {k: v for k, v in nb.metadata.items() if k in ("kernelspec",)},
        "cells": [{"cell_type": c.cell_type, "source": c.source, "metadata": dict(c.metadata),
                   "execution_count": None, "outputs": []}
                  for c in nb.cells if c.cell_type == "code"],
    })
    return hashlib.md5(nbformat.writes(hash_nb, nbformat.NO_CONVERT).encode()).hexdigest()


def execute(path, timeout=120):
    """One document, as jupyter_cache.executors.utils.single_nb_execution runs
    it (record_timing=False; timeout is jupyter-cache's default, 120 s, unless
    a book sets execution_timeout).  Returns the executed notebook, seconds,
    the traceback text or None, and the kernel's process id."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError
    for attempt in range(3):
        nb = nbformat.read(str(path), as_version=4)
        pid = []
        client = NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=False,
                                record_timing=False, resources={"metadata": {"path": str(path.parent)}},
                                on_notebook_start=lambda notebook: pid.append(client.km.provisioner.pid))
        err = None
        t0 = time.perf_counter()
        try:
            client.execute()
        except (CellExecutionError, CellTimeoutError):
            err = traceback.format_exc()
        except RuntimeError as e:
            # the kernel died before its first reply: on a busy machine the
            # free port jupyter_client chose was taken before the kernel bound it
            if "before replying to kernel_info" not in str(e) or attempt == 2:
                raise
            continue
        break
    t = time.perf_counter() - t0
    return nb, t, err, (pid or [None])[0]
