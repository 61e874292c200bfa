# Spack package recipe for fastred. Use it from this repository:
#   spack repo create ~/fastred-repo && cp -r packaging/spack/fastred ~/fastred-repo/packages/
#   spack repo add ~/fastred-repo && spack install fastred ^mpich   (or ^openmpi)
# It runs the same install command CI tests (ci/install.sh), with the MPI of
# the spec's compiler wrapper; `tests/packaging_test.py` checks that it parses
# and what it runs.

import os

from spack.package import *


class Fastred(Package):
    """fastred: faster MPI_Allreduce, MPI_Reduce, MPI_Reduce_scatter and
    MPI_Reduce_scatter_block (Rabenseifner, Traff, Patarasuk & Yuan algorithms)
    by interposition through the PMPI profiling layer: preload it or link it in."""

    homepage = "https://github.com/fastred/fastred"
    # Where to fetch fastred from: FASTRED_GIT (a site's mirror) or the
    # project's repository; `spack dev-build fastred@main` builds a checkout.
    git = os.environ.get("FASTRED_GIT", "https://github.com/fastred/fastred.git")

    maintainers("fastred")
    license("MIT")

    version("main", branch="main")

    depends_on("rust@1.80:", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("llvm", type="build")  # libclang for bindgen (mpi-sys)
    depends_on("mpi")

    # Built and tested against MPICH and Open MPI (the two ABIs its C shim
    # and handle tables know).
    conflicts("^intel-oneapi-mpi", msg="fastred supports MPICH and Open MPI")
    conflicts("^mvapich2", msg="fastred supports MPICH and Open MPI")

    def flavour(self):
        return "openmpi" if self.spec.satisfies("^openmpi") else "mpich"

    def install_command(self, prefix):
        """The command ci/install.sh runs, as CI runs it (tests/packaging_test.py)."""
        return [
            "ci/install.sh",
            "--prefix", str(prefix),
            "--mpi", self.flavour(),
            "--mpicc", self.spec["mpi"].mpicc,
            "--no-setup",
        ]

    def install(self, spec, prefix):
        bash = which("bash")
        bash(*self.install_command(prefix))

    def setup_run_environment(self, env):
        env.set("FASTRED_PRELOAD", join_path(self.prefix.lib.fastred, self.flavour(), "libfastred.so"))
        env.set("FASTRED_LIBDIR", self.prefix.lib.fastred)
        env.prepend_path("PKG_CONFIG_PATH", self.prefix.lib.pkgconfig)
