#!/usr/bin/env python3
"""Hosts in blocks at 32-63 processes (docs/smpi.md "Hosts in blocks at 32-63
processes" and "...: the rest"): s-* every algorithm (and stop 46's default),
after-* stop 47's default, after48-* stop 48's. Stop 48's rules: before
after-*, after after48-*; with --stop47 stop 47's: before s-*, after after-*.
Each point's default over the fastest fastred algorithm (SMPI's own
`native`, not charged for its reductions, with --native).

    python3 compare.py [--stop47] [--native] [all | bands]
"""
import os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "bench"))
from default_vs_fastest import compare_dir

stop47 = "--stop47" in sys.argv
compare_dir(__file__, {"s": "before", "after": "after"} if stop47 else {"s": None, "after": "before", "after48": "after"}, [(0, 4096), (4097, 32768), (32769, 1 << 30)])
