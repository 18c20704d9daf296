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
  fast.ipynb, fast-slow.ipynb  plain and slow on a machine 2.5x faster
               (every sleep x0.4): 0.08 -> 0.24 s, the lecture +0.16 s
  slowmachine.ipynb, slowmachine-slow.ipynb  the same on a machine 2x
               slower (every sleep x2): 0.4 -> 1.2 s, the lecture +0.8 s
  var.ipynb, var-bug.ipynb  a numerical bug: "simulate" computes the
               variance with a 0.4 s loop; the buggy version skips the loop
               and returns the standard deviation (s, not s**2): much faster,
               and "report" (the same source) prints another number
  loops.ipynb, loops-numba.ipynb  a real numba conversion: a Python loop
               (0.2 s here) becomes @njit(parallel=True) with prange: as
               used it compiles (0.5-0.7 s here, 3x the loop), warm it takes a
               millisecond; only the converted version imports numba
  redefine.ipynb  "plot" is defined with one parameter, called, then an
               exercise solution redefines it with two: run again warm, the
               first call raises TypeError
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


def scaled(stem, factor):
    """A notebook as on a machine 1/factor as fast: every sleep times factor."""
    return [(n, src.replace("time.sleep(", f"time.sleep({factor} * ")) for n, src in NOTEBOOKS[stem]]


VAR = [("imports", "import time\nimport math"),
       ("data", "xs = [math.sin(i) * 3 for i in range(2000)]"),
       ("simulate", "def variance(xs):\n    m = sum(xs) / len(xs)\n    t = 0.0\n    for x in xs:\n"
                    "        t += (x - m) ** 2\n    time.sleep(0.4)\n    return t / len(xs)\nv = variance(xs)"),
       ("report", "print(f'variance {v:.4f}')")]
VAR_BUG = VAR[:2] + [("simulate", "def variance(xs):\n    m = sum(xs) / len(xs)\n"
                                  "    return (sum((x - m) ** 2 for x in xs) / len(xs)) ** 0.5\nv = variance(xs)"),
                     VAR[3]]
LOOP = "def walk(n):\n    s = 0.0\n    for i in range(n):\n        s += (i % 7) * 0.5\n    return s"
LOOPS = [("imports", "import numpy as np"),
         ("define", LOOP),
         ("run", "total = sum(walk(1_200_000) for _ in range(4))"),
         ("report", "print(total)")]
LOOPS_NUMBA = [("imports", "import numpy as np\nfrom numba import njit, prange"),
               ("define", "@njit(parallel=True)\n" + LOOP.replace("range(n)", "prange(n)")),
               ("run", "total = sum(walk(1_200_000) for _ in range(4))"),
               ("report", "print(total)")]
REDEFINE = [("imports", "import time"),
            ("plot-def", "def plot(agents):\n    time.sleep(0.1)\n    return len(agents)"),
            ("plot-call", "n = plot([1, 2, 3])"),
            ("solution", "def plot(agents, cycle_num):\n    time.sleep(0.1)\n    return len(agents) * cycle_num\n"
                         "m = plot([1, 2], 3)"),
            ("report", "print(n, m)")]

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

# What a run prints that cannot mean a changed result: an object address, the
# lines of %time and %timeit, a progress bar, ANSI colours; each run's values
# differ. volatile-seen.ipynb holds the same cells with other such values, as
# a build would have stored them: one normaliser gives every run the same
# digests as that notebook.
VOLATILE = [
    ("imports", "import random"),
    ("address", "print(object())"),
    ("time", "%time x = sum(range(1000))"),
    ("timeit", "%timeit -n 3 -r 2 sum(range(100))"),
    ("progress", "print(f'100%|##########| 10/10 [00:00<00:00, {random.uniform(1e3, 1e5):.2f}it/s]')"),
    ("ansi", "print(f'\\x1b[{random.choice([31, 32, 1])}mred\\x1b[0m')"),
]
SEEN = {
    "address": "<object object at 0x55d0c0ffee00>\n",
    "time": "CPU times: user 1 s, sys: 2 s, total: 3 s\nWall time: 4 s\n",
    "timeit": "9 ms \u00b1 1 ms per loop (mean \u00b1 std. dev. of 7 runs, 100 loops each)\n",
    "progress": "100%|##########| 10/10 [00:01<00:00, 9.99it/s]\n",
    "ansi": "red\n",
}

