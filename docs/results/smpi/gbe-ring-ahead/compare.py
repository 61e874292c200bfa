#!/usr/bin/env python3
"""1 Gbit/s Ethernet, one rank per host, 256 KiB-16 MiB (stop 69): each
point's default over the fastest fastred algorithm, the table before the
rule (l-*'s default rows) and after (after-*).

    python3 compare.py [all | bands]
"""
import os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "bench"))
from default_vs_fastest import add_rows, main

here = os.path.dirname(os.path.abspath(__file__))
roles = {"l": "before", "after": "after"}
points = add_rows({}, os.path.join(here, "*.csv"), r"^(l|after)-(flat1g)-(\d+)pn\.csv$", lambda m: (m[2], int(m[3])), lambda m: roles[m[1]])
main(points, [(0, 4 << 20), ((4 << 20) + 1, 1 << 30)], sys.argv[1:])
