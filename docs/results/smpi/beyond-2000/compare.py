#!/usr/bin/env python3
"""p = 3000, 32-64 MiB: every candidate per point (time in ms), the default
before this stop's rules (the `default` rows of the candidate runs, the
model's circulant; at 16 MiB the reduce's binary blocks), the default after
(after-PLATFORM-COLL.csv where run, marked *; else the candidate row of
this stop's rule's choice, which a default run reproduces to the
nanosecond: beyond-1000/'s after runs), after over before and after over
the fastest candidate. Prints a markdown table."""
import csv, glob, os
here = os.path.dirname(os.path.abspath(__file__))
rows = {}  # (platform, coll, bytes) -> {variant: (algorithm, seconds)}
for path in glob.glob(os.path.join(here, '*.csv')):
    name = os.path.basename(path)[:-4]
    after = name.startswith('after-')
    platform = name.split('-')[1 if after else 0]
    for r in csv.DictReader(open(path)):
        point = rows.setdefault((platform, r['collective'], int(r['bytes'])), {})
        variant = 'after' if after else 'before' if r['variant'] == 'default' else r['variant']
        point[variant] = (r['algorithm'], float(r['median_s']))
names = ['binary_blocks', 'ring', 'two_tree']
choice = {'allreduce': 'binary_blocks', 'reduce_scatter_block': 'binary_blocks', 'reduce': 'two_tree'}
print('| network | collective | bytes | before | ' + ' | '.join(names) + ' | after | after / before | after / fastest |')
print('|---' * (len(names) + 7) + '|')
for (platform, coll, size), v in sorted(rows.items()):
    if coll == 'reduce' and size == 16 << 20 and 'before' not in v and 'binary_blocks' in v:
        v['before'] = v['binary_blocks']  # the 1001-3000 rule's choice before
    if 'after' in v:
        v['after'] = (v['after'][0] + '*', v['after'][1])
    elif choice[coll] in v:
        v['after'] = v[choice[coll]]
    ms = lambda k: f'{v[k][1] * 1e3:.2f}' if k in v else '-'
    before = f'{v["before"][0]} {ms("before")}' if 'before' in v else '-'
    after = f'{v["after"][0]} {ms("after")}' if 'after' in v else '-'
    a = v.get('after', (None, None))[1]
    ratio = f'{a / v["before"][1]:.2f}' if a and 'before' in v else '-'
    fastest = min(t for k, (_, t) in v.items() if k != 'after')
    versus = f'{a / fastest:.2f}' if a else '-'
    print(f'| {platform} | {coll} | {size} | {before} | ' + ' | '.join(ms(k) for k in names) + f' | {after} | {ratio} | {versus} |')
