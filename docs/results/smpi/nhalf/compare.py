#!/usr/bin/env python3
"""The table's `nhalf>=8K` rules at 4-8 processes (docs/smpi.md "The
network's n½").

For every point (machine, collective, bytes) of nh-*.csv: the fastest of the
algorithms measured in ../small-hosts (every row but the defaults, SMPI's
own `native` included), the default before (that directory's after-* and
afterfine-* default rows: the table of stop 45, which cannot see the
network) and after (nh-*: the default with the `nhalf>=8K` rules, n½
measured by the library, 25-38 KB on these machines), each over the fastest.

    python3 compare.py [--no-native] [all | bands]   (bench/default_vs_fastest.py main)
"""
import os, sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "..", "bench"))
from default_vs_fastest import add_rows, main

points = add_rows({}, os.path.join(here, "nh-*.csv"), r"^nh-([a-z]+)-(\d+)pn\.csv$",
                  lambda m: (m[1], int(m[2])), lambda m: "after")
add_rows(points, os.path.join(here, "..", "small-hosts", "*.csv"), r"^([a-z]+)-(fattree|torus|dragonfly)-(\d+)pn(?:-small)?\.csv$",
         lambda m: (m[2], int(m[3])), lambda m: "before" if m[1] in ("after", "afterfine") else None, new_points=False)
points = {k: p for k, p in points.items() if p["algos"] and p["before"]}

main(points, [(0, 1024), (1025, 4096), (4097, 8192), (8193, 32768)], sys.argv[1:])
