#!/usr/bin/env python3
"""One rank per host at 40-256 processes, 1-32 MiB, with the ring that posts
each step's receive ahead (stop 69, docs/smpi.md "One rank per host with
the ring posting ahead"): l-* every candidate and the default of the table
before this stop's rules; after-* (where swept) the default with them, else
the row of the algorithm the current table picks. Each point's default over
the fastest fastred algorithm.

    python3 compare.py [all | bands]
"""
import os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "bench"))
from default_vs_fastest import compare_dir

compare_dir(__file__, {"l": "before", "after": "after"}, [(0, 2 << 20), ((2 << 20) + 1, 8 << 20), ((8 << 20) + 1, 1 << 30)], after_from="blocks")
