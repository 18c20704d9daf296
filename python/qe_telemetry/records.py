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
