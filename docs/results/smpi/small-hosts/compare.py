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
    python3 compare.py --procs 9-31 [all | bands [ALGORITHM ...]]
                                  # only those process counts; `bands`: per collective and
                                  # size band, worst / geometric mean before -> after, and
                                  # of each ALGORITHM named
"""
import csv, glob, math, os, re, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "bench"))
from default_vs_fastest import bands, report

here = os.path.dirname(os.path.abspath(__file__))
args = sys.argv[1:]
procs = (0, math.inf)
if "--procs" in args:
    i = args.index("--procs")
    procs = tuple(map(int, args[i + 1].split("-")))
    del args[i:i + 2]
points = {}
for f in sorted(glob.glob(os.path.join(here, "*.csv"))):
    m = re.search(r"^([a-z]+)-(fattree|torus|dragonfly)-(\d+)pn(?:-small)?\.csv$", os.path.basename(f))
    if not m:
        continue
    kind, platform, k = m.groups()
    for r in csv.DictReader(open(f)):
        if not procs[0] <= int(r["procs"]) <= procs[1]:
            continue
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

if "bands" in args:
    bands(points, [(0, 1024), (1025, 4096), (4097, 32768), (32769, 262144), (262145, 524288), (524289, 1 << 30)],
          args[args.index("bands") + 1:])
else:
    report(points, "all" in args)
