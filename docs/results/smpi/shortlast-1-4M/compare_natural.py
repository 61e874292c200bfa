#!/usr/bin/env python3
"""Stop 65's experiment (docs/smpi.md "The reduce-scatter over hosts",
"Tried: the larger shares to the later hosts"): halving & doubling over
hosts with its shares dealt so that the hosts keep §3.5's offsets
(natural-plan.patch, on commit e66b877), against the plan kept (shares
sorted, larger first). Per collective and p, its time over the kept plan's,
and over halving & doubling's where swept (`a/b`).

    python3 compare_natural.py long | medium
"""
import collections, csv, os, sys

here = os.path.dirname(os.path.abspath(__file__))


def load(kinds, plat):
    t = {}
    for kind in kinds:
        path = os.path.join(here, f"{kind}-{plat}-16pn.csv")
        if os.path.exists(path):
            for r in csv.DictReader(open(path)):
                t[(r["collective"], int(r["procs"]), int(r["bytes"]), r["variant"])] = float(r["median_s"])
    return t


long_sizes = sys.argv[1:] != ["medium"]
for plat in ["fattree", "dragonfly", "torus"]:
    old = load(["hosts", "rsbhosts"] if long_sizes else ["medium", "rsbmedium"], plat)
    new = load(["natural"] if long_sizes else ["naturalmedium"], plat)
    print(plat)
    rows = collections.defaultdict(list)
    for (coll, p, n, _), t in sorted(new.items()):
        kept, paper = old.get((coll, p, n, "rabenseifner:hosts")), old.get((coll, p, n, "rabenseifner"))
        if kept:
            rows[(coll, p)].append(f"{n // 1024}K:{t / kept:.2f}" + (f"/{t / paper:.2f}" if paper else ""))
    for (coll, p), cells in rows.items():
        print(f"  {coll[:9]:9s} {p:5d} " + " ".join(cells))
