"""Hosts in blocks, PREFIX-algos-*.csv (sa: allreduce and
reduce_scatter_block, 2-512 KiB; ss: all three, 512 B-4 KiB): each
algorithm's time over the fastest per size, worst over the machines, and
with `x` per machine too.   usage: sa.py [x] [PREFIX]"""
import csv, glob, math, sys
from collections import defaultdict
rows = defaultdict(dict)
args = [a for a in sys.argv[1:] if a != 'x']
prefix = args[0] if args else 'sa'
for f in sorted(glob.glob(prefix + '-algos-*.csv')):
    name = f.split('-', 2)[2][:-4]
    for r in csv.DictReader(open(f)):
        rows[(r['collective'], name, int(r['bytes']))][r['variant']] = (float(r['median_s']), r['algorithm'])
per = defaultdict(lambda: defaultdict(list))
for (c, name, b), d in sorted(rows.items()):
    best = min(v[0] for n, v in d.items() if n != 'default')
    if 'x' in sys.argv[1:]: print(f"{c[:9]} {name:20s} {b:7d} default {d['default'][1][:12]:12s} " + ' '.join(f"{n[:6]}={v[0]/best:.2f}" for n, v in sorted(d.items())))
    for n, v in d.items(): per[(c, 1 << round(math.log2(b)))][n].append(v[0] / best)
for k in sorted(per):
    print(f"{k[0][:9]} {k[1]>>10:4d}K " + ' '.join(f"{n[:6]}={max(v):.2f}" for n, v in sorted(per[k].items())))
