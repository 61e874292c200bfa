#!/usr/bin/env python3
"""Hosts of 2-32 ranks in blocks at 34-256 processes, 2-16 MiB, with the ring
that posts its receives ahead (stop 69, docs/smpi.md "Full hosts of 2-32
ranks, 2-16 MiB, with the ring posting ahead"): l-* (full hosts), short-*
(hosts of 2-8 with a short last host) and below-* (hosts of 2-4, 512 KiB-1
MiB) every candidate and the default of the table before this stop's rules
there; after-*, aftershort-* and afterbelow-* the default with them (where swept, else the row of the algorithm the current table
picks). Each point's default over the fastest fastred algorithm.

    python3 compare.py [all | bands]
"""
import os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "bench"))
from default_vs_fastest import compare_dir

compare_dir(__file__, {"l": "before", "after": "after", "short": "before", "aftershort": "after", "below": "before", "afterbelow": "after"}, [(0, 4 << 20), ((4 << 20) + 1, 1 << 30)], after_from="blocks")
