#!/usr/bin/env python3
"""For each point (collective, ranks per host, processes, bytes) of sweeps
on several networks: each algorithm's worst time over the fastest across the
networks, least first. A table rule cannot tell the simulated networks
apart (they share n½), so the rule to write is the algorithm whose worst is
the least.

    python3 bench/worst_over_networks.py FILE.csv...   # names ...-PLATFORM-Kpn[-cyclic].csv, one placement

The `default` rows are left out (they run one of the algorithms). Rows are
read by default_vs_fastest.add_rows, which keys them by network, K,
processes, collective and bytes: files of blocks and of round robin at the
same K and p would mix.
"""
import collections, os, re, sys

from default_vs_fastest import add_rows

NAME = r"-(fattree|torus|dragonfly|flat1g|flat10g)-(\d+)pn"


def main(files):
    rows = {}
    for f in files:
        if not re.search(NAME, os.path.basename(f)):
            sys.exit(f"{f}: no -PLATFORM-Kpn in the name")
        add_rows(rows, f, NAME, lambda m: (m[1], int(m[2])), lambda m: None)
    # (platform, K, p, collective, bytes) -> {variant: seconds}, regrouped by point across the networks.
    points = collections.defaultdict(lambda: collections.defaultdict(dict))
    for (platform, k, p, coll, nbytes), row in rows.items():
        for variant, seconds in row["algos"].items():
            points[(coll, k, p, nbytes)][variant][platform] = seconds
    for key in sorted(points):
        algos = points[key]
        networks = set().union(*algos.values())
        fastest = {n: min(a[n] for a in algos.values() if n in a) for n in networks}
        worst = sorted((max(a[n] / fastest[n] for n in networks), name) for name, a in algos.items() if set(a) == networks)
        coll, k, p, nbytes = key
        print(f"{coll:21} {k:3} x {p:<5} {nbytes:>9}  " + "  ".join(f"{name} {w:.2f}" for w, name in worst[:4]))


if __name__ == "__main__":
    main(sys.argv[1:])
