#!/usr/bin/env bash
# Set up, build both MPIs' libfastred.so, and run every test:
#  1. Rust unit and in-process algorithm tests (exhaustive p, counts, roots);
#  2. the stale-bindings guard (a build whose mpi-sys bindings came from the
#     other MPI must not compile);
#  3. real-MPI tests under mpirun for MPICH and Open MPI (tests/run_mpi_tests.sh),
#     including the fastred command-line tool;
#  4. the install into a temporary prefix, used from there (tests/install_test.sh);
#  5. a smoke run of the emulated TCP cluster (ci/cluster/smoke.sh; skipped with
#     a message where network namespaces are not permitted);
#  6. a smoke run of the SimGrid SMPI build at 64 and 100 simulated ranks
#     (ci/smpi/smoke.sh; skipped with a message where SimGrid cannot be installed).
# Ends with one summary line "N passed, M failed" (test suites) and exits non-zero on failure.
set -uo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh || exit 1
[ -f "$HOME/.cargo/env" ] && . "$HOME/.cargo/env"
bash ci/build.sh || exit 1

passed=0
failed=0
suite() { # name command...
    local name=$1; shift
    echo
    echo "######## $name"
    local start=$SECONDS
    if "$@"; then passed=$((passed + 1)); echo "######## $name: passed ($((SECONDS - start)) s)"
    else failed=$((failed + 1)); echo "######## $name: FAILED ($((SECONDS - start)) s)"; fi
}

# The algorithm suites (in-process, counting) do not touch MPI: run them once;
# the unit tests run against both builds.
suite "cargo test (mpich build: unit, in-process algorithms, cost formulas)" \
    env MPICC=mpicc.mpich CARGO_TARGET_DIR=target/mpich cargo test --release --quiet
suite "cargo test (openmpi build: unit)" \
    env MPICC=mpicc.openmpi CARGO_TARGET_DIR=target/openmpi cargo test --release --quiet --lib

stale_bindings_fail_to_compile() {
    rm -rf target/stale-check
    cp -a target/mpich target/stale-check # keeps timestamps: mpi-sys does not rebuild
    local log=target/stale-check.log
    if MPICC=mpicc.openmpi CARGO_TARGET_DIR=target/stale-check cargo build --release >"$log" 2>&1; then
        echo "an Open MPI build with MPICH's mpi-sys bindings compiled"; return 1
    fi
    grep -q "OMPI_MAJOR_VERSION" "$log" && echo "stale MPICH bindings + MPICC=mpicc.openmpi: compile error, as intended"
    local ok=$?
    rm -rf target/stale-check
    return $ok
}
suite "stale mpi-sys bindings are a compile error" stale_bindings_fail_to_compile

for f in openmpi mpich; do
    suite "MPI tests ($f)" bash tests/run_mpi_tests.sh "$f"
done

suite "install into a prefix (pkg-config C and Fortran, fastred run, Lmod module, Spack recipe)" \
    bash tests/install_test.sh

suite "emulated cluster smoke run (Open MPI over TCP, 4 namespaces)" bash ci/cluster/smoke.sh

suite "SimGrid SMPI smoke run (64 and 100 simulated ranks, results and α-β-γ formulas checked)" bash ci/smpi/smoke.sh

echo
echo "test suites: $passed passed, $failed failed"
((failed == 0))
