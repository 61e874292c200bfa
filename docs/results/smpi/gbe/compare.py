#!/usr/bin/env python3
"""The `nhalf>=2K,nhalf<8K` rules on SMPI's `flat1g` (1 Gbit/s Ethernet, n½
measured 4.3 KB) and `flat10g` (10 Gbit/s, 2 µs per link, n½ 6.3 KB): the
default against the fastest of fastred's algorithms (docs/smpi.md, "1 Gbit/s
Ethernet").

For every point (platform, ranks per host K, processes, collective, bytes) of
KIND-PLATFORM-Kpn.csv: the fastest algorithm, the default of the run (KIND
`before`: the table before the rules; `after`: with them), and what the
table picks for the fast networks' n½ (30K) and the slow ones' (150 B), each
as its algorithm's row (`fastred explain --nhalf N` of the MPICH build).
SMPI's own `native` is left out (the simulation does not charge its
reductions), and so are `shared_memory` (one host only: elsewhere it runs
another algorithm's choice) and `reproducible` (FASTRED_REPRODUCIBLE's
mode): no rule can choose them.

    python3 compare.py [PLATFORM] [P0-P1] [K=K1,K2]       # bands, then the points where before or after is above 1.05
    python3 compare.py [PLATFORM] [P0-P1] [K=K1,K2] all   # every point
    (PLATFORM: flat1g, flat10g, flat1g-cyclic: ranks dealt round robin, fattree; P0-P1: processes; K=: ranks per host)
    dir=DIR (anywhere on the line): the CSV files of DIR instead of this
        folder's, e.g. dir=../gbe-common-start (every algorithm and the
        default in one run, as after-*.csv)
    python3 compare.py minimax PLATFORM K P0-P1[,P0-P1...] [pow2|nonpow2]
        per collective and size, over the processes P0-P1 on hosts of K: the
        algorithm with the lowest worst time over the fastest (the ratio and
        its geometric mean), and the default's (`after` where run, else
        `before`)
"""
import math, os, re, sys
from collections import defaultdict

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "..", "bench"))
from default_vs_fastest import GBE_BANDS as BANDS, add_rows, drop_unselectable, explain_choice


def load():
    """Every point of the KIND-PLATFORM-Kpn[-large|-cyclic].csv files (of
    this folder, or of the command line's dir=DIR)
    (PLATFORM flat1g, flat10g, or fattree: hosts of 3 and 5 there), keyed
    (platform, K, processes, collective, bytes); the platform of a `-cyclic`
    file is PLATFORM-cyclic."""
    folder = next((os.path.join(here, a[4:]) for a in sys.argv if a.startswith("dir=")), here)
    points = add_rows({}, os.path.join(folder, "*-*-*pn*.csv"), r"^(before|after)-(flat1g|flat10g|fattree)-(\d+)pn(-large|-cyclic)?\.csv$",
                      lambda m: (m[2] + ("-cyclic" if m[4] == "-cyclic" else ""), int(m[3])), lambda m: m[1])
    return drop_unselectable(points)


def minimax(points, platform, k, ranges, which):
    pow2 = lambda n: n & (n - 1) == 0
    keep = lambda n: any(lo <= n <= hi for lo, hi in ranges) and (which is None or pow2(n) == (which == "pow2"))
    gm = lambda r: math.exp(sum(map(math.log, r)) / len(r))
    for coll in sorted({key[3] for key in points}):
        for nbytes in sorted({key[4] for key in points if key[3] == coll}):
            group = [p for key, p in points.items()
                     if key[:2] == (platform, k) and key[3] == coll and key[4] == nbytes and keep(key[2])]
            if not group:
                continue
            best = [min(min(p["algos"].values()), *(p[c][0] for c in ("before", "after") if p[c])) for p in group]
            algos = set.intersection(*(set(p["algos"]) for p in group))
            scores = {a: [p["algos"][a] / b for p, b in zip(group, best)] for a in algos}
            a, r = min(scores.items(), key=lambda kv: (max(kv[1]), gm(kv[1])))
            d = [(p["after"] or p["before"])[0] / b for p, b in zip(group, best)]
            ds = sorted({(p["after"] or p["before"])[1] for p in group})
            second = sorted(scores.items(), key=lambda kv: (max(kv[1]), gm(kv[1])))[1:3]
            print(f"{coll:21} {nbytes:>8}  {a:20} {max(r):5.2f} / {gm(r):.2f}   default {max(d):5.2f} / {gm(d):.2f} ({','.join(ds)})"
                  f"   next: " + ", ".join(f"{x} {max(v):.2f}" for x, v in second))


