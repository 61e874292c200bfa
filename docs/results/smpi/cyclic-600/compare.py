#!/usr/bin/env python3
"""Ranks dealt round robin over 300 hosts of 2 and 150 of 4 (600 processes),
16 B-1 MiB (docs/smpi.md "Short and medium vectors dealt round robin at 1000
processes", the check at 600): c-* eight algorithms and the default with
stop 51's rules, before-* the default of the table before them
(FASTRED_TUNING with it); each point's default over the fastest fastred
algorithm.

    python3 compare.py [all | bands]
"""
import os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "bench"))
from default_vs_fastest import compare_dir

compare_dir(__file__, {"c": "after", "before": "before"},
            [(0, 1024), (1025, 16384), (16385, 1 << 30)])
