#!/usr/bin/env bash
# CI smoke run of the emulated cluster: 4 hosts on one switch at 100 Mbit/s,
# Open MPI over TCP, one 1 MiB allreduce size, native vs the ring vs the
# default choice through `fastred bench` (which checks every result). Keeps the
# harness working; makes no performance claim. Skips (exit 0, with a message)
# where network namespaces are not permitted.
set -uo pipefail
cd "$(dirname "$0")/../.."
cluster=ci/cluster/cluster.sh
if ! bash $cluster check; then
    echo "cluster smoke: SKIPPED: this machine does not permit network namespaces/tc (needs root and CAP_NET_ADMIN)"
    exit 0
fi
trap 'bash $cluster down >/dev/null 2>&1' EXIT
out=build/cluster-smoke
rm -rf "$out"; mkdir -p "$out"
bash $cluster up star 4 --rate 100mbit || exit 1
timeout 300 target/openmpi/release/fastred bench --mpi openmpi --launcher "bash $cluster run" \
    --csv "$out/smoke.csv" --plot "$out/plots" -- --colls allreduce --sizes 1M:1M --algos native,default,ring \
    --reps 2 --link-rate 100mbit 2>&1 | tee "$out/smoke.log"
rc=${PIPESTATUS[0]}
rows=$(grep -c '^allreduce,4,1048576,' "$out/smoke.csv" 2>/dev/null || echo 0)
if [ "$rc" = 0 ] && [ "$rows" = 3 ] && [ -f "$out/plots/busbw-allreduce-p4.svg" ]; then
    echo "cluster smoke: OK (4 hosts, allreduce 1 MiB: native, default, ring ran and were checked)"
else
    echo "cluster smoke: FAILED (rc=$rc, $rows result rows; log: $out/smoke.log)"
    exit 1
fi
