#!/usr/bin/env python3
"""layout-check.py ROOT [BUILD]: check that lib/ keeps the shape lib/README
describes, and print one line per breach ("layout: where: what"); exit 1 if
there is any, 0 if none.

  - lib/ holds the foundation (qe_NAME.c with its qe_NAME.h), qe.h, README and
    one folder per tool concern; each folder F has its public header F/F.h.
  - qe.h includes nothing: files include what they use.
  - a foundation file includes foundation headers only; a tool folder's files
    include the foundation's and their own folder's headers, never another
    tool folder's; a main (cmd/*.c) includes the foundation's and one folder's
    public header F/F.h.
  - no two modules include each other's headers, directly or round a circle.
  - with BUILD (the build folder, objects at BUILD/lib/...): every symbol an
    object exports begins with its file's name (qe_hload...), with an
    abbreviation that file alone owns (PREFIXES), or with its folder's prefix
    (FOLDER_PREFIXES).
"""
import os
import re
import subprocess
import sys

# Short forms a module's exported names use instead of its file's name; each
# belongs to one file.
PREFIXES = {
    "lib/qe_mem.c": ["qe_buf_", "qe_x"],
    "lib/qe_jscan.c": ["qe_js_"],
    "lib/qe_record.c": ["qe_vocab"],
    "lib/qe_opt.c": ["qe_cli_"],
    "lib/notebook/qe_notebook.c": ["qe_nb_"],
    "lib/provenance/qe_facts.c": ["qe_fact_"],
    "lib/provenance/qe_packages.c": ["qe_pkg_", "qe_pkgs_"],
    "lib/diff/qe_fingerprint.c": ["qe_fp_"],
    "lib/comment/qe_diffread.c": ["qe_diffset_", "qe_diffsum_"],
}
# A folder whose files share one prefix may use it for any exported name.
FOLDER_PREFIXES = {"history": "qe_h"}
MAX_ENTRIES = 40

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def rel(root, p):
    return os.path.relpath(p, root)


def sources(root):
    out = []
    for d in ["lib", "cmd"]:
        for dirpath, _, names in os.walk(os.path.join(root, d)):
            out += [os.path.join(dirpath, n) for n in sorted(names) if n.endswith((".c", ".h"))]
    return sorted(out)


def resolve(root, src, name):
    for base in (os.path.dirname(src), os.path.join(root, "lib")):
        p = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(p):
            return p
    return None


def place(root, path):
    """('foundation'|'folder'|'cmd'|'other', folder name or None)."""
    r = rel(root, path).split(os.sep)
    if r[0] == "cmd":
        return "cmd", None
    if r[0] == "lib" and len(r) == 2:
        return "foundation", None
    if r[0] == "lib" and len(r) == 3:
        return "folder", r[1]
    return "other", None


def module(root, path):
    return os.path.splitext(rel(root, path))[0]


def check_entries(root, bad):
    lib = os.path.join(root, "lib")
    names = sorted(os.listdir(lib))
    if len(names) > MAX_ENTRIES:
        bad.append("lib: %d entries, at most %d" % (len(names), MAX_ENTRIES))
    for n in names:
        p = os.path.join(lib, n)
        if os.path.isdir(p):
            if not os.path.isfile(os.path.join(p, n + ".h")):
                bad.append("lib/%s: no public header %s/%s.h" % (n, n, n))
        elif n.endswith(".c") and not os.path.isfile(p[:-2] + ".h"):
            bad.append("lib/%s: no header of its own" % n)
        elif not (n.endswith((".c", ".h")) or n in ("README", "README.md")):
            bad.append("lib/%s: neither a module, a folder nor README" % n)


def check_includes(root, bad):
    graph = {}
    for src in sources(root):
        kind, folder = place(root, src)
        text = open(src, encoding="utf-8", errors="replace").read()
        incs = INCLUDE.findall(text)
        where = rel(root, src)
        if where == "lib/qe.h" and incs:
            bad.append("lib/qe.h: includes %s: qe.h includes nothing" % ", ".join(incs))
        publics = set()
        for name in incs:
            dst = resolve(root, src, name)
            if dst is None:
                bad.append("%s: #include \"%s\": no such header" % (where, name))
                continue
            dkind, dfolder = place(root, dst)
            if kind == "foundation" and dkind == "folder":
                bad.append("%s: includes %s: the foundation includes no tool folder" % (where, rel(root, dst)))
            elif kind == "folder" and dkind == "folder" and dfolder != folder:
                bad.append("%s: includes %s: another tool folder's header" % (where, rel(root, dst)))
            elif kind == "cmd" and dkind == "folder":
                if os.path.basename(dst) != dfolder + ".h":
                    bad.append("%s: includes %s: a main includes a folder's public header %s/%s.h only"
                               % (where, rel(root, dst), dfolder, dfolder))
                publics.add(dfolder)
            a, b = module(root, src), module(root, dst)
            if a != b and kind != "cmd":
                graph.setdefault(a, set()).add(b)
        if len(publics) > 1:
            bad.append("%s: includes the public headers of %s: one tool, one folder" % (where, ", ".join(sorted(publics))))
    check_cycles(graph, bad)


def check_cycles(graph, bad):
    # Tarjan's strongly connected components: any of more than one module is a circle.
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    for comp in sorted(out):
        bad.append("%s: an include circle" % " <-> ".join(comp))


def check_prefixes(root, build, bad):
    owners = {}
    for f, ps in PREFIXES.items():
        for p in ps:
            if p in owners:
                bad.append("%s: prefix %s is already %s's" % (f, p, owners[p]))
            owners[p] = f
    for src in sources(root):
        if not src.endswith(".c") or place(root, src)[0] not in ("foundation", "folder"):
            continue
        r = rel(root, src)
        obj = os.path.join(build, r[:-2] + ".o")
        if not os.path.isfile(obj):
            bad.append("%s: no object %s (build first)" % (r, rel(root, obj) if obj.startswith(root) else obj))
            continue
        nm = subprocess.run(["nm", "--defined-only", "-g", obj], capture_output=True, text=True, check=True)
        stem = os.path.splitext(os.path.basename(src))[0]
        allowed = [stem] + PREFIXES.get(r, [])
        folder = place(root, src)[1]
        if folder in FOLDER_PREFIXES:
            allowed.append(FOLDER_PREFIXES[folder])
        for line in nm.stdout.splitlines():
            parts = line.split()
            if len(parts) != 3 or parts[1] not in "TDRBGSVW":
                continue
            sym = parts[2]
            if sym.startswith("__"):	# the compiler's own (ASan's __odr_asan.NAME), never ours
                continue
            if not any(sym.startswith(p) for p in allowed):
                bad.append("%s: exports %s: not %s" % (r, sym, " or ".join(a + "*" for a in allowed)))


def main():
    if len(sys.argv) not in (2, 3):
        print("usage: layout-check.py ROOT [BUILD]", file=sys.stderr)
        return 2
    root = os.path.abspath(sys.argv[1])
    bad = []
    check_entries(root, bad)
    check_includes(root, bad)
    if len(sys.argv) == 3:
        check_prefixes(root, os.path.abspath(sys.argv[2]), bad)
    for b in bad:
        print("layout: " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
