#!/usr/bin/env python3
"""768 KiB on hosts of 16 with a short last host, 100-250 processes (stop
65, docs/smpi.md "The reduce-scatter over hosts", "Between 512 KiB and 1
MiB"): gap-* halving & doubling, over hosts, binary blocks and the
two-level algorithm, and the default before (stop 64's table, plus this
stop's reduce-scatter rules, which did not reach 768 KiB); gapafter-* the
default with the 1-4 MiB rules from 512 KiB. Each point's default over the
fastest algorithm swept.

    python3 compare_gap.py [all | bands]
"""
import os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "bench"))
from default_vs_fastest import compare_dir

compare_dir(__file__, {"gap": "before", "gapafter": "after"}, [(0, 1 << 30)])
