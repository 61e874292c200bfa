#!/usr/bin/env python3
"""Hosts in blocks with at most a quarter of a host on the last, 17-300
processes, 64 B-64 KiB (stop 67, docs/smpi.md "Short vectors and long ones
with a short last host"): the sweeps' algorithm rows; "before" is the
default row each sweep ran (stop 66's build), "after" the row of the
algorithm the repository's table picks now (`fastred explain`, n½ 30 KiB;
simulated runs are deterministic).

    python3 compare.py [all | bands]
"""
import os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "bench"))
from default_vs_fastest import compare_dir

compare_dir(__file__, {"lone": "before", "quarter": "before", "quartershort": "before", "reduce24": "before", "reduce24over": "before", "quarter32": "before"},
            [(0, 4096), (4097, 32 << 10), ((32 << 10) + 1, 1 << 30)], after_from="blocks")
