#!/usr/bin/env python3
"""The short allreduce at 16-256 processes on hosts of 2, 4, 8 and 16 in
blocks (SMPI flat1g), after the rules of docs/smpi.md "The GbE rules from one
common start": per point the default's algorithm and its time over the
faster of the two candidates (the two-level algorithm, recursive doubling),
and recursive doubling's time over the two-level algorithm's; then the worst
default per kind of host count (a power of two or not).

    python3 check.py [all]     # the points above 1.02 (every point with all), then the summary
"""
import csv, glob, os, re, sys
from collections import defaultdict

here = os.path.dirname(os.path.abspath(__file__))
worst = defaultdict(lambda: (0, None))
for f in sorted(glob.glob(os.path.join(here, "check-16-256", "allreduce-flat1g-*pn-check.csv"))):
    k = int(re.search(r"-(\d+)pn-check\.csv$", f)[1])
    points = defaultdict(dict)
    for r in csv.DictReader(open(f)):
        points[(int(r["procs"]), int(r["bytes"]))][r["variant"]] = (float(r["median_s"]), r["algorithm"])
    for (p, n), v in sorted(points.items()):
        hosts = p // k
        if hosts < 2:
            continue  # one host: not these rules
        pow2 = hosts & (hosts - 1) == 0
        ratio = v["default"][0] / min(v["hierarchical"][0], v["recursive_doubling"][0])
        kind = ("hosts a power of two" if pow2 else "hosts not a power of two", "64-256 B" if n <= 256 else "512 B-4 KiB")
        if ratio > worst[kind][0]:
            worst[kind] = (ratio, f"{hosts} x {k} {n} B {v['default'][1]}")
        if "all" in sys.argv or ratio > 1.02:
            print(f"{hosts:>3} x {k:<2} ({p:3}) {n:5} B  default {v['default'][1]:18} {ratio:.3f}  "
                  f"recursive doubling / two-level {v['recursive_doubling'][0] / v['hierarchical'][0]:.3f}")
print()
for kind, (ratio, where) in sorted(worst.items()):
    print(f"{kind[0]:25} {kind[1]:12} worst default over the faster: {ratio:.3f} ({where})")
