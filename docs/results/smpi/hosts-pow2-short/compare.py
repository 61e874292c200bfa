#!/usr/bin/env python3
"""Short allreduces on 2 and 4 hosts (docs/smpi.md "Short allreduces on 2
and 4 hosts").

For every point (machine, bytes): the fastest of the algorithms measured
(every row but the defaults), the default before (the `default` rows of s-*:
stop 46's table) and after (after-*: with the `removalspans` rule), each
over the fastest.

    python3 compare.py [all | bands]   (bench/default_vs_fastest.py main)
"""
import os, sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "..", "bench"))
from default_vs_fastest import add_rows, main

points = add_rows({}, os.path.join(here, "*.csv"), r"^(s|after)-(fattree|torus|dragonfly)-(\d+)pn(?:-shortlast)?\.csv$",
                  lambda m: (m[2], int(m[3])), lambda m: "before" if m[1] == "s" else "after")

main(points, [(0, 1024), (1025, 4096), (4097, 16384)], sys.argv[1:])
