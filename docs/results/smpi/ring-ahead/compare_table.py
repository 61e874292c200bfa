#!/usr/bin/env python3
"""The table's ring rules of stop 68 (docs/smpi.md "The ring's receives posted
a step ahead"): the default's time over the fastest algorithm's, with the
table before them (c50ad9c's, `git show`) as "before" and the repository's
as "after", each taking its algorithm's row (`fastred explain`, n½ 30 KiB):

- `long-last-host` and `lane-spread` (its hosts in blocks): the sweeps of
  docs/results/smpi/long-last-host/ and lane-spread/ with their ring rows
  replaced by resweep-long-last-host/ and resweep-lane-spread/ (the same
  points, the ring with its receives ahead);
- `blocks16`: after-blocks16-*.csv here (hosts of 16 at 100 and 200);
- `twohosts`: twohosts-*.csv here (2 hosts of 16 and 24, 128 KiB-2 MiB);
- `k512`: k512-*.csv here (512 KiB at 33-64 processes on hosts of 8-24).

    python3 compare.py [all | bands]     (run from anywhere)
"""
import glob, os, re, subprocess, sys, tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "..", "bench"))
from default_vs_fastest import add_rows, main, role_from_table

old = tempfile.NamedTemporaryFile("w", suffix=".table", delete=False)
old.write(subprocess.run(["git", "-C", here, "show", "c50ad9c:src/tuning/default.table"], capture_output=True, text=True, check=True).stdout)
old.close()
where = lambda m: (m[2], int(m[3]))
points = {}
for sweeps, kinds in (("long-last-host", r"\w+"), ("lane-spread", "before-after|more|third|half|other")):
    these = add_rows({}, os.path.join(here, "..", sweeps, "*.csv"), rf"^({kinds})-(fattree|torus|dragonfly)-(\d+)pn\.csv$", where, lambda m: None)
    for p in these.values():
        p["algos"].pop("ring", None)
    add_rows(these, os.path.join(here, "resweep-" + sweeps, "*.csv"), rf"^({kinds})-(fattree|torus|dragonfly)-(\d+)pn-g\d+\.csv$", where, lambda m: None, new_points=False)
    for key, p in these.items():
        if key in points:
            for v, t in p["algos"].items():
                points[key]["algos"][v] = min(t, points[key]["algos"].get(v, t))
        else:
            points[key] = p
add_rows(points, os.path.join(here, "after-blocks16-*.csv"), r"^after-(blocks16)-(fattree|torus|dragonfly)\.csv$", lambda m: (m[2], 16), lambda m: None)
add_rows(points, os.path.join(here, "*-*pn.csv"), r"^(twohosts|k512)-(fattree|torus|dragonfly)-(\d+)pn\.csv$", where, lambda m: None)
role_from_table(points, "before", False, table=old.name)
role_from_table(points, "after", False)
os.unlink(old.name)
main(points, [(0, 4 << 20), ((4 << 20) + 1, 8 << 20), ((8 << 20) + 1, 1 << 30)], sys.argv[1:], native=False)
