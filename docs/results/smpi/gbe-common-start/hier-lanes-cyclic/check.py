#!/usr/bin/env python3
"""The simulated default of the stop-60 table (check-flat1g-Kpn-cyclic.csv,
the reduce) over the fastest fastred algorithm of the sweeps it was fitted on
(../cyclic, ../cyclic-large, ../cyclic-3-8, and this folder's re-swept
two-level rows; SMPI's own reduce, uncharged, left out), per K.

    python3 check.py [all]     # the points above 1.05 (every point with all), then the summary per K
"""
import csv, glob, math, os, re, sys
from collections import defaultdict

here = os.path.dirname(os.path.abspath(__file__))
fastest = defaultdict(lambda: (math.inf, None))
for d in ("cyclic", "cyclic-large", "cyclic-3-8", "hier-lanes-cyclic"):
    for f in glob.glob(os.path.join(here, "..", d, "*-flat1g-*pn-cyclic.csv")):
        if os.path.basename(f).startswith("check-"):
            continue
        k = int(re.search(r"-(\d+)pn-cyclic\.csv$", f)[1])
        for r in csv.DictReader(open(f)):
            if r["collective"] != "reduce" or r["variant"].startswith("default") or r["variant"] == "native":
                continue
            key = (k, int(r["procs"]), int(r["bytes"]))
            fastest[key] = min(fastest[key], (float(r["median_s"]), r["variant"]))
summary = defaultdict(list)
for f in sorted(glob.glob(os.path.join(here, "check-flat1g-*pn-cyclic.csv"))):
    k = int(re.search(r"-(\d+)pn-cyclic\.csv$", f)[1])
    for r in csv.DictReader(open(f)):
        key = (k, int(r["procs"]), int(r["bytes"]))
        if key not in fastest:
            continue
        t, best = fastest[key]
        ratio = float(r["median_s"]) / t
        summary[k].append(ratio)
        if "all" in sys.argv or ratio > 1.05:
            print(f"{key[1] // k:>3} x {k}  reduce {key[2]:>8} B  default {r['algorithm']:14} {ratio:.2f}  fastest {best}")
for k, rs in sorted(summary.items()):
    print(f"hosts of {k}: {len(rs)} points, worst {max(rs):.2f}, above 1.05 {sum(x > 1.05 for x in rs)}")
