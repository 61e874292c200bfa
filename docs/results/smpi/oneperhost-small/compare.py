#!/usr/bin/env python3
"""One rank per host at 3-16 processes on a fast network (docs/smpi.md "One
rank per host at 3-16 processes").

For every point (machine, processes, collective, bytes): the fastest of the
algorithms measured (every row of s-* and f-* but the defaults, SMPI's own
`native` included), the default before (the `default` rows of s-* and f-*:
stop 46's first table, whose rules for p <= 16 come from the 50 Mbit/s
cluster and §4) and after (after-*, afterfine-*: with the `oneperhost,
nhalf>=8K` rules; n½ measured by the library, 25-38 KB), each over the
fastest.

    python3 compare.py          # points above 1.05 before or after, and a summary
    python3 compare.py all      # every point
    python3 compare.py bands    # worst / geometric mean per collective and size band
    python3 compare.py --no-native [all | bands]
                                # against fastred's algorithms only (SMPI's own are not
                                # charged for their reductions)
"""
import csv, glob, math, os, re, sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "..", "bench"))
from default_vs_fastest import bands, drop, report

points = {}
for f in sorted(glob.glob(os.path.join(here, "*-1pn.csv"))):
    kind, platform = re.search(r"([a-z]+)-([a-z]+)-1pn\.csv$", f).groups()
    for r in csv.DictReader(open(f)):
        key = (platform, 1, int(r["procs"]), r["collective"], int(r["bytes"]))
        p = points.setdefault(key, {"algos": {}, "before": None, "after": None})
        v, t = r["variant"], float(r["median_s"])
        if v != "default":
            p["algos"][v] = min(t, p["algos"].get(v, math.inf))
        elif kind in ("s", "f"):
            p["before"] = (t, r["algorithm"])
        else:
            p["after"] = (t, r["algorithm"])

if "--no-native" in sys.argv[1:]:
    drop(points, "native")
if "bands" in sys.argv[1:]:
    bands(points, [(0, 1024), (1025, 8192), (8193, 65536), (65537, 262144), (262145, 1 << 20), (1048577, 1 << 30)])
else:
    report(points, "all" in sys.argv[1:])
