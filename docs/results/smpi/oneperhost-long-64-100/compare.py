#!/usr/bin/env python3
"""One rank per host at 72 and 100 processes, long vectors (docs/smpi.md "One
rank per host at 32-63 processes", its last part).

For every point (platform, processes, collective, bytes): the fastest of the
algorithms measured (every row of l-* but the defaults), the default before
(the `default` rows of l-*) and after (after-*: with the ring and binary
blocks rules for 64-100 processes), each over the fastest.

    python3 compare.py [all | bands]   (bench/default_vs_fastest.py main)
"""
import os, sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "..", "bench"))
from default_vs_fastest import add_rows, main

points = add_rows({}, os.path.join(here, "*.csv"), r"^(l|after)-(fattree|torus|dragonfly)-1pn\.csv$",
                  lambda m: (m[2], 1), lambda m: "before" if m[1] == "l" else "after")
main(points, [(0, 4 << 20), ((4 << 20) + 1, 1 << 30)], sys.argv[1:], native=False)
