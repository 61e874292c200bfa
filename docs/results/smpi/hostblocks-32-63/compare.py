#!/usr/bin/env python3
"""Hosts in blocks at 32-63 processes (docs/smpi.md "Hosts in blocks at 32-63
processes").

For every point (machine, collective, bytes): the fastest of the algorithms
measured (every row of s-* but the defaults and SMPI's own `native`, which
the simulation does not charge for its reductions; `--native` counts it),
the default before and after, each over the fastest. Stop 48's rules: before
is stop 47's table (after-*), after this stop's (after48-*); with --stop47,
stop 47's rules: before the `default` rows of s-* (stop 46's table), after
after-*.

    python3 compare.py [--stop47] [--native] [all | bands]   (bench/default_vs_fastest.py main)
"""
import os, sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "..", "bench"))
from default_vs_fastest import add_rows, main

stop47 = "--stop47" in sys.argv
roles = {"s": "before", "after": "after"} if stop47 else {"s": None, "after": "before", "after48": "after"}
points = add_rows({}, os.path.join(here, "*.csv"), r"^(s|after|after48)-(fattree|torus|dragonfly)-(\d+)pn\.csv$",
                  lambda m: (m[2], int(m[3])), lambda m: roles.get(m[1]))
main(points, [(0, 4096), (4097, 32768), (32769, 1 << 30)], sys.argv[1:], native=False)
