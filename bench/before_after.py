#!/usr/bin/env python3
"""Before/after summary of fastred_bench CSVs from alternated runs of two
builds (same cluster, same sizes): per (collective, bytes, variant) the mean
over runs of the median time of each build and after/before (< 1: faster).

usage: bench/before_after.py --before A.csv [B.csv ...] --after C.csv [D.csv ...]
"""
import csv
import statistics
import sys
from collections import defaultdict


def load(paths):
    times = defaultdict(list)  # (coll, bytes, variant) -> [median_s per run]
    for path in paths:
        for r in csv.DictReader(open(path)):
            times[(r["collective"], int(r["bytes"]), r["variant"])].append(float(r["median_s"]))
    return times


def main(argv):
    if "--before" not in argv or "--after" not in argv:
        sys.exit(__doc__.strip())
    b, a = argv.index("--before"), argv.index("--after")
    before = load(argv[b + 1:a] if b < a else argv[b + 1:])
    after = load(argv[a + 1:] if b < a else argv[a + 1:b])
    print("| collective | bytes | variant | before, s (runs) | after, s (runs) | after/before |")
    print("|---|---|---|---|---|---|")
    for key in sorted(before.keys() & after.keys()):
        x, y = before[key], after[key]
        runs = lambda v: ", ".join(f"{t:.3f}" for t in v)
        print(f"| {key[0]} | {key[1]} | {key[2]} | {statistics.mean(x):.3f} ({runs(x)}) | "
              f"{statistics.mean(y):.3f} ({runs(y)}) | {statistics.mean(y) / statistics.mean(x):.2f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
