# qe-replicate's value capture (qe_replicate 1): runs in the kernel, sent
# by qe-replicate as a silent execute (no hook line, no history, its own
# globals: no name left behind) after the last cell (--compare) and after
# each labelled cell (--compare-labelled). Summarises each value:
# qe-cell-diff compares them (qe_fidelity), this only writes them down, and
# qe-cache-extract --runs puts them in the notebook record ("values").
# After a cell it imports nothing the lecture has not (numpy only when
# loaded: an import here would speed the lecture's own up and show in its
# kernel's modules).
#
# _qe_args: (ip, names, out, limit[, cell, notes]): with cell = (name,
# ordinal, execution count), the labelled cell's summary is appended to
# out as a line, or why it has none to notes as "name<TAB>reason".


def _qe_summariser(limit, np):
    """summary(r, v): value v's summary into the entry r (NumPy np or None)."""
    import hashlib, math, struct

    def enc(x):
        if isinstance(x, bool):
            return int(x)
        if isinstance(x, complex):
            return [enc(x.real), enc(x.imag)]
        if isinstance(x, float) and not math.isfinite(x):
            return "nan" if x != x else ("inf" if x > 0 else "-inf")
        return x

    def plain(r, v):
        # a Python number without NumPy loaded: as NumPy would summarise it
        dt, fmt = {bool: ("bool", "?"), int: ("int64", "q"), float: ("float64", "d"),
                   complex: ("complex128", "dd")}[type(v)]
        x = v.real if isinstance(v, complex) else v
        r.update(kind="scalar", dtype=dt, shape=[], size=1, sha256=hashlib.sha256(
            struct.pack("=" + fmt, *((v.real, v.imag) if isinstance(v, complex) else (v,)))).hexdigest())
        r["values"] = [enc(v)] if limit >= 1 else None
        if limit < 1:
            r["summary"] = {"min": enc(x), "max": enc(x), "mean": float(x)} if math.isfinite(x) else None
        return r

    def summary(r, v):
        a = None
        if np is None and type(v) in (bool, int, float, complex) and (type(v) is not int or -2**63 <= v < 2**63):
            return plain(r, v)
        if np is not None and not isinstance(v, (str, bytes, dict)):
            try:
                a = np.asarray(v)
                a = a if a.dtype.kind in "biufc" else None
            except Exception:
                a = None
        if a is None:
            r["kind"], r["type"] = "other", type(v).__name__
            r["sha256"] = hashlib.sha256(repr(v).encode("utf-8", "replace")).hexdigest()
            return r
        r["kind"] = "scalar" if a.ndim == 0 else "array"
        r["dtype"], r["shape"], r["size"] = a.dtype.name, list(a.shape), int(a.size)
        # the bytes hashed in place (tobytes' copy would raise the kernel's peak memory)
        r["sha256"] = hashlib.sha256(np.ascontiguousarray(a).reshape(-1).view(np.uint8)).hexdigest()
        if a.size <= limit:
            r["values"] = [enc(x) for x in a.ravel().tolist()]
        else:
            r["values"] = None
            f = a.real if a.dtype.kind in "fc" else a
            if a.dtype.kind in "fc" and not np.isfinite(f).all():
                f = f[np.isfinite(f)]
            r["summary"] = {"min": enc(f.min().item()), "max": enc(f.max().item()),
                            "mean": enc(float(f.mean()))} if f.size else None
        return r

    return summary


def _qe_values(ip, names, out, limit, cell=None, notes=None):
    import json, sys
    np = sys.modules.get("numpy")
    if np is None and cell is None:
        try:
            import numpy as np
        except ImportError:
            np = None
    summary = _qe_summariser(limit, np)

    def one(name):
        r = {"name": name}
        if name not in ip.user_ns:
            r["kind"] = "missing"
            return r
        return summary(r, ip.user_ns[name])

    if cell is None:
        with open(out, "w") as f:
            json.dump([one(n) for n in names], f, allow_nan=False, separators=(",", ":"))
        return
    # the labelled cell just run: the value IPython's displayhook took of
    # its last expression (None: the value was None, the cell not quiet)
    name, index, count = cell
    res, r = ip.last_execution_result, {"name": name, "cell": index}
    if res is None or getattr(res, "execution_count", None) != count:
        r["not"] = "the kernel's last result is another cell's"
    elif not res.success:
        r["not"] = "the cell raised"
    elif res.result is None:
        r["not"] = "its last expression's value is None"
    else:
        r = summary(r, res.result)
    if "not" in r:
        with open(notes, "a") as f:
            f.write("%s\t%s\n" % (name.replace("\t", " ").replace("\n", " "), r["not"]))
        return
    with open(out, "a") as f:
        f.write(json.dumps(r, allow_nan=False, separators=(",", ":")) + "\n")


_qe_values(*_qe_args)
