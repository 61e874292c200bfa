#!/usr/bin/env python3
"""One rank per host at 32-63 processes (docs/smpi.md "One rank per host at
32-63 processes"): s-* (to 2 MiB), l-* (4-16 MiB) and r-* (the reduce,
1-4 MiB) the algorithms and the default before this stop's rules for 32-63,
after-*, afterl-* and afterr-* the default with them; each point's default over the fastest fastred algorithm (SMPI's
own `native` with --native).

    python3 compare.py [--native] [all | bands]
"""
import os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "bench"))
from default_vs_fastest import compare_dir

compare_dir(__file__, {"s": "before", "l": "before", "r": "before", "after": "after", "afterl": "after", "afterr": "after"}, [(0, 4096), (4097, 32768), (32769, 1 << 30)])
