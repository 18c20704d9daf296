#!/usr/bin/python3
"""defaults-check.py ROOT DIFF.json SWEEP.json HISTORY.json: every default the
documentation states is the tool's own.

A default lives in C once; the pages that repeat it (README.md, docs/*.md,
man/*, action.yml, schema/diff.json and the comments of lib/diff/qe_diff.h)
are checked here against what the tools print: DIFF.json is
`qe-cell-diff --defaults`, SWEEP.json `qe-sweep --defaults`, HISTORY.json
`qe-history --defaults` (tests/defaults.bats makes them, and checks them
against what the tools do).

Two kinds of check:
  - OPTIONS lists: each `.It Fl OPTION` item of qe-cell-diff(1) and
    qe-sweep(1) whose option has a default states `default V`; every
    action.yml input `qe-cell-diff OPTION: ... (empty: its default, V)`; and
    docs/action.md's inputs table `(`OPTION`, `OPTION`: V, V)`. An option
    mapped below that states no default is an error too.
  - prose: the sentences listed in PROSE, each a pattern whose groups are
    defaults (with their unit); each pattern must match at least once, so a
    reworded sentence is noticed, not skipped.
Prints `FILE:LINE: KEY: stated V, the tool's default is W` for each
difference and exits 1; 2 when a pattern matches nothing or an input is bad.
"""
import json
import math
import os
import re
import sys

ROOT, D, S, H = sys.argv[1], *(json.load(open(f)) for f in sys.argv[2:5])
MIB = 1 << 20

# qe-cell-diff's options and the --defaults key each sets
DIFF_OPT = {
    "-r": "cell_ratio", "--ratio": "cell_ratio", "-a": "cell_abs_s", "--abs": "cell_abs_s",
    "--nb-ratio": "notebook_ratio", "--nb-abs": "notebook_abs_s", "--exec-abs": "execution_abs_s",
    "--alpha": "alpha", "--time-abs": "cell_time_abs_s", "--import-abs": "import_abs_s",
    "--mem-abs": "memory_abs_bytes", "--mem-ratio": "memory_ratio", "--mem-share": "memory_share_pct",
    "--rep-ratio": "replicate_ratio", "--rep-abs": "replicate_abs_s", "--rtol": "rtol", "--atol": "atol",
}
SWEEP_OPT = {"-r": "ratio", "--ratio": "ratio", "-m": "min_seconds", "--min-seconds": "min_seconds"}
HISTORY_OPT = {"-k": "fence_builds", "-m": "changes_min_segment", "-n": "slowest_rows", "--penalty": "changes_penalty"}


def value(src, key):
    """The tool's default for KEY: qe-cell-diff's, sweep.KEY, history.KEY, 1/KEY."""
    if key.startswith("sweep."):
        return S[key[6:]]
    if key.startswith("history."):
        return H[key[8:]]
    if key == "1/factor_band":
        return 1 / D["factor_band"]
    return D[key]


