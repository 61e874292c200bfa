#!/usr/bin/env python3
"""Binary blocks at p = 20, 22, 24 and 26 (docs/smpi.md, "Binary blocks at
20-26 processes, and in the lanes"): the default with the new rules
(bb-after-NET.csv) against the default before and the fastest of
t-charged-NET-P.csv, per point and per p.

    python3 binary20.py
"""
import collections, csv, glob, math, os

os.chdir(os.path.dirname(os.path.abspath(__file__)))
P = (20, 22, 24, 26)
t = collections.defaultdict(dict)
for f in glob.glob('t-charged-*.csv'):
    net = f.split('-')[2]
    for r in csv.DictReader(open(f)):
        if int(r['procs']) in P:
            t[(r['collective'], int(r['procs']), int(r['bytes']), net)][r['variant']] = float(r['median_s'])
after = {}
for f in glob.glob('bb-after-*.csv'):
    net = f[len('bb-after-'):-4]
    for r in csv.DictReader(open(f)):
        after[(r['collective'], int(r['procs']), int(r['bytes']), net)] = (float(r['median_s']), r['algorithm'])
ratios, worst = [], collections.defaultdict(lambda: [0.0, 0.0])
for k in sorted(after):
    if k not in t:
        continue
    v = t[k]
    best = min(s for a, s in v.items() if a != 'default')
    s, alg = after[k]
    r = s / v['default']
    ratios.append(r)
    w = worst[(k[0], k[1])]
    w[0], w[1] = max(w[0], v['default'] / best), max(w[1], s / best)
    if abs(r - 1) > 0.02:
        print(f"{k[0][:9]:9} p={k[1]} {k[2]:>8} {k[3]:9} {alg[:13]:13} after/before {r:.2f}, over the fastest {v['default'] / best:.2f} -> {s / best:.2f}")
print(f"after/before {min(ratios):.2f}-{max(ratios):.2f}, geometric mean {math.exp(sum(map(math.log, ratios)) / len(ratios)):.2f} ({len(ratios)} points)")
for (c, p), (b, a) in sorted(worst.items()):
    print(f"{c} p={p}: worst over the fastest {b:.2f} -> {a:.2f}")
