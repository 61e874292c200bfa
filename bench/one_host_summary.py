#!/usr/bin/env python3
"""Summarise bench/one_host.sh's CSVs (named MPI-BUILD-RUN.csv): per MPI,
collective and size, the median over runs of fastred's default time divided
by native time in the same run (> 1: fastred slower), one column per build,
and the algorithm the default ran."""
import csv
import os
import statistics
import sys
from collections import defaultdict

from units import size

ratios = defaultdict(list)  # (mpi, coll, bytes, build) -> [time ratio]
algos = {}
builds = os.environ.get("BUILDS", "").split()  # column order (default: as found)
for path in sys.argv[1:]:
    mpi, build, _run = os.path.basename(path)[:-4].rsplit("-", 2)
    if build not in builds:
        builds.append(build)
    rows = list(csv.DictReader(open(path)))
    native = {(r["collective"], int(r["bytes"])): float(r["median_s"]) for r in rows if r["variant"] == "native"}
    for r in rows:
        if r["variant"] != "default":
            continue
        key = (r["collective"], int(r["bytes"]))
        ratios[(mpi, *key, build)].append(float(r["median_s"]) / native[key])
        algos[(mpi, *key, build)] = r["algorithm"]


mpis = sorted({k[0] for k in ratios})
for mpi in mpis:
    print(f"\n### {mpi}: time per call, fastred default / native (median of runs; > 1: fastred slower)\n")
    print("| collective | size | " + " | ".join(builds) + " | default ran (" + builds[-1] + ") |")
    print("|---|---|" + "---|" * (len(builds) + 1))
    for coll, b in sorted({(k[1], k[2]) for k in ratios if k[0] == mpi}):
        cells = []
        for build in builds:
            v = ratios.get((mpi, coll, b, build))
            cells.append(f"{statistics.median(v):.2f}" if v else "")
        print(f"| {coll} | {size(b)} | " + " | ".join(cells) + f" | {algos.get((mpi, coll, b, builds[-1]), '')} |")
