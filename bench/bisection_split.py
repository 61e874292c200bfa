#!/usr/bin/env python3
"""Where the networks' cross-sections would choose differently: for each
point (collective, ranks per host K, processes p, bytes) of sweeps on the
fat tree, torus and dragonfly (and the 2:1 fat tree where swept), the networks are split by their measured
cross-section at that many hosts (`SHARES`: lines "PLATFORM HOSTS PERCENT",
docs/results/smpi/bisection/shares.txt) into those at or above BOUND
percent and those below (below 4 hosts, where nothing is measured, one
side "none"). Per side: the current default's worst time over
the fastest candidate on that side's networks, and the candidate whose
worst is the least there (what a `bisection>=BOUND` / `bisection<BOUND`
rule would run), with the default table's rule that decides the point
(`fastred explain`, n½ 30 KB).

    python3 bench/bisection_split.py SHARES BOUND 'CANDIDATES_GLOB' 'AFTER_GLOB' [--cyclic]

CANDIDATES: every candidate's rows (names ...-PLATFORM-Kpn[-cyclic].csv);
AFTER: the default's rows with the table of the time (its `default` rows).
Prints one line per point and side, then per rule and side the worst
before and with the best single candidate for all the rule's points.
"""
import collections, math, os, re, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from default_vs_fastest import add_rows

NAME = r"-(fattree2to1|fattree|torus|dragonfly)-(\d+)pn"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def rule_of(coll, p, nbytes, k, cyclic):
    args = [os.path.join(ROOT, "target/mpich/release/fastred"), "explain", "--coll", coll, "--procs", str(p), "--bytes", str(nbytes), "--ranks-per-host", str(k), "--nhalf", "30K"]
    out = subprocess.run(args + (["--cyclic"] if cyclic else []), capture_output=True, text=True).stdout
    m = re.search(r"decision: \S+ +\((.*)\)", out)
    return re.sub(r"default table line \d+: ", "", m[1]) if m else "?"


def main(shares_file, bound, cand, after, cyclic):
    shares = {}
    for line in open(shares_file):
        net, hosts, pct = line.split()
        shares[(net, int(hosts))] = int(pct)
    rows = {}
    add_rows(rows, cand, NAME, lambda m: (m[1], int(m[2])), lambda m: None)
    add_rows(rows, after, NAME, lambda m: (m[1], int(m[2])), lambda m: "after", new_points=False)
    points = collections.defaultdict(dict)
    for (net, k, p, coll, nbytes), row in rows.items():
        points[(coll, k, p, nbytes)][net] = row
    groups = collections.defaultdict(list)
    for key in sorted(points):
        coll, k, p, nbytes = key
        nets = points[key]
        nets = {n: r for n, r in nets.items() if r["after"] is not None}
        if not {"fattree", "torus", "dragonfly"} <= set(nets):
            continue
        hosts = math.ceil(p / k)
        rule = rule_of(coll, p, nbytes, k, cyclic)
        # Below 4 hosts nothing is measured: one side, "none", that no bisection rule sees.
        sides = (("none", list(nets)),) if hosts < 4 else (("full", [n for n in nets if shares[(n, hosts)] >= bound]), ("thin", [n for n in nets if shares[(n, hosts)] < bound]))
        for side, members in sides:
            if not members:
                continue
            fastest = {n: min(nets[n]["algos"].values()) for n in members}
            algos = set.intersection(*(set(nets[n]["algos"]) for n in members))
            ratio = {a: {n: nets[n]["algos"][a] / fastest[n] for n in members} for a in algos}
            default = max(nets[n]["after"][0] / fastest[n] for n in members)
            best = min(algos, key=lambda a: max(ratio[a].values()))
            groups[(rule, side)].append((key, members, default, ratio))
            print(f"{coll:21} {k:3} x {p:<4} {nbytes:>9} {side:4} {'/'.join(sorted(members)):25} default {default:.2f} ({nets[members[0]]['after'][1]})  best {best} {max(ratio[best].values()):.2f}")
    print()
    for (rule, side), pts in sorted(groups.items()):
        algos = set.intersection(*(set(r) for _, _, _, r in pts))
        worst = {a: max(max(r[a].values()) for _, _, _, r in pts) for a in algos}
        over = {a: sum(max(r[a].values()) > 1.05 for _, _, _, r in pts) for a in algos}
        best = min(algos, key=lambda a: (over[a], worst[a]))
        dworst = max(d for _, _, d, _ in pts)
        dover = sum(d > 1.05 for _, _, d, _ in pts)
        print(f"{side:4} {len(pts):3} pts  default worst {dworst:.2f} >1.05 {dover:3} | best {best}: worst {worst[best]:.2f} >1.05 {over[best]:3}   [{rule}]")


if __name__ == "__main__":
    a = [x for x in sys.argv[1:] if x != "--cyclic"]
    if len(a) != 4:
        sys.exit(__doc__)
    main(a[0], int(a[1]), a[2], a[3], "--cyclic" in sys.argv)
