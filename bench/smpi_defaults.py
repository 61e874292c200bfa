#!/usr/bin/env python3
"""fastred's default in several ci/smpi/sweep.sh runs of one platform (e.g. the
default table against a tuned one, or two builds), each against the fastest
fastred algorithm of all the runs given, per (collective, p, size).

usage: bench/smpi_defaults.py SWEEP.csv... -- LABEL=DEFAULTS.csv[,CSV...]...

SWEEP files give the algorithms (every non-default variant, any suffix, is a
candidate for the fastest); each DEFAULTS file's default variant ("default" or
"default/SUFFIX") is reported as its time over the fastest (1.00 = the fastest;
> 1.05 misses issue 13's 5% target) with the algorithm it ran, and the count of
points within 5%. The DEFAULTS files' other variants are candidates too.
"""
import csv
import sys


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def main(argv):
    if "--" not in argv:
        sys.exit(__doc__)
    cut = argv.index("--")
    sweeps, labelled = argv[:cut], [a.split("=", 1) for a in argv[cut + 1:]]
    best, defaults = {}, []
    for path in sweeps + [p for _, ps in labelled for p in ps.split(",")]:
        for r in rows(path):
            if r["variant"].split("/")[0] in ("default", "native") or r["variant"].startswith("native:"):
                continue
            key = (r["collective"], int(r["procs"]), int(r["bytes"]))
            t = float(r["median_s"])
            if key not in best or t < best[key][0]:
                best[key] = (t, r["variant"])
    for label, path in labelled:
        d = {(r["collective"], int(r["procs"]), int(r["bytes"])): (float(r["median_s"]), r["algorithm"])
             for p in path.split(",") for r in rows(p) if r["variant"].split("/")[0] == "default"}
        defaults.append((label, d))
    print("| collective | p | bytes | fastest | µs | " + " | ".join(f"{l}: ran, time / fastest" for l, _ in defaults) + " |")
    print("|---|---|---|---|---|" + "---|" * len(defaults))
    within = [0] * len(defaults)
    for key in sorted(best):
        t, v = best[key]
        cells = []
        for i, (_, d) in enumerate(defaults):
            if key not in d:
                cells.append("–")
                continue
            ratio = d[key][0] / t
            within[i] += ratio <= 1.05
            cells.append(f"{d[key][1]} {ratio:.2f}")
        print(f"| {key[0]} | {key[1]} | {key[2]} | {v} | {t * 1e6:.1f} | " + " | ".join(cells) + " |")
    print()
    for (label, d), w in zip(defaults, within):
        print(f"{label}: within 5% of the fastest at {w} of {sum(1 for k in best if k in d)} points")


if __name__ == "__main__":
    main(sys.argv[1:])
