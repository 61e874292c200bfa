#!/usr/bin/env bash
# The main job: set up, build fastred for both MPIs, and run a real MPI program
# on 4 ranks with and without fastred, showing the algorithm fastred chose and
# that the results are identical.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh
bash ci/build.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=build/demo
mkdir -p "$out"
for f in mpich openmpi; do
    lib="$PWD/target/$f/release/libfastred.so"
    "mpicc.$f" -O2 -o "$out/demo_$f" examples/demo.c
    echo
    echo "==================== $f: native MPI ===================="
    "mpirun.$f" -n 4 $( [ $f = openmpi ] && echo --oversubscribe ) "$out/demo_$f" | tee "$out/native_$f.txt"
    echo "==================== $f: with fastred (LD_PRELOAD, FASTRED_LOG=debug) ===================="
    "mpirun.$f" -n 4 $( [ $f = openmpi ] && echo --oversubscribe ) env LD_PRELOAD="$lib" FASTRED_LOG=debug "$out/demo_$f" 2>&1 \
        | tee "$out/fastred_$f.txt" | grep -E "fastred DEBUG rank 0|checksum"
    if diff <(grep checksum "$out/native_$f.txt") <(grep checksum "$out/fastred_$f.txt") >/dev/null; then
        echo ">> $f: results identical with and without fastred"
    else
        echo ">> $f: RESULTS DIFFER"; exit 1
    fi
done
