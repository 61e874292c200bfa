#!/usr/bin/env python3
"""The two-level algorithm before and after its lanes saw the network's n½
(stop 59): its time after over before at every point of before-*.csv and
after-*.csv (or, with an argument PREFIX, PREFIX-*.csv instead of after-*),
the points that moved by more than 1%.

    python3 compare.py [without-lane-rules]
"""
import csv, glob, os, sys

here = os.path.dirname(os.path.abspath(__file__))
prefix = sys.argv[1] if len(sys.argv) > 1 else "after"
load = lambda f: {(r["collective"], r["procs"], r["bytes"]): float(r["median_s"]) for r in csv.DictReader(open(f))}
total, moved = 0, []
for b in sorted(glob.glob(os.path.join(here, "before-*.csv"))):
    a = b.replace("before-", prefix + "-")
    if not os.path.exists(a):
        continue
    before, after = load(b), load(a)
    machine = os.path.basename(b)[len("before-"):-4]
    for key, t in before.items():
        if key in after:
            total += 1
            if abs(after[key] / t - 1) > 0.01:
                moved.append((machine,) + key + (round(after[key] / t, 3),))
ratios = [m[-1] for m in moved]
print(f"{total} points; {len(moved)} moved by more than 1%: {sum(r < 1 for r in ratios)} faster, {sum(r > 1 for r in ratios)} slower"
      + (f", after over before {min(ratios)}-{max(ratios)}" if ratios else ""))
for m in moved:
    print(*m)
