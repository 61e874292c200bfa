#!/bin/bash
# The churn cycle (tests/mpi/churn.c: dup or split, one 4-byte allreduce,
# free) under several builds of libfastred.so, one run of each after the
# other, RUNS rounds, np 2 on this host; prints per build the medians of the
# runs' "best batches" ratios (fastred / native) and of fastred's extra µs.
# Run on an idle machine (docs/reliability.md).
#
# usage: bench/churn_builds.sh mpich|openmpi RUNS LIB.so...
set -euo pipefail
flavour=$1 runs=$2; shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"mpicc.$flavour" -O1 -Wno-unused-function -I"$root/include" -o "$work/churn" "$root/tests/mpi/churn.c"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 FASTRED_NHALF=1K
for _ in $(seq "$runs"); do
    for lib in "$@"; do
        if [ "$flavour" = openmpi ]; then
            out=$(mpirun.openmpi --oversubscribe --bind-to none -np 2 -x FASTRED_NHALF -x LD_PRELOAD="$lib" "$work/churn" 10000 100 100000 2>&1 || true)
        else
            out=$(mpirun.mpich -np 2 env LD_PRELOAD="$lib" "$work/churn" 10000 100 100000 2>&1 || true)
        fi
        echo "$out" | sed -n 's/^churn (\([a-z]*\) + .*native \([0-9.]*\) us, fastred \([0-9.]*\) us.*ratio \([0-9.]*\) .*/\1 \2 \3 \4/p' | sed "s|^|$lib |"
    done
done > "$work/runs"
python3 - "$work/runs" "$@" <<'PY'
import sys, statistics as st
rows = [l.split() for l in open(sys.argv[1])]
for lib in sys.argv[2:]:
    line = [lib + ":"]
    for kind in ("dup", "split"):
        r = [x for x in rows if x[0] == lib and x[1] == kind]
        if r:
            line.append(f"{kind} {st.median(float(x[4]) for x in r):.2f}x (+{st.median(float(x[3]) - float(x[2]) for x in r):.2f} us, {len(r)} runs)")
    print("  ".join(line))
PY
