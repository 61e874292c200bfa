#!/usr/bin/env bash
# Install what fastred needs on Debian (bookworm): compilers, both MPIs, Fortran,
# iproute2 (tc, network namespaces) for the emulated cluster, valgrind for the
# memory-checked MPI tests, Lmod for the installed module test.
# Safe to re-run; does nothing when everything is present.
set -euo pipefail
packages=(build-essential pkg-config libclang-dev gfortran mpich libmpich-dev openmpi-bin libopenmpi-dev iproute2 util-linux valgrind python3 lmod)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "ci/setup.sh: installing ${missing[*]}"
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if ! command -v cargo >/dev/null; then
    [ -f "$HOME/.cargo/env" ] && . "$HOME/.cargo/env"
fi
command -v cargo >/dev/null || { echo "ci/setup.sh: no Rust toolchain (install rustup: https://rustup.rs)"; exit 1; }
