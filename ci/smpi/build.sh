#!/bin/bash
# Install SimGrid's SMPI (Debian's libsimgrid-dev) and build libfastred.so
# against it: target/smpi/release/libfastred.so. Exit 3 (with a message) where
# SimGrid cannot be installed.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v smpicc > /dev/null; then
    sudo= ; [ "$(id -u)" -ne 0 ] && sudo=sudo
    # The first install sometimes fails in dpkg ("cannot access archive"); a second works.
    $sudo apt-get install -y libsimgrid-dev > /tmp/fastred-simgrid-install.log 2>&1 \
        || $sudo apt-get install -y libsimgrid-dev >> /tmp/fastred-simgrid-install.log 2>&1 \
        || { echo "ci/smpi/build.sh: cannot install libsimgrid-dev (see /tmp/fastred-simgrid-install.log)"; exit 3; }
fi
[ -f "$HOME/.cargo/env" ] && . "$HOME/.cargo/env"
# Without debug info (17 MB -> a few MB): SMPI copies the library once per
# simulated rank, so 1024 ranks would copy 18 GB.
MPICC=smpicc CARGO_TARGET_DIR=target/smpi CARGO_PROFILE_RELEASE_DEBUG=0 cargo build --release --lib --quiet
ls -l target/smpi/release/libfastred.so
