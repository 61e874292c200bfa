#!/usr/bin/env python3
"""Hosts of 32 with a short last host at 100, 140, 164, 200 and 230
processes, 1-4 MiB, allreduce and reduce-scatter (stop 65, docs/smpi.md
"The reduce-scatter over hosts", "Hosts of 32"): other-*-32pn-long.csv
halving & doubling, over hosts and binary blocks, and the default before
(the model); otherafter-* the default with the hosts-of-32 rules. Each
point's default over the fastest algorithm swept.

    python3 compare_hosts32.py [all | bands]
"""
import os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "bench"))
import default_vs_fastest as d

here = os.path.dirname(os.path.abspath(__file__))
points = d.add_rows({}, os.path.join(here, "*.csv"), r"^(other)-(fattree|torus|dragonfly)-(\d+)pn-long\.csv$",
                    lambda m: (m[2], int(m[3])), lambda m: "before")
points = d.add_rows(points, os.path.join(here, "*.csv"), r"^(otherafter)-(fattree|torus|dragonfly)-(\d+)pn\.csv$",
                    lambda m: (m[2], int(m[3])), lambda m: "after")
d.main(points, [(0, 1 << 30)], sys.argv[1:], False)
