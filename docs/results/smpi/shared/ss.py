"""Allreduce, reduce and reduce_scatter_block of 512 B-4 KiB on hosts in
blocks (ss-algos-*): each
algorithm's time over the fastest per machine and size, and per size the
worst over machines."""
import csv, glob, math, sys
from collections import defaultdict
rows = defaultdict(dict)
for f in sorted(glob.glob('ss-algos-*.csv')):
    name = f.split('-', 2)[2][:-4]
    for r in csv.DictReader(open(f)):
        rows[(r['collective'], name, int(r['bytes']))][r['variant']] = (float(r['median_s']), r['algorithm'])
per = defaultdict(lambda: defaultdict(list))
for (c, name, b), d in sorted(rows.items()):
    best = min(v[0] for n, v in d.items() if n != 'default')
    if len(sys.argv) > 1: print(f"{c[:9]} {name:20s} {b:7d} default {d['default'][1][:12]:12s} " + ' '.join(f"{n[:6]}={v[0]/best:.2f}" for n, v in sorted(d.items())))
    for n, v in d.items(): per[(c, 1 << round(math.log2(b)))][n].append(v[0] / best)
for k in sorted(per):
    print(f"{k[0][:9]} {k[1]>>10:4d}K " + ' '.join(f"{n[:6]}={max(v):.2f}" for n, v in sorted(per[k].items())))
