#!/usr/bin/env python3
"""Ranks dealt round robin over 1000 hosts of 2 and 500 of 4 (2000
processes; docs/smpi.md "Hosts of 2 and 4 ranks at 2000 processes"): c-*
the default and three algorithms before stop 52's rules (1 KiB, 32 KiB,
1 MiB), p-dragonfly-4pn the first probe (64 KiB); e-* 2 MiB with the new
rules (FASTRED_TUNING; the circulant's row is the model's choice before);
after-*, where run, the default with them. Points without an after row take
the row of the algorithm the committed table picks (`fastred explain`, so
target/mpich/release/fastred must be built). Each point's default over the
fastest fastred algorithm.

    python3 compare.py [all | bands]
"""
import os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "bench"))
from default_vs_fastest import compare_dir

compare_dir(__file__, {"c": "before", "p": "before", "e": "after", "after": "after"},
            [(0, 16000), (16001, 131072), (131073, 1 << 30)], after_from="cyclic")
