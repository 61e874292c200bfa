"""Shared by the bench summaries: sizes as the docs write them, and the
runs of ci/cluster/short_shapes.sh read per machine shape."""
import csv
import os
import re
import statistics
import sys
from collections import defaultdict


def size(b):
    """`b` bytes as "N MiB", "N KiB" or "N B" (whole units, rounded down)."""
    for unit, n in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= n:
            return f"{b // n} {unit}"
    return f"{b} B"


def shape_runs(paths):
    """fastred_bench CSVs named MPI-hSHAPE-rRUN.csv (ci/cluster/short_shapes.sh;
    native a variant of each run), read as two dicts keyed (mpi, shape,
    collective, variant, bytes): the median over runs of the time over
    native's, and the algorithm the variant ran (the last run's)."""
    runs, algorithm = defaultdict(list), {}
    for path in paths:
        m = re.match(r"([a-z]+)-h([0-9]+x[0-9]+)-", os.path.basename(path))
        if not m:
            sys.exit(f"{path}: not named MPI-hSHAPE-rRUN.csv")
        mpi, shape = m.groups()
        rows = list(csv.DictReader(open(path)))
        native = {(r["collective"], r["bytes"]): float(r["median_s"]) for r in rows if r["variant"] == "native"}
        for r in rows:
            key = (mpi, shape, r["collective"], r["variant"], int(r["bytes"]))
            runs[key].append(float(r["median_s"]) / native[(r["collective"], r["bytes"])])
            algorithm[key] = r["algorithm"]
    return {k: statistics.median(v) for k, v in runs.items()}, algorithm
