import csv,glob,sys
from collections import defaultdict
prefix, coll, variants = sys.argv[1], sys.argv[2], sys.argv[3].split(',')
t=defaultdict(dict); dflt={}
for f in glob.glob(prefix+'-*.csv'):
    plat=f[len(prefix)+1:].split('-')[0]
    for r in csv.DictReader(open(f)):
        if r['collective']!=coll: continue
        b0=int(r["bytes"]); b0=1<<round(__import__("math").log2(b0)) if b0 else 0; k=(int(r["procs"]),b0,plat)
        v=r['variant'].replace('/free','')
        t[k][v]=float(r['median_s'])*1e6
        if v=='default': dflt[k]=r['algorithm']
sizes=sorted({k[1] for k in t})
for b in sizes:
  print(f"== {coll} {b} B: default alg, time over best; " + ", ".join(variants))
  for p in sorted({k[0] for k in t}):
    line=f"p={p:4d}"
    for plat in ['fattree','torus','dragonfly']:
        d=t.get((p,b,plat))
        if not d: continue
        best=min(d.values())
        line+=f" | {plat[:5]} {dflt[(p,b,plat)][:6]:6s} " + " ".join((f"{d[v]/best:.2f}" if v in d else " -  ") for v in ["default"]+variants)
    print(line)
