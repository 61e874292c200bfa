#!/usr/bin/env python3
"""Hosts of 4-32 consecutive ranks with a short last host, 17-300
processes, allreduce and reduce-scatter (and a few reduces) of 1 KiB-4 MiB
(stop 66, docs/smpi.md "Hosts of 4-32 with a short last host, and round
robin beyond 2 MiB"): the sweeps' algorithm rows; "before" is stop 65's
default (before-after-* ran its build, reduce-* one with the same choices
for the reduce; elsewhere the row of the algorithm
its table, stop65.table, picks), "after" the row of the algorithm the
repository's table picks now (`fastred explain`, n½ 30 KiB; simulated runs
are deterministic). With `cyclic`: the round-robin sweeps (cyclic*-*).

    python3 compare.py [cyclic] [all | bands]
"""
import os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "bench"))
from default_vs_fastest import add_rows, role_from_table, main

here = os.path.dirname(os.path.abspath(__file__))
cyclic = "cyclic" in sys.argv
kinds = "cyclic|cyclic2|cyclic3" if cyclic else "before-after|more|third|half|other|reduce"
roles = {"before-after": "before", "reduce": "before"}
points = add_rows({}, os.path.join(here, "*.csv"), rf"^({kinds})-(fattree|torus|dragonfly)-(\d+)pn\.csv$",
                  lambda m: (m[2], int(m[3])), lambda m: roles.get(m[1]))
role_from_table(points, "before", cyclic, table=os.path.join(here, "stop65.table"))
role_from_table(points, "after", cyclic)
main(points, [(0, 1 << 19), ((1 << 19) + 1, 1 << 30)], [a for a in sys.argv[1:] if a != "cyclic"])
