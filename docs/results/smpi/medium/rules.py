import csv,glob,math,sys
from collections import defaultdict
def delta(p):
    e=[i for i in range(20,-1,-1) if p>>i&1]
    return max([a-b for a,b in zip(e,e[1:])] or [0])
t=defaultdict(dict)
pre=sys.argv[1]; coll=sys.argv[2]
for f in glob.glob(pre+'-*.csv'):
    plat=f.split('/')[-1][len(pre.split('/')[-1])+1:].split('-')[0]
    for r in csv.DictReader(open(f)):
        b=int(r['bytes']); b=1<<round(math.log2(b)) if b else 0
        t[(r['collective'],int(r['procs']),b,plat)][r['variant']]=float(r['median_s'])
sizes=sorted({k[2] for k in t if k[0]==coll}); ps=sorted({k[1] for k in t if k[0]==coll})
algs=sorted({a for k,d in t.items() if k[0]==coll for a in d if a!='default'})
print(coll, "per size: algo: max / geomean over (p, platform) of time/best")
for b in sizes:
    s=[]
    for a in algs+['default']:
        r=[]
        for p in ps:
            for pl in ('fattree','torus','dragonfly'):
                d=t.get((coll,p,b,pl))
                if not d or a not in d: continue
                best=min(v for k,v in d.items() if k!='default'); r.append(d[a]/best)
        if r: s.append(f"{a[:6]} {max(r):.2f}/{math.exp(sum(map(math.log,r))/len(r)):.2f}")
    print(f" {b>>10:5d}K  "+"  ".join(s))
