#!/usr/bin/env python3
"""Reduces on small hosts (docs/smpi.md "Reduces on small hosts").

For every point (machine, bytes): the fastest of the algorithms measured
(every row but the defaults), the default before (the `default` rows of s-*
and f-*: stop 46's table) and after (after-*, afterf-*: with the rules
`reduce 16K-64K 17-31 hostblocks<=2,nhalf>=8K fibonacci_tree` and
`reduce 64K-128K 8 hostblocks,nhalf>=8K hierarchical`), each over the
fastest.

    python3 compare.py [all | bands]   (bench/default_vs_fastest.py main)
"""
import os, sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "..", "bench"))
from default_vs_fastest import add_rows, main

points = add_rows({}, os.path.join(here, "*.csv"), r"^(s|f|m|after|afterf|afterm)-(fattree|torus|dragonfly)-(\d+)pn\.csv$",
                  lambda m: (m[2], int(m[3])), lambda m: "before" if m[1] in ("s", "f", "m") else "after")

main(points, [(0, 16383), (16384, 65536), (65537, 1 << 30)], sys.argv[1:])
