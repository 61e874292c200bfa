#!/usr/bin/env python3
"""p = 3000, 32-64 MiB: every candidate per point (time in ms), the default
before this stop's rules (the `default` rows of the candidate runs, the
model's circulant; at 16 MiB the reduce's binary blocks), the default after
(after-PLATFORM-COLL.csv where run; else the row of the algorithm the
repository's table picks, "(its row)", which a default run reproduces to
the nanosecond: beyond-1000/'s after runs), after over before and after
over the fastest candidate. Prints a markdown table."""
import os, sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "..", "bench"))
from default_vs_fastest import add_rows, after_from_table, candidates_table

points = add_rows({}, os.path.join(here, "*.csv"), r"^(after-)?(fattree|torus|dragonfly)-",
                  lambda m: (m[2], 1), lambda m: "after" if m[1] else "before")
for (platform, k, n, coll, nbytes), p in points.items():
    if coll == "reduce" and nbytes == 16 << 20 and not p["before"] and "binary_blocks" in p["algos"]:
        p["before"] = (p["algos"]["binary_blocks"], "binary_blocks")  # the 1001-3000 rule's choice before
candidates_table(after_from_table(points, cyclic=False), ["binary_blocks", "ring", "two_tree"])
