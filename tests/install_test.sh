#!/usr/bin/env bash
# The install, as a site would use it (issue 15): ci/install.sh into a
# temporary prefix, then, from the prefix only, for each MPI:
#  - a C program built through pkg-config (fastred.h + link flags) runs and
#    reports that fastred ran its allreduce (tests/install/linked.c);
#  - a Fortran program linked the same way prints fastred's statistics;
#  - `PREFIX/bin/fastred run` preloads the prefix's build into a plain program;
#  - the Lmod module sets PATH and FASTRED_PRELOAD (when Lmod is installed);
# and the Spack recipe's own install() (tests/packaging_test.py) runs the
# same ci/install.sh for one MPI into a second prefix.
# usage: tests/install_test.sh [WORKDIR]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d /tmp/fastred-install.XXXXXX)}
mkdir -p "$work"
prefix="$work/prefix"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
passed=0 failed=0
result() { # name ok log
    if [ "$2" = 1 ]; then passed=$((passed + 1)); echo "  ok    $1"
    else failed=$((failed + 1)); echo "  FAIL  $1 (log: $3)"; tail -15 "$3" | sed 's/^/        /'; fi
}
# expect NAME LOG PATTERN command...: the command succeeds and its output matches PATTERN.
expect() {
    local name=$1 log=$2 pattern=$3; shift 3
    local ok=1
    timeout 300 "$@" >"$log" 2>&1 </dev/null || ok=0
    grep -Eq -- "$pattern" "$log" || ok=0
    result "$name" $ok "$log"
}

echo "== install into $prefix"
expect "ci-install-both" "$work/install.log" "installed fastred .* \(mpich openmpi\) into $prefix" \
    bash "$root/ci/install.sh" --prefix "$prefix" --no-setup
for f in "$prefix/bin/fastred" "$prefix/include/fastred.h" "$prefix/share/fastred/default.table" \
    "$prefix/share/fastred/fastred_bench.c" "$prefix/lib/fastred/mpich/libfastred.so" "$prefix/lib/fastred/openmpi/libfastred.so"; do
    [ -f "$f" ] || { echo "  FAIL  missing $f"; failed=$((failed + 1)); }
done

export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
for mpi in mpich openmpi; do
    echo "== [$mpi] from the prefix"
    np=(-np 2)
    expect "$mpi-pkg-config-c" "$work/$mpi-c.log" "linked: fastred [0-9.]+ \($mpi build\), allreduce ran [a-z_:]+: OK" \
        bash -c "mpicc.$mpi -O1 -o '$work/linked_$mpi' '$root/tests/install/linked.c' \$(pkg-config --cflags --libs fastred-$mpi) \
                 && mpirun.$mpi ${np[*]} '$work/linked_$mpi'"
    expect "$mpi-pkg-config-fortran" "$work/$mpi-fortran.log" "fastred statistics \(2 processes" \
        bash -c "mpifort.$mpi -fallow-argument-mismatch -DBINDING_MPI -o '$work/fortran_$mpi' '$root/tests/fortran/reductions.F90' \
                 \$(pkg-config --libs fastred-$mpi) && FASTRED_STATS=1 mpirun.$mpi ${np[*]} $([ $mpi = openmpi ] && echo -x FASTRED_STATS) '$work/fortran_$mpi'"
    grep -q "fortran: OK" "$work/$mpi-fortran.log" || { echo "  FAIL  $mpi-pkg-config-fortran: no 'fortran: OK'"; failed=$((failed + 1)); }
    expect "$mpi-fastred-run-from-prefix" "$work/$mpi-run.log" \
        "fastred run: $mpi, preloading $prefix/lib/fastred/$mpi/libfastred.so" \
        bash -c "mpicc.$mpi -O1 -o '$work/plain_$mpi' '$root/examples/demo.c' && '$prefix/bin/fastred' run ${np[*]} '$work/plain_$mpi'"
done
expect "fastred-info-lists-installed-builds" "$work/info.log" "$prefix/lib/fastred/mpich/libfastred.so" "$prefix/bin/fastred" info

if [ -f /usr/share/lmod/lmod/init/bash ]; then
    expect "lmod-module" "$work/lmod.log" "^preload=$prefix/lib/fastred/mpich/libfastred.so tool=$prefix/bin/fastred$" \
        bash -c ". /usr/share/lmod/lmod/init/bash && module use '$prefix/share/modulefiles' && module load fastred-mpich \
                 && echo \"preload=\$FASTRED_PRELOAD tool=\$(command -v fastred)\""
else
    echo "  SKIP  lmod-module (Lmod not installed: apt-get install lmod)"
fi

echo "== the Spack recipe's install() (stand-in Spack)"
expect "spack-recipe-openmpi" "$work/spack.log" "spack recipe \(openmpi\): OK" \
    python3 "$root/tests/packaging_test.py" "$work/spack-prefix" openmpi

echo "install tests: $passed passed, $failed failed"
((failed == 0))
