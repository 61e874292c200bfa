#!/usr/bin/env python3
"""Hosts of 2 and 4 ranks at 256-1000 processes (docs/smpi.md "Hosts of 2
and 4 ranks at 256-1000 processes"): s-* the algorithms and the default
before this stop's rules for these hosts, after-* the default with them;
each point's default over the fastest fastred algorithm (SMPI's own
`native` with --native).

    python3 compare.py [--native] [all | bands]
"""
import os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "bench"))
from default_vs_fastest import compare_dir

compare_dir(__file__, {"s": "before", "after": "after"}, [(0, 4096), (4097, 32768), (32769, 1 << 30)])
