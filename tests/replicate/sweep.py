#!/usr/bin/python3
"""Write the notebooks of tests/qe-sweep.bats into the folder given.

Each shows one behaviour of the evaluation harness, with effects beyond the
noise of a loaded 2-core machine; each has a cell tagged `parameters`
(papermill's convention) holding the lecture's own size:
  scale.ipynb, scale-jit.ipynb  designed curves: the base's "work" cell
      sleeps 1e-3 n^0.5 s (exponent 0.5; 32 ms at n = 1e3, 1 s at 1e6); the
      head's compiles once (a 0.15 s sleep standing for the compiler) and
      then sleeps 1e-4 n^0.5 s: it loses at small n (x2.6 at the lecture's
      n = 3000) and wins at large n (x2.9 at 1e5), crossing at n = 2.8e4.
      Both allocate and touch 80 n bytes (memory against n).
  walk.ipynb, walk-numba.ipynb  a real numba pair: a Python loop of n steps
      against the same loop under @njit: compiling costs about 0.2-0.5 s
      here, the loop about 0.1-0.3 us a step, so numba loses at 1e4 and
      1e5 and wins at 1e7 (the lecture's own n is 1e5).
  prof.ipynb  "work" calls hot(), 0.36 s, and cold(), 0.04 s: 90% of the
      cell is in one function.
Cells carry metadata.name labels."""
import sys

import nbformat


def notebook(path, cells):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    for name, src, *tags in cells:
        nb.cells.append(nbformat.v4.new_code_cell(src, metadata={"name": name, "tags": tags}))
    nbformat.write(nb, path)


def scale(compile_s, coef):
    return [("imports", "import time"),
            ("params", "n = 3_000", "parameters"),
            ("define", "compiled = []\n"
                       "def work(n):\n"
                       f"    if not compiled and {compile_s}:\n"
                       f"        time.sleep({compile_s})  # the compiler\n"
                       "        compiled.append(1)\n"
                       f"    time.sleep({coef} * n ** 0.5)\n"
                       "    return len(b'x' * (80 * n))"),
            ("work", "w = work(n)"),
            ("report", "print(w // 80)")]


WALK = "def walk(n):\n    s = 0.0\n    for i in range(n):\n        s += (i % 7) * 0.5\n    return s"


def walk(numba):
    return [("imports", "from numba import njit" if numba else "import math"),
            ("params", "n = 100_000", "parameters"),
            ("define", ("walk = njit(walk_py)" if numba else "walk = walk_py").join(
                [WALK.replace("def walk", "def walk_py") + "\n", ""])),
            ("run", "total = walk(n)"),
            ("report", "print(round(total))")]


PROF = [("imports", "import time"),
        ("define", "def hot():\n    time.sleep(0.36)\n\ndef cold():\n    time.sleep(0.04)"),
        ("work", "hot()\ncold()")]

if __name__ == "__main__":
    out = sys.argv[1]
    notebook(f"{out}/scale.ipynb", scale(0, 1e-3))
    notebook(f"{out}/scale-jit.ipynb", scale(0.15, 1e-4))
    notebook(f"{out}/walk.ipynb", walk(False))
    notebook(f"{out}/walk-numba.ipynb", walk(True))
    notebook(f"{out}/prof.ipynb", PROF)
