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

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "bench"))
from default_vs_fastest import report

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

report(points, len(sys.argv) > 1 and sys.argv[1] == "all")