# (file, pattern, [(key, unit[, group])...]): group N (else the entry's
# place) states the tool's KEY times unit (1000 for ms, 1/MiB for MiB); a
# blank in a pattern is any run of white space (a line may break there)
PROSE = [
    ("docs/screening.md", r"cells (\S+)x and (\S+) s, notebooks (\S+)x and (\S+) s on the sum of their\s+cells, (\S+) s on `execution_seconds`",
     [("cell_ratio", 1), ("cell_abs_s", 1), ("notebook_ratio", 1), ("notebook_abs_s", 1), ("execution_abs_s", 1)]),
    ("docs/screening.md", r"ok cells of\s+(\S+) s or more on both sides", [("factor_min_s", 1)]),
    ("docs/screening.md", r"Inside x(\S+) \.\.\s+x(\S+) it is the runner's noise; from fewer than (\d+) such cells or (\d+) lectures,\s+or when they disagree \(spread beyond x(\S+)\)",
     [("1/factor_band", 1), ("factor_band", 1), ("factor_min_cells", 1), ("factor_min_lectures", 1), ("factor_spread", 1)]),
    ("docs/screening.md", r"a change of (\S+) s\s+or more \(`--time-abs`", [("cell_time_abs_s", 1)]),
    ("docs/screening.md", r"the book's per-cell limit,\s+T/(\d+)\)", [("cell_time_share", 1)]),
    ("docs/screening.md", r"did not change need (\S+) s\s+\(`--import-abs`\)", [("import_abs_s", 1)]),
    ("docs/replicate.md", r"their own rule: (\S+)x and (\S+) s \(`--rep-ratio`,\s+`--rep-abs`\) \*and\* a Mann-Whitney test at (\S+),",
     [("replicate_ratio", 1), ("replicate_abs_s", 1), ("alpha", 1)]),
    ("docs/replicate.md", r"beyond ×(\S+) and by more than (\d+) ms per cell \(×(\S+) and (\d+) ms per lecture",
     [("replicate_ratio", 1), ("replicate_abs_s", 1000), ("replicate_notebook_ratio", 1), ("replicate_notebook_abs_s", 1000)]),
    ("docs/replicate.md", r"qe-cell-diff --rtol \(default (\S+)\)", [("rtol", 1)]),
    ("docs/replicate.md", r"qe-cell-diff --atol \(default (\S+)\)", [("atol", 1)]),
    ("docs/replicate.md", r"`--rtol` (\S+), `--atol` (\S+) by default", [("rtol", 1), ("atol", 1)]),
    ("docs/replicate.md", r"within rtol (\S+), atol ([^)\s]+)\)", [("rtol", 1), ("atol", 1)]),
    ("docs/replicate.md", r"rose by (\d+) MiB and (\S+)x, or whose resident\s+set grew (\d+) MiB",
     [("memory_abs_bytes", 1 / MIB), ("memory_ratio", 1), ("memory_abs_bytes", 1 / MIB)]),
    ("docs/replicate.md", r"rose by (\d+)% of the runner's memory", [("memory_share_pct", 1)]),
    ("docs/replicate.md", r"when that is beyond\s+×(\S+) \(`-r`, the\s+replicate rule's ratio\)", [("sweep.ratio", 1), ("replicate_ratio", 1, 1)]),
    ("docs/replicate.md", r"never reaches (\d+) ms \(`-m`\)", [("sweep.min_seconds", 1000)]),
    ("docs/action.md", r"the long-cell bound is 1/(\d+) of it", [("cell_time_share", 1)]),
    ("man/qe-cell-diff.1", r"\(default (\S+) s, 1/(\d+) of the 2,400 s", [("cell_time_abs_s", 1), ("cell_time_share", 1)]),
    ("man/qe-cell-diff.1", r"\.Ar T Ns /(\d+) \) :", [("cell_time_share", 1)]),
    ("man/qe-cell-diff.1", r"\.Fl \\-import-abs\n\(default (\S+) s\)", [("import_abs_s", 1)]),
    ("man/qe-cell-diff.1", r"\.Pq Fl \\-rep-ratio , Fl \\-rep-abs : No (\S+)x and (\S+) s", [("replicate_ratio", 1), ("replicate_abs_s", 1)]),
    ("man/qe-cell-diff.1", r"bytes \(default (\d+), (\d+) MiB\)", [("memory_abs_bytes", 1), ("memory_abs_bytes", 1 / MIB)]),
    ("man/qe-cell-diff.1", r"\.Fl \\-mem-ratio\ntimes \(default (\S+)\)", [("memory_ratio", 1)]),
    ("man/qe-cell-diff.1", r"percent of the runner's memory \(default (\d+):", [("memory_share_pct", 1)]),
    ("man/qe-cell-diff.1", r"\.Fl \\-rtol\ndefault (\S+),\n\.Fl \\-atol\ndefault (\S+),", [("rtol", 1), ("atol", 1)]),
    ("man/qe-cell-diff.1", r"at least\n(\S+) s on both\n\.Pq Dq thresholds\.factor_min_s", [("factor_min_s", 1)]),
    ("man/qe-cell-diff.1", r"null with fewer than (\d+) such cells\.", [("runner_factor_min_cells", 1)]),
    ("man/qe-cell-diff.1", r"inside \\\(mu(\S+) \.\. \\\(mu(\S+)\n\.Pq Dq thresholds\.factor_band", [("1/factor_band", 1), ("factor_band", 1)]),
    ("man/qe-cell-diff.1", r"from fewer than (\d+) cells\n\.Pq Dq factor_min_cells\nor fewer than (\d+) lectures",
     [("factor_min_cells", 1), ("factor_min_lectures", 1)]),
    ("man/qe-cell-diff.1", r"their spread is beyond \\\(mu(\S+)\n\.Pq Dq factor_spread", [("factor_spread", 1)]),
    ("man/qe-cell-diff.1", r"The runner factor is steady inside \\\(mu(\S+) \.\. \\\(mu(\S+) because", [("1/factor_band", 1), ("factor_band", 1)]),
    ("man/qe-cell-diff.1", r"Its cells agree within \\\(mu(\S+), the band again", [("factor_spread", 1), ("factor_band", 1, 1)]),
    ("man/qe-cell-diff.1", r"with fewer than (\d+) unchanged compute cells of (\S+) s or more", [("runner_factor_min_cells", 1), ("factor_min_s", 1)]),
    ("man/qe-cell-diff.1", r"Hence a cell needs (\S+)x\n\.Em and\n(\S+) s, a notebook's cell sum (\S+)x and (\S+) s\.",
     [("cell_ratio", 1), ("cell_abs_s", 1), ("notebook_ratio", 1), ("notebook_abs_s", 1)]),
    ("man/qe-cell-diff.1", r"so its floor is (\S+) s\.", [("execution_abs_s", 1)]),
    ("man/qe-cell-diff.1", r"of 1/(\d+) of it \((\d+) s\)", [("cell_time_share", 1), ("cell_time_abs_s", 1)]),
    ("man/qe-cell-diff.1", r"The import floor of (\S+) s", [("import_abs_s", 1)]),
    ("man/qe-cell-diff.1", r"the long-cell bound is 1/(\d+) of it", [("cell_time_share", 1)]),
    ("man/qe-cell-diff.1", r"a change of 1/(\d+) of it counts", [("cell_time_share", 1)]),
    ("man/qe-comment.1", r"a runner factor outside (\S+) to (\S+) means", [("1/factor_band", 1), ("factor_band", 1)]),
    ("man/qe-comment.1", r"within rtol (\S+), atol ([^)\s]+)\)", [("rtol", 1), ("atol", 1)]),
    ("man/qe-sweep.1", r"\(default (\S+), the replicate rule's seconds\)", [("replicate_abs_s", 1)]),
    ("man/qe-sweep.1", r"\(default (\S+), the replicate rule's ratio\)", [("replicate_ratio", 1)]),
    ("docs/history.md", r"Mann-Whitney p below (\S+), a ratio of (\S+) and", [("history.changes_alpha", 1), ("history.min_ratio", 1)]),
    ("docs/history.md", r"\(ratio at least (\S+), its 95% interval", [("history.min_ratio", 1)]),
    ("docs/history.md", r"log\nratio (\S+) standard errors of their difference", [("history.unexplained_z", 1)]),
    ("docs/history.md", r"learned from the last (\d+) main builds, once a cell has (\d+):", [("history.fence_builds", 1), ("history.fence_min_builds", 1)]),
    ("man/qe-history.1", r"main builds \(default (\d+)\) of the newest runner class that timed it; at least (\d+) builds",
     [("history.fence_builds", 1), ("history.fence_min_builds", 1)]),
    ("man/qe-history.1", r"\.Fl \\-penalty\n\(default (\S+)\)", [("history.changes_penalty", 1)]),
    ("man/qe-history.1", r"Mann-Whitney p below (\S+), by a ratio of medians of at least (\S+),", [("history.changes_alpha", 1), ("history.min_ratio", 1)]),
    ("man/qe-history.1", r"medians' log ratio at least (\S+) standard errors of their difference,\n(\S+) \\\(mu", [("history.unexplained_z", 1), ("history.unexplained_z", 1)]),
    ("man/qe-history.1", r"\(at least (\S+); below 0\.05 s", [("history.min_ratio", 1)]),
    ("man/qe-history.1", r"when the ratio is at least (\S+) \(at most 1/(\S+)\)", [("history.min_ratio", 1), ("history.min_ratio", 1)]),
    ("action.yml", r"the long-cell bound \(1/(\d+) of it\)", [("cell_time_share", 1)]),
    ("schema/diff.json", r'"--rtol \(default (\S+)\)"', [("rtol", 1)]),
    ("schema/diff.json", r'"--atol \(default (\S+)\)"', [("atol", 1)]),
    ("lib/diff/qe_diff.h", r"a peak growth of (\d+)% of the runner's", [("memory_share_pct", 1)]),
    ("lib/diff/qe_diff.h", r"The long-cell bound: (\d+) s, 1/(\d+) of the", [("cell_time_abs_s", 1), ("cell_time_share", 1)]),
    ("lib/diff/qe_diff.h", r"T / (\d+) \*/", [("cell_time_share", 1)]),
]