out = sys.argv[1]
NOTEBOOKS["volatile"] = VOLATILE
NOTEBOOKS.update({"fast": scaled("plain", 0.4), "fast-slow": scaled("slow", 0.4),
                  "slowmachine": scaled("plain", 2), "slowmachine-slow": scaled("slow", 2), "var": VAR, "var-bug": VAR_BUG,
                  "loops": LOOPS, "loops-numba": LOOPS_NUMBA, "redefine": REDEFINE})
for stem, cells in NOTEBOOKS.items():
    nb = nbformat.v4.new_notebook()
    nb.metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}}
    nb.cells = [nbformat.v4.new_code_cell(src, id=name, metadata={"name": name}) for name, src in cells]
    nbformat.write(nb, f"{out}/{stem}.ipynb")
seen = nbformat.v4.new_notebook()
seen.metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}}
seen.cells = [nbformat.v4.new_code_cell(src, id=name, metadata={"name": name}, execution_count=i + 1, outputs=[
    nbformat.v4.new_output("stream", name="stdout", text=SEEN[name])] if name in SEEN else [])
    for i, (name, src) in enumerate(VOLATILE)]
nbformat.write(seen, f"{out}/volatile-seen.ipynb")
with open(f"{out}/data.txt", "w") as fh:
    fh.write("data from the lecture's folder\n")

# A stand-in for JAX in each version's lecture folder (the kernel imports it
# from its working folder): the same release, but base computes on a GPU and
# head silently fell back to the CPU; its backend is set up by the first
# computation, as JAX's is. The notebook lists which key modules the kernel
# holds at its end: the hook must not have imported any.
FAKE_JAX = {
    "__init__.py": "__version__ = '0.4.30'\n"
                   "from . import _src\n"
                   "class _Config:\n    jax_enable_x64 = False\n"
                   "config = _Config()\n"
                   "class _Device:\n    def __init__(self, name):\n        self.name = name\n"
                   "    def __str__(self):\n        return self.name\n"
                   "def default_backend():\n    return BACKEND\n"
                   "def devices():\n    return [_Device(DEVICE)]\n"
                   "def compute(x):\n    _src.xla_bridge._backends[BACKEND] = object()\n    return 2 * x\n",
    "_src/__init__.py": "from . import xla_bridge\n",
    "_src/xla_bridge.py": "_backends = {}\n",
}
for version, backend, device in (("base", "gpu", "cuda(id=0)"), ("head", "cpu", "TFRT_CPU_0")):
    import os
    d = f"{out}/jaxlec/{version}"
    os.makedirs(f"{d}/jax/_src", exist_ok=True)
    for name, text in FAKE_JAX.items():
        if name == "__init__.py":
            text = f"BACKEND = {backend!r}\nDEVICE = {device!r}\n" + text
        with open(f"{d}/jax/{name}", "w") as fh:
            fh.write(text)
    nb = nbformat.v4.new_notebook()
    nb.metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}}
    nb.cells = [nbformat.v4.new_code_cell(src, id=name, metadata={"name": name}) for name, src in (
        ("import", "import jax"),
        ("compute", "y = jax.compute(21)"),
        ("held", "import sys\nprint(sorted(m for m in ('numpy', 'scipy', 'numba', 'torch', 'pandas') if m in sys.modules))"),
    )]
    nbformat.write(nb, f"{d}/lecture.ipynb")
