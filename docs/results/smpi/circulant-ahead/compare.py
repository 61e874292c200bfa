#!/usr/bin/env python3
"""The circulant algorithms with each round's receive posted a round ahead
(stop 69, docs/smpi.md "The circulant's receives posted a round ahead"):
after over before, per sweep, for the algorithm's own rows (the circulant)
or the default's (`*-mid.csv`). `*-1pn-long.csv` has no before file here:
its before is the circulant rows of ../oneperhost-ring-ahead/l-*, run on the
build before the change.

    python3 compare.py [all]     # all: every point, else those off by more than 1%
"""
import csv, glob, math, os, sys

here = os.path.dirname(os.path.abspath(__file__))
show_all = "all" in sys.argv[1:]


def rows(path, variant):
    return {(r["collective"], int(r["procs"]), int(r["bytes"])): (float(r["median_s"]), r["algorithm"])
            for r in csv.DictReader(open(path)) if r["variant"] == variant}


pairs = [(os.path.join(here, f"before-{tag}.csv"), os.path.join(here, f"after-{tag}.csv"), tag)
         for tag in sorted(os.path.basename(f)[len("after-"):-len(".csv")] for f in glob.glob(os.path.join(here, "after-*.csv")))]
everything = []
for before, after, tag in pairs:
    if tag.endswith("-long"):
        before = os.path.join(here, "..", "oneperhost-ring-ahead", f"l-{tag[:-len('-long')]}.csv")
    variant = "default" if tag.endswith("-mid") else "circulant"
    b, a = rows(before, variant), rows(after, variant)
    for coll in sorted({k[0] for k in a}):
        ratios = []
        for k in sorted(k for k in a if k[0] == coll and k in b):
            x = a[k][0] / b[k][0]
            ratios.append(x)
            if show_all or abs(x - 1) > 0.01:
                print(f"  {tag:22} {coll:21} {k[1]:5} {k[2]:>9}  {a[k][1]:13} {x:.3f}")
        everything += ratios
        geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
        print(f"{tag:24} {coll:21} {len(ratios):3} points: after / before {min(ratios):.3f}-{max(ratios):.3f}, geometric mean {geo:.3f}")
geo = math.exp(sum(map(math.log, everything)) / len(everything))
print(f"all: {len(everything)} points, {min(everything):.3f}-{max(everything):.3f}, geometric mean {geo:.3f}")
