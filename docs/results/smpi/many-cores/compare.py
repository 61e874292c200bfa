#!/usr/bin/env python3
"""Hosts of 32 and 64 ranks, and long reduces on hosts in blocks (docs/smpi.md
"Hosts of 32 and 64 ranks, and long reduces on hosts in blocks").

For every point (machine, collective, bytes) with an `after-*` default: the
fastest of the algorithms measured (every file of the machine; the
`hierarchical/lanebb` rows, run with the new lane rule ahead of the old
table, count as the two-level algorithm; `.../lanerab` rows and every
`default` do not count as an algorithm), the default before (`default` rows of
the sweeps run with the previous table) and after (`after-*`, `afterlong-*`),
each over the fastest.

    python3 compare.py            # points where before or after is above 1.05, and a summary
    python3 compare.py all        # every point
"""
import csv, glob, math, os, re, sys

here = os.path.dirname(os.path.abspath(__file__))
points = {}
for f in sorted(glob.glob(os.path.join(here, "*.csv"))):
    name = os.path.basename(f)
    m = re.search(r"^([a-z]+)-(fattree|torus|dragonfly)-(\d+)pn-(\d+)\.csv$", name)
    if not m:
        continue
    kind, platform, k, n = m.groups()
    for r in csv.DictReader(open(f)):
        key = (platform, int(k), int(n), r["collective"], int(r["bytes"]))
        p = points.setdefault(key, {"algos": {}, "before": None, "after": None})
        v, t = r["variant"], float(r["median_s"])
        if kind in ("after", "afterlong"):
            p["after"] = (t, r["algorithm"])
        elif v == "default":
            p["before"] = (t, r["algorithm"])
        elif v.endswith("/lanebb") and not v.startswith("default"):
            # run with the new lane rule (binary blocks) ahead of the table:
            # what the new table's two-level algorithm runs
            base = v.split("/")[0]
            p["algos"][base] = min(t, p["algos"].get(base, math.inf))
        elif "/" not in v and v != "default":
            p["algos"][v] = min(t, p["algos"].get(v, math.inf))

show_all = len(sys.argv) > 1 and sys.argv[1] == "all"
rows, ratios, worst_b, worst_a, above_b, above_a = [], [], 0, 0, 0, 0
for key in sorted(points):
    p = points[key]
    if p["after"] is None or not p["algos"]:
        continue
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
    if show_all or a > 1.05 or b > 1.05:
        platform, k, n, coll, nbytes = key
        rows.append(f"{platform:9} {n // k:>3} x {k:<3} {coll:21} {nbytes:>9}  before {b:5.2f} ({p['before'][1] if p['before'] else '-'})  after {a:5.2f} ({p['after'][1]})  fastest {best_algo}")
print("\n".join(rows))
n = sum(1 for p in points.values() if p["after"] is not None and p["algos"])
gm = math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else math.nan
print(f"{n} points ({len(ratios)} with a default before): default over the fastest, worst before {worst_b:.2f} -> after {worst_a:.2f}; "
      f"above 1.05: {above_b} -> {above_a}; after over before {min(ratios):.2f}-{max(ratios):.2f}, geometric mean {gm:.3f}")
