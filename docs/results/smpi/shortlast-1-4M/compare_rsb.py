#!/usr/bin/env python3
"""The reduce-scatter over hosts (stop 65, docs/smpi.md "The reduce-scatter
over hosts"): hosts of 16 with a short last host. At 1-4 MiB, 100-250
processes: algos-* and check-* (binary blocks, halving & doubling, the
two-level algorithm) and rsbhosts-* (halving & doubling over hosts) are
the algorithms; the default before is stop 64's (after-*), after is this
stop's (rsbafter-*). At 32-512 KiB, 100-230 processes: rsbmedium-*
(halving & doubling and halving & doubling over hosts; stop 64's default
there was halving & doubling) and rsbmediumafter-* (this stop's default).
Each point's default over the fastest algorithm swept.

    python3 compare_rsb.py [all | bands]
"""
import os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "bench"))
from default_vs_fastest import compare_dir

compare_dir(__file__, {"algos": None, "check": None, "rsbhosts": None, "rsbmedium": None,
                       "after": "before", "rsbafter": "after", "rsbmediumafter": "after"},
            [(0, 512 << 10), ((512 << 10) + 1, 1 << 30)])
