#!/usr/bin/env python3
"""For each point (collective, ranks per host, processes, bytes) of sweeps
on several networks: each algorithm's worst time over the fastest across the
networks, least first. A table rule cannot tell the simulated networks
apart (they share n½), so the rule to write is the algorithm whose worst is
the least.

    python3 bench/worst_over_networks.py FILE.csv...   # names ...-PLATFORM-Kpn[-cyclic].csv

The `default` rows are left out (they run one of the algorithms).
"""
import collections, csv, re, sys


def main(files):
    points = collections.defaultdict(lambda: collections.defaultdict(dict))
    for f in files:
        m = re.search(r"-(fattree|torus|dragonfly|flat1g|flat10g)-(\d+)pn", f)
        if not m:
            sys.exit(f"{f}: no -PLATFORM-Kpn in the name")
        for r in csv.DictReader(open(f)):
            if r["variant"] != "default":
                key = (r["collective"], int(m[2]), int(r["procs"]), int(r["bytes"]))
                points[key][r["variant"]][m[1]] = float(r["median_s"])
    for key in sorted(points):
        algos = points[key]
        networks = set().union(*algos.values())
        fastest = {n: min(a[n] for a in algos.values() if n in a) for n in networks}
        worst = sorted((max(a[n] / fastest[n] for n in networks), name) for name, a in algos.items() if set(a) == networks)
        coll, k, p, nbytes = key
        print(f"{coll:21} {k:3} x {p:<5} {nbytes:>9}  " + "  ".join(f"{name} {w:.2f}" for w, name in worst[:4]))


if __name__ == "__main__":
    main(sys.argv[1:])
