"""The default's time over the fastest algorithm's, before and after a table
change, for the compare.py scripts of docs/results/smpi/*/.

`points` maps a key (platform, ranks per host K, processes, collective,
bytes) to {"algos": {variant: seconds}, "before": (seconds, algorithm) or
None, "after": (seconds, algorithm) or None}. `report` prints the points
where before or after is above 1.05 (every point with show_all), then one
summary line: worst before -> after, points above 1.05, after over before
(range, geometric mean) and how many points got slower by more than 5%.
"""
import csv, glob, math, os, re, subprocess, sys


def drop(points, variant):
    """The points without `variant` among their algorithms (e.g. SMPI's own
    `native`, which the simulation does not charge for its reductions)."""
    for p in points.values():
        p["algos"].pop(variant, None)
    return points


# What may follow `-Kpn` in a sweep file's name before `.csv` (and
# `-cyclic`): `-small`, a sweep's few smallest machines; `-uneven`, p not a
# multiple of K (bench/price_table.py, bench/with_rows.py).
MACHINE_TAG = r"(?:-small|-uneven)?"


# Size bands (bytes, inclusive) of the 1 Gbit/s Ethernet reports
# (docs/results/smpi/gbe/compare.py, bench/price_table.py).
GBE_BANDS = [(0, 1024), (1025, 8192), (8193, 65536), (65537, 1 << 20), ((1 << 20) + 1, 1 << 30)]


def drop_unselectable(points):
    """The points without the variants no table rule can choose: SMPI's own
    `native` (the simulation does not charge its reductions), `shared_memory`
    (one host only: elsewhere it runs another algorithm's choice) and
    `reproducible` (FASTRED_REPRODUCIBLE's mode)."""
    for variant in ("native", "shared_memory", "reproducible"):
        drop(points, variant)
    return points


def report(points, show_all=False):
    rows, ratios, worst_b, worst_a, above_b, above_a, slower, counted = [], [], 0, 0, 0, 0, 0, 0
    for key in sorted(points):
        p = points[key]
        if p["after"] is None or not p["algos"]:
            continue
        counted += 1
        best_algo, best = min(p["algos"].items(), key=lambda kv: kv[1])
        best = min(best, p["after"][0], p["before"][0] if p["before"] else math.inf)
        a = p["after"][0] / best
        b = p["before"][0] / best if p["before"] else math.nan
        worst_a = max(worst_a, a)
        above_a += a > 1.05
        if p["before"]:
            worst_b = max(worst_b, b)
            above_b += b > 1.05
            ratios.append(p["after"][0] / p["before"][0])
            slower += ratios[-1] > 1.05
        if show_all or a > 1.05 or b > 1.05:
            platform, k, n, coll, nbytes = key
            # hosts x K, or p ranks on hosts of at most K ("p r/K") where K does not divide p
            shape = f"{n // k:>3} x {k:<3}" if n % k == 0 else f"{n:>3} r/{k:<2}"
            rows.append(f"{platform:9} {shape} {coll:21} {nbytes:>9}  before {b:5.2f} ({p['before'][1] if p['before'] else '-'})  "
                        f"after {a:5.2f} ({p['after'][1]})  fastest {best_algo}")
    print("\n".join(rows))
    gm = math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else math.nan
    print(f"{counted} points ({len(ratios)} with a default before): default over the fastest, worst before {worst_b:.2f} -> after {worst_a:.2f}; "
          f"above 1.05: {above_b} -> {above_a}; after over before {min(ratios):.2f}-{max(ratios):.2f}, geometric mean {gm:.3f}; "
          f"after slower than before by more than 5%: {slower}")


def bands(points, edges, algos=()):
    """Per collective and size band [lo, hi] (bytes, inclusive): the worst and
    the geometric mean of the default's time over the fastest, before ->
    after, over the points that have both; then the same for each variant in
    `algos` (over the points where it was measured)."""
    gm = lambda r: math.exp(sum(map(math.log, r)) / len(r))
    for coll in sorted({key[3] for key in points}):
        for lo, hi in edges:
            b_r, a_r, alg_r = [], [], {v: [] for v in algos}
            for key, p in points.items():
                if key[3] != coll or not lo <= key[4] <= hi or not p["algos"] or not p["before"] or not p["after"]:
                    continue
                best = min(min(p["algos"].values()), p["before"][0], p["after"][0])
                b_r.append(p["before"][0] / best)
                a_r.append(p["after"][0] / best)
                for v in algos:
                    if v in p["algos"]:
                        alg_r[v].append(p["algos"][v] / best)
            if b_r:
                print(f"{coll:21} {lo:>9}-{hi:<10} {len(b_r):4} points: {max(b_r):.2f} / {gm(b_r):.2f} -> {max(a_r):.2f} / {gm(a_r):.2f}"
                      + "".join(f"  {v} {max(r):.2f} / {gm(r):.2f}" for v, r in alg_r.items() if r))


