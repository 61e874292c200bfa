#!/usr/bin/env bash
# Instructions fastred adds to a call it hands to the library (or runs), per
# call, counted by callgrind: bench/latency.c run with 2000 and 6000 calls
# under `valgrind --tool=callgrind --toggle-collect=MPI_Allreduce`, the
# difference divided by 4000 (set-up cancels), split by object. Noise-free,
# unlike the timings of docs/per-call-overhead.md.
#
# usage: bench/handover_cost.sh openmpi|mpich LIBDIR [VAR=value...]
#   e.g. bench/handover_cost.sh openmpi target/openmpi/release
#        bench/handover_cost.sh mpich target/mpich/release FASTRED_ALGO=recursive_doubling
set -euo pipefail
mpi=${1:?usage: $0 openmpi|mpich LIBDIR [VAR=value...]}
lib=$(cd "${2:?LIBDIR}" && pwd)/libfastred.so
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
"mpicc.$mpi" -O2 -o "$work/latency" "$root/bench/latency.c"
xs=()
for v in "$@"; do xs+=(-x "$v"); done
for n in 2000 6000; do
    vg=(valgrind --tool=callgrind "--callgrind-out-file=$work/cg.$n.%p" --toggle-collect=MPI_Allreduce "$work/latency" "$n" 1)
    if [ "$mpi" = openmpi ]; then
        mpirun.openmpi -np 2 -x LD_PRELOAD="$lib" "${xs[@]}" "${vg[@]}" >/dev/null 2>&1
    else
        mpirun.mpich -np 2 env LD_PRELOAD="$lib" "$@" "${vg[@]}" >/dev/null 2>&1
    fi
done
python3 - "$work" <<'P'
import glob, re, subprocess, sys
work = sys.argv[1]
def by_object(f):
    out = subprocess.run(["callgrind_annotate", "--inclusive=no", "--threshold=100", f], capture_output=True, text=True).stdout
    objs = {}
    for line in out.splitlines():
        m = re.match(r"\s*([\d,]+)\s+\([^)]*\)\s+[^=\s].*\[(\S+)\]\s*$", line)
        if m:
            obj = m.group(2).rsplit("/", 1)[-1]
            objs[obj] = objs.get(obj, 0) + int(m.group(1).replace(",", ""))
    return objs
pids = lambda n: sorted(glob.glob(f"{work}/cg.{n}.*"))
for rank, (a, b) in enumerate(zip(pids(2000), pids(6000))):
    A, B = by_object(a), by_object(b)
    per = {o: (B.get(o, 0) - A.get(o, 0)) / 4000 for o in set(A) | set(B)}
    own = per.get("libfastred.so", 0)
    tls = sum(v for o, v in per.items() if o.startswith("ld-linux"))
    print(f"process {rank}: {own:.0f} instructions per call in libfastred.so, {tls:.0f} in ld.so (thread-local lookups)")
P
