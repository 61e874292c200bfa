#!/usr/bin/env python3
"""p = 4000, one rank per host: per network, collective and size, the
default before (the `default` rows: the model's circulant, the choice at
3001-4095 processes before stop 74), binary blocks, the two-tree, the
circulant where forced (runs after the rules changed), and the default
after (the row of the algorithm the repository's table picks, where it
ran), in ms. Prints a markdown table."""
import os, sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "..", "bench"))
from default_vs_fastest import add_rows, after_from_table, candidates_table

points = add_rows({}, os.path.join(here, "*.csv"), r"^(after-)?(fattree|torus|dragonfly)-",
                  lambda m: (m[2], 1), lambda m: "after" if m[1] else "before")
candidates_table(after_from_table(points, cyclic=False), ["binary_blocks", "two_tree", "circulant"])
