#!/usr/bin/env python3
"""Ranks dealt round robin over 500 hosts of 2 and 250 of 4 (1000 processes),
16 B-64 KiB, and the reduce-scatter of 128 KiB (docs/smpi.md "Short and
medium vectors dealt round robin at 1000 processes"): s-* the default and ten
algorithms before stop 51's rules (s128K-*: stop 50's reduce-scatter rows of
128 KiB, docs/results/smpi/cyclic-1000/), after-* and after128K-* the default
with them; each point's default over the fastest fastred algorithm.

    python3 compare.py [all | bands]
"""
import os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "bench"))
from default_vs_fastest import compare_dir

compare_dir(__file__, {"s": "before", "s128K": "before", "after": "after", "after128K": "after"},
            [(0, 1024), (1025, 16384), (16385, 1 << 30)])
