#!/usr/bin/env bash
# Short vectors on small shared hosts, both MPIs: for each shape HxK (H hosts
# of K ranks, in blocks) the emulated cluster at 50 Mbit/s, then RUNS rounds of
# one `fastred bench --latency` run per MPI (allreduce and reduce, 8 B-8 KiB,
# native, the default and ALGOS alternating). Results OUT/MPI-hHxK-rN.csv
# (and .log, with the n½ the library measured: FASTRED_LOG=info), for
# bench/variant_ratios.py and bench/shape_minimax.py (docs/one-host.md
# "Short vectors on a slow network, 2-4 ranks per host").
#   ci/cluster/short_shapes.sh OUT RUNS "2x2 3x2 2x3 4x2 2x4" [ALGOS]
# SIZES=A:B (8:8K), COLLS=... (allreduce,reduce) change the sweep.
# Needs ci/build.sh (both MPIs); about 15 s per shape and round.
set -uo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 3 ] || { sed -n '2,10p' "$0"; exit 2; }
out=$1 runs=$2 shapes=$3
algos=${4:-native,default,recursive_doubling,tree,knomial_tree,rabenseifner,hierarchical,circulant}
cluster="bash ci/cluster/cluster.sh"
mkdir -p "$out"
trap '$cluster down >/dev/null 2>&1' EXIT
for shape in $shapes; do
    $cluster down >/dev/null 2>&1
    $cluster up star "${shape%x*}" --rate 50mbit --ranks-per-host "${shape#*x}" >/dev/null || exit 1
    for run in $(seq 1 "$runs"); do
        for mpi in mpich openmpi; do
            launcher="$cluster run"; [ $mpi = mpich ] && launcher="$cluster run-mpich"
            FASTRED_LOG=info target/$mpi/release/fastred bench --mpi $mpi --launcher "$launcher" \
                --csv "$out/$mpi-h$shape-r$run.csv" -- --link-rate 50mbit --reps 5 --quiet --latency \
                --colls "${COLLS:-allreduce,reduce}" --sizes "${SIZES:-8:8K}" --factor 2 --algos "$algos" > "$out/$mpi-h$shape-r$run.log" 2>&1 \
                || echo "$mpi $shape run $run: exit $?"
        done
    done
done