def main():
    if "minimax" in sys.argv:
        i = sys.argv.index("minimax")
        ranges = [tuple(map(int, r.split("-"))) for r in sys.argv[i + 3].split(",")]
        which = sys.argv[i + 4] if len(sys.argv) > i + 4 else None
        return minimax({k: p for k, p in load().items() if p["algos"]}, sys.argv[i + 1], int(sys.argv[i + 2]), ranges, which)
    platforms = [a for a in sys.argv[1:] if a.startswith(("flat", "fattree"))]
    procs = [tuple(map(int, a.split("-"))) for a in sys.argv[1:] if re.fullmatch(r"\d+-\d+", a)]
    per_host = [int(k) for a in sys.argv[1:] if a.startswith("K=") for k in a[2:].split(",")]
    points = {k: p for k, p in load().items() if p["algos"] and (not platforms or k[0] in platforms)
              and (not procs or any(lo <= k[2] <= hi for lo, hi in procs)) and (not per_host or k[1] in per_host)}
    columns = ["before", "after", "fast (n½ 30K)", "slow (n½ 150)"]
    ratio = defaultdict(list)  # (coll, band, column) -> ratios
    rows, totals = [], defaultdict(int)
    for key in sorted(points):
        platform, k, n, coll, nbytes = key
        p = points[key]
        best_algo, best = min(p["algos"].items(), key=lambda kv: kv[1])
        cells = {}
        for col in ("before", "after"):
            if p[col]:
                best = min(best, p[col][0])
        for col in ("before", "after"):
            if p[col]:
                cells[col] = (p[col][0] / best, p[col][1])
        for col, nh in (("fast (n½ 30K)", "30K"), ("slow (n½ 150)", "150")):
            algo = explain_choice(coll, n, nbytes, k, nh, platform.endswith("-cyclic"))
            if algo in p["algos"]:
                cells[col] = (p["algos"][algo] / best, algo)
        if "before" in cells and "after" in cells:
            change = p["after"][0] / p["before"][0]
            totals["points"] += 1
            totals["above before"] += cells["before"][0] > 1.05
            totals["above after"] += cells["after"][0] > 1.05
            totals["slower"] += change > 1.05
            totals["faster"] += change < 1 / 1.05
            totals["log"] += math.log(change)
        band = next(b for b in BANDS if b[0] <= nbytes <= b[1])
        for col, (r, _) in cells.items():
            ratio[(coll, band, col)].append(r)
        if "all" in sys.argv or any(cells[c][0] > 1.05 for c in ("before", "after") if c in cells):
            rows.append(f"{platform:7} {n // k:>3} x {k:<2} {coll:21} {nbytes:>8}  " +
                        "  ".join(f"{c.split()[0]} {cells[c][0]:5.2f} ({cells[c][1]})" for c in columns if c in cells) +
                        f"  fastest {best_algo}")
    gm = lambda r: math.exp(sum(map(math.log, r)) / len(r))
    print(f"{'':21} {'bytes':>17}  " + "".join(f"{c:>22}" for c in columns))
    for coll in sorted({key[3] for key in points}):
        for band in BANDS:
            cells = [ratio.get((coll, band, c)) for c in columns]
            if not any(cells):
                continue
            print(f"{coll:21} {band[0]:>8}-{band[1]:<8} " +
                  "".join(f"{max(r):>12.2f} / {gm(r):.2f}  " if r else f"{'-':>22}" for r in cells) +
                  f"({len(cells[0] or cells[1])} points)")
    print("\nworst / geometric mean of the time over the fastest fastred algorithm's")
    if totals["points"]:
        print(f"{totals['points']} points with both: above 1.05 {totals['above before']} -> {totals['above after']}; "
              f"after over before: geometric mean {math.exp(totals['log'] / totals['points']):.3f}, "
              f"{totals['faster']} faster and {totals['slower']} slower by more than 5%\n")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
