#!/usr/bin/env python3
"""One rank per host at 72 and 100 processes, 2-16 MiB (docs/smpi.md "One
rank per host at 32-63 processes", its last part): l-* the algorithms and
the default before the rules for 64-100, after-* the default with them;
each point's default over the fastest fastred algorithm.

    python3 compare.py [all | bands]
"""
import os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "bench"))
from default_vs_fastest import compare_dir

compare_dir(__file__, {"l": "before", "after": "after"}, [(0, 4 << 20), ((4 << 20) + 1, 1 << 30)])
