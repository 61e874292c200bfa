#!/usr/bin/env python3
"""Which algorithm has the mildest worst case over several machine shapes and
MPIs: for each collective and size, each variant's time over native's (median
over runs) at every (MPI, shape), and per group of shapes the variant whose
worst such ratio is lowest, next to the default's worst. Reads fastred_bench
CSVs named MPI-hSHAPE-rRUN.csv (e.g. mpich-h4x2-r1.csv); native must be a
variant of each run.

usage: bench/shape_minimax.py CSV... [--groups 2x2,3x2,4x2:2x3:2x4] [--no-native]
  --groups   shapes grouped with ',' and groups separated by ':' (default: each
             shape its own group)
  --no-native  leave native out of the candidates (it stays the reference)"""
import sys

from units import shape_runs, size

args = sys.argv[1:]
groups = None
with_native = "--no-native" not in args
args = [a for a in args if a != "--no-native"]
if "--groups" in args:
    i = args.index("--groups")
    groups = [g.split(",") for g in args[i + 1].split(":")]
    del args[i:i + 2]
ratio, _ = shape_runs(args)  # (mpi, shape, coll, variant, bytes) -> median time / native
shapes = sorted({k[1] for k in ratio})
groups = groups or [[s] for s in shapes]
for coll in sorted({k[2] for k in ratio}):
    sizes = sorted({k[4] for k in ratio if k[2] == coll})
    variants = sorted({k[3] for k in ratio if k[2] == coll and k[3] != "default" and (with_native or k[3] != "native")})
    print(f"\n{coll}: per group of shapes, the variant with the lowest worst time over native's (that worst); default's worst\n")
    print("| size | " + " | ".join(" ".join(g) for g in groups) + " |")
    print("|---|" + "---|" * len(groups))
    for b in sizes:
        cells = []
        for g in groups:
            keys = [(mpi, s) for mpi in sorted({k[0] for k in ratio}) for s in g]
            def worst(v):
                vals = [ratio.get((mpi, s, coll, v, b)) for mpi, s in keys]
                return max(vals) if all(x is not None for x in vals) else None
            scored = [(worst(v), v) for v in variants if worst(v) is not None]
            best = min(scored)
            d = worst("default")
            cells.append(f"{best[1]} {best[0]:.2f}; default {d:.2f}" if d is not None else f"{best[1]} {best[0]:.2f}")
        print(f"| {size(b)} | " + " | ".join(cells) + " |")
