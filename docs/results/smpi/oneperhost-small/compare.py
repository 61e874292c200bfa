#!/usr/bin/env python3
"""One rank per host at 3-16 processes on a fast network (docs/smpi.md "One
rank per host at 3-16 processes").

For every point (machine, processes, collective, bytes): the fastest of the
algorithms measured (every row of s-*, f-* and rs-* but the defaults, SMPI's
own `native` included), the default before (the `default` rows of s-*, f-*, rs-*:
stop 46's first table, whose rules for p <= 16 come from the 50 Mbit/s
cluster and §4) and after (after-*, afterfine-*, rsafter-*: with the `oneperhost,
nhalf>=8K` rules; n½ measured by the library, 25-38 KB), each over the
fastest.

    python3 compare.py [--no-native] [all | bands]   (bench/default_vs_fastest.py main)
"""
import os, sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "..", "bench"))
from default_vs_fastest import add_rows, main

points = add_rows({}, os.path.join(here, "*-1pn.csv"), r"^([a-z]+)-([a-z]+)-1pn\.csv$",
                  lambda m: (m[2], 1), lambda m: "before" if m[1] in ("s", "f", "rs") else "after")

main(points, [(0, 1024), (1025, 8192), (8193, 65536), (65537, 262144), (262145, 1 << 20), (1048577, 1 << 30)], sys.argv[1:])
