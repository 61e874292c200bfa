"""The default after the hostblocks rules (sh-after-*) over before (the
default rows of sh-algos-* and sh-long-*), and its time over the fastest."""
import csv, glob, math
from collections import defaultdict
def load(pattern):
    t = defaultdict(dict)
    for f in sorted(glob.glob(pattern)):
        name = f.split('-', 2)[2][:-4]
        for r in csv.DictReader(open(f)):
            if r['collective'] == 'reduce':
                t[(name, int(r['bytes']))][r['variant']] = (float(r['median_s']), r['algorithm'])
    return t
before = load('sh-algos-*.csv')
for k, d in load('sh-long-*.csv').items():
    for n, v in d.items():
        before[k].setdefault(n, v)
after = load('sh-after-*.csv')
per = defaultdict(list); over = defaultdict(lambda: [[], []])
for k, d in sorted(after.items()):
    if k not in before: continue
    b = before[k]; best = min(v[0] for n, v in b.items() if n != 'default')
    ta, tb = d['default'][0], b['default'][0]
    r = ta / tb; size = 1 << round(math.log2(k[1]))
    per[size].append(r); over[size][0].append(tb / best); over[size][1].append(ta / best)
    if abs(r - 1) > 0.005: print(f"{k[0]:22s} {k[1]:7d} {b['default'][1]:15s} -> {d['default'][1]:15s} {r:.2f}  (vs fastest {tb/best:.2f} -> {ta/best:.2f})")
gm = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
print("\nper size: after/before min-max (geomean); default over the fastest, worst before -> after")
for s in sorted(per):
    print(f"  {s>>10:4d}K {min(per[s]):.2f}-{max(per[s]):.2f} ({gm(per[s]):.2f})   {max(over[s][0]):.2f} -> {max(over[s][1]):.2f}")
