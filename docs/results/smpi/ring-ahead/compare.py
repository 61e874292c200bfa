#!/usr/bin/env python3
"""The ring with each step's receive posted a step ahead (docs/smpi.md "The
ring's receives posted a step ahead"): each forced algorithm's simulated
time after over before (`before-*`: the build before, `after-*`: the build
with it, the same sweeps), and, reductions free on both sides, fastred's
ring against SMPI's Open MPI ring (`ompi_ring`, the reduce-scatter) and
its `ompi` and `lr` allreduces (`*-free-*`).

    python3 compare.py [VARIANT]   # VARIANT: also list its points
"""
import collections, csv, glob, math, os, sys

here = os.path.dirname(os.path.abspath(__file__))


def load(prefix):
    rows = {}
    for f in glob.glob(os.path.join(here, prefix + "-*.csv")):
        name = os.path.basename(f)[len(prefix) + 1:-4]
        for r in csv.DictReader(open(f)):
            rows[(name, r["collective"], int(r["procs"]), int(r["bytes"]), r["variant"])] = float(r["median_s"])
    return rows


def geo(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


before, after = load("before"), load("after")
by = collections.defaultdict(list)
for key in sorted(set(before) & set(after)):
    if not key[0].startswith("free"):
        by[key[4]].append((key, after[key] / before[key]))
print("charged reductions, after / before:")
for variant, points in sorted(by.items()):
    r = [x for _, x in points]
    print(f"  {variant:13s} {len(r):3d} points: {min(r):.3f}-{max(r):.3f}, geometric mean {geo(r):.3f}, slower by more than 1%: {sum(x > 1.01 for x in r)}")
if len(sys.argv) > 1:
    for key, x in by[sys.argv[1]]:
        print("   ", *key[:4], f"{before[key] * 1e6:9.1f} -> {after[key] * 1e6:9.1f} us  {x:.3f}")

print("reductions free, fastred's ring over SMPI's (before -> after):")
for key in sorted(k for k in after if k[0].startswith("free") and k[4] == "ring/free"):
    name, coll, p, n, _ = key
    for builtin in ("native:ompi_ring", "native:ompi", "native:lr"):
        other = (name, coll, p, n, builtin)
        if other in after:
            b = before.get(key)
            print(f"  {name:12s} {coll:21s} {p:4d} {n:9d} {builtin[7:]:10s} "
                  + (f"{b / before[other]:.2f} -> " if b and other in before else "")
                  + f"{after[key] / after[other]:.2f}")
