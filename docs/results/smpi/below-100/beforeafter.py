import csv,glob,math
from collections import defaultdict
def load(prefixes, only_default=True):
    t={}
    for pre in prefixes:
        for f in glob.glob(pre+'-*.csv'):
            plat=f.split('/')[-1][len(pre)+1:].split('-')[0]
            for r in csv.DictReader(open(f)):
                if r['variant']!='default': continue
                b=int(r['bytes'])
                t[(r['collective'],int(r['procs']),b,plat)]=(float(r['median_s']),r['algorithm'])
    return t
before=load(['g-charged','a-charged','d-charged','s-charged'])
after=load(['after-charged'])
rows=[]
for k in sorted(after):
    if k in before:
        b,a=before[k],after[k]
        if b[1]!=a[1] or abs(a[0]/b[0]-1)>0.005:
            rows.append((k,b,a))
            print(f"{k[0]:9s} p={k[1]:3d} {k[2]:8d} {k[3]:9s} {b[1]:13s} -> {a[1]:13s} after/before {a[0]/b[0]:.3f}")
missing=[k for k in after if k not in before]
print("no before:",len(missing))
