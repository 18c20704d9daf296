#!/usr/bin/python3
"""Write the notebooks of tests/qe-sweep.bats into the folder given.

Each shows one behaviour of the evaluation harness, with effects beyond the
noise of a loaded 2-core machine; each has a cell tagged `parameters`
(papermill's convention) holding the lecture's own size:
  scale.ipynb, scale-jit.ipynb  designed curves: the base's "work" cell
      sleeps 5e-3 n^0.5 s (exponent 0.5; 0.16 s at n = 1e3, 5 s at 1e6);
      the head's compiles once (a 0.75 s sleep standing for the compiler)
      and then sleeps 5e-4 n^0.5 s: it loses at small n (x2.8 at the
      lecture's n = 3000) and wins at large n (x2.9 at 1e5, x4 at 1e6),
      crossing at n = 2.8e4. Both allocate and touch 80 n bytes (memory
      against n), which a loaded machine makes cost 1-2 s at n = 1e6: the
      sleeps are that large so that the head's fitted exponent stays near
      0.1 (0.2 with 2 s more at 1e6; 0.3 needs 6 s more), where sleeps of a
      fifth of these fitted 0.33-0.39 under load.
  ar1.ipynb, ar1-numba.ipynb  a real numba conversion of a lecture-style
      notebook: an AR(1) simulation, a Python loop over T steps on NumPy
      arrays, against the same function under numba's njit. Importing numba
      and compiling cost about 0.5-1 s here, the loop about 0.3 us a step:
      numba loses at T = 1e4 to 1e6 and wins at 1e7 (about 3 s against
      1 s); the lecture's own T is 1e5. The results print the same.
  prof.ipynb  "work" calls hot(), 0.36 s, and cold(), 0.04 s: 90% of the
      cell is in one function.
Cells carry metadata.name labels."""
import sys

import nbformat


def notebook(path, cells):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    for name, src, *tags in cells:
        if tags == ["markdown"]:
            nb.cells.append(nbformat.v4.new_markdown_cell(src))
            continue
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


AR1 = ("def simulate_py(w):\n"
       "    T = len(w)\n"
       "    x = np.empty(T)\n"
       "    x[0] = 0.0\n"
       "    for t in range(T - 1):\n"
       "        x[t + 1] = a * x[t] + s * w[t]\n"
       "    return x\n")


def ar1(numba):
    """A lecture-style AR(1) simulation: a loop over time a vectorised NumPy cannot do."""
    nb = [("intro", "# AR(1) processes\n\nWe simulate $x_{t+1} = a x_t + s w_{t+1}$.", "markdown"),
          ("imports", "import numpy as np" + ("\nfrom numba import njit" if numba else "")),
          ("params", "T = 100_000\na, s = 0.9, 0.1", "parameters"),
          ("define", AR1 + ("simulate = njit(simulate_py)" if numba else "simulate = simulate_py")),
          ("simulate", "w = np.random.default_rng(0).standard_normal(T)\nx = simulate(w)"),
          ("report", "print(f'mean {x.mean():.4f}, variance {x.var():.4f}')")]
    return nb


PROF = [("imports", "import time"),
        ("define", "def hot():\n    time.sleep(0.36)\n\ndef cold():\n    time.sleep(0.04)"),
        ("work", "hot()\ncold()")]

if __name__ == "__main__":
    out = sys.argv[1]
    notebook(f"{out}/scale.ipynb", scale(0, 5e-3))
    notebook(f"{out}/scale-jit.ipynb", scale(0.75, 5e-4))
    notebook(f"{out}/ar1.ipynb", ar1(False))
    notebook(f"{out}/ar1-numba.ipynb", ar1(True))
    notebook(f"{out}/prof.ipynb", PROF)
