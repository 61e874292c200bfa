#!/usr/bin/env python3
"""FASTRED_REPRODUCIBLE's cost, from `fastred_bench --algos native,default,reproducible`
CSVs (ci/cluster/experiments.sh reproducible): per collective and size, the
algorithms each mode ran and the speed of the reproducible mode relative to the
unconstrained default in the same run (time default / time reproducible: 1.00 =
no cost, 0.80 = 20% slower).

The last column bounds the binned (order-independent, Demmel & Nguyen)
alternative of issue 14 §2 from below: a binned double carries at least 4
words per element (2 folds, each a value and a carry), so reducing n bytes that
way moves at least 4n bytes with the fastest algorithm; the column is the
default's measured time for 4n bytes (same run) over the reproducible mode's
time for n: above 1 means the binned representation would be slower even
before its conversion and deposit costs. Forced canonical algorithms in the
same run (pairwise, rabenseifner, ...) get a column each, as speed relative
to the default.

usage: bench/reproducible_summary.py CSV...
"""
import csv
import sys
from collections import defaultdict


def main(paths):
    for path in paths:
        rows = list(csv.DictReader(open(path)))
        if not rows:
            continue
        t = defaultdict(dict)
        for r in rows:
            t[(r["collective"], int(r["bytes"]))][r["variant"]] = (float(r["median_s"]), r["algorithm"])
        print(f"\n{path} ({rows[0]['procs']} processes)\n")
        forced = sorted({r["variant"] for r in rows} - {"native", "default", "reproducible"})
        print("| collective | bytes | default ran | reproducible ran | speed, reproducible / default | default / native | binned lower bound: default(4n) / reproducible(n) |"
              + "".join(f" {a} / default |" for a in forced))
        print("|---|---|---|---|---|---|---|" + "---|" * len(forced))
        for (coll, size), v in sorted(t.items()):
            if "default" not in v or "reproducible" not in v:
                continue
            d, r = v["default"], v["reproducible"]
            four = t.get((coll, 4 * size), {}).get("default")
            binned = f"{four[0] / r[0]:.1f}" if four else "-"
            native = f"{v['native'][0] / d[0]:.2f}" if "native" in v else "-"
            others = "".join(f" {d[0] / v[a][0]:.2f} |" if a in v else " - |" for a in forced)
            print(f"| {coll} | {size} | {d[1]} | {r[1]} | {d[0] / r[0]:.2f} | {native} | {binned} |{others}")


if __name__ == "__main__":
    main(sys.argv[1:])
