"""qe_replicate_notebook: what qe-replicate reads in a lecture's notebook to
run it: which cells only define (not run again warm), how a labelled cell
ends (whether it has a value to capture), the parameters cell and the
papermill cell a sweep point injects after it, the --sweep points. Runner
side: nothing here reads or writes a record. qe-replicate(1).
"""
import ast
import copy
import io
import json
import os
import re
import shutil
import sys
import tokenize


class Trouble(Exception):
    """A message for stderr (none: the C tool said it) and exit status 2."""


def definition_only(src):
    """A cell that only imports and defines (functions, classes): re-running it
    would re-create, and for numba or jax re-compile, what it defines."""
    try:
        body = ast.parse(src).body
    except (SyntaxError, ValueError):
        return False
    kinds = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return bool(body) and all(isinstance(s, kinds) for s in body)


def last_statement(src):
    """What a cell's last statement is, as IPython runs it (its magics
    turned into Python first): "expression" (its value the cell's result),
    "quiet" (an expression ended by ';': IPython keeps no value), "assignment",
    "statement", "empty", or "unparsed"."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager
        src = TransformerManager().transform_cell(src)
    except ImportError:
        pass  # no IPython here: the source as it stands
    except Exception:
        return "unparsed"
    try:
        body = ast.parse(src).body
    except (SyntaxError, ValueError):
        return "unparsed"
    if not body:
        return "empty"
    if isinstance(body[-1], (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        return "assignment"
    if not isinstance(body[-1], ast.Expr):
        return "statement"
    try:  # IPython's own test (DisplayHook.quiet): the last token a ';'
        toks = [t for t in tokenize.generate_tokens(io.StringIO(src).readline) if t.type not in (
            tokenize.ENDMARKER, tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT)]
    except (tokenize.TokenError, SyntaxError):
        return "unparsed"
    return "quiet" if toks and toks[-1].type == tokenize.OP and toks[-1].string == ";" else "expression"


NOT_CAPTURED = {"quiet": "its last expression ends with ';' (IPython keeps no value)",
                "assignment": "its last statement is an assignment, not an expression (name the variable "
                              "with --compare)",
                "statement": "its last statement is not an expression", "empty": "it has no code",
                "unparsed": "its source is not Python qe-replicate can read"}


def capturable(nb, labels, compare):
    """The labelled cells whose values --compare-labelled captures, {index in
    nb.cells: (display name, code-cell ordinal)}, of labels [(ordinal, name)]
    (qe-cache-extract --labels: the name the author gave, kept across
    versions): those ending in an expression, under a name not taken (by
    --compare or an earlier cell). And [(name, why)] of the others (an
    import or definition cell, which has no result, not said)."""
    code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    out, notes, taken = {}, [], set(compare)
    for ordinal, name in labels:
        if ordinal >= len(code):
            continue
        src = nb.cells[code[ordinal]].source
        why = NOT_CAPTURED.get(last_statement(src))
        if why is None and name in taken:
            why = "its name is taken (by --compare or an earlier labelled cell)"
        if why is not None and not definition_only(src):
            notes.append((name, why))
        if why is None:
            taken.add(name)
            out[code[ordinal]] = (name, ordinal)
    return out, notes


def sweep_value(name, text):
    """One value of --sweep: a Python literal, or a whole number written 1e3 (the int 1000)."""
    try:
        v = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError):
        raise Trouble(f"option '--sweep': '{text}' is not a Python literal (a value of {name})")
    if isinstance(v, float) and v.is_integer() and abs(v) < 2 ** 53:
        v = int(v)
    return v


def sweep_points(specs):
    """The points of the --sweep options, [{name: value}]: several parameters
    move together (as many values each); the first one is the size axis."""
    axes = []
    for spec in specs:
        name, eq, values = spec.partition("=")
        if not eq or not name.strip().isidentifier() or not values.strip():
            raise Trouble(f"option '--sweep': '{spec}' is not name=value,value,...")
        if name.strip() in (n for n, _ in axes):
            raise Trouble(f"option '--sweep': {name.strip()} swept twice")
        axes.append((name.strip(), [sweep_value(name.strip(), v) for v in values.split(",")]))
    if len({len(v) for _, v in axes}) > 1:
        raise Trouble("option '--sweep': parameters swept together need as many values each")
    return [{n: v[i] for n, v in axes} for i in range(len(axes[0][1]))] if axes else []


def parameters_at(nb):
    """The index of the first cell tagged `parameters` (papermill's convention), or None."""
    return next((i for i, c in enumerate(nb.cells)
                 if "parameters" in (c.get("metadata", {}).get("tags") or [])), None)


def constant(node):
    """The value of a literal or of arithmetic on literals (10**6, 2 * 10**5)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Pow)):
        a, b = constant(node.left), constant(node.right)
        if isinstance(node.op, ast.Pow) and abs(b) > 64:
            raise ValueError("too large")
        return {ast.Add: a + b, ast.Sub: a - b, ast.Mult: a * b}.get(type(node.op)) \
            if not isinstance(node.op, ast.Pow) else a ** b
    return ast.literal_eval(node)


def lecture_parameters(nb, names):
    """The lecture's own values of the swept names, as its parameters cell assigns them."""
    try:
        body = ast.parse(nb.cells[parameters_at(nb)].source).body
    except (SyntaxError, ValueError):
        return {}
    own = {}
    for s in body:
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and getattr(s.targets[0], "id", None) in names:
            try:
                own[s.targets[0].id] = constant(s.value)
            except (ValueError, TypeError, SyntaxError):
                pass  # not a constant: the lecture's size is unknown
    return own


def inject(nb, point):
    """nb with papermill's injected cell after its parameters cell: tagged
    injected-parameters, "# Parameters" then one assignment per name (an
    injected cell already there is replaced, as papermill does)."""
    import nbformat
    nb = copy.deepcopy(nb)
    nb.cells = [c for c in nb.cells if "injected-parameters" not in (c.get("metadata", {}).get("tags") or [])]
    cell = nbformat.v4.new_code_cell("# Parameters\n" + "".join(f"{k} = {v!r}\n" for k, v in point.items()),
                                     metadata={"tags": ["injected-parameters"]})
    nb.cells.insert(parameters_at(nb) + 1, cell)
    return nb


def sweep_sources(o, sources, runs, warn):
    """Each point of the sweep: {arm: (notebook with the point, folder, the
    lecture's notebook)}; the lecture's own values into o["own"]."""
    import nbformat
    names, nbs, o["own"] = list(o["sweep"][0]), {}, {}
    for v, (nbfile, _) in sources.items():
        nbs[v] = nbformat.read(str(nbfile), as_version=4)
        if parameters_at(nbs[v]) is None:
            raise Trouble(f"{nbfile}: no cell tagged 'parameters' (papermill's convention) to set "
                          f"{', '.join(names)} in")
        o["own"][v] = lecture_parameters(nbs[v], names)
        for n in names:
            if n not in o["own"][v]:
                warn(f"{nbfile}: its parameters cell gives {n} no constant value (its own size is unknown)")
    for at, point in enumerate(o["sweep"], 1):
        files = {}
        for v, nb in nbs.items():
            files[v] = (runs / f"{v}-sweep{at}.ipynb", sources[v][1], sources[v][0])
            nbformat.write(inject(nb, point), str(files[v][0]))
        yield point, files


def profiled(nbfile, d, out):
    """nbfile with each code cell under %%prun (cProfile's dump into d, a
    cell magic of its own or an empty cell left alone), written to out;
    [(dump, rows file)] of qe_replicate_profile.py."""
    import nbformat
    nb, pairs = nbformat.read(str(nbfile), as_version=4), []
    d.mkdir(parents=True)
    for ordinal, cell in enumerate(c for c in nb.cells if c.cell_type == "code"):
        if cell.source.strip() and not cell.source.lstrip().startswith("%%"):
            pairs.append((str(d / f"{ordinal}.pstats"), str(d / f"{ordinal}.tsv")))
            cell.source = f"%%prun -q -D {pairs[-1][0]}\n{cell.source}"
    nbformat.write(nb, str(out))
    return pairs


def error_line(e):
    """The exception line of a cell that raised (nbclient's message ends with it)."""
    lines = [ln for ln in str(e).splitlines() if ln.strip()]
    return lines[-1] if lines else type(e).__name__


def python_of_choice(argv, program):
    """QE_PYTHON names the Python the lectures build with: run this program by it."""
    want = os.environ.get("QE_PYTHON")
    if not want or os.environ.get("QE_REPLICATE_PYTHON_SET") == want:
        return
    path = shutil.which(want)
    if path is None:
        raise Trouble(f"QE_PYTHON: '{want}' is not a program here")
    if os.path.realpath(path) != os.path.realpath(sys.executable):
        os.environ["QE_REPLICATE_PYTHON_SET"] = want
        try:
            os.execv(path, [path, os.path.realpath(program), *argv])
        except OSError as e:
            raise Trouble(f"QE_PYTHON: cannot run '{want}': {e.strerror}")


ARM_NAME = re.compile(r"[A-Za-z0-9_.-]+\Z")
VAR_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def number(opt, text, kind, low):
    """An option's value as kind, at least low, else trouble."""
    try:
        v = kind(text)
    except ValueError:
        v = None
    if v is None or v != v or v < low or v == float("inf"):
        raise Trouble(f"option '{opt}': '{text}' is not a number of at least {low}")
    return v


def arm_option(o, opt, val):
    """--arm NAME=NOTEBOOK[,env:VAR=VALUE]..., --compare NAME[,NAME], --compare-labelled,
    --compare-limit N into o."""
    if opt in ("--compare-labelled", "--compare-limit"):
        o[opt[2:].replace("-", "_")] = val if opt == "--compare-limit" else True
        return
    if opt == "--compare":
        for name in val.split(","):
            if not name.isidentifier():
                raise Trouble(f"option '--compare': '{name}' is not a variable name")
            if name not in o["compare"]:
                o["compare"].append(name)
        return
    name, eq, rest = val.partition("=")
    if not eq or not ARM_NAME.match(name) or not rest:
        raise Trouble(f"option '--arm': '{val}' is not NAME=NOTEBOOK[,env:VAR=VALUE]...")
    if any(a["name"] == name for a in o["arms"]):
        raise Trouble(f"option '--arm': arm '{name}' given twice")
    path, *settings = rest.split(",")
    env = {}
    for setting in settings:
        var, eq, value = setting[4:].partition("=") if setting.startswith("env:") else ("", "", "")
        if not eq or not VAR_NAME.match(var) or "\n" in value:
            raise Trouble(f"option '--arm': '{setting}' in arm '{name}' is not env:VAR=VALUE")
        env[var] = value
    o["arms"].append({"name": name, "path": path, "env": env})


def named_values(key, values):
    """Run line fields "key<TAB>name<TAB>value" of {name: value} (a sweep
    point, the lecture's own values), each Python literal as JSON text."""
    return [(key, f"{k}\t{json.dumps(v)}") for k, v in (values or {}).items()]
