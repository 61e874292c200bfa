#!/usr/bin/env python3
"""Hosts in blocks at 4-31 processes (docs/smpi.md "Hosts in blocks at 4-31
processes").

For every point (machine, collective, bytes) with a default after: the
fastest of the algorithms measured (every row of the machine's files but
the defaults, SMPI's own `native` included; `hierarchical/lane...` rows are
the two-level algorithm run with a lane rule ahead of the table, and
`hierarchical/lanepow2` is what this stop's table runs), the default before
(`default` rows of s-*, f-* and rs-*, run with the previous table) and after
(`after-*`, `afterfine-*`, run with this stop's table), each over the
fastest. The `default` rows of the other files (fa-*, sa-*, lane*-*,
base-*: run with an intermediate table) are not counted.

    python3 compare.py            # points where before or after is above 1.05, and a summary
    python3 compare.py all        # every point
"""
import csv, glob, math, os, re, sys

here = os.path.dirname(os.path.abspath(__file__))
points = {}
for f in sorted(glob.glob(os.path.join(here, "*.csv"))):
    m = re.search(r"^([a-z]+)-(fattree|torus|dragonfly)-(\d+)pn(?:-small)?\.csv$", os.path.basename(f))
    if not m:
        continue
    kind, platform, k = m.groups()
    for r in csv.DictReader(open(f)):
        key = (platform, int(k), int(r["procs"]), r["collective"], int(r["bytes"]))
        p = points.setdefault(key, {"algos": {}, "before": None, "after": None})
        v, t = r["variant"], float(r["median_s"])
        if not v.startswith("default"):
            p["algos"][v] = min(t, p["algos"].get(v, math.inf))
        elif v != "default":
            continue
        elif kind in ("after", "afterfine"):
            p["after"] = (t, r["algorithm"])
        elif kind in ("s", "f", "rs"):
            p["before"] = (t, r["algorithm"])

show_all = len(sys.argv) > 1 and sys.argv[1] == "all"
rows, ratios, worst_b, worst_a, above_b, above_a, slower = [], [], 0, 0, 0, 0, 0
counted = 0
for key in sorted(points):
    p = points[key]
    if p["after"] is None or not p["algos"]:
        continue
    counted += 1
    best_algo, best = min(p["algos"].items(), key=lambda kv: kv[1])
    best = min(best, p["after"][0], p["before"][0] if p["before"] else math.inf)
    a = p["after"][0] / best
    b = p["before"][0] / best if p["before"] else math.nan
    worst_a = max(worst_a, a)
    above_a += a > 1.05
    if p["before"]:
        worst_b = max(worst_b, b)
        above_b += b > 1.05
        ratios.append(p["after"][0] / p["before"][0])
        slower += p["after"][0] / p["before"][0] > 1.05
    if show_all or a > 1.05 or b > 1.05:
        platform, k, n, coll, nbytes = key
        rows.append(f"{platform:9} {n // k:>2} x {k:<2} {coll:21} {nbytes:>9}  before {b:5.2f} ({p['before'][1] if p['before'] else '-'})  after {a:5.2f} ({p['after'][1]})  fastest {best_algo}")
print("\n".join(rows))
gm = math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else math.nan
print(f"{counted} points ({len(ratios)} with a default before): default over the fastest, worst before {worst_b:.2f} -> after {worst_a:.2f}; "
      f"above 1.05: {above_b} -> {above_a}; after over before {min(ratios):.2f}-{max(ratios):.2f}, geometric mean {gm:.3f}; "
      f"after slower than before by more than 5%: {slower}")
