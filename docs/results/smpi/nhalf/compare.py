#!/usr/bin/env python3
"""The table's `nhalf>=8K` rules at 4-8 processes (docs/smpi.md "The
network's n½").

For every point (machine, collective, bytes) of nh-*.csv: the fastest of the
algorithms measured in ../small-hosts (every row but the defaults, SMPI's
own `native` included), the default before (that directory's after-* and
afterfine-* default rows: the table of stop 45, which cannot see the
network) and after (nh-*: the default with the `nhalf>=8K` rules, n½
measured by the library, 25-38 KB on these machines), each over the fastest.

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
for f in sorted(glob.glob(os.path.join(here, "nh-*.csv"))):
    platform, k = re.search(r"nh-([a-z]+)-(\d+)pn\.csv$", f).groups()
    for r in csv.DictReader(open(f)):
        key = (platform, int(k), int(r["procs"]), r["collective"], int(r["bytes"]))
        points[key] = {"algos": {}, "before": None, "after": (float(r["median_s"]), r["algorithm"])}
for f in sorted(glob.glob(os.path.join(here, "..", "small-hosts", "*.csv"))):
    m = re.search(r"^([a-z]+)-(fattree|torus|dragonfly)-(\d+)pn(?:-small)?\.csv$", os.path.basename(f))
    if not m:
        continue
    kind, platform, k = m.groups()
    for r in csv.DictReader(open(f)):
        p = points.get((platform, int(k), int(r["procs"]), r["collective"], int(r["bytes"])))
        if p is None:
            continue
        v, t = r["variant"], float(r["median_s"])
        if not v.startswith("default"):
            p["algos"][v] = min(t, p["algos"].get(v, math.inf))
        elif v == "default" and kind in ("after", "afterfine"):
            p["before"] = (t, r["algorithm"])
points = {k: p for k, p in points.items() if p["algos"] and p["before"]}

if "--no-native" in sys.argv[1:]:
    drop(points, "native")
if "bands" in sys.argv[1:]:
    bands(points, [(0, 1024), (1025, 4096), (4097, 8192), (8193, 32768)], [])
else:
    report(points, "all" in sys.argv[1:])
