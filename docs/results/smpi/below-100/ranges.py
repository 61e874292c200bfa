import csv,glob,math
from collections import defaultdict
def load(prefixes):
    t=defaultdict(dict)
    for pre in prefixes:
        for f in glob.glob(pre+'-*.csv'):
            plat=f.split('/')[-1][len(pre.split('/')[-1])+1:].split('-')[0]
            for r in csv.DictReader(open(f)):
                b=int(r['bytes']); b=1<<round(math.log2(b)) if b else 0
                t[(r['collective'],int(r['procs']),b,plat)][r['variant'].replace('/free','')]=float(r['median_s'])
    return t
def delta(p):
    e=[i for i in range(20,-1,-1) if p>>i&1]
    return max([a-b for a,b in zip(e,e[1:])] or [0])
ch=load(['g-charged','a-charged','d-charged','s-charged','l-charged'])
fr=load(['g-free'])
def rng(t,coll,ps,bs,a,b,plats=('fattree','torus','dragonfly')):
    out=defaultdict(list)
    for (c,p,by,pl),d in t.items():
        if c==coll and p in ps and by in bs and pl in plats and a in d and b in d:
            out[pl].append((d[a]/d[b],p,by))
    for pl in plats:
        if out[pl]: print(f"  {coll} {a}/{b} {pl}: {min(out[pl])[0]:.2f} (p{min(out[pl])[1]} {min(out[pl])[2]}) - {max(out[pl])[0]:.2f} (p{max(out[pl])[1]} {max(out[pl])[2]}) n={len(out[pl])}")
K=1024; M=K*K
print("allreduce circ/bb, 33-99 nonpow2 delta<=3, 64K-16M")
ps=[p for p in range(33,100) if p&(p-1) and delta(p)<=3]
rng(ch,'allreduce',ps,[64*K<<i for i in range(9)],'circulant','binary_blocks')
print("allreduce circ/bb, delta>=4")
ps4=[p for p in range(17,100) if p&(p-1) and delta(p)>=4]
rng(ch,'allreduce',ps4,[64*K<<i for i in range(9)],'circulant','binary_blocks')
print("reduce circ/bb 33-99 nonpow2 64K-512K")
ps=[p for p in range(33,100) if p&(p-1)]
rng(ch,'reduce',ps,[64*K,128*K,256*K,512*K],'circulant','binary_blocks')
print("reduce 1M 33-256: best other / two_tree, charged and free")
for name,t in (('charged',ch),('free',fr)):
    out=defaultdict(list)
    for (c,p,by,pl),d in t.items():
        if c=='reduce' and 33<=p<=256 and by==M and 'two_tree' in d:
            o=min(v for k,v in d.items() if k not in ('two_tree','default'))
            out[pl].append(round(o/d['two_tree'],2))
    print(' ',name,{k:(min(v),max(v)) for k,v in out.items()})
print("reduce 512K 33-256 two_tree/best other charged")
out=defaultdict(list)
for (c,p,by,pl),d in ch.items():
    if c=='reduce' and 33<=p<=256 and by==512*K and 'two_tree' in d:
        o=min(v for k,v in d.items() if k not in ('two_tree','default'))
        out[pl].append(round(d['two_tree']/o,2))
print(' ',{k:(min(v),max(v)) for k,v in out.items()})
print("rsb circ/bb 17-80")
ps=[p for p in range(17,100) if p&(p-1)]
rng(ch,'reduce_scatter_block',ps,[64*K<<i for i in range(6)],'circulant','binary_blocks')
print("allreduce 17-32 circ/bb")
ps=[p for p in range(17,33) if p&(p-1)]
rng(ch,'allreduce',ps,[64*K<<i for i in range(6)],'circulant','binary_blocks')
