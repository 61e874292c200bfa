"""The default after the hostblocks rules (PREFIX-after-*: sa, the allreduce
and reduce_scatter_block rules; ss, the short-vector rules) over before (the
default rows of PREFIX-algos-*), and its time over the fastest.
usage: sa_after.py [PREFIX]"""
import csv, glob, math, sys
from collections import defaultdict
def load(pattern):
    t = defaultdict(dict)
    for f in sorted(glob.glob(pattern)):
        name = f.split('-', 2)[2][:-4]
        for r in csv.DictReader(open(f)):
            t[(r['collective'], name, int(r['bytes']))][r['variant']] = (float(r['median_s']), r['algorithm'])
    return t
prefix = sys.argv[1] if len(sys.argv) > 1 else 'sa'
before, after = load(prefix + '-algos-*.csv'), load(prefix + '-after-*.csv')
per = defaultdict(list); over = defaultdict(lambda: [[], []])
for k, d in sorted(after.items()):
    if k not in before: continue
    b = before[k]; best = min(v[0] for n, v in b.items() if n != 'default')
    ta, tb = d['default'][0], b['default'][0]
    key = (k[0], 1 << round(math.log2(k[2])))
    per[key].append(ta / tb); over[key][0].append(tb / best); over[key][1].append(ta / best)
    if abs(ta / tb - 1) > 0.005:
        print(f"{k[0][:9]} {k[1]:20s} {k[2]:7d} {b['default'][1]:15s} -> {d['default'][1]:15s} {ta/tb:.2f}  (vs fastest {tb/best:.2f} -> {ta/best:.2f})")
gm = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
print("\nper size: after/before min-max (geomean); default over the fastest, worst before -> after")
for k in sorted(per):
    print(f"  {k[0][:9]} {k[1]>>10:4d}K {min(per[k]):.2f}-{max(per[k]):.2f} ({gm(per[k]):.2f})   {max(over[k][0]):.2f} -> {max(over[k][1]):.2f}")
