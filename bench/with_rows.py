#!/usr/bin/env python3
"""Copy a sweep's every-algorithm files with one algorithm's rows replaced by
a re-sweep of it, so that bench/price_table.py prices a table on the rows as
they are now (its --also keeps the faster of two rows instead).

    python3 bench/with_rows.py SWEEP_DIR RESWEPT_DIR OUT_DIR [--variant hierarchical] [--prefix s-] [--cyclic]

SWEEP_DIR holds PREFIX-PLATFORM-Kpn[-small|-uneven].csv files (every algorithm), RESWEPT_DIR
hier-PLATFORM-Kpn.csv files (the re-swept variant; any prefix); OUT_DIR gets
SWEEP_DIR's files with the variant's rows replaced where the re-sweep has the
point, renamed PREFIX-PLATFORM-Kpn-cyclic.csv with --cyclic (ranks dealt
round robin, for price_table.py --cyclic). Prints how many rows moved.
"""
import argparse, csv, glob, os, re, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from default_vs_fastest import MACHINE_TAG


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sweep")
    ap.add_argument("resweep")
    ap.add_argument("out")
    ap.add_argument("--variant", default="hierarchical")
    ap.add_argument("--prefix", default="s-")
    ap.add_argument("--cyclic", action="store_true")
    args = ap.parse_args()
    name = re.compile(rf"-(\w+)-(\d+)pn{MACHINE_TAG}\.csv$")
    new = {}
    for f in glob.glob(os.path.join(args.resweep, "*-*pn*.csv")):
        m = name.search(f)
        if not m:
            continue
        for r in csv.DictReader(open(f)):
            if r["variant"] == args.variant:
                new[(m[1], m[2], r["procs"], r["collective"], r["bytes"])] = r
    os.makedirs(args.out, exist_ok=True)
    ratios = []
    for f in sorted(glob.glob(os.path.join(args.sweep, f"{args.prefix}*-*pn*.csv"))):
        m = name.search(f)
        if not m:
            continue
        rows = list(csv.DictReader(open(f)))
        base = os.path.basename(f)[:-4] + ("-cyclic" if args.cyclic else "") + ".csv"
        with open(os.path.join(args.out, base), "w", newline="") as out:
            w = csv.DictWriter(out, fieldnames=rows[0].keys())
            w.writeheader()
            for r in rows:
                n = new.get((m[1], m[2], r["procs"], r["collective"], r["bytes"])) if r["variant"] == args.variant else None
                if n:
                    ratios.append(float(n["median_s"]) / float(r["median_s"]))
                w.writerow(n or r)
    print(f"{len(ratios)} rows replaced: {sum(x < 0.99 for x in ratios)} faster by more than 1%, "
          f"{sum(x > 1.01 for x in ratios)} slower" + (f" (new over old {min(ratios):.2f}-{max(ratios):.2f})" if ratios else ""))


if __name__ == "__main__":
    main()
