#!/usr/bin/python3
"""Write the notebooks of tests/fidelity.bats into the folder given.

Each shows one behaviour of the evaluation harness (qe-replicate --arm,
--compare; the hook's recompile audit):
  fid-base   x = linspace(1, 2, 1000) ** 2 in float64, s its sum; "report"
             prints the mean to one decimal (2.3), as a lecture prints a
             rounded summary
  fid-near   the same plus a relative 1e-12: same within the tolerance
  fid-f32    the same computed in float32: within the tolerance (float32
             keeps 7 digits), the printout the same, but precision lost
  fid-bug    x scaled by 1.001: the values differ beyond the tolerance while
             the rounded printout agrees (digests alone would say "same")
  jit-once   a numba function compiled once, called 4 times
  jit-again  the same function wrapped in a new dispatcher on every call:
             compiled 4 times; the cell measures its own wall time (wall)
             and numba's own count of compiled signatures (sigs)
  jaxfid     the stand-in JAX (tests/fixtures/jaxstub): y = jit(f)(x) over
             jax.numpy arrays, float32 unless JAX_ENABLE_X64, called with two
             shapes: two compiles of 0.1 s each
Cells carry metadata.name labels."""
import sys

import nbformat

SUMMARY = ("report", "print(f'mean {x.mean():.1f}')")
FID = {
    "fid-base": "x = np.linspace(1, 2, 1000) ** 2\ns = float(x.sum())",
    "fid-near": "x = np.linspace(1, 2, 1000) ** 2 * (1 + 1e-12)\ns = float(x.sum())",
    "fid-f32": "x = (np.linspace(1, 2, 1000) ** 2).astype(np.float32)\ns = float(x.sum())",
    "fid-bug": "x = np.linspace(1, 2, 1000) ** 2 * 1.001\ns = float(x.sum())",
}
STEP = "def step(x):\n    return x * 2.0 + 1.0"
ONCE = ("calls", "t0 = time.perf_counter()\ng = numba.njit(step)\ndisps = [g]\nfor i in range(4):\n"
                 "    g(np.float64(i))\nwall = time.perf_counter() - t0\nsigs = sum(len(d.signatures) for d in disps)")
AGAIN = ("calls", "t0 = time.perf_counter()\ndisps = []\nfor i in range(4):\n"
                  "    g = numba.njit(step)  # a new dispatcher every call: compiled again\n"
                  "    g(np.float64(i))\n    disps.append(g)\n"
                  "wall = time.perf_counter() - t0\nsigs = sum(len(d.signatures) for d in disps)")
JIT_HEAD = [("imports", "import time\nimport numba\nimport numpy as np"), ("define", STEP)]
NOTEBOOKS = {name: [("imports", "import numpy as np"), ("compute", src), SUMMARY] for name, src in FID.items()}
NOTEBOOKS["jit-once"] = JIT_HEAD + [ONCE, ("report", "print(sigs)")]
NOTEBOOKS["jit-again"] = JIT_HEAD + [AGAIN, ("report", "print(sigs)")]
NOTEBOOKS["jaxfid"] = [
    ("imports", "import jax\nimport jax.numpy as jnp\nimport numpy as np"),
    ("define", "f = jax.jit(lambda v: v * v + 1)"),
    ("compute", "y = f(jnp.asarray(np.linspace(0, 1, 50)))\nz = f(jnp.asarray(np.linspace(0, 1, 60)))"),
    ("report", "print(f'{float(y.sum()):.2f}')"),
]


def main(out):
    for stem, cells in NOTEBOOKS.items():
        nb = nbformat.v4.new_notebook()
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nb.cells = [nbformat.v4.new_code_cell(src, metadata={"name": label}) for label, src in cells]
        nbformat.write(nb, f"{out}/{stem}.ipynb")


if __name__ == "__main__":
    main(sys.argv[1])
