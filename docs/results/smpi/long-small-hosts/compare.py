#!/usr/bin/env python3
"""Long vectors on small hosts (docs/smpi.md "Long vectors on small hosts").

For every point (machine, collective, bytes): the fastest of the algorithms
measured (every row but the defaults: single-level algorithms, the two-level
algorithm with the table's lanes, `hierarchical/laneNAME` with NAME's lanes at
256 KiB-1 MiB), the default before (the `default` rows of s-*, m160K-*,
m192K-*, w-*: stop 46's table) and after (after*-*: with this stop's rules),
each over the fastest.

    python3 compare.py [--no-native] [all | bands]   (bench/default_vs_fastest.py main)
"""
import os, sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "..", "bench"))
from default_vs_fastest import add_rows, main

BEFORE = ("s", "m160K", "m192K", "w")
points = add_rows({}, os.path.join(here, "*.csv"), r"^(\w+?)-(fattree|torus|dragonfly)-(\d+)pn(?:-4hosts)?\.csv$",
                  lambda m: (m[2], int(m[3])),
                  lambda m: "before" if m[1] in BEFORE else "after" if m[1].startswith("after") else None)

main(points, [(0, 131072), (131073, 262144), (262145, 393216), (393217, 1 << 20), (1048577, 1 << 30)], sys.argv[1:])
