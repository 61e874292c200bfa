#!/usr/bin/env python3
"""The default with stop 71's rules (after-NP-PLATFORM.csv) against the
default before (the `default` rows of the candidate runs, which ran the
table before; at p = 1024 the reduce's halving & doubling, the model's
choice then) and the fastest candidate, per point. Prints a markdown table."""
import csv, glob, os, re
here = os.path.dirname(os.path.abspath(__file__))
rows = {}  # (procs, platform, coll, bytes) -> {variant: (algorithm, seconds)}
for path in glob.glob(os.path.join(here, '*.csv')):
    kind, procs, platform = re.match(r'([a-z]+?)-?(\d+)-(\w+)\.csv', os.path.basename(path)).groups()
    for r in csv.DictReader(open(path)):
        point = rows.setdefault((int(r['procs']), platform, r['collective'], int(r['bytes'])), {})
        # A candidate run's `default` row ran the table before.
        variant = 'after' if kind == 'after' else 'before' if r['variant'] == 'default' else r['variant']
        point[variant] = (r['algorithm'], float(r['median_s']))
print('| p | network | collective | bytes | before | after | after / before | after / fastest |')
print('|---|---|---|---|---|---|---|---|')
for (procs, platform, coll, size), v in sorted(rows.items()):
    if 'after' not in v:
        continue
    # At p = 1024 the reduce's default before was the model's halving & doubling.
    before = v.get('before') or v.get('rabenseifner')
    fastest = min(t for _, t in v.values())
    a_alg, a = v['after']
    b = f'{before[0]} {before[1] * 1e3:.2f} ms' if before else '-'
    ratio = f'{a / before[1]:.2f}' if before else '-'
    versus = f'{a / fastest:.2f}' if len(v) > 1 else '-'  # nothing else ran there
    print(f'| {procs} | {platform} | {coll} | {size} | {b} | {a_alg} {a * 1e3:.2f} ms | {ratio} | {versus} |')
