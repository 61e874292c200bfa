#!/usr/bin/env python3
"""The reduce of 1-4 MiB on hosts of 16 with a short last host (stop 65,
docs/smpi.md "The reduce-scatter over hosts"): reduce-* binary blocks, the
two-level algorithm and the two-tree, with hosts-*'s halving & doubling and
halving & doubling over hosts; before: reduce-*'s default (stop 64's
table), after: reduceafter-* (this stop's, 1 MiB only). Each point's
default over the fastest algorithm swept.

    python3 compare_reduce.py [all | bands]
"""
import os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "bench"))
from default_vs_fastest import compare_dir

compare_dir(__file__, {"hosts": None, "reduce": "before", "reduceafter": "after"}, [(0, 1 << 30)])
