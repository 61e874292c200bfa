#!/usr/bin/env python3
"""Hosts of 16 with a short last host at 100-250 processes, 1-4 MiB
(docs/smpi.md "Hosts of 16 with a short last host: which algorithm at
1-4 MiB"): algos-* binary blocks, halving & doubling and the two-level
algorithm (allreduce, reduce_scatter_block), check-* the same at six more
process counts, hosts-* halving & doubling over hosts against halving &
doubling (allreduce, reduce); before-* the default with stop 63's table
(stop63.table, FASTRED_TUNING), after-* with this stop's. Each point's
default over the fastest algorithm swept.

    python3 compare.py [all | bands]
"""
import os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "bench"))
from default_vs_fastest import compare_dir

compare_dir(__file__, {"algos": None, "check": None, "hosts": None, "medium": None, "before": "before", "after": "after"},
            [(0, 2 << 20), (2097153, 1 << 30)])
