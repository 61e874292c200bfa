#!/usr/bin/env bash
# One host, np 2 (2 cores: not oversubscribed), shared memory: native vs
# fastred's default for all four collectives, 8 B - 16 MiB, in the latency
# mode (batches of back-to-back calls up to 64 KiB). Alternates the given
# builds run by run, so drift hits them alike, and writes one CSV per
# (MPI, build, run) plus a summary of the medians of fastred/native time.
#
# usage: bench/one_host.sh OUTDIR RUNS NAME=TARGETDIR...   (after ci/build.sh)
#   e.g. bench/one_host.sh docs/results/one-host 3 before=target/old after=target
#   (TARGETDIR/<mpich|openmpi>/release/libfastred.so)
# Environment: MPIS (default "openmpi mpich"), SIZES (default 8:16M), FACTOR (default 8).
set -euo pipefail
out=${1:?usage: $0 OUTDIR RUNS NAME=TARGETDIR...}
runs=${2:?runs}
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for mpi in ${MPIS:-openmpi mpich}; do
    exe="$out/fastred_bench.$mpi"
    "mpicc.$mpi" -O2 -o "$exe" "$root/bench/fastred_bench.c" -lm
    for run in $(seq 1 "$runs"); do
        for build in "$@"; do
            name=${build%%=*} dir=${build#*=}
            lib="$(cd "$dir" && pwd)/$mpi/release/libfastred.so"
            csv="$out/$mpi-$name-$run.csv"
            args=(--latency --algos native,default --sizes "${SIZES:-8:16M}" --factor "${FACTOR:-8}" --time 0.5 --quiet --csv "$csv")
            if [ "$mpi" = openmpi ]; then
                mpirun.openmpi -np 2 --bind-to core -x LD_PRELOAD="$lib" "$exe" "${args[@]}"
            else
                mpirun.mpich -np 2 -bind-to core env LD_PRELOAD="$lib" "$exe" "${args[@]}"
            fi
            echo "$csv"
        done
    done
done
names=()
for build in "$@"; do names+=("${build%%=*}"); done
BUILDS="${names[*]}" python3 "$root/bench/one_host_summary.py" "$out"/*.csv >"$out/summary.md"
cat "$out/summary.md"
