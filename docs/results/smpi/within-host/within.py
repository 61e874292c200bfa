#!/usr/bin/env python3
"""The two-level algorithm with halving & doubling within hosts (docs/smpi.md,
"Halving and doubling within a host"). Sizes bucketed to powers of two.

    python3 within.py change     # hierarchical and default, after / before the change, per machine
    python3 within.py minimax    # per collective and size: each algorithm's worst / geometric-mean time over the fastest
    python3 within.py rule [hw-final|hw-rule]   # the allreduce default with the rule: after / before, over the fastest
    python3 within.py equal      # hosts of 12 and 24 ranks: the circulant within hosts, and the hostblocks rules
    python3 within.py copy       # hosts of 12 and 24: copies charged β_i, not γ; the rules to 1008 processes
    python3 within.py lanes20    # hosts of 12: the two-level algorithm's lanes forced to one algorithm; binary blocks at p = 20

Machine M's other algorithms come from ../shared/{sa,ss,sh}-algos-M.csv and
sh-long-M.csv (the same build in every algorithm but the two-level one).
"""
import collections, csv, glob, math, os, sys

SHARED = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'shared')
os.chdir(os.path.dirname(os.path.abspath(__file__)))
COLLS = ['allreduce', 'reduce', 'reduce_scatter_block']


def bucket(n):
    return 1 << round(math.log2(n))


def rows(path):
    return list(csv.DictReader(open(path))) if os.path.exists(path) else []


def times(paths, coll=None):
    """(variant, collective, size bucket) -> (seconds, algorithm run)."""
    out = {}
    for path in paths:
        for r in rows(path):
            if coll and r['collective'] != coll:
                continue
            out[(r['variant'].split('/')[0], r['collective'], bucket(int(r['bytes'])))] = (float(r['median_s']), r['algorithm'])
    return out


def machines(prefix):
    return sorted(f[len(prefix) + 1:-4] for f in glob.glob(prefix + '-*.csv'))


def all_algorithms(m):
    """Each algorithm's time on machine m: the others from ../shared, the two-level algorithm from this change."""
    t = collections.defaultdict(dict)
    for pre in ['sa-algos', 'ss-algos', 'sh-algos', 'sh-long']:
        for (v, c, n), (s, _) in times([os.path.join(SHARED, f'{pre}-{m}.csv')]).items():
            if v not in ('default', 'hierarchical'):
                t[(c, n)][v] = s
    for (v, c, n), (s, _) in times([f'hw-after-{m}.csv', f'hw-after4-{m}.csv']).items():
        t[(c, n)][v if v == 'hierarchical' else 'default'] = s
    return t


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


def change():
    h, d = [], []
    for m in machines('hw-before'):
        b, a = times([f'hw-before-{m}.csv']), times([f'hw-after-{m}.csv'])
        for c in COLLS:
            cells = []
            for (v, cc, n) in sorted(k for k in b if k[1] == c and k[0] == 'hierarchical' and k in a):
                hr = a[(v, c, n)][0] / b[(v, c, n)][0]
                dr = a[('default', c, n)][0] / b[('default', c, n)][0]
                h.append(hr), d.append(dr)
                cells.append(f"{n}:{hr:.2f}/{dr:.2f}{'*' if b[('default', c, n)][1] == 'hierarchical' else ''}")
            print(f"{m:22} {c[:9]:9} " + " ".join(cells))
    print(f"hierarchical after/before {min(h):.2f}-{max(h):.2f} (geometric mean {geomean(h):.2f}, {len(h)} points); "
          f"default {min(d):.2f}-{max(d):.2f}, {sum(x < 0.995 for x in d)} faster, {sum(x > 1.005 for x in d)} slower "
          "(* the default ran the two-level algorithm)")


def minimax():
    per = collections.defaultdict(dict)
    for m in machines('hw-after'):
        for k, d in all_algorithms(m).items():
            per[k][m] = d
    for (c, n) in sorted(per, key=lambda k: (COLLS.index(k[0]), k[1])):
        ms = per[(c, n)]
        common = set.intersection(*[set(d) for d in ms.values()])
        cells = sorted((max(d[a] / min(d.values()) for d in ms.values()), a, geomean([d[a] / min(d.values()) for d in ms.values()])) for a in common)
        print(f"{c[:9]:9} {n:>7} machines={len(ms):2} " + "  ".join(f"{a[:12]}={w:.2f}/{g:.2f}" for w, a, g in cells))


def rule(prefix):
    ratios, worst = [], collections.defaultdict(lambda: [0.0, 0.0])
    for m in machines(prefix):
        after = times([f'{prefix}-{m}.csv'], 'allreduce')
        before = {}
        for path in (os.path.join(SHARED, f'ss-after-{m}.csv'), f'hw-before-{m}.csv'):
            for (v, _, n), x in times([path], 'allreduce').items():
                if v == 'default':
                    before.setdefault(n, x)
        algos = all_algorithms(m)
        cells = []
        for (_, _, n), (s, alg) in sorted(after.items(), key=lambda x: x[0][2]):
            others = [x for v, x in algos[('allreduce', n)].items() if v != 'default']
            if n not in before or not others:
                cells.append(f"{n}: {alg[:4]} (no before)")
                continue
            best = min(others + [s])
            ratios.append(s / before[n][0])
            worst[n] = [max(worst[n][0], s / best), max(worst[n][1], before[n][0] / best)]
            cells.append(f"{n}: {alg[:4]} after/before {s / before[n][0]:.2f} ({before[n][1][:4]}), over the fastest {s / best:.2f} (before {before[n][0] / best:.2f})")
        print(f"{m:20} " + " | ".join(cells))
    print(f"after/before {min(ratios):.2f}-{max(ratios):.2f}, geometric mean {geomean(ratios):.2f}")
    for n, (a, b) in sorted(worst.items()):
        print(f"{n:>5} B: worst over the fastest {a:.2f} (before {b:.2f})")


