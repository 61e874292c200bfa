#!/usr/bin/env python3
"""The lanes of the two-level algorithm across 4-16 hosts, and the rules
they allow (docs/smpi.md "The lanes of the two-level algorithm", stop 42).
SimGrid SMPI, fastred's reductions charged, every call timed from one common
start; M = platform-Kpn-P (P processes, K consecutive ranks per node, or
dealt round robin for cyc-M).

    python3 lanes.py          # lanes, then the default before -> after
    python3 lanes.py all      # with every algorithm's time over the fastest

Files:
- lane-tree-M, lane-knomial-M: the reduce's two-level algorithm with the
  binomial / k-nomial tree in its lanes (a first table rule
  `reduce 1K-1M 2-16 oneperhost tree|knomial_tree`, FASTRED_TUNING);
  lane-base-M: the two-level reduce on 4 x 16 with the lanes of the table
  before (halving & doubling); on 8-16 hosts that is the `hierarchical`
  column of ../hostblocks-reduce/rd-*.
- lane-rd-M (8-16 hosts), lane4-rd-M (4 x 16): the allreduce's two-level
  algorithm with recursive doubling in its lanes; before: the
  `hierarchical` column of ../hostblocks-reduce/ar-*, ar2-* and algos-M.
- algos-M: every algorithm with the lane rules (the two-level allreduce on
  4 x 16 without them: its lanes in lane4-rd-M).
- before-M, after-M: the default of the build before (6e2e628) and after.
- rsb-algos-M, rsb-lane-rab-M: the reduce-scatter (512 B-32 KiB, factors
  of 4) by algorithm, and the two-level one with halving & doubling lanes
  (a first rule `reduce_scatter_block * 4-16 lane rabenseifner`): no rule.
- rr-M and ../cyclic/cs-M (the stop-42 re-sweep of the `scattered` rules
  from one common start): the reduce of 128-512 KiB dealt round robin at
  480-1000 processes, the default then the circulant; rr-after-M after.
"""
import collections, csv, glob, math, os, sys

os.chdir(os.path.dirname(os.path.abspath(__file__)))
SHOW_ALL = sys.argv[1:] == ['all']


def load(path, procs=None):
    """{(collective, bytes): {variant without suffix: seconds}} at `procs`."""
    out = collections.defaultdict(dict)
    if not os.path.exists(path):
        return out
    for r in csv.DictReader(open(path)):
        if procs is None or int(r['procs']) == procs:
            out[(r['collective'], int(r['bytes']))][r['variant'].split('/')[0]] = float(r['median_s'])
    return out


def machine(m):
    platform, k, p = m.split('-')
    return platform, k, int(p)


def earlier(coll_prefixes, m):
    """The two-level algorithm before the lane rules at machine m."""
    platform, k, p = machine(m)
    out = {}
    for prefix in coll_prefixes:
        for path in glob.glob(f'../hostblocks-reduce/{prefix}-{platform}-{k}-*.csv'):
            for key, v in load(path, p).items():
                if 'hierarchical' in v:
                    out[key] = v['hierarchical']
    return out


def fastest(v):
    algos = {a: s for a, s in v.items() if a != 'default'}
    best = min(algos, key=algos.get)
    return best, algos[best]


def show_lanes(m, key, lanes, algos):
    """One point: the two-level algorithm with each lane algorithm (`lanes`,
    seconds or None) and the best single-level one, over the fastest of all."""
    others = {a: s for a, s in algos.get(key, {}).items() if a not in ('default', 'hierarchical')}
    best = min([s for s in lanes.values() if s] + list(others.values()))
    line = f"  {m:20} {key[1]:>6} B: lanes " + '  '.join(f"{n} {s / best:4.2f}" for n, s in lanes.items() if s)
    if others:
        single = min(others, key=others.get)
        line += f" | best single-level {single} {others[single] / best:4.2f}"
    print(line)


