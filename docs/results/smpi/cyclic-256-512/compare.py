#!/usr/bin/env python3
"""Ranks dealt round robin over hosts of 2 and 4 at 256 and 512 processes
(docs/smpi.md "Ranks dealt round robin over hosts of 2 and 4 at 64-200
processes", its last paragraphs): s-* the algorithms and the default before
stop 49's extension of the `hosts>=16` rules to 256 and 512 processes, after-* the
default with it; each point's default over the fastest fastred algorithm
(SMPI's own `native` with --native).

    python3 compare.py [--native] [all | bands]
"""
import os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "bench"))
from default_vs_fastest import compare_dir

compare_dir(__file__, {"s": "before", "after": "after"}, [(0, 4096), (4097, 32768), (32769, 1 << 30)])