def equal():
    """k-before-M (b47524e: the ring within hosts), k-after-M (the circulant
    within hosts where it pays; every algorithm), k-rules-M (the default
    with the hostblocks rules)."""
    for m in machines('k-after'):
        b, a, r = times([f'k-before-{m}.csv']), times([f'k-after-{m}.csv']), times([f'k-rules-{m}.csv'])
        for c in COLLS:
            cells = []
            for n in sorted({k[2] for k in a if k[1] == c}):
                algos = {v: s for (v, cc, nn), (s, _) in a.items() if cc == c and nn == n and v != 'default'}
                best = min(algos.values())
                h = a[('hierarchical', c, n)][0] / b[('hierarchical', c, n)][0] if ('hierarchical', c, n) in b else math.nan
                d = a[('default', c, n)]
                cell = f"{n}: two-level {h:.2f} of before; default {d[0] / best:.2f} ({d[1][:5]})"
                if ('default', c, n) in r:
                    rr = r[('default', c, n)]
                    cell += f" -> {rr[0] / best:.2f} ({rr[1][:5]})"
                cells.append(cell + f" [fastest {min(algos, key=algos.get)[:5]}]")
            print(f"{m} {c}\n    " + "\n    ".join(cells))


def copy():
    """copy-M (the circulant within hosts while its copies, charged β_i,
    cost less than the ring's extra steps; hierarchical and default) against
    k-after-M / k-rules-M (copies charged γ); k-rules2 (the hostblocks rules
    to 1008 processes, --algos default); six-M (allreduce of 6 KiB at 1000)."""
    for m in machines('copy'):
        a, b = times([f'copy-{m}.csv']), times([f'k-after-{m}.csv', f'k-rules-{m}.csv'])
        r2 = times([f'k-rules2-{m}.csv'])
        for c in COLLS:
            cells = []
            for n in sorted({k[2] for k in a if k[1] == c}):
                others = [s for (v, cc, nn), (s, _) in list(b.items()) + list(a.items()) if cc == c and nn == n and v != 'default']
                best = min(others + [s for (v, cc, nn), (s, _) in r2.items() if cc == c and nn == n])
                cell = f"{n}:"
                for v in ('hierarchical', 'default'):
                    new, old = a[(v, c, n)], b.get((v, c, n), (math.nan, '?'))
                    cell += f" {v[:5]} {new[0] / old[0]:.2f} of before, {old[0] / best:.2f} -> {new[0] / best:.2f} ({new[1][:5]});"
                if ('default', c, n) in r2:
                    d = r2[('default', c, n)]
                    cell += f" with the rules to 1008 {d[0] / best:.2f} ({d[1][:5]})"
                cells.append(cell)
            print(f"{m} {c}\n    " + "\n    ".join(cells))
    for m in machines('six'):
        t = times([f'six-{m}.csv'])
        best = min(s for s, _ in t.values())
        print(f"{m} allreduce 6 KiB: " + ", ".join(f"{v} {s / best:.2f}" for (v, _, _), (s, _) in sorted(t.items())))


def lanes20():
    """lanes20-X-M: the two-level algorithm with its lanes' algorithm X forced
    (base: the default table); bb12-after-M: the default and the two-level
    algorithm with the p = 20 binary-blocks rule; lanes20-2m-*: 2 MiB, lanes
    forced to binary blocks, and the plain algorithms on the dragonfly. The
    plain algorithms' times come from k-after-M."""
    for m in machines('lanes20-base'):
        t = collections.defaultdict(dict)
        for (v, c, n), (s, _) in times([f'k-after-{m}.csv']).items():
            if v in ('rabenseifner', 'binary_blocks'):
                t[(c, n)][v] = s
        for x in ('base', 'rabenseifner', 'binary_blocks', 'ring'):
            for (v, c, n), (s, _) in times([f'lanes20-{x}-{m}.csv']).items():
                t[(c, n)][f'lanes {x}'] = s
        for (v, c, n), (s, alg) in times([f'bb12-after-{m}.csv', f'lanes20-2m-plain-{m}.csv']).items():
            t[(c, n)][v if v != 'default' else f'default ({alg[:5]})'] = s
        for (v, c, n), (s, _) in times([f'lanes20-2m-binary_blocks-{m}.csv']).items():
            t[(c, n)]['lanes binary_blocks'] = s
        for (c, n), d in sorted(t.items()):
            if not any(k.startswith('lanes') for k in d):
                continue
            plain = [d[a] for a in ('rabenseifner', 'binary_blocks') if a in d]
            ref = f", plain best {min(plain) * 1e6:.0f} µs" if plain else ""
            print(f"{m:20} {c[:9]:9} {n:>8}: " + ", ".join(f"{a} {s * 1e6:.0f}" for a, s in sorted(d.items(), key=lambda x: x[1]) if a not in ('rabenseifner', 'binary_blocks')) + ref)


if __name__ == '__main__':
    what = sys.argv[1] if len(sys.argv) > 1 else 'change'
    {'change': change, 'minimax': minimax, 'equal': equal, 'copy': copy, 'lanes20': lanes20, 'rule': lambda: rule(sys.argv[2] if len(sys.argv) > 2 else 'hw-final')}[what]()
