#!/usr/bin/env python3
"""One rank per host at 40-256 processes, 64 KiB-1 MiB (stop 69, docs/smpi.md
"One rank per host at 40-256 processes, 64 KiB-1 MiB"): m-* every
candidate and the default of the table before this stop's rules there;
after-* the default with them (where swept, else the row of the algorithm
the current table picks). Each point's default over the fastest fastred
algorithm.

    python3 compare.py [all | bands]
"""
import os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "bench"))
from default_vs_fastest import compare_dir

compare_dir(__file__, {"m": "before", "after": "after"}, [(0, 128 << 10), ((128 << 10) + 1, 512 << 10), ((512 << 10) + 1, 1 << 30)], after_from="blocks")