def add_rows(points, pattern, name_re, where, default_role, new_points=True):
    """Add the rows of the CSV files `pattern` (a glob) whose base names match
    `name_re`: `where(m)` gives (platform, ranks per host) from the name's
    match, `default_role(m)` where its `default` rows go ("before", "after",
    or None: left out); the other variants, but `default/...`, are
    algorithms. With new_points=False, only to points already there."""
    for f in sorted(glob.glob(pattern)):
        m = re.search(name_re, os.path.basename(f))
        if not m:
            continue
        platform, k = where(m)
        role = default_role(m)
        for r in csv.DictReader(open(f)):
            key = (platform, k, int(r["procs"]), r["collective"], int(r["bytes"]))
            if key not in points and not new_points:
                continue
            p = points.setdefault(key, {"algos": {}, "before": None, "after": None})
            v, t = r["variant"], float(r["median_s"])
            if not v.startswith("default"):
                p["algos"][v] = min(t, p["algos"].get(v, math.inf))
            elif v == "default" and role:
                p[role] = (t, r["algorithm"])
    return points


def main(points, edges, argv, native=True):
    """The compare scripts' command line on their `points`, with `edges` the
    size bands of `bands`:

        python3 compare.py                 # points above 1.05 before or after, and a summary
        python3 compare.py all             # every point
        python3 compare.py bands           # worst / geometric mean per collective and size band
        python3 compare.py --no-native ... # against fastred's algorithms only (SMPI's own are
                                           # not charged for their reductions)
        python3 compare.py --native ...    # SMPI's own counted too

    `native`: whether SMPI's own count when neither option is given.
    """
    if "--no-native" in argv or (not native and "--native" not in argv):
        drop(points, "native")
    if "bands" in argv:
        bands(points, edges)
    else:
        report(points, "all" in argv)


def explain_choice(coll, procs, nbytes, k, nhalf, cyclic=False, table=None):
    """The algorithm the repository's table picks for a call (`fastred
    explain` of the MPICH build, target/mpich/release/fastred): `procs`
    processes on hosts of `k` in blocks or dealt round robin (`cyclic`), n½
    `nhalf` (a string such as "30K"); with `table`, the one that
    FASTRED_TUNING file picks instead."""
    cli = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "mpich", "release", "fastred")
    if not os.path.exists(cli):
        sys.exit(f"{cli} is missing: build it (bash ci/build.sh)")
    args = [cli, "explain", "--coll", coll, "--procs", str(procs), "--bytes", str(nbytes),
            "--ranks-per-host", str(k), "--nhalf", nhalf] + (["--cyclic"] if cyclic else [])
    env = dict(os.environ, FASTRED_TUNING=table) if table else None
    out = subprocess.run(args, capture_output=True, text=True, check=True, env=env).stdout
    return re.search(r"decision: (\S+)", out)[1]


def after_from_table(points, cyclic, nhalf="30K"):
    """Points without an `after` default row take the row of the algorithm the
    repository's table now picks there ([`explain_choice`]), labelled
    "ALGORITHM (its row)". Simulated runs are deterministic: where both were
    run, a default row and its algorithm's row agree within 0.2%. Points
    whose algorithm has no row stay without."""
    return role_from_table(points, "after", cyclic, nhalf)


def role_from_table(points, role, cyclic, nhalf="30K", table=None):
    """[`after_from_table`] for `role` ("before" or "after"), with the
    choices of the FASTRED_TUNING file `table` (None: the repository's)."""
    for (platform, k, n, coll, nbytes), p in points.items():
        if p[role] is not None:
            continue
        algorithm = explain_choice(coll, n, nbytes, k, nhalf, cyclic, table)
        if algorithm in p["algos"]:
            p[role] = (p["algos"][algorithm], f"{algorithm} (its row)")
    return points


def compare_dir(script, roles, edges, native=False, after_from=None):
    """A data directory's compare.py: the CSV files beside `script` named
    KIND-PLATFORM-Kpn.csv (K ranks per host) with KIND a key of `roles`, whose
    `default` rows go to roles[KIND] ("before", "after" or None; the other
    variants are algorithms), then `main` on the command line. With
    after_from="blocks" or "cyclic", points without an after row take one by
    `after_from_table`."""
    here = os.path.dirname(os.path.abspath(script))
    kinds = "|".join(map(re.escape, roles))
    points = add_rows({}, os.path.join(here, "*.csv"), rf"^({kinds})-(fattree|torus|dragonfly)-(\d+)pn\.csv$",
                      lambda m: (m[2], int(m[3])), lambda m: roles[m[1]])
    if after_from:
        after_from_table(points, after_from == "cyclic")
    main(points, edges, sys.argv[1:], native)


def candidates_table(points, names):
    """A markdown table in ms, one row per point: the default before, each
    candidate of `names`, the default after, after over before and after
    over the fastest of all (for compare.py scripts whose candidates are
    few enough to show)."""
    cell = lambda role: f"{role[1]} {role[0] * 1e3:.2f}" if role else "-"
    print("| network | collective | bytes | before | " + " | ".join(names) + " | after | after / before | after / fastest |")
    print("|---" * (len(names) + 7) + "|")
    for (platform, k, n, coll, nbytes), p in sorted(points.items()):
        before, after = p["before"], p["after"]
        ms = [f"{p['algos'][a] * 1e3:.2f}" if a in p["algos"] else "-" for a in names]
        fastest = min([*p["algos"].values(), *(r[0] for r in (before, after) if r)])
        ratio = f"{after[0] / before[0]:.2f}" if after and before else "-"
        versus = f"{after[0] / fastest:.2f}" if after else "-"
        print(f"| {platform} | {coll} | {nbytes} | {cell(before)} | " + " | ".join(ms) + f" | {cell(after)} | {ratio} | {versus} |")
