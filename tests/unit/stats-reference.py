#!/usr/bin/env python3
"""The reference for the Mann-Whitney cases of tests/unit/stats.test.

Reads lines "x1 x2 ... | y1 y2 ..." and prints "x|y|p|method": with at most
40 values (tied or not), the exact two-sided p = 2 min(P(U <= u),
P(U >= u)), capped at 1, found by enumerating every split of the pooled
values with exact fractions (a tie counts one half in U); otherwise the
normal approximation with the tie-corrected variance and a continuity
correction of 0.5. python3, stdlib
only, independent of lib/qe_stats.c.
"""
import itertools, math, sys
from fractions import Fraction

def u_of(x, y):
    return sum(Fraction(1) if a > b else Fraction(1, 2) if a == b else 0 for a in x for b in y)

def exact(x, y):
    allv = list(x) + list(y)
    n1 = len(x)
    u = u_of(x, y)
    lo = hi = tot = 0
    for idx in itertools.combinations(range(len(allv)), n1):
        s = set(idx)
        xs = [allv[i] for i in idx]
        ys = [allv[i] for i in range(len(allv)) if i not in s]
        v = u_of(xs, ys)
        tot += 1
        lo += v <= u
        hi += v >= u
    return min(Fraction(1), 2 * Fraction(min(lo, hi), tot))

def normal(x, y):
    n1, n2 = len(x), len(y)
    N = n1 + n2
    u = float(u_of(x, y))
    allv = sorted(list(x) + list(y))
    ts = 0.0
    i = 0
    while i < N:
        j = i
        while j < N and allv[j] == allv[i]:
            j += 1
        t = j - i
        if t > 1:
            ts += t ** 3 - t
        i = j
    mu = n1 * n2 / 2
    var = n1 * n2 / 12 * ((N + 1) - ts / (N * (N - 1)))
    if var <= 0:
        return 1.0
    z = max(0.0, (abs(u - mu) - 0.5) / math.sqrt(var))
    return math.erfc(z / math.sqrt(2))

for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    a, b = line.split('|')
    x = [float(t) for t in a.split()]
    y = [float(t) for t in b.split()]
    if len(x) + len(y) <= 40:
        p = float(exact(x, y)); how = 'exact'
    else:
        p = normal(x, y); how = 'normal'
    print('%s|%s|%.9g|%s' % (a.strip(), b.strip(), p, how))
