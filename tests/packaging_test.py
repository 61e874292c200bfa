#!/usr/bin/env python3
"""Checks the Spack recipe (packaging/spack/fastred/package.py) without Spack:
a stand-in `spack.package` module records its directives, then the recipe's
own install() runs, with `which("bash")` a real bash in the repository, for
the MPI named on the command line — the same ci/install.sh command CI runs.

usage: tests/packaging_test.py PREFIX mpich|openmpi
"""
import importlib.util
import os
import subprocess
import sys
import types

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
prefix, flavour = sys.argv[1], sys.argv[2]
directives = []


def directive(name):
    def record(*args, **kwargs):
        directives.append((name, args, kwargs))
    return record


class Prefix(str):
    """Spack's prefix: attribute access joins path components."""
    def __getattr__(self, name):
        return Prefix(os.path.join(self, name))


class Executable:
    def __init__(self, path):
        self.path = path

    def __call__(self, *args):
        print("spack would run:", self.path, *args, flush=True)
        subprocess.run([self.path, *args], cwd=root, check=True)


class Package:
    def __init__(self, spec):
        self.spec = spec
        self.prefix = Prefix(prefix)


stub = types.ModuleType("spack.package")
for name in ["version", "depends_on", "conflicts", "maintainers", "license", "variant", "patch"]:
    setattr(stub, name, directive(name))
stub.Package = Package
stub.which = lambda name: Executable(subprocess.run(["which", name], capture_output=True, text=True, check=True).stdout.strip())
stub.join_path = os.path.join
stub.__all__ = [n for n in dir(stub) if not n.startswith("_")]
sys.modules["spack"] = types.ModuleType("spack")
sys.modules["spack.package"] = stub

spec_path = os.path.join(root, "packaging/spack/fastred/package.py")
module_spec = importlib.util.spec_from_file_location("fastred_spack_package", spec_path)
recipe = importlib.util.module_from_spec(module_spec)
module_spec.loader.exec_module(recipe)


class MpiSpec:
    mpicc = f"mpicc.{flavour}"


class Spec:
    def satisfies(self, constraint):
        return constraint == f"^{flavour}"

    def __getitem__(self, name):
        assert name == "mpi", name
        return MpiSpec()


failures = []
deps = {args[0] for name, args, _ in directives if name == "depends_on"}
for needed in ["mpi", "rust@1.80:"]:
    if needed not in deps:
        failures.append(f"recipe does not depend on {needed} (has {sorted(deps)})")
if not any(name == "version" for name, _, _ in directives):
    failures.append("recipe declares no version")

pkg = recipe.Fastred(Spec())
command = pkg.install_command(Prefix(prefix))
want = ["ci/install.sh", "--prefix", prefix, "--mpi", flavour, "--mpicc", f"mpicc.{flavour}", "--no-setup"]
if command != want:
    failures.append(f"install command {command}, expected {want}")
pkg.install(Spec(), Prefix(prefix))
lib = os.path.join(prefix, "lib/fastred", flavour, "libfastred.so")
if not os.path.exists(lib):
    failures.append(f"{lib} not installed")


class Env:
    def __init__(self):
        self.vars = {}

    def set(self, k, v):
        self.vars[k] = v

    def prepend_path(self, k, v):
        self.vars[k] = v


env = Env()
pkg.setup_run_environment(env)
if env.vars.get("FASTRED_PRELOAD") != lib:
    failures.append(f"FASTRED_PRELOAD={env.vars.get('FASTRED_PRELOAD')}, expected {lib}")

for f in failures:
    print("FAIL:", f)
print(f"spack recipe ({flavour}): {'OK' if not failures else 'FAILED'}")
sys.exit(1 if failures else 0)
