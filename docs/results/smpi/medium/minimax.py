import csv,glob,math,sys
from collections import defaultdict
def delta(p):
    e=[i for i in range(20,-1,-1) if p>>i&1]
    return max([a-b for a,b in zip(e,e[1:])] or [0])
t=defaultdict(dict)
pre=sys.argv[1]
for f in glob.glob(pre+'-*.csv'):
    plat=f.split('/')[-1][len(pre.split('/')[-1])+1:].split('-')[0]
    for r in csv.DictReader(open(f)):
        b=int(r['bytes']); b=1<<round(math.log2(b)) if b else 0
        t[(r['collective'],int(r['procs']),b,plat)][r['variant']]=(float(r['median_s']),r['algorithm'])
colls=sorted({k[0] for k in t})
for coll in colls:
    print("==",coll)
    sizes=sorted({k[2] for k in t if k[0]==coll})
    ps=sorted({k[1] for k in t if k[0]==coll})
    for b in sizes:
        print(f" {b>>10}K   worst over platforms of time/best: default(alg) | per algo")
        for p in ps:
            row=defaultdict(list); dal=[]
            for pl in ('fattree','torus','dragonfly'):
                d=t.get((coll,p,b,pl))
                if not d: continue
                best=min(v[0] for k,v in d.items() if k!='default')
                for k,v in d.items(): row[k].append(v[0]/best)
                dal.append(d['default'][1][:6] if 'default' in d else '-')
            s=' '.join(f"{k[:6]}={max(v):.2f}" for k,v in sorted(row.items()))
            print(f"  p={p:3d} d={delta(p)} {','.join(dal):22s} {s}")
