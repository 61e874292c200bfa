#!/usr/bin/env python3
"""Hosts of 32 with a short last host at 100, 140, 164, 200 and 230
processes, 1-4 MiB, allreduce and reduce-scatter (stop 65, docs/smpi.md
"The reduce-scatter over hosts", "Hosts of 32"): long32-* halving &
doubling, over hosts and binary blocks, and the default before (the
model); long32after-* the default with the hosts-of-32 rules. Each point's
default over the fastest algorithm swept.

    python3 compare_hosts32.py [all | bands]
"""
import os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "bench"))
from default_vs_fastest import compare_dir

compare_dir(__file__, {"long32": "before", "long32after": "after"}, [(0, 1 << 30)])
