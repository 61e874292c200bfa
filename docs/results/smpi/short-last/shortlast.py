#!/usr/bin/env python3
"""Hosts in blocks with a short last host (docs/smpi.md, "Hosts in blocks
with a short last host"): before-M.csv (build of stop 40 before the change:
such placements counted as `scattered`; the default and seven algorithms)
and after-M.csv (the default with the `shortlast` class and rules). Per
point the default's time over the fastest algorithm, before -> after, and
the summary.

    python3 shortlast.py
"""
import collections, csv, glob, math, os

os.chdir(os.path.dirname(os.path.abspath(__file__)))


def load(path):
    out = collections.defaultdict(dict)
    for r in csv.DictReader(open(path)):
        out[(r['collective'], int(r['bytes']))][r['variant']] = (float(r['median_s']), r['algorithm'])
    return out


ratios, worst_before, worst_after = [], 0.0, 0.0
for path in sorted(glob.glob('before-*.csv')):
    m = path[len('before-'):-4]
    if not os.path.exists(f'after-{m}.csv'):
        continue
    before, after = load(path), load(f'after-{m}.csv')
    print(m)
    for key in sorted(before):
        v = before[key]
        if 'default' not in v or 'default' not in after.get(key, {}):
            continue
        best = min(t for a, (t, _) in v.items() if a != 'default')
        fastest = min((t, a) for a, (t, _) in v.items() if a != 'default')[1]
        b, ba = v['default']
        a, aa = after[key]['default']
        ratios.append(a / b)
        worst_before, worst_after = max(worst_before, b / best), max(worst_after, a / best)
        print(f"  {key[0][:9]:9} {key[1]:>7}: {b / best:5.2f} ({ba[:12]:12}) -> {a / best:5.2f} ({aa[:12]:12})  fastest {fastest}")
print(f"after / before {min(ratios):.2f}-{max(ratios):.2f}, geometric mean {math.exp(sum(map(math.log, ratios)) / len(ratios)):.2f} "
      f"({len(ratios)} points); worst over the fastest {worst_before:.2f} -> {worst_after:.2f}")

# Hosts of other sizes (check-M.csv: the default and seven algorithms, after the change).
for path in sorted(glob.glob('check-*.csv')):
    t = load(path)
    cells = []
    for key in sorted(t):
        v = t[key]
        best = min(s for a, (s, _) in v.items() if a != 'default')
        cells.append((v['default'][0] / best, key, v['default'][1]))
    w = max(cells)
    print(f"{path[6:-4]}: the default over the fastest {min(c[0] for c in cells):.2f}-{w[0]:.2f} (worst: {w[1][0]} {w[1][1]} B, {w[2]})")
    for r, key, alg in cells:
        if r > 1.05:
            print(f"  {key[0]} {key[1]}: {r:.2f} ({alg})")
