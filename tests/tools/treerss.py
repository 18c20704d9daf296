#!/usr/bin/python3
"""treerss.py CMD...: run a command (stdout discarded) and sample its process
tree (the command and its children) every 2 ms from /proc. Prints three
numbers: the peak of the tree's resident set sizes added up (KiB; pages
shared between a parent and its forked children are counted in each, so
this is an upper bound), the most children seen at once, and the peak RSS of
a single process as the kernel accounts it (getrusage, KiB). Exit status:
the command's."""
import os
import resource
import subprocess
import sys
import time


def rss(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
peak = most = 0
while p.poll() is None:
    kids = children(p.pid)
    peak = max(peak, rss(p.pid) + sum(rss(k) for k in kids))
    most = max(most, len(kids))
    time.sleep(0.002)
print(peak, most, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(p.returncode)
