#!/usr/bin/env python3
"""Summary of a native-export experiment (docs/native-export.md): per
collective and size, the algorithm the sweep found fastest, native with the
exported file / native, and fastred's default / native (medians of the
alternated runs).

usage: bench/native_export_summary.py 'PLAIN_GLOB' 'FILE_GLOB' RUNS_DIR
  PLAIN_GLOB, FILE_GLOB: the `fastred bench --algos native,default` CSVs
  without and with the exported file; RUNS_DIR: `fastred tune --export`'s
  per-algorithm CSVs (FILE.runs/)."""
import csv, sys, glob, statistics, collections, os

plain, filed, runs = sys.argv[1], sys.argv[2], sys.argv[3]
def load(pattern):
    d=collections.defaultdict(list)
    for f in glob.glob(pattern):
        for r in csv.DictReader(open(f)):
            d[(r['collective'],int(r['bytes']),r['variant'])].append(float(r['median_s']))
    return d
P,F=load(plain),load(filed)
best={}
for f in glob.glob(runs+'/*.csv'):
    alg=os.path.basename(f)[:-4].split('-',1)[1]
    for r in csv.DictReader(open(f)):
        k=(r['collective'],int(r['bytes']))
        t=float(r['median_s'])
        best.setdefault(k,[]).append((t,alg))
print("| collective | bytes | exported algorithm (sweep) | native with file / native | fastred default / native | fastred default / native with file |")
print("|---|---|---|---|---|---|")
for (c,b,v) in sorted(k for k in P if k[2]=='native'):
    n=statistics.median(P[(c,b,'native')]); nf=statistics.median(F[(c,b,'native')])
    d=statistics.median(P[(c,b,'default')]+F[(c,b,'default')])
    w=min(best.get((c,b),[(0,'?')]))[1]
    print(f"| {c} | {b} | {w} | {nf/n:.2f} | {d/n:.2f} | {d/nf:.2f} |")
