#!/usr/bin/env python3
"""One rank per host at 32-63 processes (docs/smpi.md "One rank per host at
32-63 processes").

For every point (platform, processes, collective, bytes): the fastest of the
algorithms measured (every row of s-* but the defaults and SMPI's own
`native`, which the simulation does not charge for its reductions;
`--native` counts it), the default before (the `default` rows of s-*, l-*:
the table before this stop's one-rank-per-host rules for 32-63) and after
(after-*, afterl-*: with them), each over the fastest.

    python3 compare.py [--native] [all | bands]   (bench/default_vs_fastest.py main)
"""
import os, sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "..", "bench"))
from default_vs_fastest import add_rows, main

points = add_rows({}, os.path.join(here, "*.csv"), r"^(s|l|after|afterl)-(fattree|torus|dragonfly)-1pn\.csv$",
                  lambda m: (m[2], 1), lambda m: "before" if m[1] in ("s", "l") else "after")
main(points, [(0, 4096), (4097, 32768), (32769, 1 << 30)], sys.argv[1:], native=False)
