#!/usr/bin/env python3
"""Open MPI on the emulated cluster (4 hosts x 1 rank, 300 Mbit/s): the
circulant before (`before-RUN.csv`, HEAD's build) and with its receives
posted a round ahead (`after-RUN.csv`, ../circulant-ahead.patch), five
alternated runs each. Per size: every run's median, the ratio of the medians
over runs, and the circulant over native in the same runs."""
import collections, csv, glob, os, statistics as st

here = os.path.dirname(os.path.abspath(__file__))
t = collections.defaultdict(list)
for f in glob.glob(os.path.join(here, "*-*.csv")):
    build = os.path.basename(f).split("-")[0]
    for r in csv.DictReader(open(f)):
        t[(r["collective"], int(r["bytes"]), r["variant"], build)].append(float(r["median_s"]))
for coll, n in sorted({(c, n) for c, n, _, _ in t}):
    cb, ca = t[(coll, n, "circulant", "before")], t[(coll, n, "circulant", "after")]
    nb, na = t[(coll, n, "native", "before")], t[(coll, n, "native", "after")]
    us = lambda xs: " ".join(f"{x * 1e6:.1f}" for x in sorted(xs))
    print(f"{coll:21} {n:6}  before {us(cb)}  after {us(ca)} µs  after/before {st.median(ca) / st.median(cb):.2f}"
          f"  over native {st.median(cb) / st.median(nb):.2f} -> {st.median(ca) / st.median(na):.2f}")
