#!/usr/bin/env python3
"""The two-level reduce-scatter with halving & doubling lanes (stop 43;
docs/smpi.md "The two-level reduce-scatter with halving & doubling lanes").
SimGrid SMPI, fastred's reductions charged, from one common start;
reduce_scatter_block 512 B-32 KiB (factors of 4; the benchmark rounds to a
multiple of p elements). M = platform-Kpn-P as in lane_bytes.py.

    python3 rsb.py

Files: rsb-algos-M (default, the two-level algorithm with the circulant in
its lanes, halving & doubling, and on some machines the circulant and
recursive halving; the build and table before the rules),
rsb-lane-rab-M (the two-level algorithm with a first rule
`reduce_scatter_block * 4-1000 lane rabenseifner`), rsb-after-M (the
default with the rules).
"""
import collections, csv, glob, os

os.chdir(os.path.dirname(os.path.abspath(__file__)))


def load(path):
    out = collections.defaultdict(dict)
    for r in csv.DictReader(open(path)):
        out[int(r['bytes'])][r['variant'].split('/')[0] + ('/hd-lanes' if '/' in r['variant'] else '')] = (float(r['median_s']), r['algorithm'])
    return out


worst_before = worst_after = 0
print('machine                   bytes  default before -> after   two-level: circulant lanes, halving & doubling lanes | halving & doubling')
for f in sorted(glob.glob('rsb-algos-*.csv')):
    m = f[10:-4]
    v = load(f)
    for n, d in load(f'rsb-lane-rab-{m}.csv').items():
        v[n].update(d)
    after = load(f'rsb-after-{m}.csv')
    for n in sorted(v):
        t = {a: x[0] for a, x in v[n].items()}
        t['after'] = after[n]['default'][0]
        best = min(t.values())
        worst_before, worst_after = max(worst_before, t['default'] / best), max(worst_after, t['after'] / best)
        print(f"{m:24} {n:6}  {t['default'] / best:4.2f} ({v[n]['default'][1][:12]:12}) -> {t['after'] / best:4.2f} ({after[n]['default'][1][:12]:12})"
              f"  {t['hierarchical'] / best:4.2f}  {t['hierarchical/hd-lanes'] / best:4.2f} | {t['rabenseifner'] / best:4.2f}")
print(f'worst default over the fastest: before {worst_before:.2f}, after {worst_after:.2f}')
