#!/usr/bin/env bash
# Build libfastred.so for MPICH and for Open MPI, each in its own target dir:
#   target/mpich/release/libfastred.so, target/openmpi/release/libfastred.so
# usage: ci/build.sh [mpich|openmpi ...]   (default: both)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f "$HOME/.cargo/env" ] && . "$HOME/.cargo/env"
flavours=("$@")
((${#flavours[@]})) || flavours=(mpich openmpi)
for f in "${flavours[@]}"; do
    echo "== building libfastred.so for $f"
    MPICC="mpicc.$f" CARGO_TARGET_DIR="target/$f" cargo build --release --quiet
    ls -l "target/$f/release/libfastred.so"
done
