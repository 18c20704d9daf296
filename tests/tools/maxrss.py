#!/usr/bin/python3
"""Run a command (stdout discarded) and print its peak resident set size in
KiB, from the kernel's accounting of the child (getrusage)."""
import resource
import subprocess
import sys

rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(rc)
