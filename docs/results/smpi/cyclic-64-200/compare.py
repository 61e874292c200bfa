#!/usr/bin/env python3
"""Ranks dealt round robin over hosts of 2 and 4 at 64-200 processes
(docs/smpi.md "Ranks dealt round robin over hosts of 2 and 4 at 64-200
processes").

For every point (machine, collective, bytes): the fastest of the algorithms
measured (every row of s-* but the defaults and SMPI's own `native`, which
the simulation does not charge for its reductions; `--native` counts it),
the default before (the `default` rows of s-*: the table before this
stop's rules for these hosts) and after (after-*: with them), each over the
fastest. File names: KIND-PLATFORM-Kpn.csv, K ranks per host dealt round
robin (rank r on host r mod N), hosts = procs / K.

    python3 compare.py [--native] [all | bands]   (bench/default_vs_fastest.py main)
"""
import os, sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "..", "bench"))
from default_vs_fastest import add_rows, main

points = add_rows({}, os.path.join(here, "*.csv"), r"^(s|after)-(fattree|torus|dragonfly)-(\d+)pn\.csv$",
                  lambda m: (m[2], int(m[3])), lambda m: "before" if m[1] == "s" else "after")
main(points, [(0, 4096), (4097, 32768), (32769, 1 << 30)], sys.argv[1:], native=False)
