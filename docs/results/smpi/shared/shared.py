"""Reduces on hosts in blocks (sh-algos-*, sh-long-*): each algorithm's time
over the fastest per platform and size."""
import csv, glob, math
from collections import defaultdict
rows = defaultdict(dict)
for f in sorted(glob.glob('sh-algos-*.csv') + glob.glob('sh-long-*.csv')):
    name = f.split('-', 2)[2][:-4]
    for r in csv.DictReader(open(f)):
        if r['collective'] == 'reduce':
            rows[(name, int(r['bytes']))][r['variant']] = (float(r['median_s']), r['algorithm'])
per_size = defaultdict(lambda: defaultdict(list))
for (name, b), d in sorted(rows.items()):
    best = min(v[0] for n, v in d.items() if n != 'default')
    print(f"{name:22s} {b:7d} default {d['default'][1][:12]:12s} " + ' '.join(f"{n[:6]}={v[0]/best:.2f}" for n, v in sorted(d.items())))
    for n, v in d.items():
        per_size[1 << round(math.log2(b))][n].append(v[0] / best)
print("\nper size, worst over platforms:")
for b in sorted(per_size):
    print(f"  {b>>10:4d}K " + ' '.join(f"{n[:6]}={max(v):.2f}" for n, v in sorted(per_size[b].items())))
