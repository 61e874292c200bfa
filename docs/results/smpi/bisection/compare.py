#!/usr/bin/env python3
"""One rank per host at 40-256 processes, 64 KiB-32 MiB, with the rules that
see the network's cross-section (stop 70, docs/smpi.md "The network's
cross-section"): every candidate's rows from ../oneperhost-ring-ahead/l-*
(1-32 MiB) and ../oneperhost-mid/m-* (64 KiB-1 MiB), and on the 2:1 oversubscribed fat tree from check-* and
checkmid-* (swept here); the default before
(before{long,mid}-*: the table of 3b1a1ad) and after (long-*, mid-*), both
run here. Each point's default over the fastest fastred algorithm.

    python3 compare.py [all | bands]
"""
import os, sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "..", "bench"))
from default_vs_fastest import add_rows, main

NAME = r"-(fattree2to1|fattree|torus|dragonfly)-(\d+)pn\.csv$"
where = lambda m: (m[1], int(m[2]))
points = {}
add_rows(points, os.path.join(here, "..", "oneperhost-ring-ahead", "l-*.csv"), NAME, where, lambda m: None)
add_rows(points, os.path.join(here, "..", "oneperhost-mid", "m-*.csv"), NAME, where, lambda m: None)
# The 2:1 fat tree's candidates, swept here (check*: their default rows are a
# draft of the rules, left out).
add_rows(points, os.path.join(here, "check*-*.csv"), r"^check[a-z]*" + NAME, where, lambda m: None)
for kind, role in (("before*", "before"), ("long", "after"), ("mid", "after")):
    add_rows(points, os.path.join(here, f"{kind}-*.csv"), r"^[a-z]+" + NAME, where, lambda m, r=role: r, new_points=False)
main(points, [(0, 1 << 20), ((1 << 20) + 1, 8 << 20), ((8 << 20) + 1, 1 << 30)], sys.argv[1:], native=False)
