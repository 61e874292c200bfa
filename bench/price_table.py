#!/usr/bin/env python3
"""Price selection tables on a simulated sweep, without simulating again.

A sweep that ran every algorithm at every point (ci/smpi/sweep.sh --algos
all) holds, for each point, the simulated time of whatever algorithm a table
could pick there; simulated runs are deterministic, so a default that picks
algorithm A takes A's row (within 0.2%: bench/default_vs_fastest.py,
after_from_table). This script asks `fastred explain` (the MPICH build, with
FASTRED_TUNING) which algorithm each table picks at each point and reports
that algorithm's time over the fastest fastred algorithm's, before (the first
table) and after (the second), as the compare.py scripts do.

    python3 bench/price_table.py DIR BEFORE.table AFTER.table [--nhalf 4267] [--platform flat1g] [--cyclic] [all | bands]
    python3 bench/price_table.py DIR AFTER.table            # the repository's table as before
    python3 bench/price_table.py DIR --also DIR2 ...        # DIR2's rows too (the faster of two rows of one algorithm)
    python3 bench/price_table.py DIR --simulated DIR3 ...   # "after": DIR3's check-*.csv default rows, simulated

DIR holds PREFIX-PLATFORM-Kpn.csv files (K ranks per host, in blocks; e.g.
docs/results/smpi/gbe-common-start/after-flat1g-3pn.csv; PREFIX-PLATFORM-Kpn-small.csv
too, a sweep's few smallest machines, and -uneven.csv, p not a multiple of K). `--nhalf` is the
network's n½ as the library measures it there (flat1g: 4267 B). With
`--cyclic`, PREFIX-PLATFORM-Kpn-cyclic.csv files: ranks dealt round robin
over hosts of K. SMPI's own `native`, `shared_memory` and `reproducible` are
left out (default_vs_fastest.drop_unselectable). With `--simulated DIR3`,
"after" is the default row of DIR3's check-PLATFORM-Kpn[-cyclic].csv files
(the new table's default, simulated: it checks the pricing), at the points
those files hold (AFTER.table is not priced then: the files name the
algorithm the default ran).
"""
import argparse, os, sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from default_vs_fastest import GBE_BANDS, MACHINE_TAG, add_rows, bands, drop_unselectable, explain_choice, report


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir")
    ap.add_argument("tables", nargs="+", help="[BEFORE] AFTER")
    ap.add_argument("--nhalf", default="4267")
    ap.add_argument("--platform", default="flat1g")
    ap.add_argument("--cyclic", action="store_true", help="ranks dealt round robin (*-Kpn-cyclic.csv)")
    ap.add_argument("--also", action="append", default=[], help="another folder of such files (e.g. an algorithm re-swept)")
    ap.add_argument("--simulated", help="a folder of check-*.csv files: their default rows are the after")
    args = ap.parse_args()
    show_all = "all" in args.tables
    show_bands = "bands" in args.tables
    tables = [t for t in args.tables if t not in ("all", "bands")]
    if not 1 <= len(tables) <= 2:
        ap.error("one or two tables")
    before, after = (None, tables[0]) if len(tables) == 1 else tables
    tail = "-cyclic" if args.cyclic else ""

    def add(points, folder, prefix, default_role, new_points=True):
        """add_rows of folder's PREFIX-PLATFORM-Kpn[-small|-uneven][-cyclic].csv files (prefix "*": any)."""
        name = (r"-" if prefix == "*" else rf"^{prefix}-") + rf"{args.platform}-(\d+)pn{MACHINE_TAG}{tail}\.csv$"
        return add_rows(points, os.path.join(folder, f"{prefix}-{args.platform}-*pn*{tail}.csv"), name,
                        lambda m: (args.platform, int(m[1])), lambda m: default_role, new_points=new_points)

    points = {}
    for folder in [args.dir] + args.also:
        add(points, folder, "*", None, new_points=folder == args.dir)
    points = {key: p for key, p in drop_unselectable(points).items() if p["algos"]}
    keys = sorted(points)

    def price(table):
        def one(key):
            _, k, procs, coll, nbytes = key
            return explain_choice(coll, procs, nbytes, k, args.nhalf, args.cyclic, table=table)
        with ThreadPoolExecutor(4) as pool:
            return dict(zip(keys, pool.map(one, keys)))

    # With --simulated the after is the check files' default rows: AFTER.table need not be priced.
    for role, table in (("before", before),) + ((("after", after),) if not args.simulated else ()):
        for key, algorithm in price(table).items():
            p = points[key]
            if algorithm in p["algos"]:
                p[role] = (p["algos"][algorithm], algorithm)
    if args.simulated:
        simulated = add({}, args.simulated, "check", "after")
        points = {key: dict(p, after=simulated[key]["after"]) for key, p in points.items()
                  if key in simulated and simulated[key]["after"]}
    if show_bands:
        bands(points, GBE_BANDS)
    else:
        report(points, show_all)


if __name__ == "__main__":
    main()
