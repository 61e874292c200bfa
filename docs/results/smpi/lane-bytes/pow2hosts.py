#!/usr/bin/env python3
"""The allreduce of 1 KiB on hosts in blocks at 96-256 processes, by the
number of hosts (stop 43; docs/smpi.md "The allreduce of 1 KiB: how many
hosts"). SimGrid SMPI, fastred's reductions charged, from one common start.

    python3 pow2hosts.py

Files: short-M (allreduce 1-2 KiB: default, two-level, recursive doubling;
96-120 processes), npow2hosts-M (allreduce 1-32 KiB at 160-240 processes on
10, 12, 20, 24, 30 hosts), pow2hosts-after-M (the default with the
`hostspow2` rule). Other machines' algorithms: fix-M, algos-M, ../lanes/algos-M.
"""
import collections, csv, glob, math, os

os.chdir(os.path.dirname(os.path.abspath(__file__)))


def at_1k(path):
    out = {}
    if os.path.exists(path):
        for r in csv.DictReader(open(path)):
            if r['collective'] == 'allreduce' and r['bytes'] == '1024':
                out[r['variant'].split('/')[0]] = float(r['median_s'])
    return out


rows = []
for f in sorted(glob.glob('pow2hosts-after-*.csv')):
    m = f[len('pow2hosts-after-'):-4]
    v = {}
    for p in (f'short-{m}.csv', f'npow2hosts-{m}.csv', f'algos-{m}.csv', f'../lanes/algos-{m}.csv'):
        v.update({a: t for a, t in at_1k(p).items() if a != 'default'})
    v.update({a: t for a, t in at_1k(f'fix-{m}.csv').items() if a == 'hierarchical'})
    before = {**at_1k(f'../lanes/after-{m}.csv'), **at_1k(f'before-{m}.csv'), **at_1k(f'short-{m}.csv'), **at_1k(f'npow2hosts-{m}.csv')}.get('default')
    after = at_1k(f)['default']
    if not v or before is None:
        continue
    best = min(list(v.values()) + [after])
    plat, k, p = m.removeprefix('sl-').split('-')
    k, p = int(k[:-2]), int(p)
    hosts = -(-p // k)
    rows.append((hosts, m, before / best, after / best, v.get('hierarchical', math.nan) / best, v.get('recursive_doubling', math.nan) / best))
print('hosts machine                 default before -> after   two-level  recursive doubling')
for hosts, m, b, a, h, rd in sorted(rows):
    print(f'{hosts:5} {m:24} {b:5.2f} -> {a:5.2f}   {h:9.2f}  {rd:9.2f}')
print(f'{len(rows)} machines: worst before {max(r[2] for r in rows):.2f}, after {max(r[3] for r in rows):.2f}')
