#!/usr/bin/env python3
"""The reduce of 2-8 MiB on hosts in blocks of 8-24 at 97-384 processes
(stop 67, docs/smpi.md "The reduce of 2-4 MiB at 97-240 processes: the
chain"): the sweeps' algorithm rows; "before" is the default row each
sweep ran (the build before the chain's rules), "after" the row of the
algorithm the repository's table picks now (`fastred explain`, n½ 30 KiB;
simulated runs are deterministic).

    python3 compare.py [all | bands]
"""
import os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "bench"))
from default_vs_fastest import compare_dir

compare_dir(__file__, {"reduce": "before", "short16": "before", "beyond": "before"},
            [(0, 2 << 20), ((2 << 20) + 1, 4 << 20), ((4 << 20) + 1, 1 << 30)], after_from="blocks")