print('The reduce: the two-level algorithm by its lanes, over the fastest of all')
for path in sorted(glob.glob('lane-knomial-*.csv')):
    m = path[len('lane-knomial-'):-4]
    algos, knomial, tree = load(f'algos-{m}.csv'), load(path), load(f'lane-tree-{m}.csv')
    before = earlier(['rd'], m) or {k: v['hierarchical'] for k, v in load(f'lane-base-{m}.csv').items() if 'hierarchical' in v}
    for key in sorted(knomial):
        if key[0] != 'reduce' or 'hierarchical' not in knomial[key]:
            continue
        lanes = {'halving & doubling': before.get(key), 'binomial': tree.get(key, {}).get('hierarchical'), 'k-nomial': knomial[key]['hierarchical']}
        show_lanes(m, key, lanes, algos)

print('The allreduce: the two-level algorithm by its lanes, over the fastest of all')
for path in sorted(glob.glob('lane-rd-*.csv')) + sorted(glob.glob('lane4-rd-*.csv')):
    m = path.split('-rd-')[1][:-4]
    algos, rd = load(f'algos-{m}.csv'), load(path)
    before = earlier(['ar', 'ar2'], m)
    if path.startswith('lane4'):
        before = {k: v['hierarchical'] for k, v in algos.items() if 'hierarchical' in v}
    for key in sorted(rd):
        if 'hierarchical' not in rd[key]:
            continue
        lanes = {'halving & doubling': before.get(key), 'recursive doubling': rd[key]['hierarchical']}
        show_lanes(m, key, lanes, algos)

print('The default before -> after, over the fastest (algos-M; the two-level allreduce on 4 x 16 from lane4-rd-M)')
worst_before, worst_after, ratios, above = [], [], [], []
for path in sorted(glob.glob('algos-*.csv')):
    m = path[len('algos-'):-4]
    algos = load(path)
    for key, s in load(f'lane4-rd-{m}.csv').items():
        algos[key]['hierarchical'] = s['hierarchical']
    before, after = load(f'before-{m}.csv'), load(f'after-{m}.csv')
    for key in sorted(algos):
        if key not in before or key not in after:
            continue
        name, best = fastest(algos[key])
        b, a = before[key]['default'] / best, after[key]['default'] / best
        worst_before.append(b)
        worst_after.append(a)
        ratios.append(after[key]['default'] / before[key]['default'])
        if a > 1.05:
            above.append(f"{m} {key[0]} {key[1]} B: {a:.2f} (fastest {name})")
        line = f"  {m:20} {key[0]:9} {key[1]:>6} B: fastest {name:18} default {b:4.2f} -> {a:4.2f}"
        if SHOW_ALL:
            line += ' | ' + '  '.join(f"{x[:12]} {t / best:4.2f}" for x, t in sorted(algos[key].items()) if x != 'default')
        print(line)
print(f"  {len(ratios)} points: worst {max(worst_before):.2f} -> {max(worst_after):.2f}; after / before "
      f"{min(ratios):.2f}-{max(ratios):.2f}, geometric mean {math.exp(sum(map(math.log, ratios)) / len(ratios)):.2f}")
print('  above 1.05 after: ' + ('; '.join(above) if above else 'none'))

print('The reduce of 128-512 KiB dealt round robin at 480-1000 processes (rr-M: before; rr-after-M)')
for path in sorted(glob.glob('rr-[a-z]*.csv') + glob.glob('../cyclic/cs-*8pn-480.csv') + glob.glob('../cyclic/cs-*8pn-1000.csv')):
    if path.startswith('rr-after-'):
        continue
    m = os.path.basename(path)[3:-4]
    algos, after = load(path), load(f'rr-after-{m}.csv')
    for key in sorted(algos):
        if key[0] != 'reduce' or key[1] < 128 << 10:
            continue
        name, best = fastest(algos[key])
        a = after.get(key, {}).get('default')
        print(f"  {m:20} {key[1]:>6} B: fastest {name:12} circulant {algos[key]['circulant'] / best:4.2f} default "
              f"{algos[key]['default'] / best:4.2f} -> {a / best:4.2f}" if a else f"  {m} {key[1]} B: no after")
