#!/usr/bin/env python3
"""Per point (platform, hosts' size, processes, bytes) each lane algorithm's
time over the fastest (README.md).

    python3 compare.py
"""
import csv, glob, os
from collections import defaultdict

here = os.path.dirname(os.path.abspath(__file__))
times = defaultdict(dict)
for f in glob.glob(os.path.join(here, "*.csv")):
    algo, platform, hosts = os.path.basename(f)[:-4].rsplit("-", 2)
    for r in csv.DictReader(open(f)):
        times[(platform, hosts, int(r["procs"]), int(r["bytes"]))][algo] = float(r["median_s"])
algos = ["ring", "binary_blocks", "rabenseifner", "circulant"]
print(f"{'platform':9} {'K':2} {'p':>3} {'bytes':>8} " + " ".join(f"{a:>13}" for a in algos))
for key in sorted(times):
    t = times[key]
    best = min(t.values())
    print(f"{key[0]:9} {key[1]:2} {key[2]:3} {key[3]:8} " + " ".join(f"{t[a] / best:13.2f}" if a in t else f"{'-':>13}" for a in algos))
