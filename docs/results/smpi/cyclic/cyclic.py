#!/usr/bin/env python3
"""Ranks dealt round robin over hosts (docs/smpi.md, "Ranks dealt round robin
over hosts"): per machine, collective and size, each algorithm's time over the
fastest (cyc-M.csv), and the default before (cyc-M.csv) and with the
`scattered` rules (cycrules-M.csv; cycrd-M.csv: the allreduce of 2 KiB at
64-128 processes with the last rule).

    python3 cyclic.py          # the default before -> after, over the fastest
    python3 cyclic.py all      # and every algorithm's ratio
"""
import csv, glob, math, os, sys

os.chdir(os.path.dirname(os.path.abspath(__file__)))


def rows(path):
    return list(csv.DictReader(open(path))) if os.path.exists(path) else []


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
