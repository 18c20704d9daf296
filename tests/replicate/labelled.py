#!/usr/bin/python3
"""Write the notebooks of tests/fidelity-labelled.bats into the folder given.

qe-replicate --compare-labelled: the value of each labelled cell's last
expression, captured right after the cell ran. Three versions of one
lecture, the same cells but for the grid:
  lab-base  grid: x = linspace(1, 2, 1000) ** 2, float64 (its last line x)
  lab-near  the same times (1 + 1e-12): the same within the tolerance
  lab-f32   the same computed in float32: precision lost
and in each, after it:
  total     x.sum() (a NumPy scalar, float32 in lab-f32)
  (none)    x[:3] * K, unlabelled, K 3 (4 in lab-near): not captured, so
            its other printout decides nothing once values are compared
  assign    y = x * 2: an assignment, nothing to capture (said once)
  (none)    x[:] = 0, unlabelled: grid's value was taken before it
  report    print('done'): the value None, nothing to capture (said once)
  slow      an object NumPy takes 0.5 s to read (its __array__; its display,
            the repr, is quick): capturing it costs 0.5 s, which no cell's
            timing may hold
  after     a 0.05 s cell after it, its last expression len(y)
  y         y.sum(): a label --compare y names too, captured once (the variable)
  (block)   x.max() in a {solution-start} block: named "solution ex1: x.max()",
            not labelled, not captured
Cells carry metadata.name labels (imports too: a definition, said nothing),
but total a figure's name (metadata.mystnb.figure.name)."""
import sys

import nbformat

GRID = {
    "lab-base": "x = np.linspace(1, 2, 1000) ** 2\nx",
    "lab-near": "x = np.linspace(1, 2, 1000) ** 2 * (1 + 1e-12)\nx",
    "lab-f32": "x = (np.linspace(1, 2, 1000) ** 2).astype(np.float32)\nx",
}
SLOW = ("class Slow:\n    def __array__(self, dtype=None):\n        time.sleep(0.5)\n        return np.arange(3.0)\n\n\n"
        "time.sleep(0.05)\nSlow()")


def cells(stem):
    return [("imports", "import time\nimport numpy as np"), ("grid", GRID[stem]), ("total", "x.sum()"),
            (None, "x[:3] * %d" % (4 if stem == "lab-near" else 3)), ("assign", "y = x * 2"), (None, "x[:] = 0"),
            ("report", "print('done')"), ("slow", SLOW), ("after", "time.sleep(0.05)\nlen(y)"),
            ("y", "y.sum()")]


def label_of(label):
    if label == "total":
        return {"mystnb": {"figure": {"name": label}}}
    return {"name": label} if label else {}


def main(out):
    for stem in GRID:
        nb = nbformat.v4.new_notebook()
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nb.cells = [nbformat.v4.new_code_cell(src, metadata=label_of(label)) for label, src in cells(stem)]
        nb.cells += [nbformat.v4.new_markdown_cell("```{solution-start} ex1\n```"), nbformat.v4.new_code_cell("x.max()"),
                     nbformat.v4.new_markdown_cell("```{solution-end}\n```")]
        nbformat.write(nb, f"{out}/{stem}.ipynb")


if __name__ == "__main__":
    main(sys.argv[1])
