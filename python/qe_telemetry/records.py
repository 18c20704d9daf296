"""The forms a duration is printed in by the Sphinx extension's roles.

Records are not read here: qe-exec-status --times (C) reads them, picks each
document's newest record and hands the extension plain seconds; these only
format them. (The prose forms, "2 min 10 s", differ on purpose from
qe-comment's table form "2m 05s" (qe_gfm_dur): they are read in sentences.)

Invariants:
  - Number and unit are joined by `sp` (default U+00A0, a no-break space:
    they never wrap apart), so are the parts of "2 min 10 s"; a share's `%`
    follows `pct` (the same by default; "" for English style, "54%").
  - The printed forms round as documented in docs/exec-time.md ("The {exec-time}
    role"): human() is within 0.005 s below 10 s, 0.05 s below 60 s, 0.5 s
    below an hour, 30 s above; seconds() to its digits; rounded() within
    0.05 s below 1 s, 0.5 s below a minute, 30 s above.
"""
import math

NBSP = "\u00a0"


def human(d, sp=NBSP):
    """'0.30 s', '12.3 s', '2 min 10 s', '1 h 5 min'."""
    if d < 0.005:
        return f"<{sp}0.01{sp}s"
    if round(d, 2) < 10:
        return f"{d:.2f}{sp}s"
    if round(d, 1) < 60:
        return f"{d:.1f}{sp}s"
    s = int(math.floor(d + 0.5))
    if s < 3600:
        m, s = divmod(s, 60)
        return f"{m}{sp}min{sp}{s}{sp}s" if s else f"{m}{sp}min"
    m = int(math.floor(d / 60 + 0.5))
    h, m = divmod(m, 60)
    return f"{h}{sp}h{sp}{m}{sp}min" if m else f"{h}{sp}h"


def seconds(d, digits=2, sp=NBSP):
    """Plain seconds to digits decimals: '130.42 s'."""
    return f"{d:.{digits}f}{sp}s"


def rounded(d, sp=NBSP):
    """A round figure: '< 0.1 s', '0.3 s', '5 s', '2 min', '1 h 5 min'."""
    if d < 0.05:
        return f"<{sp}0.1{sp}s"
    if round(d, 1) < 1:
        return f"{d:.1f}{sp}s"
    s = int(math.floor(d + 0.5))
    if s < 60:
        return f"{s}{sp}s"
    m = int(math.floor(d / 60 + 0.5))
    if m < 60:
        return f"{m}{sp}min"
    h, m = divmod(m, 60)
    return f"{h}{sp}h{sp}{m}{sp}min" if m else f"{h}{sp}h"


def share(d, total, sp=NBSP, pct=NBSP):
    """d as a whole percentage of total: '23 %', '< 1 %' ('23%' with pct="")."""
    p = 100.0 * d / total
    if p < 0.5:
        return f"<{sp}1{pct}%"
    return f"{int(math.floor(p + 0.5))}{pct}%"


FORMS = {"human", "seconds", "rounded"}

# qe_exec_time_style: what goes before a unit and before "%"
STYLES = {"si": (NBSP, NBSP), "en": (NBSP, "")}


def texts(lookup, digits=2, style="si"):
    """The lookup qe-exec-status --times printed (schema/exec-times.json),
    each duration given its printed forms: a document's entry a "text" with
    human, seconds and rounded of its runtime_s (when known), a cell's a
    "text" with those of its duration_s and, when the document has a total,
    its share.  For the mystmd plugin (mystmd/exec-time.mjs), which prints
    these strings and formats nothing itself."""
    sp, pct = STYLES[style]
    for e in (lookup.get("documents") or {}).values():
        if not isinstance(e, dict):
            continue
        if isinstance(e.get("runtime_s"), (int, float)):
            d = e["runtime_s"]
            e["text"] = {"human": human(d, sp), "seconds": seconds(d, digits, sp), "rounded": rounded(d, sp)}
        total = e.get("cells_seconds") or e.get("runtime_s")
        for c in (e.get("cells") or {}).values():
            d = c.get("duration_s") if isinstance(c, dict) else None
            if not isinstance(d, (int, float)):
                continue
            c["text"] = {"human": human(d, sp), "seconds": seconds(d, digits, sp), "rounded": rounded(d, sp)}
            if isinstance(total, (int, float)) and total > 0:
                c["text"]["share"] = share(d, total, sp, pct)
    return lookup


def _main(argv):
    """python3 -m qe_telemetry.records --texts [DIGITS [STYLE]] < LOOKUP:
    the lookup with its printed forms (texts()), on standard output."""
    import json
    import sys
    if not argv or argv[0] != "--texts" or len(argv) > 3:
        print("usage: python3 -m qe_telemetry.records --texts [DIGITS [STYLE]] < LOOKUP", file=sys.stderr)
        return 2
    try:
        digits = int(argv[1]) if len(argv) > 1 else 2
        style = argv[2] if len(argv) > 2 else "si"
        if style not in STYLES or not 0 <= digits <= 9:
            raise ValueError(f"digits 0 to 9 and a style of {', '.join(sorted(STYLES))}")
        lookup = json.load(sys.stdin)
        if not isinstance(lookup, dict):
            raise ValueError("not an exec-times lookup")
    except ValueError as e:
        print(f"qe_telemetry.records: {e}", file=sys.stderr)
        return 2
    json.dump(texts(lookup, digits, style), sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    import sys
    sys.exit(_main(sys.argv[1:]))
