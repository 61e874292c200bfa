#!/usr/bin/env python3
"""The default against an earlier table's, in the same runs: for each (MPI,
shape, collective, size), the default's time over native's next to that of
the algorithm an earlier run's default ran there (REFERENCE CSVs: which
algorithm; CSVs: the times, with that algorithm among the forced variants).
Medians over runs; '+' where the default is more than 5 % faster, '-' where
it is more than 5 % slower, '?' where the old algorithm was not run. Files
are named MPI-hSHAPE-rRUN.csv (ci/cluster/short_shapes.sh).

usage: bench/default_against.py --reference CSV... -- CSV..."""
import math
import sys

from units import shape_runs, size

args = sys.argv[1:]
if "--reference" not in args or "--" not in args:
    sys.exit(__doc__)
reference, current = args[args.index("--reference") + 1:args.index("--")], args[args.index("--") + 1:]

_, ran_before = shape_runs(reference)
old = {(m, s, c, b): a for (m, s, c, v, b), a in ran_before.items() if v == "default"}
ratio, ran = shape_runs(current)
now = {(m, s, c, b): a for (m, s, c, v, b), a in ran.items() if v == "default"}
for mpi in sorted({k[0] for k in now}):
    for coll in sorted({k[2] for k in now if k[0] == mpi}):
        sizes = sorted({k[3] for k in now if k[0] == mpi and k[2] == coll})
        print(f"\n{mpi} {coll}: default's time over native's, then the earlier default's algorithm's, same runs\n")
        print("| shape | " + " | ".join(size(b) for b in sizes) + " |")
        print("|---|" + "---|" * len(sizes))
        pairs = []
        for shape in sorted({k[1] for k in now if k[0] == mpi}):
            cells = []
            for b in sizes:
                new = ratio.get((mpi, shape, coll, "default", b))
                was = old.get((mpi, shape, coll, b))
                if new is None:
                    cells.append("")
                    continue
                before = new if was == now[(mpi, shape, coll, b)] else ratio.get((mpi, shape, coll, was, b))
                if before is None:
                    cells.append(f"{new:.2f} ?")
                    continue
                pairs.append((new, before))
                mark = "+" if new < 0.95 * before else "-" if new > 1.05 * before else "="
                cells.append(f"{new:.2f} {mark} {before:.2f}")
            print(f"| {shape} | " + " | ".join(cells) + " |")
        if pairs:
            gm = math.exp(sum(math.log(n / b) for n, b in pairs) / len(pairs))
            print(f"\n{len(pairs)} points: default worst {max(n for n, _ in pairs):.2f}, earlier {max(b for _, b in pairs):.2f}; "
                  f"above 1.05: {sum(n > 1.05 for n, _ in pairs)} against {sum(b > 1.05 for _, b in pairs)}; geometric mean of default over earlier {gm:.2f}")
