#!/usr/bin/env python3
"""Ranks dealt round robin over 18-115 hosts (70-230 processes), 512 KiB-8
MiB, with the ring that posts its receives ahead (stop 69, docs/smpi.md
"Ranks dealt round robin beyond 2 MiB with the ring posting ahead"): the
sweeps' algorithm rows (l-*: 2-8 MiB, s-*: 512 KiB-1 MiB); "before" is the
default of the table before this stop's rule (their `default` rows),
"after" the default with it (after-*, 2-8 MiB; below, the row of the
algorithm the table picks, unchanged there).

    python3 compare.py [all | bands]
"""
import os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "bench"))
from default_vs_fastest import add_rows, role_from_table, main

here = os.path.dirname(os.path.abspath(__file__))
roles = {"l": "before", "s": "before", "after": "after"}
points = add_rows({}, os.path.join(here, "*.csv"), r"^(l|s|after)-(fattree|torus|dragonfly)-(\d+)pn-cyclic\.csv$",
                  lambda m: (m[2], int(m[3])), lambda m: roles[m[1]])
role_from_table(points, "after", True)
main(points, [(0, 2 << 20), ((2 << 20) + 1, 1 << 30)], sys.argv[1:])
