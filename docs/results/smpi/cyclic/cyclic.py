#!/usr/bin/env python3
"""Ranks dealt round robin over hosts (docs/smpi.md, "Ranks dealt round robin
over hosts"): per machine, collective and size, each algorithm's time over the
fastest (cyc-M.csv), and the default before (cyc-M.csv) and with the
`scattered` rules (cycrules-M.csv; cycrd-M.csv: the allreduce of 2 KiB at
64-128 processes with the last rule).

    python3 cyclic.py          # the default before -> after, over the fastest
    python3 cyclic.py all      # and every algorithm's ratio
    python3 cyclic.py reduce1k # the reduce of 1-8 KiB at 480-1000 processes (stop 40)
"""
import csv, glob, math, os, sys

os.chdir(os.path.dirname(os.path.abspath(__file__)))


def rows(path):
    return list(csv.DictReader(open(path))) if os.path.exists(path) else []


def reduce1k():
    """The reduce of 1-8 KiB at 480-1000 processes: cycnew-M.csv, the default
    with the rule `reduce 1K-8K 480-1000 scattered hierarchical` and the
    algorithms, timed from one common start (fastred_bench's common_start;
    cyc2k-M.csv is the first look, timed after a barrier). Before the rule
    the k-nomial tree ran where the vector has fewer elements than processes
    (the `few` rule: 1-2 KiB at 480, 1-4 KiB at 1000)."""
    worst = {}
    for path in sorted(glob.glob('cycnew-*.csv')):
        m = path[len('cycnew-'):-4]
        p = int(m.split('-')[-1])
        t = {}
        for r in rows(path):
            t.setdefault(int(r['bytes']), {})[r['variant']] = (float(r['median_s']), r['algorithm'])
        for n, v in sorted(t.items()):
            best = min(s for a, (s, _) in v.items() if a != 'default')
            before = 'knomial_tree' if n // 8 < p else 'hierarchical'
            cells = {a: s / best for a, (s, _) in v.items()}
            for a, x in list(cells.items()) + [('before', cells[before])]:
                worst[a] = max(worst.get(a, 0), x)
            print(f"{m:20} reduce {n:>5}: default {cells['default']:.2f} ({v['default'][1]}), before ({before}) {cells[before]:.2f}; "
                  + " ".join(f"{a} {x:.2f}" for a, x in sorted(cells.items(), key=lambda y: y[1]) if a != 'default'))
    print("worst over the fastest: " + ", ".join(f"{a} {x:.2f}" for a, x in sorted(worst.items(), key=lambda y: y[1])))


if sys.argv[1:] == ['reduce1k']:
    reduce1k()
    sys.exit(0)
ratios = []
for path in sorted(glob.glob('cyc-*.csv')):
    m = path[4:-4]
    times, default = {}, {}
    for r in rows(path):
        key = (r['collective'], int(r['bytes']))
        if r['variant'].startswith('default'):
            default[key] = (float(r['median_s']), r['algorithm'])
        else:
            times.setdefault(key, {})[r['algorithm']] = float(r['median_s'])
    after = {(r['collective'], int(r['bytes'])): (float(r['median_s']), r['algorithm']) for r in rows(f'cycrules-{m}.csv') + rows(f'cycrd-{m}.csv')}
    print(m)
    for key in sorted(times):
        best = min(times[key].values())
        b = default[key]
        line = f"  {key[0]:21s}{key[1]:>7}: default {b[0] / best:.2f} ({b[1]})"
        if key in after:
            a = after[key]
            line += f" -> {a[0] / best:.2f} ({a[1]})"
            ratios.append(a[0] / b[0])
        if len(sys.argv) > 1:
            line += "   " + " ".join(f"{n} {t / best:.2f}" for n, t in sorted(times[key].items(), key=lambda x: x[1]))
        print(line)
if ratios:
    print(f"default after / before: {min(ratios):.2f}-{max(ratios):.2f}, geometric mean "
          f"{math.exp(sum(map(math.log, ratios)) / len(ratios)):.3f} over {len(ratios)} points")
