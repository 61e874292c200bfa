#!/usr/bin/env python3
"""Time per call over native's, per MPI, collective, variant and size: the
median over runs [lowest-highest], as a markdown table (one row per
collective and variant, one column per size). Reads fastred_bench CSVs named
MPI-RUN.csv (or MPI-anything.csv); native must be a variant of each run.

usage: bench/variant_ratios.py CSV... [--variants default,shared_memory]"""
import csv
import os
import statistics
import sys
from collections import defaultdict

from units import size

args = sys.argv[1:]
wanted = None
if "--variants" in args:
    i = args.index("--variants")
    wanted = args[i + 1].split(",")
    del args[i:i + 2]
ratios = defaultdict(list)  # (mpi, coll, variant, bytes) -> [time / native]
for path in args:
    mpi = os.path.basename(path).split("-")[0]
    rows = list(csv.DictReader(open(path)))
    native = {(r["collective"], r["bytes"]): float(r["median_s"]) for r in rows if r["variant"] == "native"}
    for r in rows:
        if r["variant"] != "native" and (wanted is None or r["variant"] in wanted):
            ratios[(mpi, r["collective"], r["variant"], int(r["bytes"]))].append(float(r["median_s"]) / native[(r["collective"], r["bytes"])])


for mpi in sorted({k[0] for k in ratios}):
    sizes = sorted({k[3] for k in ratios if k[0] == mpi})
    print(f"\n{mpi}\n")
    print("| collective, variant | " + " | ".join(size(b) for b in sizes) + " |")
    print("|---|" + "---|" * len(sizes))
    rows = sorted({(k[1], k[2]) for k in ratios if k[0] == mpi}, key=lambda cv: (cv[0], (wanted or []).index(cv[1]) if wanted and cv[1] in wanted else cv[1]))
    for coll, variant in rows:
        cells = []
        for b in sizes:
            v = sorted(ratios.get((mpi, coll, variant, b), []))
            cells.append(f"{statistics.median(v):.2f} [{v[0]:.2f}–{v[-1]:.2f}]" if v else "")
        print(f"| {coll} {variant} | " + " | ".join(cells) + " |")
