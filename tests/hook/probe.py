#!/usr/bin/python3
"""Write the probe notebook used by tests/hook.bats (argument: output path).

Cell 1 prints, as JSON, which qe-telemetry callbacks IPython has registered
and which names the startup file left in the user namespace (it must leave
none, or a notebook could start depending on them).  Cell 2 prints the last
line of the hook log as the cell sees it: the cell's own start line must
already be on disk.  Neither cell imports anything into the namespace."""
import sys

import nbformat

nb = nbformat.v4.new_notebook()
nb.metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}}
nb.cells = [
    nbformat.v4.new_code_cell(
        'print(__import__("json").dumps({\n'
        '    "callbacks": sorted(f.__qualname__ for e in ("pre_run_cell", "post_run_cell")\n'
        '                        for f in get_ipython().events.callbacks[e] if "qe_telemetry" in f.__qualname__),\n'
        '    "leaked": sorted(n for n in ("os", "re", "time", "json", "hashlib", "_qe_telemetry_install")\n'
        '                     if n in globals())}))', id="probe-namespace"),
    nbformat.v4.new_code_cell(
        'print((lambda p: open(p).read().splitlines()[-1] if p else "no log")(\n'
        '    __import__("os").environ.get("QE_TELEMETRY_LOG")))', id="probe-log"),
]
nbformat.write(nb, sys.argv[1])
