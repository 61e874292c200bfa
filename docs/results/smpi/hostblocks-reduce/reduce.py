#!/usr/bin/env python3
"""Short reduces (and the reduce-scatter of one element per rank) on hosts in
blocks, timed from one common start (docs/smpi.md, "Short reduces on hosts in
blocks from one common start"). For every sweep M.csv (the default and the
algorithms named in it) each point's fastest algorithm and each algorithm's
time over it; with after-M.csv (the default after the table change) the
default before -> after. With gather-M.csv (the two-level reduce after its
root posts all its receives at once, stop 42) the two-level algorithm's time
before (M's rd- sweep, or ../short-last/common-start-M.csv) -> after, and
over the fastest of the others.

    python3 reduce.py
"""
import collections, csv, glob, math, os

os.chdir(os.path.dirname(os.path.abspath(__file__)))


def load(path):
    out = collections.defaultdict(dict)
    for r in csv.DictReader(open(path)):
        out[(r['collective'], int(r['procs']), int(r['bytes']))][r['variant']] = (float(r['median_s']), r['algorithm'])
    return out


worst_before, worst_after, ratios = [], [], []
for path in sorted(glob.glob('[a-z]*.csv')):
    if path.startswith(('after-', 'gather-')):
        continue
    m = path[:-4]
    t = load(path)
    after = load(f'after-{m}.csv') if os.path.exists(f'after-{m}.csv') else {}
    print(m)
    for key in sorted(t):
        v = t[key]
        algos = {a: s for a, (s, _) in v.items() if a != 'default'}
        best = min(algos.values())
        fastest = min(algos, key=algos.get)
        cells = '  '.join(f"{a[:12]} {s / best:4.2f}" for a, s in sorted(algos.items()))
        line = f"  {key[0][:9]:9} p={key[1]:<5} {key[2]:>6} B: fastest {fastest[:12]:12} | {cells}"
        if 'default' not in v:  # a sweep of some algorithms only
            print(line)
            continue
        line += f" | default {v['default'][0] / best:4.2f} ({v['default'][1][:12]})"
        worst_before.append(v['default'][0] / best)
        if key in after:
            a = after[key]['default']
            line += f" -> {a[0] / best:4.2f} ({a[1][:12]})"
            worst_after.append(a[0] / best)
            ratios.append(a[0] / v['default'][0])
        print(line)
print(f"default over the fastest, before: worst {max(worst_before):.2f} ({len(worst_before)} points)")
if ratios:
    print(f"after: worst {max(worst_after):.2f} ({len(worst_after)} points); after / before {min(ratios):.2f}-{max(ratios):.2f}, "
          f"geometric mean {math.exp(sum(map(math.log, ratios)) / len(ratios)):.2f}")

print("the two-level reduce, its root's receives posted at once (gather-*):")
for path in sorted(glob.glob('gather-*.csv')):
    m = path[len('gather-'):-4]
    before_path = f'rd-{m}.csv' if os.path.exists(f'rd-{m}.csv') else f'../short-last/common-start-{m}.csv'
    before, now = load(before_path), load(path)
    for key in sorted(now):
        if key not in before or 'hierarchical' not in before[key]:
            continue
        old, new = before[key]['hierarchical'][0], now[key]['hierarchical'][0]
        others = {a: s for a, (s, _) in before[key].items() if a not in ('default', 'hierarchical')}
        other = min(others, key=others.get)
        print(f"  {m:20} {key[2]:>6} B: {old * 1e6:5.1f} -> {new * 1e6:5.1f} us ({new / old:.3f}); "
              f"over the fastest {new / min(new, others[other]):.2f}, the best other {other} {others[other] / new:.2f}x it")
