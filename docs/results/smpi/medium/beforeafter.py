"""The default after the rules (after-charged-*, and after2-charged-* for the
reduces of 128-512 KiB at p = 17-31, run again after the 256 KiB change) over before (the default rows
of the sweeps run with the table before: t-, v-, w-, k-charged-*), and the
default's time over the fastest algorithm measured at the point, before and
after. Run in this directory."""
import csv, glob, math
from collections import defaultdict
def load(prefix):
    t = defaultdict(dict)
    for f in glob.glob(prefix + '-*.csv'):
        plat = f.split('/')[-1][len(prefix) + 1:].split('-')[0]
        for r in csv.DictReader(open(f)):
            b = int(r['bytes']); b = 1 << round(math.log2(b)) if b else 0
            t[(r['collective'], int(r['procs']), b, plat)][r['variant']] = (float(r['median_s']), r['algorithm'])
    return t
before = defaultdict(dict)
for pre in ('t-charged', 'v-charged', 'w-charged', 'k-charged'):
    for k, d in load(pre).items():
        before[k].update(d)
after = load('after-charged')
for k, d in load('after2-charged').items():  # reduces of 128-512 KiB at 17-31 after the final 17-31 rules
    after[k].update(d)
gm = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float('nan')
for coll in ('allreduce', 'reduce'):
    print(f"== {coll}: per size, after/before (min-max, geomean, n changed), default/fastest before -> after (max)")
    for b in sorted({k[2] for k in after if k[0] == coll}):
        ratios, worst_b, worst_a, worse = [], [], [], []
        for k, d in after.items():
            if k[0] != coll or k[2] != b or k not in before or 'default' not in before[k]:
                continue
            tb, ab = before[k]['default']; ta, aa = d['default']
            algs = [v[0] for n, v in before[k].items() if n != 'default']
            if algs:
                best = min(algs + [ta, tb])
                worst_b.append(tb / best); worst_a.append(ta / best)
            if aa != ab or abs(ta / tb - 1) > 0.005:
                ratios.append(ta / tb)
                if ta / tb > 1.05: worse.append(f"{k[3]} p{k[1]} {ab}->{aa} {ta/tb:.2f}")
        if ratios:
            print(f"  {b>>10:5d}K  {min(ratios):.2f}-{max(ratios):.2f}  gm {gm(ratios):.2f}  n={len(ratios)}   "
                  f"vs fastest {max(worst_b):.2f} -> {max(worst_a):.2f}" + (f"   worse: {'; '.join(worse)}" if worse else ""))