bad = trouble = checked = 0
keys_seen = set()


def num(text):
    t = text.replace("\\-", "-").rstrip(".,;:)")
    try:
        return float(t)
    except ValueError:
        return None


def check(path, text, pos, key, stated, unit=1):
    """Report when STATED (a string) is not the tool's default of KEY."""
    global bad, trouble, checked
    checked += 1
    keys_seen.add(key)
    line = text.count("\n", 0, pos) + 1
    want = value(S, key) * unit
    stated = stated.replace("\\-", "-").rstrip(".,;:)")
    got = num(stated)
    if got is None:
        print(f"{path}:{line}: {key}: '{stated}' is no number")
        trouble += 1
    elif not math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12):
        print(f"{path}:{line}: {key}: stated {stated}, the tool's default is {want:g}")
        bad += 1


def read(path):
    return open(f"{ROOT}/{path}", encoding="utf-8").read()


def options_items(path, opts):
    """mdoc OPTIONS: each `.It Fl X` item naming a mapped option states `default V`."""
    global trouble
    text = read(path)
    sect = text.index(".Sh OPTIONS")
    end = text.index("\n.Sh ", sect + 1)
    items = list(re.finditer(r"^\.It Fl (\\-)?([\w-]+)", text[sect:end], re.M))
    seen = set()
    for i, m in enumerate(items):
        opt = ("--" if m.group(1) else "-") + m.group(2)
        if opt not in opts:
            continue
        start = sect + m.start()
        stop = sect + items[i + 1].start() if i + 1 < len(items) else end
        d = re.search(r"default (\S+)", text[start:stop])
        if d is None:
            print(f"{path}: {opt} states no default")
            trouble += 1
            continue
        seen.add(opts[opt])
        check(path, text, start + d.start(1), opts[opt], d.group(1))
    for key in sorted(set(opts.values()) - seen):
        print(f"{path}: no OPTIONS item states the default of {key}")
        trouble += 1


