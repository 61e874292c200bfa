#!/usr/bin/env python3
"""Ranks dealt round robin over 384 hosts of 2 and 192 of 4 (768 processes),
16 B-1 MiB (docs/smpi.md "Short and medium vectors dealt round robin at 1000
processes", the 768-process check): c-* eight algorithms, before-* the
default of the table before stop 51 (FASTRED_TUNING with it), after-* the
default with stop 51's rules; each point's default over the fastest fastred
algorithm.

    python3 compare.py [all | bands]
"""
import os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "bench"))
from default_vs_fastest import compare_dir

compare_dir(__file__, {"c": None, "before": "before", "after": "after"},
            [(0, 1024), (1025, 16384), (16385, 1 << 30)])
