#!/usr/bin/env python3
"""The emulated cluster's check of the small-hosts rules (docs/smpi.md "Hosts
in blocks at 4-31 processes"): Open MPI, 50 Mbit/s, 4 hosts x 2 ranks and
2 x 4, batched calls (--latency), two runs per table. first-*: the table
with the SMPI rules from 4 processes; second-*: the k-nomial reduce to 4 KiB
at 4-8 processes (the others from 9); final-*: this stop's table. Prints
each variant's time over native's in the same run, per run.

    python3 summary.py
"""
import collections, csv, glob, os

here = os.path.dirname(os.path.abspath(__file__))
for shape in ("h4x2", "h2x4"):
    rows = collections.defaultdict(lambda: collections.defaultdict(list))
    for f in sorted(glob.glob(os.path.join(here, f"*-{shape}-r*.csv"))):
        table = os.path.basename(f).split("-")[0]
        by = collections.defaultdict(dict)
        for r in csv.DictReader(open(f)):
            by[(r["collective"], int(r["bytes"]))][r["variant"]] = (float(r["median_s"]), r["algorithm"])
        for key, v in by.items():
            native = v["native"][0]
            for variant, (t, algorithm) in v.items():
                if variant == "native":
                    continue
                name = f"default[{table}:{algorithm}]" if variant == "default" else variant
                rows[key][name].append(t / native)
    print(f"== {shape[1:]}: time over native's, per run")
    for key in sorted(rows):
        print(f"{key[0]:21} {key[1]:>6}  " + "  ".join(f"{n} {','.join(f'{x:.2f}' for x in r)}" for n, r in sorted(rows[key].items())))
