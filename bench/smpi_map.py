#!/usr/bin/env python3
"""The fastest algorithm per (collective, p, size) of ci/smpi/sweep.sh CSVs,
and fastred's default checked against it (Rabenseifner 2004 Figure 4, at scale).

usage: bench/smpi_map.py CSV... [--suffix /free]

For each collective: a map (rows: sizes, columns: p) of the fastest variant
(fastred's algorithms by name, SMPI's built-ins as native:NAME), then per
point the default's time over the fastest's ("default/best", 1.00 = the
fastest; > 1.05 misses issue 13's 5% target) and the speed-up of the default
over SMPI's `mpich` and `ompi` selectors.
--suffix S: fastred's variants are those named with S (sweep.sh --suffix, e.g.
"/free": reductions not charged, like SMPI's built-ins), S removed; its other
rows are left out. SMPI's built-ins (native, native:NAME) are always in.
"""
import csv
import sys
from collections import defaultdict


def human(b):
    b = int(b)
    for unit, size in (("M", 1 << 20), ("K", 1 << 10)):
        if b >= size and b % size == 0:
            return f"{b // size}{unit}"
    return f"{b}"


def grid(title, column, ps, sizes, cell):
    """A Markdown table: one row per size, one column per process count."""
    print(f"\n{title}\n")
    print("| bytes | " + " | ".join(column.format(p) for p in ps) + " |")
    print("|---|" + "---|" * len(ps))
    for b in sizes:
        print(f"| {human(b)} | " + " | ".join(cell(p, b) for p in ps) + " |")


def main():
    args = sys.argv[1:]
    suffix = ""
    if "--suffix" in args:
        i = args.index("--suffix")
        suffix = args[i + 1]
        del args[i:i + 2]
    files = args
    if not files:
        raise SystemExit(__doc__)
    times = defaultdict(dict)  # (coll, p, bytes) -> variant -> seconds
    ran = {}
    for f in files:
        with open(f) as fh:
            for r in csv.DictReader(fh):
                key = (r["collective"], int(r["procs"]), int(float(r["bytes"])))
                variant = r["variant"]
                if not variant.startswith("native"):
                    if not variant.endswith(suffix) or (not suffix and "/" in variant):
                        continue
                    variant = variant[: len(variant) - len(suffix)]
                times[key][variant] = float(r["median_s"])
                if variant == "default":
                    ran[key] = r["algorithm"]
    for coll in sorted({k[0] for k in times}):
        ps = sorted({k[1] for k in times if k[0] == coll})
        sizes = sorted({k[2] for k in times if k[0] == coll})

        def fastest(t, key):
            if not t:
                return ""
            best = min(t, key=t.get)
            return best + (f" ({ran[key]} / {t['default'] / t[best]:.2f})" if "default" in t else "")

        def selectors(t, key):
            d = t.get("default")
            return ", ".join(f"{t[v] / d:.2f}" if d and v in t else "-" for v in ("native:mpich", "native:ompi"))

        grid(f"### {coll}: fastest variant (default's choice / default time over the fastest)", "p = {}",
             ps, sizes, lambda p, b: fastest(times.get((coll, p, b), {}), (coll, p, b)))
        grid(f"{coll}: default's speed-up over SMPI's selectors (their time / default's)", "p = {}: mpich, ompi",
             ps, sizes, lambda p, b: selectors(times.get((coll, p, b), {}), (coll, p, b)))
    misses = [(k, t["default"] / min(t.values())) for k, t in times.items() if "default" in t and t["default"] > 1.05 * min(t.values())]
    n = sum(1 for t in times.values() if "default" in t)
    print(f"\ndefault within 5% of the fastest at {n - len(misses)} of {n} points")
    for (coll, p, b), r in sorted(misses):
        t = times[(coll, p, b)]
        print(f"  miss: {coll} p = {p} {human(b)}: default ({ran[(coll, p, b)]}) {r:.2f}x the fastest ({min(t, key=t.get)})")


if __name__ == "__main__":
    main()
