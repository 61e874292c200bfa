#!/usr/bin/env bash
# Build and install fastred into a prefix, as an HPC library:
#   PREFIX/lib/fastred/<mpi>/libfastred.so      one build per MPI
#   PREFIX/lib/pkgconfig/fastred-<mpi>.pc       link flags for C and Fortran builds
#   PREFIX/bin/fastred                          the tool (finds the builds above)
#   PREFIX/include/fastred.h                    fastred's own C API
#   PREFIX/share/fastred/                       tuning tables, benchmark sources, demo
#   PREFIX/share/modulefiles/fastred-<mpi>/VERSION.lua   Lmod modules
#
# usage: ci/install.sh --prefix DIR [--mpi mpich|openmpi]... [--mpicc WRAPPER] [--no-setup]
#   --mpi      the MPIs to build for (default: both); repeat or comma-separate
#   --mpicc    the compiler wrapper of the one --mpi given (default mpicc.<mpi>;
#              Spack passes its MPI's mpicc)
#   --no-setup do not install Debian packages (ci/setup.sh); for package managers
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
prefix="" mpis=() mpicc="" setup=1
while (($#)); do
    case $1 in
        --prefix) prefix=${2:?--prefix needs a directory}; shift 2 ;;
        --mpi) IFS=, read -ra more <<<"${2:?--mpi needs mpich or openmpi}"; mpis+=("${more[@]}"); shift 2 ;;
        --mpicc) mpicc=${2:?--mpicc needs a compiler wrapper}; shift 2 ;;
        --no-setup) setup=0; shift ;;
        -h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "ci/install.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
[ -n "$prefix" ] || { echo "ci/install.sh: --prefix DIR is required" >&2; exit 2; }
((${#mpis[@]})) || mpis=(mpich openmpi)
for f in "${mpis[@]}"; do
    [[ $f == mpich || $f == openmpi ]] || { echo "ci/install.sh: unknown MPI '$f' (mpich or openmpi)" >&2; exit 2; }
done
if [ -n "$mpicc" ] && ((${#mpis[@]} != 1)); then
    echo "ci/install.sh: --mpicc needs exactly one --mpi" >&2; exit 2
fi
((setup)) && bash "$root/ci/setup.sh"
[ -f "$HOME/.cargo/env" ] && . "$HOME/.cargo/env"
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -1)

for f in "${mpis[@]}"; do
    echo "== building fastred for $f"
    (cd "$root" && MPICC="${mpicc:-mpicc.$f}" CARGO_TARGET_DIR="target/$f" cargo build --release --quiet)
    built="$root/target/$f/release"
    install -Dm755 "$built/libfastred.so" "$prefix/lib/fastred/$f/libfastred.so"
    install -Dm755 "$built/fastred" "$prefix/bin/fastred"
    libdir="$prefix/lib/fastred/$f"
    # --no-as-needed: the program calls MPI_* through libmpi's names, so a
    # linker dropping "unused" libraries (Debian's default) would drop fastred.
    # Listed before the MPI library (which the compiler wrapper appends last),
    # its MPI_Allreduce & co. are the ones the program's calls bind to.
    mkdir -p "$prefix/lib/pkgconfig"
    cat >"$prefix/lib/pkgconfig/fastred-$f.pc" <<EOF
prefix=$prefix
libdir=\${prefix}/lib/fastred/$f
includedir=\${prefix}/include

Name: fastred-$f
Description: fastred's MPI_Allreduce, MPI_Reduce, MPI_Reduce_scatter(_block) for $f (PMPI interposition); link with the MPI's compiler wrapper
Version: $version
Libs: -L\${libdir} -Wl,-rpath,\${libdir} -Wl,--no-as-needed -lfastred -Wl,--as-needed
Cflags: -I\${includedir}
EOF
    mkdir -p "$prefix/share/modulefiles/fastred-$f"
    other=$([ "$f" = mpich ] && echo openmpi || echo mpich)
    cat >"$prefix/share/modulefiles/fastred-$f/$version.lua" <<EOF
-- Lmod module for fastred $version, $f build (written by ci/install.sh).
help([[
fastred $version for $f: faster MPI_Allreduce, MPI_Reduce and MPI_Reduce_scatter
through the PMPI profiling layer. In a job script, either
    fastred run mpirun -np N ./app
or preload it yourself:
    mpirun ... env LD_PRELOAD=\$FASTRED_PRELOAD ./app
Link it in:  mpicc app.c \$(pkg-config --libs fastred-$f)
]])
whatis("Name: fastred")
whatis("Version: $version")
whatis("Description: reduction collectives for $f by PMPI interposition")
local prefix = "$prefix"
conflict("fastred-$other")
prepend_path("PATH", pathJoin(prefix, "bin"))
prepend_path("PKG_CONFIG_PATH", pathJoin(prefix, "lib/pkgconfig"))
prepend_path("CPATH", pathJoin(prefix, "include"))
setenv("FASTRED_PRELOAD", pathJoin(prefix, "lib/fastred/$f/libfastred.so"))
setenv("FASTRED_LIBDIR", pathJoin(prefix, "lib/fastred"))
EOF
done
install -Dm644 "$root/include/fastred.h" "$prefix/include/fastred.h"
for file in src/tuning/default.table src/tuning/rabenseifner2004.table bench/fastred_bench.c bench/latency.c examples/demo.c; do
    install -Dm644 "$root/$file" "$prefix/share/fastred/$(basename "$file")"
done
echo "== installed fastred $version (${mpis[*]}) into $prefix"
echo "   tool:       $prefix/bin/fastred"
echo "   pkg-config: PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --libs fastred-${mpis[0]}"
echo "   modules:    module use $prefix/share/modulefiles && module load fastred-${mpis[0]}"