def action_yml():
    """action.yml: `qe-cell-diff OPTION: ... (empty: its default, V)`."""
    global trouble
    text = read("action.yml")
    n = 0
    for m in re.finditer(r"qe-cell-diff (-[\w-]+):[^\n]*?\(empty: its default, ([^)]+)\)", text):
        if m.group(1) not in DIFF_OPT:
            print(f"action.yml: {m.group(1)}: not an option with a default of qe-cell-diff")
            trouble += 1
            continue
        check("action.yml", text, m.start(2), DIFF_OPT[m.group(1)], m.group(2))
        n += 1
    if n == 0:
        print("action.yml: no input states a qe-cell-diff default (reworded? see tests/tools/defaults-check.py)")
        trouble += 1


def action_table():
    """docs/action.md: `(`OPTION`, `OPTION`: V, V)` in the inputs table."""
    global trouble
    path = "docs/action.md"
    text = read(path)
    n = 0
    for m in re.finditer(r"\(((?:`[^`]+`, )*`[^`]+`): ([^()]+?)\)", text):
        opts = [o.replace("qe-cell-diff ", "") for o in re.findall(r"`([^`]+)`", m.group(1))]
        if not all(o in DIFF_OPT for o in opts):
            continue
        vals = [v.strip() for v in m.group(2).split(",")]
        if len(vals) != len(opts):
            print(f"{path}: {m.group(0)}: {len(opts)} options, {len(vals)} values")
            trouble += 1
            continue
        for o, v in zip(opts, vals):
            check(path, text, m.start(2), DIFF_OPT[o], v.removesuffix(" s"))
            n += 1
    if n == 0:
        print(f"{path}: no qe-cell-diff default stated in the inputs table (reworded? see tests/tools/defaults-check.py)")
        trouble += 1


def option_prose(path):
    """Markdown: `OPTION` ... default V, in one sentence, wherever it is
    (README.md states none today; one added there is checked too)."""
    text = read(path)
    for m in re.finditer(r"`(?:qe-cell-diff )?(-[\w-]+)`[^.;`\n]{0,40}?\bdefault:? ([0-9][0-9.e+-]*)", text):
        if m.group(1) in DIFF_OPT:
            check(path, text, m.start(2), DIFF_OPT[m.group(1)], m.group(2))


for md in ["README.md"] + sorted(f"docs/{f}" for f in os.listdir(f"{ROOT}/docs") if f.endswith(".md")):
    option_prose(md)
options_items("man/qe-cell-diff.1", DIFF_OPT)
options_items("man/qe-sweep.1", {k: "sweep." + v for k, v in SWEEP_OPT.items()})
options_items("man/qe-history.1", {k: "history." + v for k, v in HISTORY_OPT.items()})
action_yml()
action_table()
for path, pattern, keys in PROSE:
    text = read(path)
    found = list(re.finditer(pattern.replace(" ", r"\s+"), text))
    if not found:
        print(f"{path}: nothing matches /{pattern}/ (reworded? update tests/tools/defaults-check.py)")
        trouble += 1
    for m in found:
        for g, (key, unit, *at) in enumerate(keys, 1):
            g = at[0] if at else g
            check(path, text, m.start(g), key, m.group(g), unit)
if not bad and not trouble:
    print(f"{checked} statements of {len(keys_seen)} defaults agree with the tools")
sys.exit(2 if trouble else 1 if bad else 0)
