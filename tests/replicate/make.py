#!/usr/bin/python3
"""Write the notebooks of tests/qe-replicate.bats into the folder given.

Each is built to show one behaviour, with effects far larger than the noise
of a loaded 2-core machine (2x):
  plain.ipynb  the lecture as it was: f() costs 50 ms a call, four calls
               (0.2 s) in the cell "calls"; "result" prints 4; a cell
               "data" reads data.txt from the lecture's own folder
  jit.ipynb    a JIT-like conversion: @jit compiles on the first call
               (1.0 s, a sleep standing for the compiler), then 5 ms a call:
               as used 1.02 s, warm 0.02 s
  slow.ipynb   truly 3x slower in steady state: 150 ms a call (0.6 s), and
               "result" prints 5, a different output
  fail.ipynb   "calls" raises ValueError
  hang.ipynb   "calls" sleeps 60 s (the per-run timeout stops it)
  mem0.ipynb   "alloc" allocates 8 kB
  mem.ipynb    "alloc" allocates and touches 300 MiB (314572800 bytes), kept alive
Cells carry metadata.name labels; every notebook has the same first two
cells, so the cells align by source."""
import sys

import nbformat

HEAD = [
    ("imports", "import time\nimport pathlib"),
    ("data", "print(pathlib.Path('data.txt').read_text().strip())"),
]
JIT_DEF = ("jit-def", "def jit(fn):\n"
           "    compiled = []\n"
           "    def call(*args):\n"
           "        if not compiled:\n"
           "            time.sleep(1.0)  # the compiler\n"
           "            compiled.append(fn)\n"
           "        return fn(*args)\n"
           "    return call")


def f_def(seconds, deco="", extra=0):
    return [("params", f"extra = {extra}"), ("f-def", f"{deco}def f():\n    time.sleep({seconds})\n    return 1")]


CALLS = ("calls", "r = [f() for _ in range(4)]")


RESULT = ("result", "print(sum(r) + extra)")


NOTEBOOKS = {
    "plain": HEAD + [*f_def(0.05), CALLS, RESULT],
    "jit": HEAD + [JIT_DEF, *f_def(0.005, "@jit\n"), CALLS, RESULT],
    "slow": HEAD + [*f_def(0.15, extra=1), CALLS, RESULT],
    "fail": HEAD + [*f_def(0.05), ("calls", "raise ValueError('no convergence')"), RESULT],
    "hang": HEAD + [*f_def(0.05), ("calls", "time.sleep(60)"), RESULT],
    "mem0": HEAD + [("numpy", "import numpy as np"), ("alloc", "block = np.ones(1024)"),
                    ("after", "print(type(block).__name__)")],
    "mem": HEAD + [("numpy", "import numpy as np"), ("alloc", "block = np.ones(300 * 1024 * 1024 // 8)"),
                   ("after", "print(type(block).__name__)")],
}

out = sys.argv[1]
for stem, cells in NOTEBOOKS.items():
    nb = nbformat.v4.new_notebook()
    nb.metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}}
    nb.cells = [nbformat.v4.new_code_cell(src, id=name, metadata={"name": name}) for name, src in cells]
    nbformat.write(nb, f"{out}/{stem}.ipynb")
with open(f"{out}/data.txt", "w") as fh:
    fh.write("data from the lecture's folder\n")
