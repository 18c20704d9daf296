#!/usr/bin/python3
"""Write the kernel suite's notebooks into this folder: NUMPY.ipynb (the
NumPy or plain-Python way) and NUMPY-numba.ipynb (the same kernel under
numba's njit) for each kernel. Each has a cell tagged `parameters` with the
size n, papermill's convention, which qe-replicate --sweep overrides.

  ar1     a recursion x[t+1] = a x[t] + s w[t]: a Python loop over NumPy
          arrays (NumPy cannot vectorise it) against the same loop jitted
  sumsq   the sum of squares of n numbers: NumPy's vectorised x @ x against
          an explicit jitted loop (both memory-bound: numba only adds
          its compile time)
  mcpi    a Monte Carlo estimate of pi from n points: NumPy's vectorised
          draws and comparison (temporary arrays) against a jitted loop
          drawing one point at a time
"""
import pathlib

import nbformat

HERE = pathlib.Path(__file__).resolve().parent

KERNELS = {
    "ar1": ("def ar1(w):\n    x = np.empty(len(w))\n    x[0] = 0.0\n    for t in range(len(w) - 1):\n"
            "        x[t + 1] = 0.9 * x[t] + 0.1 * w[t]\n    return x\n",
            "ar1(w)", "ar1(w)"),
    "sumsq": ("def sumsq(x):\n    s = 0.0\n    for v in x:\n        s += v * v\n    return s\n",
              "x @ x", "sumsq(x)"),
    "mcpi": ("def mcpi(n):\n    inside = 0\n    for _ in range(n):\n        u, v = np.random.random(), np.random.random()\n"
             "        inside += u * u + v * v < 1.0\n    return 4 * inside / n\n",
             "4 * np.mean(np.random.random(n) ** 2 + np.random.random(n) ** 2 < 1.0)", "mcpi(n)"),
}


def notebook(path, cells):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    for name, src, *tags in cells:
        nb.cells.append(nbformat.v4.new_code_cell(src, metadata={"name": name, "tags": tags}))
    nbformat.write(nb, str(path))


def pair(name, fn, numpy_call, numba_call):
    data = "w = np.random.default_rng(0).standard_normal(n)" if name == "ar1" else \
        "x = np.random.default_rng(0).standard_normal(n)" if name == "sumsq" else "np.random.seed(0)"
    head = [("imports", "import numpy as np"), ("params", "n = 100_000", "parameters"), ("data", data)]
    plain = numpy_call if name != "ar1" else "ar1(w)"
    notebook(HERE / f"{name}.ipynb", head + ([("define", fn)] if name == "ar1" else []) +
             [("kernel", f"r = {plain}"), ("report", "print(np.round(np.mean(r), 3))")])
    notebook(HERE / f"{name}-numba.ipynb", [("imports", "import numpy as np\nfrom numba import njit")] + head[1:] +
             [("define", fn + f"{name} = njit({name})")] +
             [("kernel", f"r = {numba_call}"), ("report", "print(np.round(np.mean(r), 3))")])


if __name__ == "__main__":
    for k, v in KERNELS.items():
        pair(k, *v)
