#!/usr/bin/env python3
"""One rank per host at 17-31 processes (docs/smpi.md "One rank per host at
17-31 processes").

For every point (machine, collective, bytes): the fastest of the algorithms
measured (every row but the defaults and SMPI's own `native`, which the
simulation does not charge for its reductions; `--native` counts it), the
default before (the `default` rows of s-*, f-*, a-*, a2-*, r-*: stop 46's
table) and after (after*-*: with this stop's rules), each over the fastest.

    python3 compare.py [--native] [all | bands]   (bench/default_vs_fastest.py main)
"""
import os, sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "..", "bench"))
from default_vs_fastest import add_rows, main

points = add_rows({}, os.path.join(here, "*.csv"), r"^(\w+?)-(fattree|torus|dragonfly)-1pn\.csv$",
                  lambda m: (m[2], 1), lambda m: "after" if m[1].startswith("after") else "before")
main(points, [(0, 8192), (8193, 524288), (524289, 1 << 30)], sys.argv[1:], native=False)
