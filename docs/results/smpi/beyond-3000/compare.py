#!/usr/bin/env python3
"""p = 4000, one rank per host: per network, collective and size, the
default (the `default` rows: the model's circulant, the choice at 3001-4095
processes), binary blocks, and the circulant's time over binary blocks'
where both ran, in ms. Prints a markdown table."""
import csv, glob, os
here = os.path.dirname(os.path.abspath(__file__))
points = {}  # (network, collective, bytes) -> {'default'|algorithm: (algorithm, seconds)}
for path in sorted(glob.glob(os.path.join(here, '*.csv'))):
    network = os.path.basename(path).split('-')[0]
    for r in csv.DictReader(open(path)):
        points.setdefault((network, r['collective'], int(r['bytes'])), {})[r['variant']] = (r['algorithm'], float(r['median_s']))
print('| network | collective | bytes | default | binary blocks | default / binary blocks |')
print('|---|---|---|---|---|---|')
for (network, coll, size), v in sorted(points.items()):
    default = f'{v["default"][0]} {v["default"][1] * 1e3:.3f}' if 'default' in v else '-'
    bb = f'{v["binary_blocks"][1] * 1e3:.3f}' if 'binary_blocks' in v else '-'
    ratio = f'{v["default"][1] / v["binary_blocks"][1]:.2f}' if 'default' in v and 'binary_blocks' in v else '-'
    print(f'| {network} | {coll} | {size} | {default} | {bb} | {ratio} |')
