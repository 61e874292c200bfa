#!/usr/bin/env python3
"""Ranks dealt round robin over 500 hosts of 2 and 250 of 4 (1000 processes),
128 KiB-2 MiB (docs/smpi.md "Ranks dealt round robin over hosts of 2 and 4
at 64-200 processes", its last paragraph): s-* the default and the candidate
algorithms before stop 50's `hosts>=16` rules for 513-1000 processes, after-*
the default with them; each point's default over the fastest fastred
algorithm.

    python3 compare.py [all | bands]
"""
import os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "bench"))
from default_vs_fastest import compare_dir

compare_dir(__file__, {"s": "before", "after": "after"}, [(0, 4096), (4097, 32768), (32769, 1 << 30)])
