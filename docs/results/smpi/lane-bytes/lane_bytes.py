#!/usr/bin/env python3
"""The lanes of the two-level algorithm looked up at the whole vector's bytes,
and the rules that follow (stop 43; docs/smpi.md "Every lane runs the
algorithm of the whole vector"). SimGrid SMPI, fastred's reductions
charged, every call timed from one common start; M = platform-Kpn-P as in
../lanes/ (P processes, K consecutive ranks per node; sl-: a short last
host; cyc-: dealt round robin).

    python3 lane_bytes.py          # the default before -> after, points above 1.05
    python3 lane_bytes.py points   # also every point whose default changed by more than 1%
    python3 lane_bytes.py lanes    # the reduce's two-level algorithm by its lanes at 1-4 KiB

Files:
- fix-M: the default and the two-level algorithm with the lane fix and the
  table before (stop 42's 32 machines).
- algos-M: every algorithm on machines new this stop (12 x 8, 6 x 16 at 96;
  hosts of 24 at 192 and 384, the reduce of 4-32 KiB), lane fix, table before.
- lane-knomial_tree-M, lane-tree-M: the two-level reduce of 1-4 KiB with a
  first table rule `reduce 1025-4K 4-16 lane knomial_tree|tree`.
- after-M: the default with this stop's build (fix and rules); for the
  allreduce of 1 KiB at 96-256 processes, pow2hosts-after-M (the
  `hostspow2` rule, pow2hosts.py).
- before: ../lanes/after-M (the default of 1815bab, stop 42's machines) or
  before-M (the same build, run this stop on the new machines).
The other algorithms do not use the lanes: their times in ../lanes/algos-M
stand.
"""
import collections, csv, glob, math, os, sys

os.chdir(os.path.dirname(os.path.abspath(__file__)))


def load(path):
    out = collections.defaultdict(dict)
    if os.path.exists(path):
        for r in csv.DictReader(open(path)):
            out[(r['collective'], int(r['bytes']))][r['variant']] = float(r['median_s'])
    return out


def merged(*paths, skip=()):
    out = collections.defaultdict(dict)
    for p in paths:
        for key, v in load(p).items():
            out[key].update({a: t for a, t in v.items() if a not in skip})
    return out


rows = []
for f in sorted(glob.glob('after-*.csv')):
    m = f[6:-4]
    after = load(f)
    for key, v in load(f'pow2hosts-after-{m}.csv').items():
        after[key].update(v)  # the allreduce of 1 KiB after the `hostspow2` rule
    before = merged(f'../lanes/after-{m}.csv', f'before-{m}.csv')
    others = merged(f'../lanes/algos-{m}.csv', skip=('default', 'hierarchical'))
    for key, v in merged(f'algos-{m}.csv', f'fix-{m}.csv', f'lane-knomial_tree-{m}.csv', f'lane-tree-{m}.csv', skip=('default',)).items():
        others[key].update(v)
    for key in sorted(after):
        if 'default' not in before.get(key, {}):
            continue
        new, old = after[key]['default'], before[key]['default']
        alts = dict(others.get(key, {}), default=new)
        best = min(alts.values())
        fastest = min((a for a in alts if a != 'default'), key=alts.get, default='default')
        rows.append((m, key, old, new, best, fastest))

if sys.argv[1:] == ['lanes']:
    print('The two-level reduce by its lanes, over the fastest of all (lanes across 4-16 hosts)')
    for m, (coll, n), old, new, best, fastest in rows:
        if coll != 'reduce' or n > 4096:
            continue
        v = merged(f'lane-knomial_tree-{m}.csv', f'lane-tree-{m}.csv')[(coll, n)]
        if v:
            print(f'  {m:24} {n:5}  k-nomial {v["hierarchical/lane-knomial_tree"] / best:4.2f}  binomial {v["hierarchical/lane-tree"] / best:4.2f}  default {new / best:4.2f}')
    sys.exit()
ratio = [r[3] / r[2] for r in rows]
print(f'{len(rows)} points on {len(set(r[0] for r in rows))} machines')
print(f'default after / before: {min(ratio):.2f}-{max(ratio):.2f}, geometric mean {math.exp(sum(map(math.log, ratio)) / len(ratio)):.3f}')
print(f'worst default over the fastest: before {max(r[2] / r[4] for r in rows):.2f}, after {max(r[3] / r[4] for r in rows):.2f}')
print(f'points above 1.05 of the fastest: before {sum(r[2] / r[4] > 1.05 for r in rows)}, after {sum(r[3] / r[4] > 1.05 for r in rows)}')
print()
show = sys.argv[1:] == ['points']
print('machine                  coll      bytes  before  after (us)  after/before  default/fastest (fastest)')
for m, (coll, n), old, new, best, fastest in rows:
    if (show and abs(new / old - 1) > 0.01) or new / best > 1.05:
        print(f'{m:24} {coll:9} {n:6} {old * 1e6:7.2f} {new * 1e6:6.2f}  {new / old:12.2f}  {new / best:5.2f} ({fastest})')
