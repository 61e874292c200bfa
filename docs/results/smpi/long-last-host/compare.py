#!/usr/bin/env python3
"""Hosts in blocks of 8-24 with a short last host (at most half a host),
17-300 processes, allreduce and reduce-scatter of 4-32 MiB (stop 67,
docs/smpi.md "Short vectors and long ones with a short last host"): the
sweeps' algorithm rows; "before" is the default row each sweep ran (stop
66's build), "after" the row of the algorithm the repository's table picks
now (`fastred explain`, n½ 30 KiB; simulated runs are deterministic).

    python3 compare.py [all | bands]
"""
import os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "bench"))
from default_vs_fastest import compare_dir

compare_dir(__file__, {"long": "before", "longer": "before", "small": "before", "largest": "before", "check": "before", "twohosts": "before"},
            [(0, 4 << 20), ((4 << 20) + 1, 8 << 20), ((8 << 20) + 1, 1 << 30)], after_from="blocks")
