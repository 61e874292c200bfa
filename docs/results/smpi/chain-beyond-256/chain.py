#!/usr/bin/env python3
"""The reduce of 8-64 MiB on hosts in blocks beyond 256 processes: the chain
(`pipeline`), binary blocks and the default (the table before this stop:
binary blocks), each over the fastest, per machine and size (docs/smpi.md
"The chain beyond 256 processes").

    python3 chain.py
"""
import csv, glob, os, re

here = os.path.dirname(os.path.abspath(__file__))
for f in sorted(glob.glob(os.path.join(here, "chain-*.csv"))):
    platform, k = re.search(r"chain-(\w+)-(\d+)pn", f).groups()
    points = {}
    for r in csv.DictReader(open(f)):
        points.setdefault((int(r["procs"]), int(r["bytes"])), {})[r["variant"]] = (float(r["median_s"]), r["algorithm"])
    for (p, nbytes), v in sorted(points.items()):
        best = min(t for t, _ in v.values())
        print(f"{platform:8} {p // int(k):>3} x {k:<3} {nbytes >> 20:>3} MiB  "
              + "  ".join(f"{name} {t / best:.2f}" for name, (t, _) in sorted(v.items()))
              + f"  (default: {v['default'][1]})")
