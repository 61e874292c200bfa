#!/usr/bin/env python3
"""Hosts of 8-24 consecutive ranks with a short last host, 17-300
processes, allreduce and reduce-scatter of 128 KiB-4 MiB (stop 66,
docs/smpi.md "The two-level estimate with fewer lanes than ranks"):
before-after-* ran stop 65's build, whose `default` rows are "before";
after-* this stop's default ("after"); more-*, third-*, half-* further
algorithms. Points without an after row take the row of the algorithm the
repository's table now picks (`fastred explain`, n½ 30 KiB; simulated
runs are deterministic). Each point's default over the fastest swept.

    python3 compare.py [all | bands]
"""
import os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "bench"))
from default_vs_fastest import compare_dir

compare_dir(__file__, {"before-after": "before", "after": "after", "more": None, "third": None, "half": None},
            [(0, 1 << 19), ((1 << 19) + 1, 1 << 30)], after_from="blocks")
