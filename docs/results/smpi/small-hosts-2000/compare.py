#!/usr/bin/env python3
"""Hosts of 2 and 4 ranks in blocks at 2000 processes, the reduce-scatter
(docs/smpi.md "Hosts of 2 and 4 ranks at 2000 processes"): b-* the default
and four algorithms before stop 52's rules (16000 B, 32000 B, 1040000 B),
p-fattree-4pn the first probe (64 KiB, all three collectives); bafter-*
(the fat tree's 500 x 4, the dragonfly's 1000 x 2) the default with them;
elsewhere after is the row of the algorithm the committed table picks
(`fastred explain`, so target/mpich/release/fastred must be built); each
point's default over the fastest fastred algorithm.

    python3 compare.py [all | bands]
"""
import os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "bench"))
from default_vs_fastest import compare_dir

compare_dir(__file__, {"b": "before", "p": "before", "bafter": "after"}, [(0, 65536), (65537, 1 << 30)], after_from="blocks")
